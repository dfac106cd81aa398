"""Text queries against a vector index: embedded by the embedder the index declares."""
from __future__ import annotations

from relate.protocol.errors import ArgumentError

from .statement import for_ctx


def index_embedder(db, index_name: str) -> str | None:
    """The embedder name a vector index declares in ``indexConfig`` (``vector.embedder``), or None."""
    return db.index_manager.get(index_name).definition.config.get("vector.embedder")


def embed_for_index(ctx, index_name: str, text: str) -> list[float]:
    """``text`` embedded for a search of ``index_name`` (cached per statement)."""
    name = index_embedder(ctx.db, index_name)
    if name is None:
        raise ArgumentError(f"Vector index `{index_name}` declares no embedder, so it cannot search for a "
                            f"string; create it with OPTIONS {{indexConfig: {{`vector.embedder`: 'hash-384'}}}} "
                            f"or pass a vector", detail="InvalidArgumentType", phase="runtime")
    return for_ctx(ctx).embed(text, name)
