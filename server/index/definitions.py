"""Search-index definitions: the kind-neutral record stored in the schema catalog and shown by SHOW
INDEXES; what each kind validates and shows comes from its provider (``providers/``)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from relate.protocol.errors import ArgumentError

if TYPE_CHECKING:
    from typing import Any

    from .providers.base import SearchProvider

CATALOG_KIND = "search_index"      # marks our entries among the schema catalog's definitions
VECTOR, FULLTEXT = "VECTOR", "FULLTEXT"
NODE, RELATIONSHIP = "node", "relationship"


def _provider(kind: str) -> SearchProvider:
    from .providers import get_provider       # providers import this module: resolved at call time
    return get_provider(kind)


@dataclass
class IndexDefinition:
    """What CREATE <kind> INDEX declared, with its options resolved by the kind's provider."""
    name: str
    type: str                       # the kind: VECTOR, FULLTEXT, TRIGRAM, ...
    entity: str                     # node or relationship
    tokens: list[str]               # labels (nodes) or relationship types
    properties: list[str]           # the indexed properties
    filter_properties: list[str] = field(default_factory=list)   # WITH [...]
    config: dict[str, Any] = field(default_factory=dict)         # resolved indexConfig

    @property
    def provider(self) -> str:
        return _provider(self.type).index_provider

    def covers(self, labels_or_type: frozenset[str] | str) -> bool:
        """Whether an entity with these labels (node) or this type (relationship) is in scope."""
        if self.entity == NODE:
            return any(label in labels_or_type for label in self.tokens)
        return labels_or_type in self.tokens

    @property
    def keys(self) -> set[str]:
        """Property keys whose changes can change this index."""
        return set(self.properties) | set(self.filter_properties)

    def to_catalog(self) -> dict[str, Any]:
        return {"kind": CATALOG_KIND, "type": self.type, "entity": self.entity, "tokens": list(self.tokens),
                "properties": list(self.properties), "filter_properties": list(self.filter_properties),
                "config": dict(self.config)}

    @classmethod
    def from_catalog(cls, name: str, entry: dict[str, Any]) -> "IndexDefinition":
        return cls(name, entry["type"], entry["entity"], list(entry["tokens"]), list(entry["properties"]),
                   list(entry.get("filter_properties", [])), dict(entry.get("config", {})))

    def replace(self, **changes: Any) -> "IndexDefinition":
        """A copy with some fields changed (lists and config copied)."""
        fields: dict[str, Any] = {"name": self.name, "type": self.type, "entity": self.entity, "tokens": list(self.tokens),
                  "properties": list(self.properties), "filter_properties": list(self.filter_properties),
                  "config": dict(self.config)}
        fields.update(changes)
        return IndexDefinition(**fields)

    def structure(self) -> dict[str, Any]:
        """The catalog entry less the search-time settings: equal structures share the same index files."""
        return _provider(self.type).structure(self)

    def with_search_options(self, options: object) -> "IndexDefinition":
        """A copy with search-time settings changed; an ArgumentError when the kind has none or a value is bad."""
        return _provider(self.type).with_search_options(self, options)

    def same_rule(self, other: "IndexDefinition") -> bool:
        """Equivalent schema rule: same kind, scope, properties and configuration, whatever the name.

        Indexes that differ only in configuration (engine, analyzer, similarity) may coexist."""
        return (self.type, self.entity, sorted(self.tokens), list(self.properties), self.config) == \
            (other.type, other.entity, sorted(other.tokens), list(other.properties), other.config)

    def create_statement(self) -> str:
        """The DDL that recreates this index (SHOW INDEXES' createStatement), with its non-default settings."""
        from .providers.base import scope_text
        provider = _provider(self.type)
        var = "n" if self.entity == NODE else "r"
        text = f"CREATE {self.type} INDEX {quote(self.name)} FOR {scope_text(self, var)} {provider.on_clause(self, var)}"
        if self.filter_properties:
            text += " WITH [" + ", ".join(f"{var}.{quote(p)}" for p in self.filter_properties) + "]"
        shown = provider.shown_config(self)
        settings = ", ".join(f"{quote(k)}: {_literal(v)}" for k, v in sorted(shown.items()))
        return f"{text} OPTIONS {{indexConfig: {{{settings}}}}}"

    def show_row(self) -> dict[str, Any]:
        """The SHOW INDEXES columns that depend on the definition only."""
        config = {k: v for k, v in self.config.items()}
        return {"createStatement": self.create_statement(), "trackedSince": None,"name": self.name, "type": self.type,
                "entityType": "NODE" if self.entity == NODE else "RELATIONSHIP",
                "labelsOrTypes": list(self.tokens), "properties": list(self.properties),
                "filterProperties": list(self.filter_properties), "indexProvider": self.provider,
                "owningConstraint": None, "options": {"indexProvider": self.provider, "indexConfig": config}}


def quote(name: str) -> str:
    return "`" + str(name).replace("`", "``") + "`"


def _literal(value: object) -> str:
    if isinstance(value, str):
        return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"
    return str(value).lower() if isinstance(value, bool) else str(value)


def index_config(options: object) -> dict[str, Any]:
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


def positive_int(key: str, value: object, allow_zero: bool = False) -> int:
    if type(value) is not int or value < (0 if allow_zero else 1):
        raise ArgumentError(f"Index setting `{key}` must be a {'non-negative' if allow_zero else 'positive'} "
                            f"integer, got {value!r}")
    return value
