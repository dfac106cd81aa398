"""Schema and information procedures Neo4j tools call: ``db.schema.nodeTypeProperties`` /
``db.schema.relTypeProperties`` (Neo4j 5's derived property schema), ``apoc.meta.stats``, the deprecated
``db.index.vector.createNodeIndex`` / ``createRelationshipIndex`` (older LangChain versions create their
vector index with them), ``db.info`` / ``dbms.info`` and ``dbms.listConfig`` / SHOW SETTINGS (the engine's
settings, and the Neo4j 5 settings that map onto Relate's running configuration: a server's come from
``Database.serving``)."""
from __future__ import annotations

import datetime as _dt
import hashlib
import os
import time
import uuid
import weakref
from collections import defaultdict

from relate.protocol.errors import ArgumentError
from relate.protocol.values import Vector

from .procedures_compat import _sampled, _type_name

DATABASE_NAME = "neo4j"

# Neo4j's property type names for the types apoc.meta.data's sampler reports.
_NEO4J_TYPES = {"STRING": "String", "INTEGER": "Long", "FLOAT": "Double", "BOOLEAN": "Boolean",
                "DATE_TIME": "DateTime", "LOCAL_DATE_TIME": "LocalDateTime", "DATE": "Date", "TIME": "Time",
                "LOCAL_TIME": "LocalTime", "DURATION": "Duration", "POINT": "Point", "BYTE_ARRAY": "ByteArray",
                "MAP": "Map", "ANY": "Any"}


def register_info(registry) -> None:
    """Add the schema and information procedures to ``registry``."""
    registry.register("db.schema.nodeTypeProperties", [],
                      [("nodeType", "STRING?"), ("nodeLabels", "LIST? OF STRING?"), ("propertyName", "STRING?"),
                       ("propertyTypes", "LIST? OF STRING?"), ("mandatory", "BOOLEAN?")],
                      node_type_properties,
                      description="The derived property schema of the nodes: per label combination, each property "
                                  "with its value types and whether every such node has it.")
    registry.register("db.schema.relTypeProperties", [],
                      [("relType", "STRING?"), ("propertyName", "STRING?"), ("propertyTypes", "LIST? OF STRING?"),
                       ("mandatory", "BOOLEAN?")],
                      rel_type_properties,
                      description="The derived property schema of the relationships: per type, each property "
                                  "with its value types and whether every such relationship has it.")
    registry.register("apoc.meta.stats", [],
                      [("labelCount", "INTEGER?"), ("relTypeCount", "INTEGER?"), ("propertyKeyCount", "INTEGER?"),
                       ("nodeCount", "INTEGER?"), ("relCount", "INTEGER?"), ("labels", "MAP?"),
                       ("relTypes", "MAP?"), ("relTypesCount", "MAP?"), ("stats", "MAP?")],
                      meta_stats,
                      description="Counts of the graph: nodes and relationships, per label, per type and per "
                                  "(:Label)-[:TYPE]->() pattern (APOC).")
    vector_inputs = [("indexName", "STRING?"), ("label", "STRING?"), ("propertyKey", "STRING?"),
                     ("vectorDimension", "INTEGER?"), ("vectorSimilarityFunction", "STRING?")]
    registry.register("db.index.vector.createNodeIndex", vector_inputs, [],
                      lambda ctx, *args: _create_vector_index(ctx, "node", *args), mode="SCHEMA",
                      description="Create a vector index on a node property (deprecated Neo4j 5 form of "
                                  "CREATE VECTOR INDEX ... FOR (n:Label) ON n.prop).")
    registry.register("db.index.vector.createRelationshipIndex",
                      [("indexName", "STRING?"), ("relationshipType", "STRING?"), *vector_inputs[2:]], [],
                      lambda ctx, *args: _create_vector_index(ctx, "relationship", *args), mode="SCHEMA",
                      description="Create a vector index on a relationship property (deprecated Neo4j 5 form of "
                                  "CREATE VECTOR INDEX ... FOR ()-[r:TYPE]-() ON r.prop).")
    info_outputs = [("id", "STRING?"), ("name", "STRING?"), ("creationDate", "STRING?")]
    registry.register("db.info", [], info_outputs, _db_info,
                      description="The database's id, name (neo4j) and creation date.")
    registry.register("dbms.info", [], info_outputs, _dbms_info, mode="DBMS",
                      description="The DBMS's id, name and creation date.")
    registry.register("dbms.listConfig", [("searchString", "STRING?", "")],
                      [("name", "STRING?"), ("description", "STRING?"), ("value", "STRING?"),
                       ("dynamic", "BOOLEAN?")], _list_config, mode="DBMS",
                      description="The engine's settings whose names contain the search string.")
    registry.register("dbms.clientConfig", [], [("name", "STRING?"), ("description", "STRING?"),
                                                ("value", "STRING?"), ("dynamic", "BOOLEAN?")],
                      _client_config, mode="DBMS",
                      description="The settings browser-based tools read when they connect (browser.*).")
    registry.register("dbms.showCurrentUser", [], [("username", "STRING?"), ("roles", "LIST? OF STRING?"),
                                                   ("flags", "LIST? OF STRING?")],
                      _current_user, mode="DBMS", description="The logged-in user and its roles.")


