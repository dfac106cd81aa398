"""Kuzu's vector and full-text index calls over Relate's indexes, so that scripts written for Kuzu's
``vector`` and ``fts`` extensions run unchanged (docs/kuzu.md):

    CALL CREATE_VECTOR_INDEX('Book', 'book_vec', 'embedding', metric := 'cosine')
    CALL QUERY_VECTOR_INDEX('Book', 'book_vec', $v, 10) RETURN node.title, distance ORDER BY distance
    CALL CREATE_FTS_INDEX('Book', 'book_fts', ['title', 'abstract'], stemmer := 'porter')
    CALL QUERY_FTS_INDEX('Book', 'book_fts', 'quantum machine', conjunctive := true, top := 5)
    CALL DROP_VECTOR_INDEX('Book', 'book_vec'); CALL DROP_FTS_INDEX('Book', 'book_fts'); CALL SHOW_INDEXES()

A vector query's ``distance`` is Kuzu's (cosine: 1 - cos; l2: the Euclidean distance), smallest first; a
full-text query's ``score`` is BM25 (k 1.2, b 0.75, as Kuzu's defaults), best first.
"""
from __future__ import annotations

from typing import Any

from relate.protocol.errors import ArgumentError, IndexNotFound

from . import ast
from .procedures_falkordb import cosine_distance, euclidean_distance
from .procedures_info import run_schema_command

_METRICS = {"cosine": "cosine", "l2": "euclidean"}
# Kuzu's HNSW knobs without a FAISS counterpart: taken, and they change nothing (docs/kuzu.md).
_VECTOR_OPTIONS = {"metric", "mu", "ml", "pu", "alpha", "efc", "cache_embeddings"}
_STEMMERS = {"porter": "english", "english": "english", "none": "standard"}


def register_kuzu(registry) -> None:
    table, index = ("tableName", "STRING?"), ("indexName", "STRING?")
    options = ("options", "MAP?", None)
    registry.register("create_vector_index", [table, index, ("propertyName", "STRING?"), options], [],
                      _create_vector, mode="SCHEMA",
                      description="Create a vector index on a table's (label's) list property (Kuzu).")
    registry.register("query_vector_index", [table, index, ("query", "ANY?"), ("k", "INTEGER?"), options],
                      [("node", "NODE?"), ("distance", "FLOAT?")], _query_vector, implicit_yield=True,
                      description="The k nodes nearest a vector, with their distances, nearest first (Kuzu).")
    registry.register("drop_vector_index", [table, index], [], _drop("VECTOR"), mode="SCHEMA",
                      description="Drop a table's vector index (Kuzu).")
    registry.register("create_fts_index", [table, index, ("properties", "LIST?"), options], [],
                      _create_fts, mode="SCHEMA",
                      description="Create a full-text (BM25) index over a table's string properties (Kuzu).")
    registry.register("query_fts_index", [table, index, ("query", "STRING?"), options],
                      [("node", "NODE?"), ("score", "FLOAT?")], _query_fts, implicit_yield=True,
                      description="The nodes matching words, with their BM25 scores, best first (Kuzu).")
    registry.register("drop_fts_index", [table, index], [], _drop("FULLTEXT"), mode="SCHEMA",
                      description="Drop a table's full-text index (Kuzu).")
    registry.register("show_indexes", [], [("table name", "STRING?"), ("index name", "STRING?"),
                                           ("index type", "STRING?"), ("property names", "LIST?"),
                                           ("extension loaded", "BOOLEAN?"), ("index definition", "STRING?")],
                      _show_indexes, implicit_yield=True,
                      description="The vector and full-text indexes, as Kuzu lists them (Kuzu).")


def _options(proc: str, options: Any, known: set[str]) -> dict[str, Any]:
    if options is None:
        return {}
    unknown = sorted(k for k in options if k.lower() not in known)
    if unknown:
        raise ArgumentError(f"{proc}: no option {unknown[0]} (options: {', '.join(sorted(known))})")
    return {k.lower(): v for k, v in options.items()}


def _names(proc: str, *values: Any) -> None:
    for value in values:
        if not isinstance(value, str) or not value:
            raise ArgumentError(f"{proc}: a table, index or property name must be a non-empty string, not {value!r}")


def _definition(ctx, proc: str, kind: str, table: str, name: str):
    manager = ctx.db.index_manager
    found = manager.get(name) if name in manager.names() else None
    definition = found.definition if found is not None else None
    if definition is None or definition.type != kind or definition.tokens != [table]:
        what = "vector" if kind == "VECTOR" else "full-text"
        raise IndexNotFound(f"{proc}: table {table} has no {what} index {name}", detail="IndexNotFound")
    return definition


def _create_vector(ctx, table, name, prop, options=None) -> list:
    proc = "CREATE_VECTOR_INDEX"
    _names(proc, table, name, prop)
    opts = _options(proc, options, _VECTOR_OPTIONS)
    metric = str(opts.get("metric", "cosine")).lower()
    if metric not in _METRICS:
        raise ArgumentError(f"{proc}: metric {metric!r} is not supported (cosine, l2)")
    config: dict[str, Any] = {"vector.similarity_function": _METRICS[metric]}
    dims = _declared_dimensions(ctx.tx, table, prop)
    if dims is not None:
        config["vector.dimensions"] = dims
    if "mu" in opts:
        config["vector.hnsw.m"] = opts["mu"]
    if "efc" in opts:
        config["vector.hnsw.ef_construction"] = opts["efc"]
    config_map = ast.MapLiteral([(k, ast.Literal(v)) for k, v in config.items()])
    run_schema_command(ctx, ast.CreateIndex(kind="VECTOR", name=name, entity="node", variable="n", labels=[table],
                                            properties=[prop],
                                            options=ast.MapLiteral([("indexConfig", config_map)])), {})
    return []


