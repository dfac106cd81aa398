"""Search-index definitions: validated from DDL options, stored in the schema catalog, shown by SHOW INDEXES."""
from __future__ import annotations

from dataclasses import dataclass, field

from relate.protocol.errors import ArgumentError

from . import vector as vector_defaults
from .analyzers import DEFAULT_ANALYZER, get_analyzer
from .engines import ENGINES
from .sharded.options import PLACEMENT_KEYS, placement_value

CATALOG_KIND = "search_index"      # marks our entries among the schema catalog's definitions
VECTOR, FULLTEXT = "VECTOR", "FULLTEXT"
NODE, RELATIONSHIP = "node", "relationship"

_VECTOR_KEYS = {
    "vector.dimensions": "dimensions", "vector.similarity_function": "similarity",
    "vector.hnsw.m": "m", "vector.hnsw.ef_construction": "ef_construction",
    "vector.hnsw.ef_search": "ef_search", "vector.hnsw.min_size": "hnsw_min_size",
    "vector.exact.max_scope": "exact_max_scope", "vector.quantization.enabled": None,
    "vector.embedder": "embedder",      # names the server-side embedder for text queries (server/ai)
    # short spellings
    "m": "m", "efconstruction": "ef_construction", "efsearch": "ef_search",
}
# Settings that only steer searches (not the FAISS graph or the rows): db.index.vector.setSearchOptions
# changes them on a live index, without a rebuild.
SEARCH_KEYS = ("vector.hnsw.ef_search", "vector.exact.max_scope")
_FULLTEXT_KEYS = {"fulltext.analyzer": "analyzer", "fulltext.eventually_consistent": None,
                  "fulltext.engine": "engine"}


