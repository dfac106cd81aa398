"""FULLTEXT indexes: exact Lucene BM25 over string properties, on tantivy or Whoosh (``..fulltext``)."""
from __future__ import annotations

from relate.protocol.errors import ArgumentError

from ..analyzers import DEFAULT_ANALYZER, get_analyzer
from ..definitions import IndexDefinition, index_config, quote
from ..engines import ENGINES
from ..fulltext import FullTextIndex
from . import register
from .base import SearchProvider

_FULLTEXT_KEYS = {"fulltext.analyzer": "analyzer", "fulltext.eventually_consistent": None,
                  "fulltext.engine": "engine"}


class FullTextProvider(SearchProvider):
    kind = "FULLTEXT"
    index_provider = "fulltext-1.0"
    skip_allowed = True

    def definition(self, name, entity, tokens, properties, filter_properties, options, defaults):
        """Validate CREATE FULLTEXT INDEX: analyzer and engine (`fulltext.engine`: whoosh | tantivy)."""
        if not tokens or not properties:
            raise ArgumentError("A full-text index needs at least one label or type and one property")
        if len(set(properties)) != len(properties):
            raise ArgumentError("A full-text index lists each property once")
        config = {"fulltext.analyzer": DEFAULT_ANALYZER, "fulltext.eventually_consistent": False,
                  "fulltext.engine": defaults.get("fulltext_engine", "tantivy")}
        for key, value in index_config(options).items():
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
        return IndexDefinition(name, self.kind, entity, list(dict.fromkeys(tokens)), list(properties),
                               list(filter_properties), config)

    def on_clause(self, definition, var):
        return "ON EACH [" + ", ".join(f"{var}.{quote(p)}" for p in definition.properties) + "]"

    def shown_config(self, definition):
        return {k: v for k, v in definition.config.items() if k in ("fulltext.analyzer", "fulltext.engine")}

    def open(self, definition, directory, create):
        return FullTextIndex(definition.properties, definition.config.get("fulltext.analyzer"),
                             definition.config["fulltext.engine"], directory, create=create)

    def apply(self, index, ops):
        impl, d = index.impl, index.definition
        impl.apply({key: None if st is None or not d.covers(st.scope) else impl.analyze(st.props)
                    for key, st in ops.items()})

    def after_apply(self, index):
        if index.impl.wants_engine_flush():
            index.impl.flush_engine(index.rw)

    def search(self, index, query, limit, *, skip=0, filters=(), keys=None, accept=None, timeout_s=None,
               mode="lucene", **options):
        return index.impl.search(query, skip, limit, timeout_s, mode=mode, keys=keys, accept=accept)

    def register_procedures(self, registry):
        from ..procedures import register_fulltext
        register_fulltext(registry)


register(FullTextProvider())