# -- db.schema.nodeTypeProperties / relTypeProperties ----------------------------------------------

def _neo4j_type(value) -> str:
    """Neo4j's name for a property value's type: String, Long, Double, ..., StringArray, LongArray, ..."""
    if isinstance(value, Vector):
        return "FloatArray"
    name = _type_name(value)
    if name != "LIST":
        return _NEO4J_TYPES.get(name, "Any")
    first = next((item for item in value if item is not None), None)
    if first is None:
        return "StringArray"         # an empty list: Neo4j stores it as an empty string array
    return _NEO4J_TYPES.get(_type_name(first), "Any") + "Array"


def _token(name: str) -> str:
    return ":`" + name.replace("`", "``") + "`"


def _property_rows(entities) -> dict:
    """{group: (count, {property: (count, [types])})} over ``entities`` ((group, properties) pairs)."""
    groups: dict = {}
    for group, props in entities:
        count, seen = groups.get(group, (0, {}))
        for key, value in props.items():
            if value is None:
                continue
            n, types = seen.get(key, (0, []))
            kind = _neo4j_type(value)
            if kind not in types:
                types.append(kind)
            seen[key] = (n + 1, types)
        groups[group] = (count + 1, seen)
    return groups


def _schema_rows(groups: dict, head) -> list[dict]:
    """One row per (group, property), or one with a null propertyName for a group without properties;
    ``head(group)`` gives the row's leading columns, the first of them the sort key."""
    rows = []
    for group in sorted(groups, key=lambda g: next(iter(head(g).values()))):
        total, seen = groups[group]
        if not seen:
            rows.append({**head(group), "propertyName": None, "propertyTypes": None, "mandatory": False})
        for key in sorted(seen):
            count, types = seen[key]
            rows.append({**head(group), "propertyName": key, "propertyTypes": sorted(types),
                         "mandatory": count == total})
    return rows


def _node_head(labels: frozenset) -> dict:
    ordered = sorted(labels)
    return {"nodeType": "".join(_token(label) for label in ordered), "nodeLabels": ordered}


def node_type_properties(ctx):
    """Each label combination in use, each property its nodes have, the property's value types and whether
    every node of the combination has it (one row with a null propertyName for a combination without any)."""
    tx = ctx.tx
    entities = ((frozenset(tx.node_labels(nid)), tx.node_props(nid)) for nid in _sampled(tx.all_nodes(), None, ctx))
    return _schema_rows(_property_rows(entities), _node_head)


def rel_type_properties(ctx):
    """As db.schema.nodeTypeProperties, per relationship type."""
    tx = ctx.tx
    entities = ((tx.rel_type(rid), tx.rel_props(rid)) for rid in _sampled(tx.all_rels(), None, ctx))
    return _schema_rows(_property_rows(entities), lambda rel_type: {"relType": _token(rel_type)})


