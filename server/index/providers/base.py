"""``SearchProvider``: what one search-index kind implements (see docs/architecture.md, "Search providers")."""
from __future__ import annotations

from typing import TYPE_CHECKING

from relate.protocol.errors import ArgumentError

from ..definitions import NODE, RELATIONSHIP, IndexDefinition, quote
from ..rwlock import NoLock

if TYPE_CHECKING:
    from typing import AbstractSet, Any, Callable, Iterable, Sequence

    from relate.server.query.context import ExecContext
    from relate.server.query.procedures import ProcedureRegistry

    from ..managed import ManagedIndex, _State
    from ..manager import IndexManager

    # What ``apply`` receives: entity id -> its committed state, or None when it is gone.
    Ops = dict[int, _State | None]
    # A WITH filter a kind with native filters applies: (property, operator, value).
    Filter = tuple[str, str, Any]
    # (entity id, score), best first.
    Hits = list[tuple[int, float]]


class SearchProvider:
    """One kind of search index. Subclass it in a module of this package, set the class attributes,
    override what the kind needs, and ``register(Provider())`` at the bottom of the module.

    The live index (``managed.ManagedIndex``, one per definition) calls ``open``/``apply``/``search``
    with itself as ``index``: ``index.impl`` is what ``open`` returned, ``index.definition`` the
    definition, ``index.rw`` its read/write lock (``apply`` runs under ``_mutate``; searches under the
    read side). ``impl`` must support ``len()``, ``save(directory, rw)`` and ``load(directory)``; an
    optional ``close()`` and ``skipped`` (SHOW INDEXES' skippedDocuments) are used when present."""

    kind = ""                     # CREATE <kind> INDEX ... / SEARCH n IN (<kind> INDEX ...)
    index_provider = ""           # SHOW INDEXES' indexProvider
    skip_allowed = False          # SEARCH ... SKIP n
    native_filters = False        # True: search() applies [(prop, op, value)] filters itself; False: the
                                  # SEARCH operator passes an ``accept(id)`` built from the snapshot instead
    query_kind = "a string"       # what FOR takes, for error messages

    # ---- DDL --------------------------------------------------------------------------------
    def definition(self, name: str, entity: str, tokens: list[str], properties: list[str],
                   filter_properties: list[str], options: dict[str, Any] | None, defaults: dict[str, Any]
                   ) -> IndexDefinition:
        """Validate CREATE <kind> INDEX into a definition (ArgumentError/SchemaError when invalid);
        ``defaults`` carries the manager's settings (e.g. ``fulltext_engine``)."""
        raise NotImplementedError

    def structure(self, definition: IndexDefinition) -> dict[str, Any]:
        """The catalog entry less settings that only steer searches: equal structures share the files."""
        return definition.to_catalog()

    def with_search_options(self, definition: IndexDefinition, options: object) -> IndexDefinition:
        """A copy with search-time settings changed (db.index.vector.setSearchOptions); none by default."""
        raise ArgumentError(f"Index `{definition.name}` is a {definition.type.lower()} index; search options "
                            f"apply to vector indexes")

    def on_clause(self, definition: IndexDefinition, var: str) -> str:
        """The ``ON ...`` part of the createStatement."""
        return "ON (" + ", ".join(f"{var}.{quote(p)}" for p in definition.properties) + ")"

    def shown_config(self, definition: IndexDefinition) -> dict[str, Any]:
        """The indexConfig settings the createStatement spells out."""
        return {}

    # ---- the live index ---------------------------------------------------------------------
    def open(self, definition: IndexDefinition, directory: str | None, create: bool) -> Any:
        """A new empty structure (``create``) or one about to ``load`` saved files from ``directory``
        (typed Any: each kind has its own structure class, which only its provider calls)."""
        raise NotImplementedError

    def apply(self, index: ManagedIndex, ops: Ops) -> None:
        """Apply committed state: ``ops`` maps entity id -> state (``.scope`` labels or type, ``.props``,
        ``.index_touched``) or None (gone). Entities out of scope (``definition.covers``) leave the index."""
        raise NotImplementedError

    def after_apply(self, index: ManagedIndex) -> None:
        """Called after ``apply`` outside the write lock (e.g. to hand an overlay to a slower engine)."""

    def retune(self, index: ManagedIndex, definition: IndexDefinition) -> None:
        """Adopt a definition whose ``structure`` is unchanged (search-time settings only)."""

    def search(self, index: ManagedIndex, query: Any, limit: int | None, *, skip: int = 0,
               filters: Sequence[Filter] = (), keys: AbstractSet[int] | None = None,
               accept: Callable[[int], bool] | None = None, timeout_s: float | None = None,
               **options: Any) -> Hits:
        """(entity id, score) best first, ties by id: rows [skip, skip + limit) among ids in ``keys``
        (a set, or None for all) that pass ``accept(id)`` (or None)."""
        raise NotImplementedError

    def scratch(self, definition: IndexDefinition) -> Any:
        """An empty in-memory structure for a transaction's written entities (``tx_overlay``)."""
        return self.open(definition, None, True)

    def tx_overlay(self, index: ManagedIndex) -> TxOverlay:
        """What a writing transaction's searches of ``index`` read besides the committed index: its own
        written entities (``ManagedIndex.search_in_tx`` feeds it the transaction's changes as they come).
        By default a scratch structure of this kind whose hits are merged with the committed ones (right
        for kinds whose scores do not depend on the rest of the corpus)."""
        return ScratchOverlay(self, index.definition)

    def search_while_populating(self, manager: IndexManager, index: ManagedIndex, query: Any, limit: int | None,
                                *, filters: Sequence[Filter] = (), keys: AbstractSet[int] | None = None,
                                accept: Callable[[int], bool] | None = None, **options: Any) -> Hits | None:
        """Hits for a search while ``index`` is POPULATING, or None to wait for it (the default)."""
        return None

    # ---- the SEARCH clause and procedures ---------------------------------------------------
    def prepare_query(self, ctx: ExecContext, index_name: str, query: Any) -> Any:
        """The FOR value as the index searches it (type checks, server-side embedding, ...)."""
        if not isinstance(query, str):
            from relate.protocol.errors import CypherTypeError
            from relate.server.query.exec.values.ops import type_name
            raise CypherTypeError(f"A {self.kind.lower()} search takes {self.query_kind}, got {type_name(query)}",
                                  detail="InvalidArgumentType", phase="runtime")
        return query

    def register_procedures(self, registry: ProcedureRegistry) -> None:
        """Add this kind's procedures (db.index.<kind>.*) to a ProcedureRegistry."""


