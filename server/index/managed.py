"""One live search index: its committed-change queue, worker thread, population, locks and files.

Commit listeners only queue changes (cheap, in commit order). The index's worker applies queued
batches; a search first applies whatever is still queued, so a committed write is searchable by the
next statement. Only committed changes ever arrive, so rolled-back writes never show. Mutations hold
``_mutate`` (one at a time) and the write side of ``rw`` only while swapping data in; searches share
the read side.
"""
from __future__ import annotations

import json
import os
import shutil
import threading
import time
import traceback
import weakref
from typing import TYPE_CHECKING

import structlog

from relate.protocol.errors import DatabaseError, TransientError
from relate.server.storage.wal import fsync_path

from .definitions import NODE, IndexDefinition
from .providers import get_provider
from .rwlock import RWLock

if TYPE_CHECKING:
    from typing import Any

    from relate.server.storage.read_tx import ReadTx
    from relate.server.storage.store import GraphStore
    from relate.server.storage.versions import Change, Props

    from typing import Sequence

    from .providers.base import Hits, Ops, TxOverlay

log = structlog.get_logger(__name__)

POPULATION_CHUNK = 2_000
ENGINE_IDLE_S = 0.2           # a full-text overlay reaches the engine after this long without writes
REFRESH = object()            # "read this entity's committed state from the store"
META = "meta.json"


class _State:
    """An entity's committed state while a batch is resolved: labels (or type) and properties."""
    __slots__ = ("scope", "props", "index_touched")

    def __init__(self, scope: frozenset[str] | str, props: Props, index_touched: bool = True):
        self.scope = scope            # frozenset of labels, or the relationship type
        self.props = props
        self.index_touched = index_touched   # False when only WITH filter values changed


_NODE_CHANGES = frozenset(("node+", "nprop", "label+", "label-", "node-"))
_REL_CHANGES = frozenset(("rel+", "rprop", "rel-"))


class _TxOverlaySlot:
    """The overlay of the writing transaction that searched this index last, and how far into its change
    log it has read (``last``: the change there, to notice a log cut back and written again)."""
    __slots__ = ("tx", "log_id", "seen", "last", "overlay")

    def __init__(self, tx: ReadTx, log: Sequence[Change], overlay: TxOverlay, index: ManagedIndex):
        # once the transaction is gone its overlay (a copy of what it wrote) is dropped, not kept until the
        # next writing transaction searches this index
        holder = weakref.ref(index)

        def forget(_gone: object) -> None:
            owner = holder()
            if owner is not None and owner._tx_overlay is self:
                owner._tx_overlay = None

        self.tx, self.log_id, self.overlay = weakref.ref(tx, forget), id(log), overlay
        self.seen = 0
        self.last: Change | None = None


