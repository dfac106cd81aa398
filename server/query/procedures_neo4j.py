"""Neo4j 5 utility procedures that applications and their tests call through the driver: ``db.ping``
(health checks), ``tx.setMetaData`` (tags a transaction), ``db.clearQueryCaches`` (benchmarks) and
``db.index.fulltext.awaitEventuallyConsistentIndexRefresh`` (tests, after writing indexed text), and
``db.resampleIndex`` / ``db.resampleOutdatedIndexes`` (statistics refresh: Relate's index statistics are
always current, so they only check the name), and ``dbms.routing.getRoutingTable`` (the routing table
a ``neo4j://`` driver asks for, as the Bolt ROUTE message answers it)."""
from __future__ import annotations

from relate.protocol.errors import ClientError, IndexNotFound, ProcedureCallFailed

AWAIT_REFRESH_S = 300.0
# Seconds a routing table holds: the Bolt ROUTE answer's (server/net/bolt_connection.ROUTING_TTL_S),
# Neo4j's dbms.routing_ttl default.
ROUTING_TTL_S = 300
BOLT_DEFAULT_PORT = 7687                 # an address in the routing context without a port gets it
_ROUTABLE = ("neo4j", "system")          # the databases a routing table can be asked for
_WILDCARDS = ("", "0.0.0.0", "::", "[::]")
ROUTING_DESCRIPTION = (
    "Returns the advertised bolt capable endpoints for a given database, divided by each endpoint's "
    "capabilities (WRITE, READ, ROUTE). Relate is one server: each role lists the same address, the "
    "routing context's `address` when the caller gives one (as the Bolt ROUTE message answers), else "
    "the server's Bolt listen address (a wildcard host advertised as localhost). Without a Bolt listener, "
    "embedded (relate.connect(path)) or with --bolt-listen none, it fails with ProcedureCallFailed, as "
    "Neo4j does when Bolt is not enabled.")


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
    for name in ("dbms.routing.getRoutingTable", "dbms.cluster.routing.getRoutingTable"):
        registry.register(name, [("context", "MAP?"), ("database", "STRING?", None)],
                          [("ttl", "INTEGER?"), ("servers", "LIST? OF MAP?")], _routing_table, mode="DBMS",
                          description=ROUTING_DESCRIPTION)


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


def _routing_table(ctx, context, database=None):
    """Neo4j's answer for a single server: one address in every role (see ROUTING_DESCRIPTION)."""
    name = DEFAULT_DATABASE if database is None or database == "" else database
    if not isinstance(name, str) or name.lower() not in _ROUTABLE:
        raise ClientError(f"Unable to get a routing table for database '{name}' because this database does "
                          "not exist", code="Neo.ClientError.Database.DatabaseNotFound", phase="runtime")
    serving = getattr(ctx.db, "serving", None)
    bolt = getattr(serving, "bolt", None)
    if bolt is None:
        where = ("this database is embedded (no server listens for it)" if serving is None
                 else "the server runs without a Bolt listener (--bolt-listen none, or its port was taken)")
        raise ProcedureCallFailed(f"Cannot get routing table for {name.lower()} because Bolt is not enabled: "
                                  f"{where}", phase="runtime")
    address = _context_address(context) or _advertised(bolt)
    servers = [{"addresses": [address], "role": role} for role in ("WRITE", "READ", "ROUTE")]
    return [{"ttl": ROUTING_TTL_S, "servers": servers}]


DEFAULT_DATABASE = "neo4j"


def _context_address(context) -> str | None:
    """The ``address`` a driver puts in the routing context (the host:port it reached the server at)."""
    if context is None:
        return None
    if not isinstance(context, dict):
        raise ProcedureCallFailed("dbms.routing.getRoutingTable takes the routing context as a map",
                                  phase="runtime")
    address = context.get("address")
    if address is None:
        return None
    if not isinstance(address, str) or not address.strip() or address.strip().endswith(":"):
        raise ProcedureCallFailed("An address key is included in the query string provided to the "
                                  "GetRoutingTableProcedure, but its value could not be parsed.", phase="runtime")
    address = address.strip()
    host, sep, port = address.rpartition(":")
    if sep and port.isdigit() and (not host.count(":") or host.endswith("]")):
        return address
    return f"{address}:{BOLT_DEFAULT_PORT}"     # no port (an IPv6 literal without one is bracketed)


def _advertised(bound: str) -> str:
    """The bound Bolt address as a client can dial it: a wildcard host is advertised as localhost
    (Neo4j's default advertised address), an IPv6 host in brackets."""
    host, _, port = bound.rpartition(":")
    if host in _WILDCARDS:
        host = "localhost"
    elif ":" in host and not host.startswith("["):
        host = f"[{host}]"
    return f"{host}:{port}"
