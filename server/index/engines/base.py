"""The interface every full-text engine implements for `FullTextIndex`.

An engine stores documents as pre-analyzed tokens per field (field i is named ``f{i}``) keyed by
entity id, and finds candidates for a query plan ordered by its own score. `FullTextIndex` rescores
the candidates exactly; ``score_bound(plan)`` must return R with exact(d) <= R * engine_score(d) for
every matching document d, so the index knows when no unseen candidate can still enter the top k.
"""
from __future__ import annotations

from typing import Protocol

Analyzed = list          # per field: list of (position, token), or None when the entity has no string there


class FullTextEngine(Protocol):
    def write(self, deletes: list[int], adds: list[tuple[int, list]]) -> None:
        """Delete ``deletes`` then add ``adds`` [(key, per-field analyzed tokens)]; visible on return."""

    def search(self, plan, corpus, limit: int, deadline: float) -> list[tuple[int, float]]:
        """Up to ``limit`` (key, engine score) pairs, best first; QueryTimeout past ``deadline``."""

    def note_deletes(self, count: int) -> None:
        """``count`` deletes are about to be written."""

    def score_bound(self, plan, corpus, engine_docs: int, engine_tokens: list) -> float:
        """R such that exact score <= R * engine score for every matching document the engine holds
        (``engine_docs`` documents with ``engine_tokens`` tokens per field)."""

    def close(self) -> None: ...
