"""VECTOR indexes: FAISS HNSW (or exact) nearest neighbours over one vector property (``..vector``)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from relate.protocol.errors import ArgumentError

from .. import vector as vector_defaults
from ..definitions import IndexDefinition, index_config, positive_int
from ..vector import VectorIndex
from . import register
from .base import SearchProvider, register_queries, visible_rows

if TYPE_CHECKING:
    from typing import AbstractSet, Any, Callable, Sequence

    from relate.server.query.context import ExecContext
    from relate.server.query.procedures import ProcedureRegistry

    from ..managed import ManagedIndex
    from ..manager import IndexManager
    from .base import Filter, Hits, Ops

_VECTOR_KEYS = {
    "vector.dimensions": "dimensions", "vector.similarity_function": "similarity",
    "vector.hnsw.m": "m", "vector.hnsw.ef_construction": "ef_construction",
    "vector.hnsw.ef_search": "ef_search", "vector.hnsw.min_size": "hnsw_min_size",
    "vector.exact.max_scope": "exact_max_scope", "vector.quantization.enabled": "quantization",
    "vector.embedder": "embedder",      # names the server-side embedder for text queries (server/ai)
    # short spellings
    "m": "m", "efconstruction": "ef_construction", "efsearch": "ef_search",
}
AUTO = "auto"              # vector.hnsw.ef_search default: calibrated per index to recall@10 >= 0.98
# Settings that only steer searches (not the FAISS graph or the rows): db.index.vector.setSearchOptions
# changes them on a live index, without a rebuild.
SEARCH_KEYS = ("vector.hnsw.ef_search", "vector.exact.max_scope")

_DEFAULTS = {"vector.hnsw.m": vector_defaults.DEFAULT_M,
             "vector.hnsw.ef_construction": vector_defaults.DEFAULT_EF_CONSTRUCTION,
             "vector.hnsw.ef_search": AUTO,
             "vector.hnsw.min_size": vector_defaults.HNSW_MIN_SIZE,
             "vector.exact.max_scope": vector_defaults.EXACT_MAX_SCOPE,
             "vector.quantization.enabled": True}


def _ef_search(value: Any) -> int | None:
    """A configured efSearch, or None for 'auto' (calibrated by the index)."""
    return None if value == AUTO or value is None else value


def vector_config(definition: IndexDefinition) -> vector_defaults.VectorConfig:
    c = definition.config
    return vector_defaults.VectorConfig(
        c.get("vector.dimensions"), c.get("vector.similarity_function", "cosine"),
        c.get("vector.hnsw.m", vector_defaults.DEFAULT_M),
        c.get("vector.hnsw.ef_construction", vector_defaults.DEFAULT_EF_CONSTRUCTION),
        _ef_search(c.get("vector.hnsw.ef_search", AUTO)),
        c.get("vector.hnsw.min_size", vector_defaults.HNSW_MIN_SIZE),
        c.get("vector.exact.max_scope", vector_defaults.EXACT_MAX_SCOPE),
        c.get("vector.quantization.enabled", True))


class VectorProvider(SearchProvider):
    kind = "VECTOR"
    index_provider = "vector-2.0"
    native_filters = True
    query_kind = "a vector or a string"

    def definition(self, name: str, entity: str, tokens: list[str], properties: list[str],
                   filter_properties: list[str], options: dict[str, Any] | None, defaults: dict[str, Any]
                   ) -> IndexDefinition:
        """Validate CREATE VECTOR INDEX; indexConfig keys as Neo4j spells them, plus Relate's HNSW knobs."""
        if len(properties) != 1:
            raise ArgumentError("A vector index covers exactly one property")
        if len(tokens) != 1:
            raise ArgumentError("A vector index covers exactly one label or relationship type")
        prop = properties[0]
        options = _falkordb_options(options)
        config = {"vector.similarity_function": "cosine", "vector.dimensions": None, **_DEFAULTS}
        canonical = {v: k for k, v in _VECTOR_KEYS.items() if v and k.startswith("vector.")}
        for key, value in index_config(options).items():
            spelled = key if key in _VECTOR_KEYS else key.lower()
            if spelled not in _VECTOR_KEYS:
                raise ArgumentError(f"Invalid vector index setting `{key}`; known settings: "
                                    f"{', '.join(k for k in _VECTOR_KEYS if k.startswith('vector.'))}")
            target = _VECTOR_KEYS[spelled]
            if target is None:
                continue
            full = canonical[target]
            if target == "similarity":
                if not isinstance(value, str) or value.lower() not in ("cosine", "euclidean"):
                    raise ArgumentError(f"`vector.similarity_function` must be 'cosine' or 'euclidean', "
                                        f"got {value!r}")
                value = value.lower()
            elif target == "embedder":
                from relate.server.ai import embedders      # validates the name (ArgumentError if unknown)
                value = embedders.get(value).name
            elif target == "dimensions":
                value = positive_int(full, value)
                if value > 4096:
                    raise ArgumentError(f"`vector.dimensions` must be at most 4096, got {value}")
            elif target == "ef_search" and isinstance(value, str) and value.lower() == AUTO:
                value = AUTO
            elif target == "quantization":
                if type(value) is not bool:
                    raise ArgumentError(f"`vector.quantization.enabled` must be a boolean, got {value!r}")
            else:
                value = positive_int(full, value, allow_zero=target in ("hnsw_min_size", "exact_max_scope"))
            config[full] = value
        if prop in filter_properties:
            raise ArgumentError(f"The vector property {prop!r} cannot also be a WITH filter property")
        return IndexDefinition(name, self.kind, entity, list(tokens), [prop], list(filter_properties), config)

    def structure(self, definition: IndexDefinition) -> dict[str, Any]:
        entry = definition.to_catalog()
        entry["config"] = {k: v for k, v in entry["config"].items() if k not in SEARCH_KEYS}
        return entry

    def with_search_options(self, definition: IndexDefinition, options: object) -> IndexDefinition:
        """A copy with search-time settings changed (``vector.hnsw.ef_search``, ``vector.exact.max_scope``,
        or their short spellings); an ArgumentError for anything else or a bad value."""
        if not isinstance(options, dict) or not options:
            raise ArgumentError("The search options must be a non-empty map, e.g. {`vector.hnsw.ef_search`: 128}")
        config = dict(definition.config)
        for key, value in options.items():
            spelled = key if key in _VECTOR_KEYS else str(key).lower()
            target = _VECTOR_KEYS.get(spelled)
            # (target None, an unknown key: .get finds nothing)
            full = {"ef_search": "vector.hnsw.ef_search", "exact_max_scope": "vector.exact.max_scope"}.get(target)  # type: ignore[arg-type]
            if full is None:
                hint = " (it shapes the index: drop and recreate the index to change it)" \
                    if spelled in _VECTOR_KEYS else ""
                raise ArgumentError(f"`{key}` is not a search option{hint}; search options: "
                                    f"{', '.join(SEARCH_KEYS)}")
            if target == "ef_search" and isinstance(value, str) and value.lower() == AUTO:
                config[full] = AUTO
                continue
            value = positive_int(full, value, allow_zero=target == "exact_max_scope")
            if target == "ef_search" and value > vector_defaults.EF_MAX:
                raise ArgumentError(f"`vector.hnsw.ef_search` must be at most {vector_defaults.EF_MAX}, got {value}")
            config[full] = value
        return definition.replace(config=config)

    def shown_config(self, definition: IndexDefinition) -> dict[str, Any]:
        return {k: v for k, v in definition.config.items() if v is not None and
                (k in ("vector.dimensions", "vector.similarity_function") or v != _DEFAULTS.get(k))}

    def open(self, definition: IndexDefinition, directory: str | None, create: bool) -> VectorIndex:
        return VectorIndex(vector_config(definition), definition.filter_properties)

    def scratch(self, definition: IndexDefinition) -> VectorIndex:
        config = vector_config(definition)
        config.hnsw_min_size = 1 << 62          # a transaction's own rows: scored exactly
        return VectorIndex(config, definition.filter_properties)

    def apply(self, index: ManagedIndex, ops: Ops) -> None:
        impl, d = index.impl, index.definition
        prop = d.properties[0]
        upserts = []
        for key, st in ops.items():
            if st is None or not d.covers(st.scope) or st.props.get(prop) is None:
                impl.delete(key)
            elif not st.index_touched and key in impl:
                impl.set_filter_values(key, st.props)
            else:
                upserts.append((key, st.props[prop], st.props))
        impl.upsert_many(upserts)
        impl.sync(index.build_threads, index.rw)

    def retune(self, index: ManagedIndex, definition: IndexDefinition) -> None:
        if index.impl is not None:
            config = vector_config(definition)
            index.impl.config.ef_search = config.ef_search
            index.impl.config.exact_max_scope = config.exact_max_scope

    def search(self, index: ManagedIndex, query: Any, limit: int | None, *, skip: int = 0,
               filters: Sequence[Filter] = (), keys: AbstractSet[int] | None = None,
               accept: Callable[[int], bool] | None = None, timeout_s: float | None = None,
               many: bool = False, **options: Any) -> Hits:
        if many:        # ``query`` is a list of vectors: one hit list each, no filters (relevance joins)
            return index.impl.search_many(query, limit)  # type: ignore[no-any-return]  # (hit lists)
        k = (limit or 0) + skip
        found: Hits
        if keys is not None:
            found = index.impl.search_keys(query, k, keys, list(filters))
        else:
            found = index.impl.search(query, k, list(filters))
        if accept is not None:
            found = [(i, s) for i, s in found if accept(i)]
        return found[skip:]

    def search_while_populating(self, manager: IndexManager, index: ManagedIndex, query: Any, limit: int | None,
                                *, filters: Sequence[Filter] = (), keys: AbstractSet[int] | None = None,
                                accept: Callable[[int], bool] | None = None, **options: Any) -> Hits | None:
        """An exact scan of the store (cached per commit) while the index populates: no wait."""
        # a vector SEARCH always has a LIMIT (a semantic rule); the scan refuses a None k anyway
        found = manager.populating_fallback.search(manager.store, index.definition, query, limit, filters, keys)  # type: ignore[arg-type]
        return found if accept is None else [(i, s) for i, s in found if accept(i)]

    def prepare_query(self, ctx: ExecContext, index_name: str, query: Any) -> Any:
        if isinstance(query, str):      # text: embedded on the server by the index's embedder
            from relate.server.ai.index_text import embed_for_index
            return embed_for_index(ctx, index_name, query)
        return query

    def register_procedures(self, registry: ProcedureRegistry) -> None:
        register_queries(registry, "vector", [("indexName", "STRING?"), ("numberOfNearestNeighbours", "INTEGER?"),
                                              ("query", "ANY?")],
                         _vector, "The k nearest {nodes} to a vector (or text) in a vector index.")
        registry.register("db.index.vector.setSearchOptions", [("indexName", "STRING?"), ("options", "MAP?")],
                          [("name", "STRING?"), ("indexConfig", "MAP?")], _set_search_options, mode="SCHEMA",
                          description="Change a vector index's search-time settings without a rebuild.")