@dataclass
class IndexDefinition:
    """What CREATE VECTOR/FULLTEXT INDEX declared, with its options resolved."""
    name: str
    type: str                       # VECTOR or FULLTEXT
    entity: str                     # node or relationship
    tokens: list                    # labels (nodes) or relationship types
    properties: list                # the vector property, or the full-text properties
    filter_properties: list = field(default_factory=list)   # vector WITH [...]
    config: dict = field(default_factory=dict)              # resolved indexConfig

    @property
    def provider(self) -> str:
        return "vector-2.0" if self.type == VECTOR else "fulltext-1.0"

    def covers(self, labels_or_type) -> bool:
        """Whether an entity with these labels (node) or this type (relationship) is in scope."""
        if self.entity == NODE:
            return any(label in labels_or_type for label in self.tokens)
        return labels_or_type in self.tokens

    @property
    def keys(self) -> set:
        """Property keys whose changes can change this index."""
        return set(self.properties) | set(self.filter_properties)

    def to_catalog(self) -> dict:
        return {"kind": CATALOG_KIND, "type": self.type, "entity": self.entity, "tokens": list(self.tokens),
                "properties": list(self.properties), "filter_properties": list(self.filter_properties),
                "config": dict(self.config)}

    @classmethod
    def from_catalog(cls, name: str, entry: dict) -> "IndexDefinition":
        return cls(name, entry["type"], entry["entity"], list(entry["tokens"]), list(entry["properties"]),
                   list(entry.get("filter_properties", [])), dict(entry.get("config", {})))

    def structure(self) -> dict:
        """The catalog entry less the search-time settings: equal structures share the same index files."""
        entry = self.to_catalog()
        entry["config"] = {k: v for k, v in entry["config"].items() if k not in SEARCH_KEYS}
        return entry

    def with_search_options(self, options) -> "IndexDefinition":
        """A copy with search-time settings changed (``vector.hnsw.ef_search``, ``vector.exact.max_scope``,
        or their short spellings); an ArgumentError for anything else or a bad value."""
        if self.type != VECTOR:
            raise ArgumentError(f"Index `{self.name}` is a {self.type.lower()} index; search options "
                                f"apply to vector indexes")
        if not isinstance(options, dict) or not options:
            raise ArgumentError("The search options must be a non-empty map, e.g. {`vector.hnsw.ef_search`: 128}")
        config = dict(self.config)
        for key, value in options.items():
            spelled = key if key in _VECTOR_KEYS else str(key).lower()
            target = _VECTOR_KEYS.get(spelled)
            full = {"ef_search": "vector.hnsw.ef_search", "exact_max_scope": "vector.exact.max_scope"}.get(target)
            if full is None:
                hint = " (it shapes the index: drop and recreate the index to change it)" \
                    if spelled in _VECTOR_KEYS else ""
                raise ArgumentError(f"`{key}` is not a search option{hint}; search options: "
                                    f"{', '.join(SEARCH_KEYS)}")
            value = _positive_int(full, value, allow_zero=target == "exact_max_scope")
            if target == "ef_search" and value > vector_defaults.EF_MAX:
                raise ArgumentError(f"`vector.hnsw.ef_search` must be at most {vector_defaults.EF_MAX}, got {value}")
            config[full] = value
        return IndexDefinition(self.name, self.type, self.entity, list(self.tokens), list(self.properties),
                               list(self.filter_properties), config)

    def same_rule(self, other: "IndexDefinition") -> bool:
        """Equivalent schema rule: same kind, scope, properties and configuration, whatever the name.

        Indexes that differ only in configuration (engine, analyzer, similarity) may coexist."""
        return (self.type, self.entity, sorted(self.tokens), list(self.properties), self.config) == \
            (other.type, other.entity, sorted(other.tokens), list(other.properties), other.config)

    def create_statement(self) -> str:
        """The DDL that recreates this index (SHOW INDEXES' createStatement), with its non-default settings."""
        var = "n" if self.entity == NODE else "r"
        scope = f"({var}:{'|'.join(_quote(t) for t in self.tokens)})" if self.entity == NODE else \
            f"()-[{var}:{'|'.join(_quote(t) for t in self.tokens)}]-()"
        props = ", ".join(f"{var}.{_quote(p)}" for p in self.properties)
        if self.type == VECTOR:
            text = f"CREATE VECTOR INDEX {_quote(self.name)} FOR {scope} ON ({props})"
            if self.filter_properties:
                text += " WITH [" + ", ".join(f"{var}.{_quote(p)}" for p in self.filter_properties) + "]"
            shown = {k: v for k, v in self.config.items() if v is not None and
                     (k in ("vector.dimensions", "vector.similarity_function") or v != _VECTOR_DEFAULTS.get(k))}
        else:
            text = f"CREATE FULLTEXT INDEX {_quote(self.name)} FOR {scope} ON EACH [{props}]"
            if self.filter_properties:
                text += " WITH [" + ", ".join(f"{var}.{_quote(p)}" for p in self.filter_properties) + "]"
            shown = {k: v for k, v in self.config.items() if k in ("fulltext.analyzer", "fulltext.engine")}
        settings = ", ".join(f"{_quote(k)}: {_literal(v)}" for k, v in sorted(shown.items()))
        return f"{text} OPTIONS {{indexConfig: {{{settings}}}}}"

    def show_row(self) -> dict:
        """The SHOW INDEXES columns that depend on the definition only."""
        config = {k: v for k, v in self.config.items()}
        return {"createStatement": self.create_statement(), "trackedSince": None,"name": self.name, "type": self.type,
                "entityType": "NODE" if self.entity == NODE else "RELATIONSHIP",
                "labelsOrTypes": list(self.tokens), "properties": list(self.properties),
                "filterProperties": list(self.filter_properties), "indexProvider": self.provider,
                "owningConstraint": None, "options": {"indexProvider": self.provider, "indexConfig": config}}


def _quote(name: str) -> str:
    return "`" + str(name).replace("`", "``") + "`"


def _literal(value) -> str:
    if isinstance(value, str):
        return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"
    return str(value).lower() if isinstance(value, bool) else str(value)


_VECTOR_DEFAULTS = {"vector.hnsw.m": vector_defaults.DEFAULT_M,
                    "vector.hnsw.ef_construction": vector_defaults.DEFAULT_EF_CONSTRUCTION,
                    "vector.hnsw.ef_search": vector_defaults.DEFAULT_EF_SEARCH,
                    "vector.hnsw.min_size": vector_defaults.HNSW_MIN_SIZE,
                    "vector.exact.max_scope": vector_defaults.EXACT_MAX_SCOPE}


def _index_config(options: dict | None) -> dict:
    if not options:
        return {}
    if not isinstance(options, dict):
        raise ArgumentError("OPTIONS must be a map")
    unknown = set(options) - {"indexConfig", "indexProvider"}
    if unknown:
        raise ArgumentError(f"Unknown index option(s) {sorted(unknown)}; expected indexConfig or indexProvider")
    config = options.get("indexConfig") or {}
    if not isinstance(config, dict):
        raise ArgumentError("indexConfig must be a map")
    return config