# -- apoc.meta.stats -------------------------------------------------------------------------------

def meta_stats(ctx):
    """APOC's counts: relTypes has ``(:A)-[:T]->()`` (from a node labelled A), ``()-[:T]->(:B)`` (into one
    labelled B) and ``()-[:T]->()`` (all of type T) keys; relTypesCount is per type."""
    tx = ctx.tx
    labels = {label: tx.count_nodes(label) for label in sorted(tx.labels())}
    types = {rel_type: tx.count_rels(rel_type) for rel_type in sorted(tx.rel_types())}
    patterns: dict[str, int] = defaultdict(int)
    for rel_type in types:
        for rid in tx.rels_by_type(rel_type):
            ctx.check()
            start, end = tx.rel_endpoints(rid)
            for label in tx.node_labels(start):
                patterns[f"(:{label})-[:{rel_type}]->()"] += 1
            for label in tx.node_labels(end):
                patterns[f"()-[:{rel_type}]->(:{label})"] += 1
        patterns[f"()-[:{rel_type}]->()"] = types[rel_type]
    rel_types = dict(sorted(patterns.items()))
    node_count, rel_count = tx.count_nodes(None), tx.count_rels(None)
    stats = {"labelCount": len(labels), "relTypeCount": len(types), "propertyKeyCount": len(tx.property_keys()),
             "nodeCount": node_count, "relCount": rel_count, "labels": labels, "relTypes": rel_types}
    return [{**stats, "relTypesCount": types, "stats": dict(stats)}]


# -- db.index.vector.createNodeIndex / createRelationshipIndex --------------------------------------

def _create_vector_index(ctx, entity: str, name, token, key, dimension, similarity):
    """CREATE VECTOR INDEX by the very path the statement takes (schema commands, then the IndexManager), in
    the caller's writing transaction, or else in one of its own that commits at once (a SCHEMA procedure
    does not make its statement an updating one, so inside an explicit transaction it commits on its own,
    as db.index.vector.setSearchOptions does)."""
    from . import ast
    proc = f"db.index.vector.create{'Node' if entity == 'node' else 'Relationship'}Index"
    for what, value in (("indexName", name), ("label" if entity == "node" else "relationshipType", token),
                        ("propertyKey", key), ("vectorSimilarityFunction", similarity)):
        if not isinstance(value, str) or not value:
            raise ArgumentError(f"{proc}: {what} must be a non-empty string, not {value!r}")
    if type(dimension) is not int or not 1 <= dimension <= 4096:
        raise ArgumentError(f"{proc}: vectorDimension must be an integer from 1 to 4096, not {dimension!r}")
    if similarity.lower() not in ("cosine", "euclidean"):
        raise ArgumentError(f"{proc}: vectorSimilarityFunction must be 'cosine' or 'euclidean', not {similarity!r}")
    command = ast.CreateIndex(kind="VECTOR", name=name, entity=entity, variable="n", labels=[token],
                              properties=[key], options=ast.Parameter("options"))
    options = {"indexConfig": {"vector.dimensions": dimension, "vector.similarity_function": similarity.lower()}}
    run_schema_command(ctx, command, {"options": options})
    return []


def run_schema_command(ctx, command, params: dict) -> None:
    """Run a schema command (an ast.CreateIndex, ast.DropIndex, ...) for a procedure, by the path the
    statement takes, in the caller's writing transaction or else in one of its own that commits at once."""
    from .schema.catalog import Catalog
    from .schema.commands import run_command
    own = not hasattr(ctx.tx, "put_schema")
    tx = ctx.db.store.begin_write(timeout=30.0) if own else ctx.tx
    try:
        result = run_command(ctx.db, tx, command, params, Catalog.from_schema(tx.schema()))
        if own:
            tx.commit()
    except BaseException:
        if own:
            tx.rollback()
        raise
    if result.schema_changed:
        ctx.db.schema_changed()
    for counter, amount in result.counters.items():
        if amount:
            ctx.counters.add(counter, amount)


# -- db.info / dbms.info / dbms.listConfig ---------------------------------------------------------

