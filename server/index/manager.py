"""IndexManager: owns every search index of a database, whatever its kind (see docs/architecture.md).

Definitions live in the store's schema catalog (durable, transactional): DDL writes a catalog entry,
and the index comes to life when that entry commits (the ``schema+`` change), so a rolled-back
CREATE never creates anything. Index files sit under ``<directory>/<name>/``; each records the commit
ts it covers and is reused on open only when that equals the store's last commit, else the index is
rebuilt from the store in the background.
"""
from __future__ import annotations

import os
import re
import threading
import time
import zlib
from typing import TYPE_CHECKING

import structlog

from relate.protocol.errors import ArgumentError, EquivalentSchemaRuleAlreadyExists, IndexNotFound, SchemaError

from ..inline import ON_LOOP, refuse_on_loop
from .fallback import ExactFallback
from .definitions import CATALOG_KIND, FULLTEXT, NODE, RELATIONSHIP, VECTOR, IndexDefinition
from .managed import ManagedIndex
from .sharded.live import placed
from .sharded.options import split_placement
from .providers import get_provider

if TYPE_CHECKING:
    import builtins      # IndexManager.list shadows the builtin in its class body
    from typing import AbstractSet, Any, Callable, Iterable

    from relate.server.storage.read_tx import ReadTx
    from relate.server.storage.store import GraphStore
    from relate.server.storage.versions import Change
    from relate.server.storage.write_tx import WriteTx

    from .providers.base import Filter, Hits

    # Builds the live index of a definition: (definition, store, directory, build_threads).
    Placement = Callable[[IndexDefinition, GraphStore, str | None, int], ManagedIndex]

log = structlog.get_logger(__name__)

DEFAULT_FULLTEXT_ENGINE = "tantivy"     # chosen from bench/search.py (see docs/architecture.md)
POPULATING_WAIT_S = 30.0                # how long a search waits for a populating index


def _entity(entity: str) -> str:
    value = str(entity).lower()
    if value in ("node", "nodes"):
        return NODE
    if value in ("relationship", "relationships", "rel"):
        return RELATIONSHIP
    raise ArgumentError(f"An index is over nodes or relationships, not {entity!r}")


def local_placement(definition: IndexDefinition, store: GraphStore, directory: str | None,
                    build_threads: int) -> ManagedIndex:
    """The default placement: the live index runs in this process (see docs/architecture.md, placement)."""
    return ManagedIndex(definition, store, directory, build_threads)