def _declared_dimensions(tx, table: str, prop: str) -> int | None:
    """The n of a Kuzu table column declared ``FLOAT[n]`` / ``DOUBLE[n]``, else None (the index learns it)."""
    from .schema.tables import table_of
    entry = table_of(tx, table)
    for name, kuzu_type, _ in (entry or {}).get("columns", []):
        if name == prop and kuzu_type.endswith("]") and kuzu_type.count("[") == 1:
            size = kuzu_type[kuzu_type.index("[") + 1:-1]
            return int(size) if size.isdigit() else None
    return None


def _query_vector(ctx, table, name, query, k, options=None) -> list[dict]:
    proc = "QUERY_VECTOR_INDEX"
    _names(proc, table, name)
    _options(proc, options, {"efs"})
    if query is None or k is None:
        return []
    if type(k) is not int or k <= 0:
        raise ArgumentError(f"{proc}: k must be a positive integer, not {k!r}")
    definition = _definition(ctx, proc, "VECTOR", table, name)
    from relate.server.index.providers.base import visible_rows
    hits = ctx.db.index_manager.vector_search(definition.name, query, k, (), entity="node", tx=ctx.tx)
    to_distance = cosine_distance if definition.config.get("vector.similarity_function") == "cosine" \
        else euclidean_distance
    return [{"node": row["node"], "distance": to_distance(row["score"])} for row in visible_rows(ctx, "node", hits)]


def _create_fts(ctx, table, name, properties, options=None) -> list:
    proc = "CREATE_FTS_INDEX"
    _names(proc, table, name)
    if not isinstance(properties, list) or not properties:
        raise ArgumentError(f"{proc}: properties must be a non-empty list of property names, not {properties!r}")
    _names(proc, *properties)
    opts = _options(proc, options, {"stemmer", "stopwords", "ignore_pattern", "tokenizer"})
    stemmer = str(opts.get("stemmer", "porter")).lower()
    if stemmer not in _STEMMERS:
        raise ArgumentError(f"{proc}: stemmer {stemmer!r} is not supported ({', '.join(sorted(_STEMMERS))})")
    for option in ("stopwords", "ignore_pattern", "tokenizer"):
        if option in opts and opts[option] not in ("default", "english", "simple"):
            raise ArgumentError(f"{proc}: option {option} takes only Kuzu's default here")
    config = ast.MapLiteral([("fulltext.analyzer", ast.Literal(_STEMMERS[stemmer]))])
    run_schema_command(ctx, ast.CreateIndex(kind="FULLTEXT", name=name, entity="node", variable="n", labels=[table],
                                            properties=list(dict.fromkeys(properties)),
                                            options=ast.MapLiteral([("indexConfig", config)])), {})
    return []


def _query_fts(ctx, table, name, query, options=None) -> list[dict]:
    proc = "QUERY_FTS_INDEX"
    _names(proc, table, name)
    opts = _options(proc, options, {"conjunctive", "top", "k", "b"})
    if query is None:
        return []
    if (opts.get("k", 1.2), opts.get("b", 0.75)) != (1.2, 0.75):
        raise ArgumentError(f"{proc}: BM25's K and B are 1.2 and 0.75 here (Kuzu's defaults)")
    top = opts.get("top")
    if top is not None and (type(top) is not int or top <= 0):
        raise ArgumentError(f"{proc}: top must be a positive integer, not {top!r}")
    conjunctive = opts.get("conjunctive", False)
    if type(conjunctive) is not bool:
        raise ArgumentError(f"{proc}: conjunctive must be a boolean, not {conjunctive!r}")
    definition = _definition(ctx, proc, "FULLTEXT", table, name)
    from relate.server.index.plain_query import escape_lucene
    from relate.server.index.providers.base import visible_rows
    manager = ctx.db.index_manager
    if conjunctive:                # every word required: each one a required (escaped) Lucene term
        text = " ".join("+" + escape_lucene(word) for word in query.split())
        hits = manager.fulltext_search(definition.name, text, 0, top, entity="node", tx=ctx.tx) if text else []
    else:
        hits = manager.fulltext_search(definition.name, query, 0, top, entity="node", mode="plain", tx=ctx.tx)
    return visible_rows(ctx, "node", hits)


def _drop(kind: str):
    proc = "DROP_VECTOR_INDEX" if kind == "VECTOR" else "DROP_FTS_INDEX"

    def drop(ctx, table, name) -> list:
        _names(proc, table, name)
        definition = _definition(ctx, proc, kind, table, name)
        run_schema_command(ctx, ast.DropIndex(name=definition.name), {})
        return []
    return drop


def _show_indexes(ctx) -> list[dict]:
    manager = ctx.db.index_manager
    rows = []
    for name in sorted(manager.names()):
        d = manager.get(name).definition
        if d.type not in ("VECTOR", "FULLTEXT") or d.entity != "node":
            continue
        if d.type == "VECTOR":
            call = f"CALL CREATE_VECTOR_INDEX('{d.tokens[0]}', '{d.name}', '{d.properties[0]}')"
        else:
            call = f"CALL CREATE_FTS_INDEX('{d.tokens[0]}', '{d.name}', {d.properties!r})"
        rows.append({"table name": d.tokens[0], "index name": d.name,
                     "index type": "HNSW" if d.type == "VECTOR" else "FTS", "property names": list(d.properties),
                     "extension loaded": True, "index definition": call})
    return rows
