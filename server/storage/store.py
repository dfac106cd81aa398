"""GraphStore: the in-memory property graph with MVCC snapshots, a WAL and checkpoints."""
from __future__ import annotations

import fcntl
import itertools
import os
import sys
import threading
from collections import OrderedDict, deque
from typing import TYPE_CHECKING, Callable

import structlog

from relate.protocol.errors import (ArgumentError, DatabaseError, ReadOnlyDatabaseError, ServiceUnavailable,
                                   TransientError)
from relate.protocol.values import LabelSet

from . import codec, integrity, recovery, snapshot, tokens, vacuum
from .group_commit import GroupCommit
from .read_tx import ReadTx
from .versions import PENDING, CountsVersion, SchemaVersion
from .wal import WalWriter, list_segments
from .write_tx import WriteTx

if TYPE_CHECKING:
    from typing import Any, Hashable, Iterable, Self

    from .adjacency import Adjacency
    from .indexes import PropertyIndex
    from .versions import Change, NodeVersion, Props, RelVersion

    # What a commit listener is called with: (changes, commit_ts).
    CommitListener = Callable[[list[Change], int], None]

log = structlog.get_logger(__name__)

# Change kinds that only the WAL needs (property-index DDL); listeners never see them.
_INTERNAL_KINDS = ("pidx+", "pidx-")
_DELETE_KINDS = ("node-", "rel-")
# Change kinds that alter which relationships a node reaches (and the far ends' labels): a commit
# with one of them moves the structure version (see ExpandCache).
_STRUCTURAL_KINDS = frozenset(("rel+", "rel-", "node-", "label+", "label-"))
_LOCK_NAME = "LOCK"