class TxOverlay:
    """One writing transaction's view of one index (``SearchProvider.tx_overlay``)."""

    def update(self, written: Ops) -> None:
        """Take the state in the transaction of entities it wrote since the last call (None: gone or out
        of the index's scope)."""
        raise NotImplementedError

    def valid(self, index: ManagedIndex) -> bool:
        """False when the committed structure it was made against has been replaced (make a new one)."""
        return True

    def search(self, index: ManagedIndex, query: Any, limit: int | None, *, skip: int = 0,
               **options: Any) -> Hits:
        """``SearchProvider.search`` as the index will answer once the transaction commits (under the
        index's read lock)."""
        raise NotImplementedError


class ScratchOverlay(TxOverlay):
    """The written entities in a scratch index of the same kind; hits merged with the committed ones
    less the written ids."""

    def __init__(self, provider: SearchProvider, definition: IndexDefinition):
        self.provider = provider
        self.written: set[int] = set()
        self.scratch = _Scratch(definition, provider.scratch(definition))

    def update(self, written: Ops) -> None:
        self.written.update(written)
        self.provider.apply(self.scratch, written)   # type: ignore[arg-type]  # what apply reads of a ManagedIndex

    def search(self, index: ManagedIndex, query: Any, limit: int | None, *, skip: int = 0,
               **options: Any) -> Hits:
        written, provider = self.written, self.provider
        # the committed hits lose the written ids among them: ask for that many more
        try:
            hidden = sum(1 for key in written if key in index.impl)
        except TypeError:                   # a structure without membership: assume all of them
            hidden = len(written)
        wanted = None if limit is None else skip + limit + hidden
        merged = [hit for hit in provider.search(index, query, wanted, **options) if hit[0] not in written]
        if len(self.scratch.impl):
            merged += provider.search(self.scratch, query, None if limit is None else skip + limit,  # type: ignore[arg-type]
                                      **options)
        merged.sort(key=lambda hit: (-hit[1], hit[0]))
        return merged[skip:] if limit is None else merged[skip:skip + limit]


class _Scratch:
    """A throwaway in-memory index of one kind (``ScratchOverlay``): the parts of a ManagedIndex that
    ``apply`` and ``search`` read."""
    __slots__ = ("definition", "impl", "rw", "build_threads")

    def __init__(self, definition: IndexDefinition, impl: Any):
        self.definition, self.impl, self.rw, self.build_threads = definition, impl, NoLock(), 1


def scope_text(definition: IndexDefinition, var: str) -> str:
    """``(n:A|B)`` or ``()-[r:T]-()`` for a createStatement."""
    tokens = "|".join(quote(t) for t in definition.tokens)
    return f"({var}:{tokens})" if definition.entity == NODE else f"()-[{var}:{tokens}]-()"


def filter_hits(found: Iterable[tuple[int, float]], skip: int, limit: int | None,
                keys: AbstractSet[int] | None = None, accept: Callable[[int], bool] | None = None) -> Hits:
    """Keep hits in ``keys`` passing ``accept``, then the page [skip, skip + limit)."""
    out = [(k, s) for k, s in found if (keys is None or k in keys) and (accept is None or accept(k))]
    return out[skip:] if limit is None else out[skip:skip + limit]


def visible_rows(ctx: ExecContext, entity: str, hits: Iterable[tuple[int, float]]) -> list[dict[str, Any]]:
    """Rows for hits still visible in the caller's snapshot (the index may be ahead of it)."""
    from relate.server.query.refs import NodeRef, RelRef
    from relate.server.relevance.scope import node_filter
    tx = ctx.tx
    if entity == NODE:
        visible = node_filter(ctx) or tx.node_exists        # scoped / curated labels (docs/relevance.md)
        return [{"node": NodeRef(key), "score": score} for key, score in hits if visible(key)]
    return [{"relationship": RelRef(key), "score": score} for key, score in hits if tx.rel_exists(key)]


def register_queries(registry: ProcedureRegistry, kind: str, inputs: list[tuple[Any, ...]],
                     query: Callable[..., list[dict[str, Any]]], description: str) -> None:
    """db.index.<kind>.queryNodes and .queryRelationships, both ``query(ctx, entity, *arguments)``;
    ``description`` names the entities as {nodes} or {Nodes} (filled with relationships for the second)."""
    for entity, procedure, column in ((NODE, "queryNodes", "node"), (RELATIONSHIP, "queryRelationships", "relationship")):
        plural = column + "s"
        registry.register(f"db.index.{kind}.{procedure}", inputs, [(column, f"{column.upper()}?"), ("score", "FLOAT?")],
                          lambda ctx, *arguments, entity=entity: query(ctx, entity, *arguments),
                          description=description.format(nodes=plural, Nodes=plural.capitalize()))