_OPENED: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()   # in-memory Database -> (uuid, opened)


def _identity(db) -> tuple[str, float]:
    """A stable id and creation time: for a directory, from its path and its LOCK file (made when the
    database was first opened); in memory, made when first asked for and kept while the Database lives."""
    directory = getattr(db, "directory", None)
    if directory:
        path = os.path.realpath(directory)
        lock = os.path.join(path, "LOCK")
        created = os.stat(lock if os.path.exists(lock) else path).st_mtime
        return hashlib.sha256(path.encode()).hexdigest().upper(), created
    found = _OPENED.get(db)
    if found is None:
        found = _OPENED[db] = (uuid.uuid4().hex.upper(), time.time())
    return found


def _iso(seconds: float) -> str:
    moment = _dt.datetime.fromtimestamp(seconds, _dt.timezone.utc)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def _db_info(ctx):
    ident, created = _identity(ctx.db)
    return [{"id": ident, "name": DATABASE_NAME, "creationDate": _iso(created)}]


def _dbms_info(ctx):
    ident, created = _identity(ctx.db)
    dbms_id = hashlib.sha256(("dbms:" + ident).encode()).hexdigest().upper()
    return [{"id": dbms_id, "name": "Relate", "creationDate": _iso(created)}]


def _settings(db) -> list[tuple[str, str, object, object]]:
    """(name, description, value, default) of every setting, by name: the engine's own under Relate's
    names, and the Neo4j 5 settings tools read that map onto Relate's running configuration (each value
    the one in force: a server's settings and bound addresses come from ``db.serving``, config.Serving;
    embedded, the connect() options). Neo4j settings with no Relate counterpart are not listed."""
    manager = getattr(db, "index_manager", None)
    store = getattr(db, "store", None)
    cache = getattr(db, "plan_cache", None)
    serving = getattr(db, "serving", None)
    config = getattr(serving, "config", None)
    # the statement time limit in force: a server applies its own per session; embedded, connect()'s
    timeout = config.query_timeout if config is not None else getattr(db, "query_timeout", None)
    import_dir = getattr(db, "import_dir", None)
    rows: list[tuple[str, str, object, object]] = [
        ("data", "The database directory (null: in memory).", getattr(db, "directory", None), None),
        ("fulltext_engine", "The default engine of new full-text indexes.",
         getattr(manager, "default_fulltext_engine", None), None),
        ("import_dir", "LOAD CSV reads files only below this directory (null: file URLs refused).", import_dir, None),
        ("max_statement_bytes", "Longer statements are refused before parsing.",
         getattr(db, "max_statement_bytes", None), None),
        ("plan_cache_size", "How many query plans are cached.", getattr(cache, "capacity", None), None),
        ("query_timeout", "Seconds a statement may run (null: no limit).", timeout, None),
        ("read_only", "Whether the database was opened read-only.", getattr(store, "read_only", None), None),
        # Neo4j 5's names for the same configuration
        ("db.transaction.timeout", "How long a statement may run before it is terminated (Relate's "
         "query_timeout; Neo4j applies its limit to a whole transaction); 0s: no limit.",
         _duration(timeout), "0s"),
        ("dbms.security.allow_csv_import_from_file_urls", "Whether LOAD CSV may read file:/// URLs (Relate: "
         "only when an import directory is configured).", import_dir is not None, False),
        ("server.directories.import", "The directory LOAD CSV's file:/// URLs are relative to (Relate's "
         "import_dir; null: none, file URLs are refused).", import_dir, None),
        ("server.db.query_cache_size", "How many query plans are cached (Relate's plan_cache_size).",
         getattr(cache, "capacity", None), 1000),
        ("dbms.security.auth_enabled", "Whether clients must log in (an embedded database has no logins).",
         bool(config.auth) if config is not None else False, True if config is not None else False),
        ("server.bolt.enabled", "Whether the server listens for Bolt clients (the neo4j drivers; an embedded "
         "database has no listener).", getattr(serving, "bolt", None) is not None,
         True if serving is not None else False),
        ("server.http.enabled", "Whether the server listens for HTTP (the Query API and the browser console; "
         "Relate's http_listen).", getattr(serving, "http", None) is not None, False),
    ]
    if serving is not None and config is not None:
        from relate.server.config import DEFAULT_BOLT_LISTEN
        if serving.bolt is not None:
            rows.append(("server.bolt.listen_address", "The address the Bolt listener is bound to (Relate's "
                         "bolt_listen; a port 0 there is the one bound).", serving.bolt, DEFAULT_BOLT_LISTEN))
            rows.append(("server.bolt.tls_level", "Whether Bolt connections use TLS: REQUIRED with "
                         "--tls-cert, else DISABLED.", "REQUIRED" if config.tls_cert else "DISABLED", "DISABLED"))
        if serving.http is not None:
            rows.append(("server.http.listen_address", "The address the HTTP listener is bound to (Relate's "
                         "http_listen).", serving.http, None))
        rows.append(("db.logs.query.threshold", "Statements that run longer are logged, with their "
                     "parameters redacted (Relate's slow_query_log).", _duration(config.slow_query_log), "1s"))
    return sorted(rows, key=lambda row: row[0])