class GraphStore:
    """One database: open with ``GraphStore.open(path)`` (None = in memory only)."""

    def __init__(self, directory: str | None, sync: bool, checkpoint_every: int, checkpoint_bytes: int):
        self.directory = directory
        self._sync = sync
        self._checkpoint_every = checkpoint_every
        self._checkpoint_bytes = checkpoint_bytes
        # Graph data: id -> newest version (each version links to the one before it).
        self._nodes: dict[int, NodeVersion] = {}
        self._rels: dict[int, RelVersion] = {}
        # Scan structures; entries may be stale (readers re-check), see vacuum.py.
        self._label_index: dict[str, dict[int, None]] = {}
        self._type_index: dict[str, dict[int, None]] = {}
        self._out: Adjacency = {}       # nid -> its outgoing relationships (see adjacency.py)
        self._in: Adjacency = {}        # nid -> its incoming relationships
        self._prop_indexes: dict[tuple[str, str, str], PropertyIndex] = {}   # (entity, label, key) -> index
        self._node_indexes: dict[str, dict[str, PropertyIndex]] = {}         # label -> key -> index
        self._rel_indexes: dict[str, dict[str, PropertyIndex]] = {}          # type -> key -> index
        # Interned names, shared by every entity that uses them (saves memory).
        self._key_names: dict[str, str] = {}
        # Label names in creation order (Neo4j's label token order): a node's labels read back in it.
        self._label_names: dict[str, str] = {}
        self._label_rank: dict[str, int] = {}        # its index: sorting a new label set needs no scan
        self._type_names: dict[str, str] = {}
        self._labelsets: dict[frozenset[str], LabelSet] = {frozenset(): LabelSet()}
        self._counts = CountsVersion(0, {None: 0}, {None: 0}, None)
        self._schema = SchemaVersion(0, {}, None)
        self._next_node_id = 0
        self._next_rel_id = 0
        # Commit ts of the last commit that created/deleted a relationship, deleted a node or
        # changed a label (set before that commit becomes visible); ExpandCache entries hold for it.
        self._structure_ts = 0
        self._expand_cache = ExpandCache()
        # Timestamps: assigned = last commit written to the WAL; visible = last one published.
        self._assigned_ts = 0
        self._visible_ts = 0
        self._readers: dict[int, int] = {}                    # snapshot token -> ts
        self._reader_tokens = itertools.count()
        self._writer_lock = threading.Lock()
        self._gc_queue: deque[tuple[int, list[tuple[Any, ...]]]] = deque()   # (commit_ts, vacuum tasks)
        self._listeners: list[CommitListener] = []
        self._wal: WalWriter | None = None
        self._group = GroupCommit(None, self._publish)
        self._commits_since_checkpoint = 0
        self._snapshot_ts = -1             # ts of the snapshot file on disk (-1: none)
        self._checkpoint_lock = threading.Lock()
        self._checkpoint_thread: threading.Thread | None = None
        self._lock_fd = -1
        self.read_only = False
        # True after a recover_truncate open that dropped commits or files: the history the store
        # holds now is not the one files saved beside it (search indexes) were made from.
        self.history_lost = False
        self._closing = False          # no new background checkpoints once close() has begun
        self._closed = False

    # -- lifecycle -----------------------------------------------------------------------------------

    @classmethod
    def open(cls, path: str | None, *, sync: bool = True, checkpoint_every: int = 10_000,
             checkpoint_bytes: int = 256 << 20, recover_truncate: bool = False,
             read_only: bool = False) -> "GraphStore":
        """Open (creating if missing) the database in directory ``path``; None = in memory only.
        Damaged or missing files raise StorageDamaged unless ``recover_truncate`` (see integrity).
        ``read_only``: the directory must exist; it is never written (a shared lock, no WAL writer,
        a torn WAL tail is ignored, not truncated) and ``begin_write`` raises ReadOnlyDatabaseError."""
        store = cls(path, sync, checkpoint_every, checkpoint_bytes)
        store.read_only = read_only
        if path is None:
            return store
        try:
            if not read_only:
                os.makedirs(path, mode=0o700, exist_ok=True)     # hashes and data: the owner's only
            store._lock_directory(path)
        except PermissionError as exc:
            raise DatabaseError(f"cannot open the database at {path}: permission denied on "
                                f"{exc.filename}" + ("" if read_only else " (read_only=True opens a "
                                                     "database you may only read)")) from None
        try:
            next_seq = recovery.recover(store, path, recover_truncate, read_only=read_only)
            store._structure_ts = store._visible_ts     # all that was recovered counts as new
            if not read_only:
                store._wal = WalWriter(path, next_seq)
                first_seq = min(seq for seq, _ in list_segments(path))
                integrity.write_manifest(path, store._snapshot_ts, first_seq)
        except BaseException:
            store._unlock_directory()
            raise
        store._group = GroupCommit(store._wal.sync if sync and store._wal else None, store._publish)
        store._group.reset(store._visible_ts)
        return store

    def _lock_directory(self, path: str) -> None:
        if not os.path.isdir(path):
            raise DatabaseError(f"no database at {path}")
        lock_path = os.path.join(path, _LOCK_NAME)
        if self.read_only:
            # Readers share the lock (a writer cannot open meanwhile); no LOCK file = never opened
            # for writing, so there is nothing to exclude.
            if not os.path.exists(lock_path):
                return
            fd, mode = os.open(lock_path, os.O_RDONLY), fcntl.LOCK_SH
        else:
            fd, mode = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o600), fcntl.LOCK_EX
        try:
            fcntl.flock(fd, mode | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            raise DatabaseError(f"the database at {path} is already open (in this or another process)") from None
        self._lock_fd = fd

    def _unlock_directory(self) -> None:
        if self._lock_fd >= 0:
            os.close(self._lock_fd)          # closing drops the flock
            self._lock_fd = -1

    def close(self) -> None:
        """Checkpoint (when on disk) and release the directory; waits for an open writer to finish."""
        if self._closed:
            return
        self._closing = True
        thread = self._checkpoint_thread
        if thread is not None and thread.is_alive():   # one not started yet sees _closing and quits
            thread.join()
        try:
            if self._wal is not None and self._group.failure is None:
                self.checkpoint()
        finally:
            with self._writer_lock:
                self._closed = True
                if self._wal is not None:
                    self._wal.close()
                self._unlock_directory()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def last_commit_ts(self) -> int:
        return self._visible_ts

    def add_commit_listener(self, fn: CommitListener) -> None:
        """``fn(changes, commit_ts)`` runs after each commit is durable, in commit order."""
        self._listeners.append(fn)

    def remove_commit_listener(self, fn: CommitListener) -> None:
        if fn in self._listeners:
            self._listeners.remove(fn)

    # -- transactions --------------------------------------------------------------------------------

    def has_token(self, kind: str, name: str) -> bool:
        """Whether the database knows ``name`` as a label (``kind`` 'label'), relationship type ('type')
        or property key ('key'): a token (tokens.py), kept for ever once data, an index or a constraint
        used it (a label whose nodes were all deleted stays known, across restarts too, as in Neo4j)."""
        if kind == "key":
            return name in self._key_names
        return name in (self._label_names if kind == "label" else self._type_names)

    def begin_read(self) -> ReadTx:
        """A snapshot of the last published commit; never waits for writers."""
        if self._closed:
            raise ServiceUnavailable("the database is closed")
        token = next(self._reader_tokens)
        readers = self._readers
        # Register with ts 0 first so a concurrent vacuum cannot prune what this snapshot needs
        # between reading the visible ts and registering it.
        readers[token] = 0
        ts = self._visible_ts
        readers[token] = ts
        return ReadTx(self, ts, token)

    def begin_write(self, timeout: float | None = None) -> WriteTx:
        """Start the (single) write transaction, waiting up to ``timeout`` seconds for the previous one."""
        if self._closed:
            raise ServiceUnavailable("the database is closed")
        if self.read_only:
            raise ReadOnlyDatabaseError("the database was opened with read_only=True; writes are refused")
        if not self._writer_lock.acquire(timeout=-1 if timeout is None else timeout):
            raise TransientError(f"timed out after {timeout}s waiting for another write transaction",
                                 code="Neo.TransientError.Transaction.LockAcquisitionTimeout")
        try:
            if self._closed:
                raise ServiceUnavailable("the database is closed")
            if self._group.failure is not None:
                raise DatabaseError("the database stopped accepting writes after a WAL failure")
            vacuum.vacuum(self)
        except BaseException:
            self._writer_lock.release()
            raise
        return WriteTx(self, self._assigned_ts)

    def _horizon(self) -> int:
        """The oldest ts any current or future snapshot can read at."""
        visible_ts = self._visible_ts
        # default=: another thread may close the last snapshot between a check and the min()
        oldest = min(self._readers.values(), default=visible_ts)
        return oldest if oldest < visible_ts else visible_ts

    def _commit(self, tx: WriteTx, keep_writer: bool = False) -> int:
        """Write the WAL record, stamp the versions, then wait (lock released) for durability.
        ``keep_writer``: ``tx`` starts afresh and keeps the lock (WriteTx.commit_and_continue)."""
        commit_ts = self._assigned_ts + 1
        changes = tx._changes
        try:
            if self._wal is not None:
                logged = changes
                if tx._has_deletes:      # replay needs only the id; listeners get the full state
                    logged = [c[:2] if c[0] in _DELETE_KINDS else c for c in changes]
                try:
                    record = codec.encode((commit_ts, logged))
                except UnicodeEncodeError:
                    raise ArgumentError("A string with a lone surrogate (no Unicode character) cannot be stored",
                                        detail="InvalidArgumentValue") from None
                self._wal.append(record)
        except BaseException as exc:
            if self._wal is not None and self._wal.broken:
                self._group.failure = exc
            tx.rollback()
            raise
        # Past this point the commit is in the log: it must not fail.
        self._stamp(tx, commit_ts)
        if any(tx._node_delta.values()) or any(tx._rel_delta.values()):
            merged = tx._counts()
            self._counts = CountsVersion(commit_ts, merged.nodes, merged.rels, self._counts)
        if tx._schema_entries is not None:
            tokens.adopt(self, tx._schema_entries.values())     # the tokens new entries name (tokens.py)
            self._schema = SchemaVersion(commit_ts, tx._schema_entries, self._schema)
        if tx._has_deletes or any(c[0] in _STRUCTURAL_KINDS for c in changes):
            self._structure_ts = commit_ts         # before any snapshot can see commit_ts
        self._assigned_ts = commit_ts
        if tx._gc:
            self._gc_queue.append((commit_ts, tx._gc))
        if tx._has_index_changes:
            changes = [c for c in changes if c[0] not in _INTERNAL_KINDS]
        self._group.enqueue(commit_ts, changes)
        checkpoint_thread = None
        if self._wal is not None:
            self._commits_since_checkpoint += 1
            if (self._checkpoint_thread is None and not self._closing
                    and (self._commits_since_checkpoint >= self._checkpoint_every
                         or self._wal.bytes_written >= self._checkpoint_bytes)):
                checkpoint_thread = self._checkpoint_thread = threading.Thread(
                    target=self._background_checkpoint, name="relate-checkpoint", daemon=True)
        if keep_writer:
            tx._start(commit_ts)
        else:
            tx._finish()
        self._group.wait(commit_ts)
        if keep_writer:
            vacuum.vacuum(self)          # a long batched statement must not keep every old version
        if checkpoint_thread is not None:
            checkpoint_thread.start()
        return commit_ts

    def _publish(self, batch: list[tuple[int, list[Change]]]) -> None:
        """Called by the group-commit leader once ``batch`` is durable: show it, tell listeners."""
        self._visible_ts = batch[-1][0]
        listeners = self._listeners
        if listeners:
            for commit_ts, changes in batch:
                if not changes:
                    continue
                for fn in listeners:
                    try:
                        fn(changes, commit_ts)
                    except Exception:
                        log.exception("storage.commit_listener_failed", listener=repr(fn),
                                      commit_ts=commit_ts)

    # -- recovery helpers ------------------------------------------------------------------------------

    def _stamp(self, tx: WriteTx, commit_ts: int) -> None:
        """Give ``tx``'s pending versions (in both entity tables) and new property indexes ``commit_ts``."""
        for table, touched in ((self._nodes, tx._touched_nodes), (self._rels, tx._touched_rels)):
            for eid in touched:
                rec = table.get(eid)
                if rec is not None and rec.ts == PENDING:
                    rec.ts = commit_ts
        for index in tx._new_indexes:
            if index.ts == PENDING:
                index.ts = commit_ts

    def _begin_replay(self) -> WriteTx:
        self._writer_lock.acquire()
        return WriteTx(self, self._assigned_ts)

    def _finish_replay(self, tx: WriteTx, commit_ts: int) -> None:
        """Stamp replayed versions with the last replayed ts (nothing is logged or announced)."""
        self._stamp(tx, commit_ts)
        merged = tx._counts()
        self._counts = CountsVersion(commit_ts, merged.nodes, merged.rels, self._counts)
        if tx._schema_entries is not None:
            self._schema = SchemaVersion(commit_ts, tx._schema_entries, self._schema)
        if tx._gc:
            self._gc_queue.append((commit_ts, tx._gc))
        tx._undo.clear()
        tx._finish()

    # -- checkpoints ---------------------------------------------------------------------------------

    def checkpoint(self) -> None:
        """Write a snapshot file and drop the WAL segments it covers (writers keep going meanwhile)."""
        if self._wal is None:
            return
        with self._checkpoint_lock:
            self._checkpoint_locked()

    def _background_checkpoint(self) -> None:
        try:
            with self._checkpoint_lock:
                if not self._closing:
                    self._checkpoint_locked()
        except Exception:
            log.exception("storage.checkpoint_failed", directory=self.directory)
        finally:
            self._checkpoint_thread = None

    def _checkpoint_locked(self) -> None:
        # Only a store on disk checkpoints (checkpoint() and _commit test _wal first).
        assert self._wal is not None and self.directory is not None
        self._writer_lock.acquire()
        try:
            self._group.wait(self._assigned_ts)       # all written commits durable and visible
            if self._assigned_ts == self._snapshot_ts:
                return                                 # the snapshot on disk is current
            reader = self.begin_read()
            ts = reader.ts
            header = {
                "format": snapshot.FORMAT, "ts": ts,
                "next_node_id": self._next_node_id, "next_rel_id": self._next_rel_id,
                "schema": self._schema.entries,
                "keys": list(self._key_names),
                "labels": list(self._label_names),
                "types": list(self._type_names),
                "indexes": [list(ident) for ident in self._prop_indexes],
            }
            old_seq = self._wal.rotate()
            self._commits_since_checkpoint = 0
        finally:
            self._writer_lock.release()
        try:
            snapshot.write_snapshot(self.directory, self, ts, header)
            self._snapshot_ts = ts
            integrity.write_manifest(self.directory, ts, old_seq + 1)
            self._wal.remove_segments_through(old_seq)
        finally:
            reader.close()

    # -- interning and value checks (used by WriteTx) -----------------------------------------------

    def _intern_key(self, key: str) -> str:
        name = self._key_names.get(key)
        if name is None:
            if type(key) is not str:
                raise codec.CypherTypeError("property keys must be strings", detail="InvalidPropertyType")
            name = self._key_names[key] = sys.intern(key)
        return name

    def _intern_label(self, label: str) -> str:
        name = self._label_names.get(label)
        if name is None:
            if type(label) is not str:
                raise codec.CypherTypeError("labels must be strings", detail="InvalidArgumentType")
            name = self._label_names[label] = sys.intern(label)
            self._label_rank[name] = len(self._label_rank)
        return name

    def _intern_type(self, type_name: str) -> str:
        name = self._type_names.get(type_name)
        if name is None:
            if type(type_name) is not str:
                raise codec.CypherTypeError("relationship types must be strings",
                                            detail="InvalidArgumentType")
            name = self._type_names[type_name] = sys.intern(type_name)
        return name

    def _labelset(self, labels: Iterable[str]) -> LabelSet:
        """The shared LabelSet for a label set (most nodes share a handful of sets), in label order."""
        if type(labels) is str:
            raise ArgumentError(f"labels must be a collection of names, not the string {labels!r}")
        if not isinstance(labels, (frozenset, list, tuple)):
            labels = list(labels)
        shared = self._labelsets.get(labels if isinstance(labels, frozenset) else frozenset(labels))
        if shared is None:
            # New names are created in the order given (a pattern's): CREATE (:B:A) makes B first.
            names = {self._intern_label(x): None for x in labels}
            shared = LabelSet(sorted(names, key=self._label_rank.__getitem__))
            self._labelsets[shared] = shared
        return shared

    def _clean_value(self, value: Any) -> Any:
        """Validate a property value; lists are copied so later caller edits cannot leak in."""
        codec.check_value(value)
        return list(value) if type(value) is list else value

    def _note_keys(self, props: Props) -> None:
        """Register the keys of already-clean props (WAL replay) as known property keys."""
        key_names = self._key_names
        for key in props:
            if key not in key_names:
                self._intern_key(key)

    def _adopt_props(self, props: dict[str, Any]) -> Props:
        """A fresh map (see WriteTx.create_node) taken as it is when it is already clean: no nulls,
        every key the interned one, no list to copy, no out-of-range int; else cleaned like any other.
        (A load's CREATE rows share their keys' string objects, so this is the common case.)"""
        key_names, scalars = self._key_names, codec.SCALAR_CLASSES
        for key, value in props.items():
            cls = type(value)
            if key_names.get(key) is not key or (cls not in scalars and not (
                    cls is int and codec.INT64_MIN <= value <= codec.INT64_MAX)):
                return self._clean_props(props)
        return props

    def _clean_props(self, props: dict[str, Any]) -> Props:
        out = {}
        key_names = self._key_names
        for key, value in props.items():
            if value is None:
                continue
            name = key_names.get(key)
            if name is None:
                name = self._intern_key(key)
            cls = type(value)
            if cls is not str and cls is not int and cls is not float and cls is not bool:
                value = self._clean_value(value)
            elif cls is int and not (codec.INT64_MIN <= value <= codec.INT64_MAX):
                codec.check_value(value)
            out[name] = value
        return out

    # -- property index registry -----------------------------------------------------------------------

    def _register_index(self, index: PropertyIndex) -> None:
        self._prop_indexes[index.ident] = index
        registry = self._node_indexes if index.entity == "node" else self._rel_indexes
        registry.setdefault(index.label, {})[index.key] = index

    def _unregister_index(self, index: PropertyIndex) -> None:
        if self._prop_indexes.get(index.ident) is not index:
            return
        del self._prop_indexes[index.ident]
        registry = self._node_indexes if index.entity == "node" else self._rel_indexes
        by_key = registry.get(index.label)
        if by_key is not None:
            by_key.pop(index.key, None)
            if not by_key:
                del registry[index.label]


class ExpandCache:
    """Relationship-id sets that ``ReadTx.expand_rel_id_set`` found, kept across statements.

    Valid under MVCC through the store's structure version ``V`` (``_structure_ts``): every snapshot
    with ts >= V sees the same relationships and labels (V moves before a structural commit becomes
    visible). An entry is stored and used only by a snapshot with ts >= V, and only while V is the
    version the cache holds; a newer V drops every entry at the next store. Bounded, least recently
    used first out, by the total ids held.
    """

    __slots__ = ("version", "_entries", "_held", "_limit", "_lock")

    def __init__(self, limit: int = 1_000_000):
        self.version = -1
        self._entries: OrderedDict[Hashable, frozenset[int]] = OrderedDict()
        self._held = 0
        self._limit = limit
        self._lock = threading.Lock()

    def get(self, key: Hashable, version: int) -> frozenset[int] | None:
        """The set cached for ``key`` at structure ``version``, or None."""
        if self.version != version:
            return None
        with self._lock:
            if self.version != version:
                return None
            ids = self._entries.get(key)
            if ids is not None:
                self._entries.move_to_end(key)
            return ids

    def put(self, key: Hashable, ids: frozenset[int], version: int) -> None:
        size = len(ids) + 1
        if size > self._limit >> 2:
            return
        with self._lock:
            if version != self.version:
                if version < self.version:
                    return                          # computed for an older structure
                self._entries.clear()
                self._held = 0
                self.version = version
            entries = self._entries
            old = entries.pop(key, None)
            if old is not None:
                self._held -= len(old) + 1
            entries[key] = ids
            self._held += size
            while self._held > self._limit:
                _, dropped = entries.popitem(last=False)
                self._held -= len(dropped) + 1

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._held = 0

    def __len__(self) -> int:
        return len(self._entries)