class IndexManager:
    """The search indexes of one store (every registered kind), kept in step with its commits.

    ``placement(definition, store, directory, build_threads)`` builds each live index; the default runs
    it in process (``local_placement``); another may run it elsewhere behind the same methods."""

    def __init__(self, store: GraphStore, directory: str | None, *,
                 default_fulltext_engine: str = DEFAULT_FULLTEXT_ENGINE, build_threads: int | None = None,
                 populating_wait_s: float = POPULATING_WAIT_S, placement: Placement | None = None):
        self.store = store
        self.placement: Placement = placement or placed    # local, or sharded when indexConfig says so
        self.directory = directory
        self.default_fulltext_engine = default_fulltext_engine
        self.build_threads = build_threads or max(1, min(16, os.cpu_count() or 1))
        self.populating_wait_s = populating_wait_s
        self.populating_fallback = ExactFallback()  # exact vector scans while a vector index is POPULATING
        self._indexes: dict[str, ManagedIndex] = {}
        self._lock = threading.RLock()
        self._closed = False
        if directory is not None:
            if os.path.exists(directory) and not os.path.isdir(directory):
                from ..storage.integrity import StorageDamaged
                raise StorageDamaged(f"{directory} should hold the search indexes but is not a directory; move it "
                                     "away (the indexes are rebuilt from the store)")
            os.makedirs(directory, exist_ok=True)
        store.add_commit_listener(self._on_commit)
        tx = store.begin_read()
        try:
            catalog, ts = tx.schema(), tx.ts
        finally:
            tx.close()
        # After a lossy recover_truncate open, saved files may describe commits the store no longer
        # has under the same commit ts: rebuild every index from the store instead.
        distrust = getattr(store, "history_lost", False)
        for name, entry in catalog.items():
            if isinstance(entry, dict) and entry.get("kind") == CATALOG_KIND:
                self._start(IndexDefinition.from_catalog(name, entry), ts, fresh=distrust)
        self._remove_orphan_files(catalog)

    # ---- DDL --------------------------------------------------------------------------------
    def create_vector_index(self, name: str, entity: str, label: str, prop: str, filter_props: Iterable[str] = (),
                            options: dict[str, Any] | None = None, if_not_exists: bool = False,
                            tx: WriteTx | None = None) -> bool:
        """CREATE VECTOR INDEX; False when IF NOT EXISTS found it. Pass the statement's WriteTx as ``tx``."""
        return self.create_index(VECTOR, name, entity, [label], [prop], list(filter_props), options,
                                 if_not_exists, tx)

    def create_fulltext_index(self, name: str, entity: str, labels: Iterable[str], props: Iterable[str],
                              options: dict[str, Any] | None = None, if_not_exists: bool = False,
                              tx: WriteTx | None = None, filter_props: Iterable[str] = ()) -> bool:
        """CREATE FULLTEXT INDEX; False when IF NOT EXISTS found it. Pass the statement's WriteTx as ``tx``.
        ``filter_props`` (WITH [...]) may be filtered on inside a SEARCH."""
        return self.create_index(FULLTEXT, name, entity, list(labels), list(props), list(filter_props), options,
                                 if_not_exists, tx)

    def create_index(self, kind: str, name: str, entity: str, tokens: Iterable[str], properties: Iterable[str],
                     filter_props: Iterable[str] = (), options: dict[str, Any] | None = None,
                     if_not_exists: bool = False, tx: WriteTx | None = None) -> bool:
        """CREATE <kind> INDEX, validated by the kind's provider; False when IF NOT EXISTS found it."""
        options, where = split_placement(kind, options)    # shards / replicas: any placeable kind
        definition = get_provider(kind).definition(
            name, _entity(entity), list(tokens), list(properties), list(filter_props), options,
            {"fulltext_engine": self.default_fulltext_engine})
        definition.config.update(where)
        return self._create(definition, if_not_exists, tx)

    def _create(self, definition: IndexDefinition, if_not_exists: bool, tx: WriteTx | None) -> bool:
        if not isinstance(definition.name, str) or not definition.name:
            raise ArgumentError("An index needs a name")
        catalog = self._catalog(tx)
        existing = catalog.get(definition.name)
        if existing is not None:
            if if_not_exists:
                return False
            raise SchemaError(f"There already exists an index or constraint called `{definition.name}`",
                              code="Neo.ClientError.Schema.IndexWithNameAlreadyExists")
        for name, entry in catalog.items():
            if isinstance(entry, dict) and entry.get("kind") == CATALOG_KIND and \
                    IndexDefinition.from_catalog(name, entry).same_rule(definition):
                if if_not_exists:
                    return False
                raise EquivalentSchemaRuleAlreadyExists(
                    f"An equivalent index already exists, `{name}`; drop it or use IF NOT EXISTS")
        self._write(tx, lambda wtx: wtx.put_schema(definition.name, definition.to_catalog()))
        return True

    def drop(self, name: str, if_exists: bool = False, tx: WriteTx | None = None) -> bool:
        """DROP INDEX name [IF EXISTS]; False when IF EXISTS found nothing."""
        entry = self._catalog(tx).get(name)
        if not isinstance(entry, dict) or entry.get("kind") != CATALOG_KIND:
            if if_exists:
                return False
            raise IndexNotFound(f"There is no index called `{name}`", detail="IndexNotFound")
        self._write(tx, lambda wtx: wtx.drop_schema(name))
        return True

    def set_search_options(self, name: str, options: dict[str, Any], tx: WriteTx | None = None) -> IndexDefinition:
        """Change a vector index's search-time settings (``vector.hnsw.ef_search``, ``vector.exact.max_scope``):
        a catalog update, durable and transactional like DDL, applied to the live index in place (no
        rebuild) when it commits. Returns the updated definition."""
        entry = self._catalog(tx).get(name)
        if not isinstance(entry, dict) or entry.get("kind") != CATALOG_KIND:
            raise IndexNotFound(f"There is no index called `{name}`", detail="IndexNotFound")
        definition = IndexDefinition.from_catalog(name, entry).with_search_options(options)
        self._write(tx, lambda wtx: wtx.put_schema(name, definition.to_catalog()))
        return definition

    def _catalog(self, tx: ReadTx | None) -> dict[str, dict[str, Any]]:
        if tx is not None:
            return tx.schema()
        rtx = self.store.begin_read()
        try:
            return rtx.schema()
        finally:
            rtx.close()

    def _write(self, tx: WriteTx | None, action: Callable[[WriteTx], None]) -> None:
        if tx is not None:
            action(tx)            # takes effect when the caller's transaction commits
            return
        wtx = self.store.begin_write()
        try:
            action(wtx)
            wtx.commit()
        except BaseException:
            wtx.rollback()
            raise

    # ---- lookup -----------------------------------------------------------------------------
    def get(self, name: str) -> ManagedIndex:
        with self._lock:
            index = self._indexes.get(name)
        if index is None:
            raise IndexNotFound(f"There is no such index: `{name}`", detail="IndexNotFound")
        return index

    def __contains__(self, name: str) -> bool:
        return name in self._indexes

    def names(self) -> list[str]:
        with self._lock:
            return sorted(self._indexes)

    def list(self) -> builtins.list[dict[str, Any]]:
        """SHOW INDEXES rows (Neo4j's columns, plus filterProperties and skippedDocuments)."""
        from relate.protocol.temporal import DateTime
        rows = []
        with self._lock:
            indexes = sorted(self._indexes.values(), key=lambda i: i.definition.name)
        for index in indexes:
            if index.state == "ONLINE" and index.has_pending():
                index.flush()             # sizes and skipped counts as of the last commit
            row = index.definition.show_row()
            row.update({
                "id": zlib.crc32(index.definition.name.encode()) & 0x7FFFFFFF,
                "state": index.state, "populationPercent": round(index.progress, 1),
                "readCount": index.read_count,
                "lastRead": None if index.last_read is None else DateTime.fromtimestamp(index.last_read),
                "size": index.size(),
                "skippedDocuments": index.skipped_count(),
                "failureMessage": index.failure or "",
            })
            if hasattr(index, "shard_health"):
                row["shards"] = index.shard_health()    # a sharded index: each replica's state and position
            rows.append(row)
        return rows

    # ---- search -----------------------------------------------------------------------------
    def vector_search(self, name: str, vector: Any, k: int, filters: Iterable[Filter] = (), *,
                      entity: str | None = None, timeout_s: float | None = None,
                      keys: AbstractSet[int] | None = None, tx: ReadTx | None = None) -> Hits:
        """The k best (entity id, score) inside ``filters`` [(prop, op, value)], best first; ``keys``
        restricts the search to a candidate set of entity ids."""
        return self.search(name, vector, k, kind=VECTOR, entity=entity, timeout_s=timeout_s, filters=filters,
                           keys=keys, tx=tx)

    def vector_search_many(self, name: str, vectors: Iterable[Any], k: int, *, entity: str | None = None,
                           timeout_s: float | None = None) -> builtins.list[Hits]:
        """vector_search (no filters) for several query vectors at once, in their order."""
        index = self._searchable(name, VECTOR, entity, timeout_s)
        # many=True: VectorProvider.search answers one hit list per query vector
        return index.search(list(vectors), k, many=True)  # type: ignore[return-value]

    def fulltext_search(self, name: str, query_text: str, skip: int = 0, limit: int | None = None, *,
                        entity: str | None = None, timeout_s: float | None = None, mode: str = "lucene",
                        keys: AbstractSet[int] | None = None, accept: Callable[[int], bool] | None = None,
                        tx: ReadTx | None = None) -> Hits:
        """Exact Lucene BM25 (entity id, score), best first, rows [skip, skip + limit); ``mode`` 'lucene'
        or 'plain', ``keys`` a candidate set of entity ids, ``accept(id)`` a pre-filter."""
        return self.search(name, query_text, limit, kind=FULLTEXT, entity=entity, timeout_s=timeout_s, skip=skip,
                           keys=keys, accept=accept, mode=mode, tx=tx)

    def search(self, name: str, query: Any, limit: int | None, *, kind: str | None = None,
               entity: str | None = None, timeout_s: float | None = None, skip: int = 0,
               filters: Iterable[Filter] = (), keys: AbstractSet[int] | None = None,
               accept: Callable[[int], bool] | None = None, tx: ReadTx | None = None, **options: Any) -> Hits:
        """Search index ``name`` (of ``kind`` when given) through its provider: (entity id, score) best
        first, rows [skip, skip + limit); ``filters`` [(prop, op, value)] for kinds with native filters,
        ``keys`` a candidate set of ids, ``accept(id)`` a pre-filter, ``options`` kind-specific. With the
        caller's transaction ``tx``, what it wrote and has not committed is searched too (read your writes)."""
        index = self.get(name)
        self._check_kind(index, kind, entity)
        if ON_LOOP.get() and (index.definition.type != VECTOR or index.state != "ONLINE" or index.has_pending()
                              or index.rw.busy() or not index.in_process):
            # on the event loop only a ready, local vector index, whose search bounds its own cost there
            refuse_on_loop("searches an index that is not a ready vector index")
        if index.state == "POPULATING":
            found = index.provider.search_while_populating(self, index, query, limit, filters=list(filters),
                                                           keys=keys, accept=accept, **options)
            if found is not None:
                return found[skip:] if skip else found
        else:
            self.populating_fallback.forget(name)
        index.ready(self.populating_wait_s if timeout_s is None else timeout_s)
        log = tx.change_log() if tx is not None and index.in_process else ()
        if tx is not None and log:
            return index.search_in_tx(tx, log, query, limit, skip=skip, filters=list(filters), keys=keys,
                                      accept=accept, timeout_s=timeout_s, **options)
        return index.search(query, limit, skip=skip, filters=list(filters), keys=keys, accept=accept,
                            timeout_s=timeout_s, **options)

    def _searchable(self, name: str, kind: str | None, entity: str | None, timeout_s: float | None
                    ) -> ManagedIndex:
        index = self.get(name)
        self._check_kind(index, kind, entity)
        index.ready(self.populating_wait_s if timeout_s is None else timeout_s)
        return index

    @staticmethod
    def _check_kind(index: ManagedIndex, kind: str | None, entity: str | None) -> None:
        d = index.definition
        name = d.name
        if kind is not None and d.type != kind:
            raise ArgumentError(f"Index `{name}` is a {d.type.lower()} index, not a {kind.lower()} index")
        if entity is not None and _entity(entity) != d.entity:
            raise ArgumentError(f"Index `{name}` indexes {d.entity}s, not {_entity(entity)}s")

    def await_indexes(self, timeout_s: float = 300.0) -> bool:
        """Wait until every index is ONLINE (or FAILED) with its queued commits applied; False on timeout."""
        deadline = time.monotonic() + timeout_s
        with self._lock:
            indexes = list(self._indexes.values())
        for index in indexes:
            if not index.wait_online(max(0.0, deadline - time.monotonic())):
                return False
            if index.state == "ONLINE" and index.has_pending():
                index.flush()
            if not index.wait_built(max(0.0, deadline - time.monotonic())):
                return False
        return True

    # ---- commits ----------------------------------------------------------------------------
    def _on_commit(self, changes: builtins.list[Change], commit_ts: int) -> None:
        if self._closed:
            return
        with self._lock:
            for change in changes:
                if change[0] == "schema+" and isinstance(change[2], dict) and change[2].get("kind") == CATALOG_KIND:
                    self._replace(change[1], IndexDefinition.from_catalog(change[1], change[2]), commit_ts)
                elif change[0] == "schema-" and change[1] in self._indexes:
                    self._indexes.pop(change[1]).destroy()
            indexes = list(self._indexes.values())
        for index in indexes:
            index.offer(changes, commit_ts)

    def _replace(self, name: str, definition: IndexDefinition, commit_ts: int) -> None:
        current = self._indexes.get(name)
        if current is not None and current.definition.structure() == definition.structure():
            current.retune(definition)    # only search-time settings changed: same rows, same graph
            return
        old = self._indexes.pop(name, None)
        if old is not None:
            old.destroy()
        self._start(definition, commit_ts, fresh=True)

    def _start(self, definition: IndexDefinition, ts: int, fresh: bool = False) -> None:
        directory = None if self.directory is None else os.path.join(self.directory, _dir_name(definition.name))
        if fresh and directory is not None and os.path.isdir(directory):
            import shutil
            shutil.rmtree(directory, ignore_errors=True)
        index = self.placement(definition, self.store, directory, self.build_threads)
        self._indexes[definition.name] = index
        index.start(ts)

    def _remove_orphan_files(self, catalog: dict[str, Any]) -> None:
        """Delete index folders whose index no longer exists (dropped while the files were open)."""
        if self.directory is None:
            return
        keep = {_dir_name(name) for name in self._indexes}
        for entry in os.listdir(self.directory):
            if entry not in keep and os.path.isdir(os.path.join(self.directory, entry)):
                import shutil
                shutil.rmtree(os.path.join(self.directory, entry), ignore_errors=True)

    # ---- persistence ------------------------------------------------------------------------
    def checkpoint(self) -> None:
        """Save every online index's files (fast restarts); call with the store's checkpoint."""
        with self._lock:
            indexes = list(self._indexes.values())
        for index in indexes:
            index.save()

    def close(self, save: bool = True) -> None:
        """Save (unless ``save`` is False) and close every index; stop listening to the store."""
        if self._closed:
            return
        if hasattr(self.store, "remove_commit_listener"):
            self.store.remove_commit_listener(self._on_commit)
        if save:
            self.checkpoint()
        self._closed = True
        with self._lock:
            indexes, self._indexes = list(self._indexes.values()), {}
        for index in indexes:
            index.close()


def _dir_name(name: str) -> str:
    """A file-system-safe folder name for an index (its name, escaped, plus a hash against clashes)."""
    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", name)[:64]
    return f"{safe}-{zlib.crc32(name.encode()):08x}"
