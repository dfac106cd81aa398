"""Per-statement AI state: the embedding cache (same text, same embedder -> one embedding) and costs.

``for_ctx(ctx)`` returns the statement's ``StatementAI``; ``ctx.costs`` is the dict the summary
reports as ``costs`` ({semanticCalls, llmCalls, apiCalls}).
"""
from __future__ import annotations

from ..inline import refuse_on_loop
from . import embedders


class StatementAI:
    __slots__ = ("ctx", "cache", "memo", "edges", "pinned", "notes", "arms", "vector_hits")

    def __init__(self, ctx):
        self.ctx = ctx
        self.cache: dict[tuple[str, str], list[float]] = {}
        self.memo: dict = {}        # relevance results per (join, anchor key, intent, scope)
        self.edges: dict = {}       # (anchor, target, join, intent) -> virtual relationship id
        self.pinned: dict = {}      # pinned anchors made by this statement
        self.notes: dict = {}       # notifications being aggregated
        self.arms: dict = {}        # a relevance join's resolved indexes
        self.vector_hits: dict = {} # (join, anchor text) -> (k, hits) from a batched vector search

    def embed(self, text: str, model: str | None = None, *, search: bool = False) -> list[float]:
        """``text`` embedded by embedder ``model`` (None = default), once per statement. A remote
        embedder's request counts on apiCalls, except for a relevance ``search``: that embedding is part
        of its one semanticCalls (spec 001 6.7: a relevance producer lands on exactly one counter)."""
        embedder = embedders.get(model)
        key = (embedder.name, text)
        found = self.cache.get(key)
        if found is None:
            if embedder.remote and not search:
                # counted when sent, even if it fails
                with self.ctx.costs.call("apiCalls", "embedding", embedder.name):
                    found = embedder.embed([text], self.ctx.db)[0]
            else:
                found = embedder.embed([text], self.ctx.db)[0]
            self.cache[key] = found
        return found


    def embed_many(self, texts: list[str], model: str | None = None, *, search: bool = False) -> list[list[float]]:
        """``embed`` for several texts; the ones not cached go to the embedder in one batch (one API
        call for a remote embedder)."""
        embedder = embedders.get(model)
        todo = [t for t in dict.fromkeys(texts) if (embedder.name, t) not in self.cache]
        if todo:
            if embedder.remote and not search:
                with self.ctx.costs.call("apiCalls", "embedding", embedder.name):
                    vectors = embedder.embed(todo, self.ctx.db)
            else:
                vectors = embedder.embed(todo, self.ctx.db)
            for text, vector in zip(todo, vectors):
                self.cache[(embedder.name, text)] = vector
        return [self.cache[(embedder.name, t)] for t in texts]


def for_ctx(ctx) -> StatementAI:
    state = ctx.ai
    if state is None:
        refuse_on_loop("calls a model")          # never a model call on the server's event loop
        state = ctx.ai = StatementAI(ctx)
        ctx.costs.ai_used = True
    return state
