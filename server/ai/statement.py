"""Per-statement AI state: the embedding cache (same text, same embedder -> one embedding) and costs.

``for_ctx(ctx)`` returns the statement's ``StatementAI``; ``ctx.costs`` is the dict the summary
reports as ``costs`` ({semanticCalls, llmCalls, apiCalls}).
"""
from __future__ import annotations

from . import embedders


class StatementAI:
    __slots__ = ("ctx", "cache")

    def __init__(self, ctx):
        self.ctx = ctx
        self.cache: dict[tuple[str, str], list[float]] = {}

    def embed(self, text: str, model: str | None = None) -> list[float]:
        """``text`` embedded by embedder ``model`` (None = default), once per statement."""
        embedder = embedders.get(model)
        key = (embedder.name, text)
        found = self.cache.get(key)
        if found is None:
            if embedder.remote:
                self.ctx.costs["apiCalls"] += 1     # counted when sent, even if it fails
            found = embedder.embed([text], self.ctx.db)[0]
            self.cache[key] = found
        return found


def for_ctx(ctx) -> StatementAI:
    state = ctx.ai
    if state is None:
        state = ctx.ai = StatementAI(ctx)
    return state