class ManagedIndex:
    """A search index of any kind kept in step with the store's commits; its provider does the rest."""

    in_process = True        # searched in this process (a sharded index asks remote shards)

    def __init__(self, definition: IndexDefinition, store: GraphStore, directory: str | None, build_threads: int):
        self.definition = definition
        self.provider = get_provider(definition.type)
        self.store = store
        self.directory = directory
        self.build_threads = build_threads
        self.state = "POPULATING"
        self.progress = 0.0
        self.failure: str | None = None
        self.read_count = 0
        self.last_read: float | None = None
        self.rw = RWLock()
        self._mutate = threading.Lock()
        self._cond = threading.Condition(threading.Lock())
        self._pending: list[tuple[int, list[Change]]] = []
        self._seen_ts = 0             # every commit up to here was offered to this index
        self._covered_ts = 0          # every commit up to here is applied
        self._online = threading.Event()
        self._closed = False
        self._last_apply = 0.0
        self._node = definition.entity == NODE
        self._overlay_lock = threading.Lock()
        self._tx_overlay: _TxOverlaySlot | None = None    # see search_in_tx
        self._scope_keys = definition.keys
        self.impl: Any = None          # the provider's structure (SearchProvider.open), or None before start
        self.loaded_from_files = False    # True when opened from saved files instead of populated
        self._thread: threading.Thread | None = None

    def _new_impl(self, create: bool) -> Any:
        return self.provider.open(self.definition, self.directory, create)

    # ---- lifecycle --------------------------------------------------------------------------
    def start(self, seen_ts: int) -> None:
        """Open from the saved files when they match the store at ``seen_ts``, else populate; then serve."""
        self._seen_ts = seen_ts
        loaded = self._try_load(seen_ts)
        if not loaded:
            self.impl = self._new_impl(create=True)
        self._thread = threading.Thread(target=self._run, args=(not loaded,), daemon=True,
                                        name=f"relate-index-{self.definition.name}")
        self._thread.start()

    def _try_load(self, seen_ts: int) -> bool:
        if self.directory is None:
            return False
        impl = None
        try:
            with open(os.path.join(self.directory, META)) as fh:
                meta = json.load(fh)
            saved = meta["definition"]
            # search-time settings may have changed since the save: they do not touch the files
            same = isinstance(saved, dict) and saved.get("type") == self.definition.type and \
                IndexDefinition.from_catalog(self.definition.name, saved).structure() == self.definition.structure()
            if meta["covered_ts"] != seen_ts or not same:
                log.info("index.stale", index=self.definition.name, saved_ts=meta["covered_ts"], store_ts=seen_ts)
                self._discard_files()
                return False
            impl = self._new_impl(create=False)
            impl.load(self.directory)
        except Exception as exc:     # missing or unreadable files: rebuild from the store instead
            if not isinstance(exc, FileNotFoundError):
                log.warning("index.load_failed", index=self.definition.name, error=f"{type(exc).__name__}: {exc}")
            if impl is not None and hasattr(impl, "close"):
                impl.close()
            self._discard_files()
            return False
        self.impl = impl
        self.loaded_from_files = True
        self._covered_ts = seen_ts
        self._go_online()
        return True

    def _discard_files(self) -> None:
        """Delete saved files that were not loaded, before the rebuild writes into the directory.

        Their meta.json must not outlive this decision: the rebuild rewrites the engine's files in
        place, and the store's commit ts can come back to the old ``covered_ts`` with other data (a
        ``recover_truncate`` open drops commits; later commits reuse their ts), so a meta.json kept
        until the next save could make a later open load files that no longer match the store."""
        if self.directory is not None:
            shutil.rmtree(self.directory, ignore_errors=True)

    def retune(self, definition: IndexDefinition) -> None:
        """Adopt a definition that differs only in search-time settings (db.index.vector.setSearchOptions)."""
        self.definition = definition
        self.provider.retune(self, definition)

    def _go_online(self) -> None:
        self.state, self.progress = "ONLINE", 100.0
        self._online.set()

    def _run(self, populate: bool) -> None:
        try:
            if populate:
                self._populate()
            while True:
                with self._cond:
                    if not self._pending and not self._closed:
                        self._cond.wait(ENGINE_IDLE_S if getattr(self.impl, "overlay", None) else None)
                    if self._closed:
                        return
                    idle = not self._pending
                quiet = time.monotonic() - self._last_apply >= ENGINE_IDLE_S
                if idle and quiet and getattr(self.impl, "overlay", None):
                    with self._mutate:
                        self.impl.flush_engine(self.rw)
                elif not idle:
                    self.flush()
        except Exception as exc:       # a failed index says so in SHOW INDEXES and on every search
            log.error("index.failed", index=self.definition.name, error=f"{type(exc).__name__}: {exc}",
                      traceback=traceback.format_exc())
            self.state, self.failure = "FAILED", f"{type(exc).__name__}: {exc}"
            self._online.set()

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._cond.notify_all()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=60)
        with self._mutate:
            if self.impl is not None and hasattr(self.impl, "close"):
                self.impl.close()

    def destroy(self) -> None:
        """Close and delete the index's files (DROP INDEX)."""
        self.close()
        if self.directory is not None:
            shutil.rmtree(self.directory, ignore_errors=True)

    # ---- commits ----------------------------------------------------------------------------
    def offer(self, changes: list[Change], commit_ts: int) -> None:
        """Queue this commit's relevant changes (called from the store's commit listener)."""
        relevant = [c for c in changes if self._relevant(c)]
        with self._cond:
            self._seen_ts = commit_ts
            if relevant:
                self._pending.append((commit_ts, relevant))
                self._cond.notify_all()

    def _relevant(self, change: Change) -> bool:
        kind = change[0]
        d = self.definition
        if self._node:
            if kind in ("node+", "node-"):
                return d.covers(change[2])
            if kind == "nprop":
                return change[2] in self._scope_keys
            if kind in ("label+", "label-"):
                return change[2] in d.tokens
            return False
        if kind in ("rel+", "rel-"):
            return change[2] in d.tokens
        if kind == "rprop":
            return change[2] in self._scope_keys
        return False

    def has_pending(self) -> bool:
        return self._covered_ts < self._seen_ts

    def flush(self) -> None:
        """Apply every queued change (the worker does this continuously; searches call it first)."""
        with self._mutate:
            with self._cond:
                batch, self._pending = self._pending, []
                seen = self._seen_ts
            if batch and self._online.is_set():
                self._apply(self._resolve(batch))
                self._committed(seen)
            elif batch:
                with self._cond:          # still populating: keep them for after the population
                    self._pending[:0] = batch
                return
            self._covered_ts = max(self._covered_ts, seen)

    def _resolve(self, batch: list[tuple[int, list[Change]]]) -> Ops:
        """Fold a batch into the final committed state per entity id (None = gone)."""
        ops: dict[int, Any] = {}  # key -> _State, None (gone) or REFRESH (read it from the store)
        touched: dict[int, bool] = {}   # REFRESH key -> whether more than WITH filter values changed
        index_props = set(self.definition.properties)
        for _, changes in batch:
            for change in changes:
                kind, key = change[0], change[1]
                if kind == "node+":
                    ops[key] = _State(frozenset(change[2]), dict(change[3]))
                elif kind == "rel+":
                    ops[key] = _State(change[2], dict(change[5]))
                elif kind in ("node-", "rel-"):
                    ops[key] = None
                else:
                    touches = kind in ("label+", "label-") or change[2] in index_props
                    current = ops.get(key, REFRESH)
                    if current is REFRESH:
                        ops[key] = REFRESH
                        touched[key] = touched.get(key, False) or touches
                    elif current is not None:
                        self._patch(current, change)
                        current.index_touched = current.index_touched or touches
        refresh = [key for key, st in ops.items() if st is REFRESH]
        if refresh:
            tx = self.store.begin_read()      # published before listeners run: sees this batch
            try:
                for key in refresh:
                    ops[key] = self._read_state(tx, key, touched[key])
            finally:
                tx.close()
        return ops

    def _committed(self, ts: int) -> None:
        """Tell an index placed elsewhere (sharded) that what was applied brings it to commit ``ts``."""
        committed = getattr(self.impl, "committed", None)
        if committed is not None:
            committed(ts)

    @staticmethod
    def _patch(state: _State, change: Change) -> None:
        kind = change[0]
        if kind in ("nprop", "rprop"):
            if change[4] is None:
                state.props.pop(change[2], None)
            else:
                state.props[change[2]] = change[4]
        # label changes reach node states only: their scope is the label set
        elif kind == "label+":
            state.scope = state.scope | {change[2]}  # type: ignore[operator]
        else:
            state.scope = state.scope - {change[2]}  # type: ignore[operator]

    def _read_state(self, tx: ReadTx, key: int, index_touched: bool = True) -> _State | None:
        if self._node:
            if not tx.node_exists(key):
                return None
            return _State(tx.node_labels(key), tx.node_props(key), index_touched)
        if not tx.rel_exists(key):
            return None
        return _State(tx.rel_type(key), tx.rel_props(key), index_touched)

    def _apply(self, ops: Ops) -> None:
        self._last_apply = time.monotonic()
        with self.rw.write():
            self.provider.apply(self, ops)
        self.provider.after_apply(self)

    # ---- population -------------------------------------------------------------------------
    def _populate(self) -> None:
        """Index every existing entity in scope from one snapshot, in chunks, reporting progress."""
        started = time.monotonic()
        with self._mutate:
            tx = self.store.begin_read()
            try:
                if self._node:
                    keys = list(dict.fromkeys(k for label in self.definition.tokens for k in tx.nodes_by_label(label)))
                else:
                    keys = [k for t in self.definition.tokens for k in tx.rels_by_type(t)]
                total = max(len(keys), 1)
                for start in range(0, len(keys), POPULATION_CHUNK):
                    if self._closed:
                        return
                    chunk = keys[start:start + POPULATION_CHUNK]
                    self._apply({key: self._read_state(tx, key) for key in chunk})
                    self.progress = 100.0 * min(start + len(chunk), total) / total
                snapshot_ts = tx.ts
                self._committed(snapshot_ts)
            finally:
                tx.close()
            self._covered_ts = max(self._covered_ts, snapshot_ts)
            self._go_online()
        log.info("index.populated", index=self.definition.name, entities=len(keys),
                 seconds=round(time.monotonic() - started, 3))
        self.flush()

    # ---- search -----------------------------------------------------------------------------
    def ready(self, timeout_s: float) -> None:
        """Wait (bounded) until the index is online and every committed change is applied."""
        if not self._online.is_set() and not self._online.wait(timeout_s):
            raise TransientError(
                f"Index `{self.definition.name}` is still populating ({self.progress:.0f}%); "
                f"it was not ONLINE within {timeout_s:g} s", code="Neo.TransientError.Schema.IndexNotOnline")
        if self.state == "FAILED":
            raise DatabaseError(f"Index `{self.definition.name}` failed: {self.failure}")
        if self.has_pending():
            self.flush()
        self.read_count += 1
        self.last_read = time.time()

    def wait_online(self, timeout_s: float) -> bool:
        """Wait until ONLINE or FAILED; False on timeout."""
        return self._online.wait(timeout_s)

    def wait_built(self, timeout_s: float) -> bool:
        """Wait for a background build the structure runs (a vector index's HNSW); False on timeout."""
        wait_build = getattr(self.impl, "wait_build", None)
        return True if wait_build is None else wait_build(timeout_s)

    def size(self) -> int:
        return 0 if self.impl is None else len(self.impl)

    def skipped_count(self) -> int:
        return len(getattr(self.impl, "skipped", ()))

    def search(self, query: Any, limit: int | None, **options: Any) -> Hits:
        """The provider's search under the read lock (call ``ready`` first); see ``SearchProvider.search``."""
        with self.rw.read():
            return self.provider.search(self, query, limit, **options)

    def search_in_tx(self, tx: ReadTx, log: Sequence[Change], query: Any, limit: int | None,
                     **options: Any) -> Hits:
        """``search`` overlaid with what the writing transaction ``tx`` wrote and has not committed (``log``,
        its change log), as the index will answer once it commits. The overlay follows the log: each search
        reads only the entities changed since the previous one (a statement that writes and searches row
        after row stays linear); a new transaction, or a log cut back by a failed statement, starts anew."""
        with self._overlay_lock:
            cached = self._tx_overlay
            if cached is None or cached.tx() is not tx or cached.log_id != id(log) or cached.seen > len(log) \
                    or (cached.seen and log[cached.seen - 1] is not cached.last) or not cached.overlay.valid(self):
                cached = self._tx_overlay = _TxOverlaySlot(tx, log, self.provider.tx_overlay(self), self)
            if cached.seen < len(log):
                kinds = _NODE_CHANGES if self._node else _REL_CHANGES
                states: Ops = {}
                for change in log[cached.seen:]:
                    key = change[1]
                    if change[0] in kinds and key not in states:
                        state = self._read_state(tx, key)
                        states[key] = state if state is not None and self.definition.covers(state.scope) else None
                cached.seen, cached.last = len(log), log[-1]
                if states:
                    cached.overlay.update(states)
            with self.rw.read():
                return cached.overlay.search(self, query, limit, **options)

    # ---- persistence ------------------------------------------------------------------------
    def save(self) -> None:
        """Write the index's files and the commit ts they cover (under the database directory)."""
        if self.directory is None or self.state != "ONLINE" or self._closed:
            return
        self.flush()
        with self._mutate:
            if self._closed:        # dropped (destroyed) meanwhile: its folder must not come back
                return
            os.makedirs(self.directory, exist_ok=True)
            meta_path = os.path.join(self.directory, META)
            if os.path.exists(meta_path):
                os.remove(meta_path)        # the files below are being rewritten: invalid until done
                fsync_path(self.directory)
            self.impl.save(self.directory, self.rw)
            # meta.json vouches for the files: they must be on disk before it is (a power loss
            # must not leave a valid meta.json over empty or half-written files)
            fsync_tree(self.directory)
            meta = {"covered_ts": self._covered_ts, "definition": self.definition.to_catalog()}
            tmp = meta_path + ".tmp"
            with open(tmp, "w") as fh:
                json.dump(meta, fh)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, meta_path)
            fsync_path(self.directory)


def fsync_tree(directory: str) -> None:
    """Flush every file and folder under ``directory`` (the folder included) to disk."""
    for root, _dirs, files in os.walk(directory):
        for name in files:
            fsync_path(os.path.join(root, name))
        fsync_path(root)

