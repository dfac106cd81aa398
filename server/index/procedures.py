"""The search procedures: every search-index kind's own (in its provider file) and db.awaitIndexes."""
from __future__ import annotations

from relate.protocol.errors import ProcedureCallFailed


def register(registry) -> None:
    """Add the search procedures to ``registry`` (`relate.server.query.procedures.ProcedureRegistry`):
    db.awaitIndexes and every search-index kind's own (``SearchProvider.register_procedures``)."""
    from .providers import providers
    for provider in providers():
        provider.register_procedures(registry)
    registry.register("db.awaitIndexes", [("timeOutSeconds", "INTEGER?", 300)], [], _await_indexes,
                      description="Wait until every search index is online (fails after the timeout).")


def _await_indexes(ctx, timeout=300):
    seconds = 300 if timeout is None else timeout
    if not ctx.db.index_manager.await_indexes(float(seconds)):
        raise ProcedureCallFailed(f"Timed out after {seconds} s waiting for the indexes to come online",
                                  detail="ProcedureCallFailed")
    return []