def _positive_int(key: str, value, allow_zero: bool = False) -> int:
    if type(value) is not int or value < (0 if allow_zero else 1):
        raise ArgumentError(f"Index setting `{key}` must be a {'non-negative' if allow_zero else 'positive'} "
                            f"integer, got {value!r}")
    return value


def vector_definition(name: str, entity: str, token: str, prop: str, filter_props, options) -> IndexDefinition:
    """Validate CREATE VECTOR INDEX; indexConfig keys as Neo4j spells them, plus Relate's HNSW knobs."""
    config = {"vector.similarity_function": "cosine", "vector.dimensions": None,
              "vector.hnsw.m": vector_defaults.DEFAULT_M,
              "vector.hnsw.ef_construction": vector_defaults.DEFAULT_EF_CONSTRUCTION,
              "vector.hnsw.ef_search": vector_defaults.DEFAULT_EF_SEARCH,
              "vector.hnsw.min_size": vector_defaults.HNSW_MIN_SIZE,
              "vector.exact.max_scope": vector_defaults.EXACT_MAX_SCOPE}
    canonical = {v: k for k, v in _VECTOR_KEYS.items() if v and k.startswith("vector.")}
    for key, value in _index_config(options).items():
        if key in PLACEMENT_KEYS:       # shards / replicas: a sharded placement (sharded/options.py)
            config[key] = placement_value(key, value)
            continue
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
                raise ArgumentError(f"`vector.similarity_function` must be 'cosine' or 'euclidean', got {value!r}")
            value = value.lower()
        elif target == "embedder":
            from relate.server.ai import embedders      # validates the name (ArgumentError if unknown)
            value = embedders.get(value).name
        elif target == "dimensions":
            value = _positive_int(full, value)
            if value > 4096:
                raise ArgumentError(f"`vector.dimensions` must be at most 4096, got {value}")
        else:
            value = _positive_int(full, value, allow_zero=target in ("hnsw_min_size", "exact_max_scope"))
        config[full] = value
    if prop in filter_props:
        raise ArgumentError(f"The vector property {prop!r} cannot also be a WITH filter property")
    return IndexDefinition(name, VECTOR, entity, [token], [prop], list(filter_props), config)


def vector_config(definition: IndexDefinition) -> vector_defaults.VectorConfig:
    c = definition.config
    return vector_defaults.VectorConfig(
        c.get("vector.dimensions"), c.get("vector.similarity_function", "cosine"),
        c.get("vector.hnsw.m", vector_defaults.DEFAULT_M),
        c.get("vector.hnsw.ef_construction", vector_defaults.DEFAULT_EF_CONSTRUCTION),
        c.get("vector.hnsw.ef_search", vector_defaults.DEFAULT_EF_SEARCH),
        c.get("vector.hnsw.min_size", vector_defaults.HNSW_MIN_SIZE),
        c.get("vector.exact.max_scope", vector_defaults.EXACT_MAX_SCOPE))


def fulltext_definition(name: str, entity: str, tokens, props, options, default_engine: str,
                        filter_props=()) -> IndexDefinition:
    """Validate CREATE FULLTEXT INDEX: analyzer and engine (`fulltext.engine`: whoosh | tantivy)."""
    if not tokens or not props:
        raise ArgumentError("A full-text index needs at least one label or type and one property")
    if len(set(props)) != len(props):
        raise ArgumentError("A full-text index lists each property once")
    config = {"fulltext.analyzer": DEFAULT_ANALYZER, "fulltext.eventually_consistent": False,
              "fulltext.engine": default_engine}
    for key, value in _index_config(options).items():
        if key in PLACEMENT_KEYS:
            config[key] = placement_value(key, value)
            continue
        if key not in _FULLTEXT_KEYS:
            raise ArgumentError(f"Invalid full-text index setting `{key}`; known settings: "
                                f"{', '.join(_FULLTEXT_KEYS)}")
        if key == "fulltext.analyzer":
            get_analyzer(value)
        elif key == "fulltext.engine" and value not in ENGINES:
            raise ArgumentError(f"`fulltext.engine` must be one of {', '.join(ENGINES)}, got {value!r}")
        elif key == "fulltext.eventually_consistent" and type(value) is not bool:
            raise ArgumentError("`fulltext.eventually_consistent` must be a boolean")
        config[key] = value
    return IndexDefinition(name, FULLTEXT, entity, list(dict.fromkeys(tokens)), list(props), list(filter_props),
                           config)