# FalkorDB spells the settings at the top of OPTIONS: {dimension: 384, similarityFunction: 'cosine', M,
# efConstruction, efRuntime}; taken as the indexConfig keys they stand for.
_FALKORDB_KEYS = {"dimension": "vector.dimensions", "similarityfunction": "vector.similarity_function",
                  "m": "vector.hnsw.m", "efconstruction": "vector.hnsw.ef_construction",
                  "efruntime": "vector.hnsw.ef_search"}


def _falkordb_options(options: Any) -> Any:
    """``options`` with FalkorDB's top-level vector settings moved into indexConfig (else unchanged)."""
    if not isinstance(options, dict) or not any(isinstance(k, str) and k.lower() in _FALKORDB_KEYS for k in options):
        return options
    rest = {k: v for k, v in options.items() if not (isinstance(k, str) and k.lower() in _FALKORDB_KEYS)}
    config = rest.get("indexConfig") or {}
    if not isinstance(config, dict):
        return options              # index_config refuses it, and the unknown keys
    config = dict(config)
    config.update({_FALKORDB_KEYS[k.lower()]: v for k, v in options.items() if k not in rest})
    return {**rest, "indexConfig": config}


def _vector(ctx: ExecContext, entity: str, name: str | None, k: int | None, vector: Any) -> list[dict[str, Any]]:
    if name is None or k is None or vector is None:
        return []
    hits = ctx.db.index_manager.vector_search(name, vector, k, (), entity=entity, tx=ctx.tx)
    return visible_rows(ctx, entity, hits)


def _set_search_options(ctx: ExecContext, name: str | None, options: Any) -> list[dict[str, Any]]:
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


register(VectorProvider())
