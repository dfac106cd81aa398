"""FULLTEXT indexes: exact Lucene BM25 over string properties, on tantivy or Whoosh (``..fulltext``)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from relate.protocol.errors import ArgumentError

from ..analyzers import ANALYZERS, DEFAULT_ANALYZER, get_analyzer
from ..definitions import IndexDefinition, index_config, quote
from ..engines import ENGINES
from ..corpus import WrittenView
from ..fulltext import FullTextIndex
from . import register
from .base import SearchProvider, TxOverlay, register_queries, visible_rows

if TYPE_CHECKING:
    from typing import AbstractSet, Any, Callable, Sequence

    from relate.server.query.context import ExecContext
    from relate.server.query.procedures import ProcedureRegistry

    from ..managed import ManagedIndex
    from .base import Filter, Hits, Ops

_FULLTEXT_KEYS = {"fulltext.analyzer": "analyzer", "fulltext.eventually_consistent": None,
                  "fulltext.engine": "engine"}


class FullTextProvider(SearchProvider):
    kind = "FULLTEXT"
    index_provider = "fulltext-1.0"
    skip_allowed = True

    def definition(self, name: str, entity: str, tokens: list[str], properties: list[str],
                   filter_properties: list[str], options: dict[str, Any] | None, defaults: dict[str, Any]
                   ) -> IndexDefinition:
        """Validate CREATE FULLTEXT INDEX: analyzer and engine (`fulltext.engine`: whoosh | tantivy)."""
        if not tokens or not properties:
            raise ArgumentError("A full-text index needs at least one label or type and one property")
        if len(set(properties)) != len(properties):
            raise ArgumentError("A full-text index lists each property once")
        config: dict[str, Any] = {"fulltext.analyzer": DEFAULT_ANALYZER, "fulltext.eventually_consistent": False,
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

    def on_clause(self, definition: IndexDefinition, var: str) -> str:
        return "ON EACH [" + ", ".join(f"{var}.{quote(p)}" for p in definition.properties) + "]"

    def shown_config(self, definition: IndexDefinition) -> dict[str, Any]:
        return {k: v for k, v in definition.config.items() if k in ("fulltext.analyzer", "fulltext.engine")}

    def open(self, definition: IndexDefinition, directory: str | None, create: bool) -> FullTextIndex:
        return FullTextIndex(definition.properties, definition.config.get("fulltext.analyzer"),
                             definition.config["fulltext.engine"], directory, create=create)

    def apply(self, index: ManagedIndex, ops: Ops) -> None:
        impl, d = index.impl, index.definition
        impl.apply({key: None if st is None or not d.covers(st.scope) else impl.analyze(st.props)
                    for key, st in ops.items()})

    def after_apply(self, index: ManagedIndex) -> None:
        if index.impl.wants_engine_flush():
            index.impl.flush_engine(index.rw)

    def search(self, index: ManagedIndex, query: Any, limit: int | None, *, skip: int = 0,
               filters: Sequence[Filter] = (), keys: AbstractSet[int] | None = None,
               accept: Callable[[int], bool] | None = None, timeout_s: float | None = None,
               mode: str = "lucene", **options: Any) -> Hits:
        # impl is this kind's FullTextIndex (see open)
        return index.impl.search(query, skip, limit, timeout_s, mode=mode, keys=keys, accept=accept)  # type: ignore[no-any-return]

    def tx_overlay(self, index: ManagedIndex) -> TxOverlay:
        return _WrittenDocuments(index.impl)

    def register_procedures(self, registry: ProcedureRegistry) -> None:
        register_queries(registry, "fulltext", [("indexName", "STRING?"), ("queryString", "STRING?"), ("options", "MAP?", {})],
                         _fulltext, "{Nodes} matching a Lucene query in a full-text index, by BM25 score.")
        registry.register("db.index.fulltext.listAvailableAnalyzers", [],
                          [("analyzer", "STRING?"), ("description", "STRING?"), ("stopwords", "LIST? OF STRING?")],
                          lambda ctx: ({"analyzer": a.name, "description": a.description,
                                        "stopwords": sorted(a.stopwords)} for a in ANALYZERS.values()),
                          description="The full-text analyzers and their stopwords.")


def _fulltext(ctx: ExecContext, entity: str, name: str | None, query: str | None, options: Any
              ) -> list[dict[str, Any]]:
    if name is None or query is None:
        return []
    options = dict(options or {})
    unknown = set(options) - {"skip", "limit", "analyzer", "eventually_consistent", "mode"}
    if unknown:
        raise ArgumentError(f"Unknown full-text query option(s) {sorted(unknown)}; expected skip, limit and mode")
    skip, limit = options.get("skip") or 0, options.get("limit")
    # Lucene syntax by default, as Neo4j; {mode: 'plain'} reads the text as words only.
    hits = ctx.db.index_manager.fulltext_search(name, query, skip, limit, entity=entity,
                                                mode=options.get("mode") or "lucene", tx=ctx.tx)
    return visible_rows(ctx, entity, hits)


class _WrittenDocuments(TxOverlay):
    """BM25 depends on the whole corpus: the committed one is seen through the transaction's writes
    (`WrittenView`), so every score is the one the index will give once they commit."""

    def __init__(self, impl: FullTextIndex):
        self.impl = impl
        self.view = WrittenView(impl.corpus)

    def update(self, written: Ops) -> None:
        for key, state in written.items():
            self.view.update(key, None if state is None else self.impl.analyze(state.props))

    def valid(self, index: ManagedIndex) -> bool:
        return index.impl is self.impl and self.view.base is self.impl.corpus

    def search(self, index: ManagedIndex, query: Any, limit: int | None, *, skip: int = 0,
               keys: AbstractSet[int] | None = None, accept: Callable[[int], bool] | None = None,
               timeout_s: float | None = None, mode: str = "lucene", **options: Any) -> Hits:
        return self.impl.search(query, skip, limit, timeout_s, mode=mode, keys=keys, accept=accept,
                                corpus=self.view, written=self.view.written)


register(FullTextProvider())
