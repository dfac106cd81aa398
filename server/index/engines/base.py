"""The interface every full-text engine implements for `FullTextIndex`.

An engine stores documents as pre-analyzed tokens per field (field i is named ``f{i}``) keyed by
entity id, and finds candidates for a query plan ordered by its own score. `FullTextIndex` rescores
the candidates exactly; with them ``search`` returns R such that exact(d) <= R * engine_score(d) for
every matching document d it holds, so the index knows when no unseen candidate can still enter the
top k.
"""
from __future__ import annotations

from typing import Protocol

Analyzed = list          # per field: list of (position, token), or None when the entity has no string there


class FullTextEngine(Protocol):
    def write(self, deletes: list[int], adds: list[tuple[int, list]]) -> None:
        """Delete ``deletes`` then add ``adds`` [(key, per-field analyzed tokens)]; visible on return."""

    def search(self, plan, corpus, limit: int, deadline: float) -> tuple[list[tuple[int, float]], float]:
        """Up to ``limit`` (key, engine score) pairs, best first, and R; QueryTimeout past ``deadline``."""

    def note_deletes(self, count: int) -> None:
        """``count`` deletes are about to be written."""

    def close(self) -> None: ...
