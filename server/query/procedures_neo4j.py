"""Neo4j 5 utility procedures that applications and their tests call through the driver: ``db.ping``
(health checks), ``tx.setMetaData`` (tags a transaction), ``db.clearQueryCaches`` (benchmarks) and
``db.index.fulltext.awaitEventuallyConsistentIndexRefresh`` (tests, after writing indexed text), and
``db.resampleIndex`` / ``db.resampleOutdatedIndexes`` (statistics refresh: Relate's index statistics are
always current, so they only check the name)."""
from __future__ import annotations

from relate.protocol.errors import IndexNotFound, ProcedureCallFailed

AWAIT_REFRESH_S = 300.0


def register_neo4j(registry) -> None:
    """Add the procedures to ``registry`` (a ProcedureRegistry)."""
    registry.register("db.ping", [], [("success", "BOOLEAN?")], _ping,
                      description="Whether the database answers: always true when it runs the call.")
    registry.register("tx.setMetaData", [("data", "MAP?")], [], _set_metadata, mode="DBMS",
                      description="Attach metadata to the current transaction (SHOW TRANSACTIONS shows it).")
    registry.register("db.clearQueryCaches", [], [("value", "STRING?")], _clear_query_caches, mode="DBMS",
                      description="Forget every cached query plan.")
    registry.register("db.index.fulltext.awaitEventuallyConsistentIndexRefresh", [], [], _await_refresh,
                      description="Wait until the full-text indexes have taken in every committed write.")
    registry.register("db.resampleIndex", [("indexName", "STRING?")], [], _resample_index,
                      description='Schedule resampling of an index (for example: CALL db.resampleIndex("MyIndex")).')
    registry.register("db.resampleOutdatedIndexes", [], [], _resample_outdated,
                      description="Schedule resampling of all outdated indexes.")


def _ping(ctx):
    return [{"success": True}]


def _set_metadata(ctx, data):
    """The map travels with the transaction: SHOW TRANSACTIONS shows it (``metaData``)."""
    if data is not None and not isinstance(data, dict):
        raise ProcedureCallFailed("tx.setMetaData takes a map", detail="ProcedureCallFailed")
    session = getattr(ctx, "session", None)
    if session is not None:
        session.tx_metadata = dict(data or {})
    return []


def _clear_query_caches(ctx):
    """Neo4j's answer text, with the number of plans dropped."""
    cache = ctx.db.plan_cache
    count = len(cache)
    cache.invalidate()
    if not count:
        return [{"value": "Query cache already empty."}]
    return [{"value": f"Query caches successfully cleared of {count} queries."}]


def _await_refresh(ctx):
    """Relate's full-text indexes are updated at commit; this waits for any still being built."""
    manager = ctx.db.index_manager
    if manager is not None and not manager.await_indexes(AWAIT_REFRESH_S):
        raise ProcedureCallFailed(f"Timed out after {AWAIT_REFRESH_S:g} s waiting for the full-text indexes",
                                  detail="ProcedureCallFailed")
    return []


def _resample_index(ctx, index_name):
    """Neo4j schedules a statistics refresh; Relate's are kept at commit, so only the name is checked."""
    from .schema import Catalog
    catalog = Catalog.from_schema(ctx.tx.schema())
    owned = {c.name for c in catalog.constraints.values() if c.owns_index}
    manager = getattr(ctx.db, "index_manager", None)
    if not (index_name in catalog.indexes or index_name in owned
            or (manager is not None and index_name in manager)):
        raise IndexNotFound(f"No such index '{index_name}'", phase="runtime")
    return []


def _resample_outdated(ctx):
    return []
