"""The search procedures: db.index.vector.*, db.index.fulltext.*, db.index.trigram.*, db.awaitIndexes."""
from __future__ import annotations

from relate.protocol.errors import ArgumentError, ProcedureCallFailed

from .analyzers import ANALYZERS
from .definitions import NODE, RELATIONSHIP


def register(registry) -> None:
    """Add the search procedures to ``registry`` (`relate.server.query.procedures.ProcedureRegistry`):
    db.awaitIndexes and every search-index kind's own (``SearchProvider.register_procedures``)."""
    from .providers import providers
    for provider in providers():
        provider.register_procedures(registry)
    registry.register("db.awaitIndexes", [("timeOutSeconds", "INTEGER?", 300)], [], _await_indexes,
                      description="Wait until every search index is online (fails after the timeout).")


def register_vector(registry) -> None:
    vector_in = [("indexName", "STRING?"), ("numberOfNearestNeighbours", "INTEGER?"), ("query", "ANY?")]
    registry.register("db.index.vector.queryNodes", vector_in, [("node", "NODE?"), ("score", "FLOAT?")],
                      lambda ctx, name, k, vector: _vector(ctx, NODE, name, k, vector),
                      description="The k nearest nodes to a vector (or text) in a vector index.")
    registry.register("db.index.vector.queryRelationships", vector_in,
                      [("relationship", "RELATIONSHIP?"), ("score", "FLOAT?")],
                      lambda ctx, name, k, vector: _vector(ctx, RELATIONSHIP, name, k, vector),
                      description="The k nearest relationships to a vector (or text) in a vector index.")
    registry.register("db.index.vector.setSearchOptions", [("indexName", "STRING?"), ("options", "MAP?")],
                      [("name", "STRING?"), ("indexConfig", "MAP?")], _set_search_options, mode="SCHEMA",
                      description="Change a vector index's search-time settings without a rebuild.")


def register_fulltext(registry) -> None:
    fulltext_in = [("indexName", "STRING?"), ("queryString", "STRING?"), ("options", "MAP?", {})]
    registry.register("db.index.fulltext.queryNodes", fulltext_in, [("node", "NODE?"), ("score", "FLOAT?")],
                      lambda ctx, name, query, options=None: _fulltext(ctx, NODE, name, query, options),
                      description="Nodes matching a Lucene query in a full-text index, by BM25 score.")
    registry.register("db.index.fulltext.queryRelationships", fulltext_in,
                      [("relationship", "RELATIONSHIP?"), ("score", "FLOAT?")],
                      lambda ctx, name, query, options=None: _fulltext(ctx, RELATIONSHIP, name, query, options),
                      description="Relationships matching a Lucene query in a full-text index, by BM25 score.")
    registry.register("db.index.fulltext.listAvailableAnalyzers", [],
                      [("analyzer", "STRING?"), ("description", "STRING?"), ("stopwords", "LIST? OF STRING?")],
                      lambda ctx: ({"analyzer": a.name, "description": a.description,
                                    "stopwords": sorted(a.stopwords)} for a in ANALYZERS.values()),
                      description="The full-text analyzers and their stopwords.")


def register_trigram(registry) -> None:
    trigram_in = [("indexName", "STRING?"), ("text", "STRING?"), ("options", "MAP?", {})]
    registry.register("db.index.trigram.queryNodes", trigram_in, [("node", "NODE?"), ("score", "FLOAT?")],
                      lambda ctx, name, text, options=None: _trigram(ctx, NODE, name, text, options),
                      description="Nodes whose indexed string is most similar to a text (trigram similarity).")
    registry.register("db.index.trigram.queryRelationships", trigram_in,
                      [("relationship", "RELATIONSHIP?"), ("score", "FLOAT?")],
                      lambda ctx, name, text, options=None: _trigram(ctx, RELATIONSHIP, name, text, options),
                      description="Relationships whose indexed string is most similar to a text (trigram similarity).")


def _rows(ctx, entity: str, hits):
    """Rows for hits still visible in the caller's snapshot (the index may be ahead of it)."""
    from relate.server.query.refs import NodeRef, RelRef
    from relate.server.relevance.scope import node_filter
    tx = ctx.tx
    if entity == NODE:
        visible = node_filter(ctx) or tx.node_exists        # scoped / curated labels (docs/relevance.md)
        return [{"node": NodeRef(key), "score": score} for key, score in hits if visible(key)]
    return [{"relationship": RelRef(key), "score": score} for key, score in hits if tx.rel_exists(key)]


def _vector(ctx, entity: str, name, k, vector):
    if name is None or k is None or vector is None:
        return []
    hits = ctx.db.index_manager.vector_search(name, vector, k, (), entity=entity)
    return _rows(ctx, entity, hits)


def _fulltext(ctx, entity: str, name, query, options):
    if name is None or query is None:
        return []
    options = dict(options or {})
    unknown = set(options) - {"skip", "limit", "analyzer", "eventually_consistent", "mode"}
    if unknown:
        raise ArgumentError(f"Unknown full-text query option(s) {sorted(unknown)}; expected skip, limit and mode")
    skip, limit = options.get("skip") or 0, options.get("limit")
    # Lucene syntax by default, as Neo4j; {mode: 'plain'} reads the text as words only.
    hits = ctx.db.index_manager.fulltext_search(name, query, skip, limit, entity=entity,
                                                mode=options.get("mode") or "lucene")
    return _rows(ctx, entity, hits)


def _trigram(ctx, entity: str, name, text, options):
    if name is None or text is None:
        return []
    options = dict(options or {})
    unknown = set(options) - {"skip", "limit", "threshold"}
    if unknown:
        raise ArgumentError(f"Unknown trigram query option(s) {sorted(unknown)}; expected skip, limit and threshold")
    limit, skip = options.get("limit", 10), options.get("skip") or 0
    for key, value in (("limit", limit), ("skip", skip)):
        if type(value) is not int or value < 0:
            raise ArgumentError(f"The trigram query option `{key}` must be a non-negative integer, got {value!r}")
    hits = ctx.db.index_manager.search(name, text, limit, kind="TRIGRAM", entity=entity, skip=skip,
                                       threshold=options.get("threshold"))
    return _rows(ctx, entity, hits)


def _set_search_options(ctx, name, options):
    """Change a vector index's search-time settings without a rebuild; in a writing transaction the change
    commits with it, otherwise in a transaction of its own (waiting at most 30 s for the writer)."""
    if name is None:
        raise ArgumentError("db.index.vector.setSearchOptions needs an index name")
    tx = ctx.tx if hasattr(ctx.tx, "put_schema") else None
    manager = ctx.db.index_manager
    if tx is None:
        wtx = manager.store.begin_write(timeout=30.0)
        try:
            definition = manager.set_search_options(name, options, tx=wtx)
            wtx.commit()
        except BaseException:
            wtx.rollback()
            raise
    else:
        definition = manager.set_search_options(name, options, tx=tx)
    return [{"name": definition.name, "indexConfig": dict(definition.config)}]


def _await_indexes(ctx, timeout=300):
    seconds = 300 if timeout is None else timeout
    if not ctx.db.index_manager.await_indexes(float(seconds)):
        raise ProcedureCallFailed(f"Timed out after {seconds} s waiting for the indexes to come online",
                                  detail="ProcedureCallFailed")
    return []