def _duration(seconds) -> str:
    """Seconds as a Neo4j duration setting: ``30s``, ``2500ms``; ``0s`` for none."""
    if not seconds:
        return "0s"
    millis = round(float(seconds) * 1000)
    return f"{millis // 1000}s" if millis % 1000 == 0 else f"{millis}ms"


def _setting_text(value) -> str | None:
    return None if value is None else (str(value).lower() if isinstance(value, bool) else str(value))


def show_settings(db, names: str | None) -> list[dict]:
    """SHOW SETTINGS ['name', ...]: the settings, all or those named (newline-joined), by name."""
    wanted = None if names is None else set(names.split("\n"))
    rows = []
    for name, description, value, default in _settings(db):
        if wanted is not None and name not in wanted:
            continue
        text, default_text = _setting_text(value), _setting_text(default)
        explicit = value is not None if default is None else text != default_text
        rows.append({"name": name, "value": text, "isDynamic": False, "defaultValue": default_text,
                     "description": description, "startupValue": text, "isExplicitlySet": explicit,
                     "validValues": None, "isDeprecated": False})
    return rows


# What Neo4j Browser and similar tools read at connect time; Relate has no browser.* settings of its
# own, so these are Neo4j's defaults, except that no outgoing connections are made for them.
_CLIENT_CONFIG = (
    ("browser.allow_outgoing_connections", "Whether the browser may fetch remote content.", "false"),
    ("browser.credential_timeout", "How long the browser keeps credentials (0s: no limit).", "0s"),
    ("browser.retain_connection_credentials", "Whether the browser keeps credentials.", "true"),
    ("browser.retain_editor_history", "Whether the browser keeps the editor's history.", "true"),
    ("browser.post_connect_cmd", "A command the browser runs after it connects.", ""),
    ("browser.remote_content_hostname_allowlist", "Hosts the browser may fetch content from.", "guides.neo4j.com"),
)


def _client_config(ctx):
    return [{"name": name, "description": description, "value": value, "dynamic": False}
            for name, description, value in _CLIENT_CONFIG]


def _current_user(ctx):
    from .schema.roles import current_user_name
    name = ctx.principal or current_user_name()
    users = getattr(ctx.db, "users", None)
    rows = users.list_users(tx=ctx.tx) if users is not None else []
    for row in rows:
        if row["user"] == name:
            flags = ["is_suspended"] if row["suspended"] else []
            if row["passwordChangeRequired"]:
                flags.append("password_change_required")
            return [{"username": name, "roles": row["roles"], "flags": flags}]
    return [{"username": name, "roles": [], "flags": []}] if name is not None else []


def _list_config(ctx, search=""):
    wanted = (search or "").lower()
    rows = []
    for name, description, value, _ in _settings(ctx.db):
        if wanted in name.lower():
            text = _setting_text(value)
            rows.append({"name": name, "description": description, "value": text, "dynamic": False})
    return rows
