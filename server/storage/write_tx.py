"""WriteTx: the single writer. Writes go straight into the shared structures as PENDING versions
(invisible to snapshots); an undo log makes rollback and savepoints exact, and the change list is
both the WAL record and what commit listeners receive.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Iterable

from relate.protocol.errors import ArgumentError, ConstraintValidationFailed, TransactionError

from . import codec, undo, vacuum
from .adjacency import link_rel
from .indexes import PropertyIndex, order_key
from .read_tx import ReadTx, _missing_node, _missing_rel
from .virtual import refuse_write
from .undo import (ABSENT, INDEX_DROP, INDEX_NEW, LABELS, NODE_DEL, NODE_NEW, NODE_PUSH, NPROP, REL_DEL,
                   REL_NEW, REL_PUSH, RPROP, SCHEMA)
from .versions import EMPTY_PROPS, PENDING, NodeVersion, RelVersion

if TYPE_CHECKING:
    from types import TracebackType
    from typing import Any

    from .store import GraphStore
    from .versions import Change, CountsVersion, LiveNode, LiveRel, Props

ENTITY_KINDS = ("node", "relationship")


class WriteTx(ReadTx):
    """Reads see the newest state including this transaction's own writes."""

    fixed = False                              # sees its own writes: never memoize its reads
    __slots__ = ("_begin_ts", "_active", "_changes", "_undo", "_gc", "_touched_nodes",
                 "_touched_rels", "_node_delta", "_rel_delta", "_schema_entries", "_new_indexes",
                 "_deleted_nodes", "_has_index_changes", "_has_deletes")

    def __init__(self, store: GraphStore, begin_ts: int):
        super().__init__(store, PENDING, None)  # type: ignore[arg-type]  # never a registered reader: no token
        self._closed = True            # never registered as a snapshot reader
        self._active = True
        self._start(begin_ts)

    def _start(self, begin_ts: int) -> None:
        """Empty: nothing written yet (at the start, and again after ``commit_and_continue``)."""
        self._begin_ts = begin_ts
        self._changes: list[Change] = []
        self._undo: list[tuple[Any, ...]] = []
        self._gc: list[tuple[Any, ...]] = []     # vacuum tasks, run once no snapshot needs the old state
        self._touched_nodes: list[int] = []
        self._touched_rels: list[int] = []
        self._node_delta: dict[str | None, int] = {}
        self._rel_delta: dict[str | None, int] = {}
        self._schema_entries: dict[str, dict[str, Any]] | None = None
        self._new_indexes: list[PropertyIndex] = []
        self._deleted_nodes: list[int] = []
        self._has_index_changes = False
        self._has_deletes = False      # the WAL then logs deletions without their old state

    @property
    def ts(self) -> int:
        return self._begin_ts

    @property
    def active(self) -> bool:
        return self._active

    def __del__(self) -> None:
        if self._active:     # abandoned without commit/rollback: free the writer lock
            self.rollback()

    def close(self) -> None:
        if self._active:
            self.rollback()

    # The context manager is called with exactly these three; ReadTx takes ``*exc``.
    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,  # type: ignore[override]
                 tb: TracebackType | None) -> None:
        if self._active:
            if exc_type is None:
                self.commit()
            else:
                self.rollback()

    def _require_active(self) -> None:
        if not self._active:
            raise TransactionError("the write transaction has already been committed or rolled back")

    # -- reads that must include this transaction's own pending state -------------------------------

    def change_log(self) -> list[Change]:
        """What this transaction wrote so far, in order: the live list (appended to as it writes, cut back
        by ``rollback_to``, replaced by ``commit_and_continue``); searches overlay it on the indexes."""
        return self._changes

    def _counts(self) -> CountsVersion:
        counts = self._store._counts
        if not self._node_delta and not self._rel_delta:
            return counts
        nodes, rels = dict(counts.nodes), dict(counts.rels)
        for key, delta in self._node_delta.items():
            nodes[key] = nodes.get(key, 0) + delta
        for key, delta in self._rel_delta.items():
            rels[key] = rels.get(key, 0) + delta
        return type(counts)(PENDING, nodes, rels, None)

    def has_pending_token(self, kind: str, name: str) -> bool:
        """Whether this transaction's own writes use ``name`` as a label or relationship type (a statement
        later in the transaction that reads it must not be told it is unknown)."""
        return name in (self._node_delta if kind == "label" else self._rel_delta if kind == "type" else ())

    def count_nodes(self, label: str | None = None) -> int:
        return self._store._counts.nodes.get(label, 0) + self._node_delta.get(label, 0)

    def count_rels(self, type: str | None = None) -> int:
        return self._store._counts.rels.get(type, 0) + self._rel_delta.get(type, 0)

    def schema(self) -> dict[str, dict[str, Any]]:
        if self._schema_entries is not None:
            return self._schema_entries
        return self._store._schema.entries

    # -- nodes ---------------------------------------------------------------------------------------

    def create_node(self, labels: Iterable[str] = (), props: dict[str, Any] | None = None, *,
                    fresh: bool = False) -> int:
        """A new node; ``fresh`` props are a map the caller built for this call and keeps no hold on
        (the Cypher layer's, nulls dropped and values checked): taken without a copy when already clean."""
        if not self._active:
            self._require_active()
        store = self._store
        nid = store._next_node_id
        store._next_node_id = nid + 1
        self._insert_node(nid, labels, props, fresh=fresh)
        return nid

    def _insert_node(self, nid: int, labels: Iterable[str], props: Any, trusted: bool = False,
                     fresh: bool = False) -> None:
        """Create node ``nid``; ``trusted`` props (WAL replay) are already clean and private.
        (``props`` is typed Any: a caller's map or None, or the dict a WAL record decoded to.)"""
        store = self._store
        labels = store._labelset(labels)
        if trusted:
            store._note_keys(props)
            props = props or EMPTY_PROPS
        elif props:
            props = (store._adopt_props(props) if fresh else store._clean_props(props)) or EMPTY_PROPS
        else:
            props = EMPTY_PROPS
        store._nodes[nid] = NodeVersion(PENDING, labels, props, None)
        self._touched_nodes.append(nid)
        delta = self._node_delta
        delta[None] = delta.get(None, 0) + 1
        if labels:
            label_index = store._label_index
            for label in labels:
                members = label_index.get(label)
                if members is None:
                    label_index[label] = {nid: None}
                else:
                    members[nid] = None
                delta[label] = delta.get(label, 0) + 1
            if store._node_indexes and props:
                self._index_node_labels(nid, labels, props)
        self._changes.append(("node+", nid, labels, dict(props)))
        self._undo.append((NODE_NEW, nid))

    def _index_node_labels(self, nid: int, labels: Iterable[str], props: Props) -> None:
        """Add index entries for ``props`` under each of ``labels``."""
        by_label = self._store._node_indexes
        for label in labels:
            by_key = by_label.get(label)
            if by_key:
                for key, index in by_key.items():
                    value = props.get(key)
                    if value is not None:
                        okey = order_key(value)
                        if okey is not None:
                            index.add(okey, nid)
                        else:
                            index.unindexed = True

    def _pending_node(self, nid: int) -> LiveNode:
        """This transaction's own version of a live node, made on first touch."""
        if nid < 0:
            refuse_write(nid, "node")
        store = self._store
        rec = store._nodes.get(nid)
        if rec is None or rec.props is None:
            raise _missing_node(nid)
        if rec.ts != PENDING:
            rec = NodeVersion(PENDING, rec.labels, dict(rec.props), rec)
            store._nodes[nid] = rec
            self._touched_nodes.append(nid)
            self._undo.append((NODE_PUSH, nid))
            self._gc.append((vacuum.NODE, nid))
        return rec  # type: ignore[return-value]  # props is not None: a live version

    def set_node_prop(self, nid: int, key: str, value: Any) -> None:
        """Set one property; ``None`` removes it."""
        if not self._active:
            self._require_active()
        store = self._store
        if value is None:
            head = store._nodes.get(nid)
            if head is not None and head.props is not None and key not in head.props:
                return                            # removing an absent key changes nothing
        rec = self._pending_node(nid)
        props = rec.props
        if props is EMPTY_PROPS:
            rec.props = props = {}
        old = props.get(key)
        if value is None:
            del props[key]
        else:
            key = store._intern_key(key)
            value = store._clean_value(value)
            props[key] = value
        if store._node_indexes:
            self._reindex_node_prop(nid, rec.labels, key, old, value)
        self._changes.append(("nprop", nid, key, old, value))
        self._undo.append((NPROP, nid, key, old))

    def _reindex_node_prop(self, nid: int, labels: frozenset[str], key: str, old: Any, new: Any) -> None:
        by_label = self._store._node_indexes
        for label in labels:
            by_key = by_label.get(label)
            index = by_key.get(key) if by_key else None
            if index is None:
                continue
            new_key = order_key(new) if new is not None else None
            if new_key is not None:
                index.add(new_key, nid)
            elif new is not None:
                index.unindexed = True
            old_key = order_key(old) if old is not None else None
            if old_key is not None and old_key != new_key:
                self._gc.append((vacuum.NODE_ENTRY, index, old_key, nid))

    def add_labels(self, nid: int, labels: Iterable[str]) -> int:
        """Add labels; returns how many were new."""
        if not self._active:
            self._require_active()
        store = self._store
        head = store._nodes.get(nid)
        if head is None or head.props is None:
            if nid < 0:
                refuse_write(nid, "node")
            raise _missing_node(nid)
        new = [store._intern_label(label) for label in dict.fromkeys(labels) if label not in head.labels]
        if not new:
            return 0
        rec = self._pending_node(nid)
        self._undo.append((LABELS, nid, rec.labels))
        rec.labels = store._labelset(rec.labels.union(new))
        label_index, delta = store._label_index, self._node_delta
        for label in new:
            members = label_index.get(label)
            if members is None:
                label_index[label] = {nid: None}
            else:
                members[nid] = None
            delta[label] = delta.get(label, 0) + 1
            self._changes.append(("label+", nid, label))
        if store._node_indexes:
            self._index_node_labels(nid, new, rec.props)
        return len(new)

    def remove_labels(self, nid: int, labels: Iterable[str]) -> int:
        """Remove labels; returns how many the node had."""
        if not self._active:
            self._require_active()
        store = self._store
        head = store._nodes.get(nid)
        if head is None or head.props is None:
            if nid < 0:
                refuse_write(nid, "node")
            raise _missing_node(nid)
        gone = [label for label in dict.fromkeys(labels) if label in head.labels]
        if not gone:
            return 0
        rec = self._pending_node(nid)
        self._undo.append((LABELS, nid, rec.labels))
        rec.labels = store._labelset(rec.labels.difference(gone))
        delta, gc = self._node_delta, self._gc
        for label in gone:
            delta[label] = delta.get(label, 0) - 1
            gc.append((vacuum.LABEL, nid, label))
            self._changes.append(("label-", nid, label))
        if store._node_indexes:
            self._forget_node_entries(nid, gone, rec.props)
        return len(gone)

    def _forget_node_entries(self, nid: int, labels: Iterable[str], props: Props) -> None:
        """Queue the index entries of ``props`` under ``labels`` for removal once unseen."""
        by_label = self._store._node_indexes
        for label in labels:
            by_key = by_label.get(label)
            if by_key:
                for key, index in by_key.items():
                    value = props.get(key)
                    if value is not None:
                        okey = order_key(value)
                        if okey is not None:
                            self._gc.append((vacuum.NODE_ENTRY, index, okey, nid))

    def delete_node(self, nid: int) -> None:
        """Delete a node; its relationships must be deleted in the same transaction (checked at commit)."""
        if not self._active:
            self._require_active()
        if nid < 0:
            refuse_write(nid, "node")
        store = self._store
        rec = store._nodes.get(nid)
        if rec is None:
            raise _missing_node(nid)
        if rec.props is None:
            return                                   # already deleted: deleting twice is a no-op
        if rec.ts != PENDING:
            rec = NodeVersion(PENDING, rec.labels, rec.props, rec)
            store._nodes[nid] = rec
            self._touched_nodes.append(nid)
            self._undo.append((NODE_PUSH, nid))
        props = rec.props
        rec.props = None
        self._undo.append((NODE_DEL, nid, props))
        gc, delta = self._gc, self._node_delta
        gc.append((vacuum.NODE, nid))
        delta[None] = delta.get(None, 0) - 1
        for label in rec.labels:
            delta[label] = delta.get(label, 0) - 1
            gc.append((vacuum.LABEL, nid, label))
        if store._node_indexes:
            self._forget_node_entries(nid, rec.labels, props)  # type: ignore[arg-type]  # live until just now
        self._deleted_nodes.append(nid)
        self._has_deletes = True
        self._changes.append(("node-", nid, rec.labels, props))

    # -- relationships -------------------------------------------------------------------------------

    def create_rel(self, type: str, start: int, end: int, props: dict[str, Any] | None = None, *,
                   fresh: bool = False) -> int:
        """A new relationship; ``fresh`` as in ``create_node``."""
        if not self._active:
            self._require_active()
        store = self._store
        rid = store._next_rel_id
        store._next_rel_id = rid + 1
        self._insert_rel(rid, type, start, end, props, fresh=fresh)
        return rid

    def _insert_rel(self, rid: int, type: str, start: int, end: int, props: Any, trusted: bool = False,
                    fresh: bool = False) -> None:
        """Create relationship ``rid``; ``props`` as in ``_insert_node``."""
        if start < 0 or end < 0:
            refuse_write(min(start, end), "node")
        store = self._store
        get = self._nodes_get
        rec = get(start)
        if rec is None or rec.props is None:
            raise _missing_node(start)
        rec = get(end)
        if rec is None or rec.props is None:
            raise _missing_node(end)
        name = store._type_names.get(type)
        type = store._intern_type(type) if name is None else name
        if trusted:
            store._note_keys(props)
            props = props or EMPTY_PROPS
        elif props:
            props = (store._adopt_props(props) if fresh else store._clean_props(props)) or EMPTY_PROPS
        else:
            props = EMPTY_PROPS
        store._rels[rid] = RelVersion(PENDING, type, start, end, props, None)
        self._touched_rels.append(rid)
        link_rel(store, rid, type, start, end)
        delta = self._rel_delta
        delta[None] = delta.get(None, 0) + 1
        delta[type] = delta.get(type, 0) + 1
        if not props:
            self._changes.append(("rel+", rid, type, start, end, {}))
            self._undo.append((REL_NEW, rid))
            return
        if store._rel_indexes:
            by_key = store._rel_indexes.get(type)
            if by_key:
                for key, index in by_key.items():
                    value = props.get(key)
                    if value is not None:
                        okey = order_key(value)
                        if okey is not None:
                            index.add(okey, rid)
                        else:
                            index.unindexed = True
        self._changes.append(("rel+", rid, type, start, end, dict(props)))
        self._undo.append((REL_NEW, rid))

    # The relationship writers mirror the node writers on purpose rather than sharing one entity-table
    # path: they are per-property hot paths (SET, MERGE, loads) where a shared path would add a call and
    # a kind test per write, and their index upkeep differs (one type vs. every label of a node).
    def _pending_rel(self, rid: int) -> LiveRel:
        if rid < 0:
            refuse_write(rid, "relationship")
        store = self._store
        rec = store._rels.get(rid)
        if rec is None or rec.props is None:
            raise _missing_rel(rid)
        if rec.ts != PENDING:
            rec = RelVersion(PENDING, rec.type, rec.start, rec.end, dict(rec.props), rec)
            store._rels[rid] = rec
            self._touched_rels.append(rid)
            self._undo.append((REL_PUSH, rid))
            self._gc.append((vacuum.REL, rid, rec.type, rec.start, rec.end))
        return rec  # type: ignore[return-value]  # props is not None: a live version

    def set_rel_prop(self, rid: int, key: str, value: Any) -> None:
        if not self._active:
            self._require_active()
        store = self._store
        if value is None:
            head = store._rels.get(rid)
            if head is not None and head.props is not None and key not in head.props:
                return
        rec = self._pending_rel(rid)
        props = rec.props
        if props is EMPTY_PROPS:
            rec.props = props = {}
        old = props.get(key)
        if value is None:
            del props[key]
        else:
            key = store._intern_key(key)
            value = store._clean_value(value)
            props[key] = value
        by_key = store._rel_indexes.get(rec.type)
        index = by_key.get(key) if by_key else None
        if index is not None:
            new_key = order_key(value) if value is not None else None
            if new_key is not None:
                index.add(new_key, rid)
            elif value is not None:
                index.unindexed = True
            old_key = order_key(old) if old is not None else None
            if old_key is not None and old_key != new_key:
                self._gc.append((vacuum.REL_ENTRY, index, old_key, rid))
        self._changes.append(("rprop", rid, key, old, value))
        self._undo.append((RPROP, rid, key, old))

    def delete_rel(self, rid: int) -> None:
        if not self._active:
            self._require_active()
        if rid < 0:
            refuse_write(rid, "relationship")
        store = self._store
        rec = store._rels.get(rid)
        if rec is None:
            raise _missing_rel(rid)
        if rec.props is None:
            return
        if rec.ts != PENDING:
            rec = RelVersion(PENDING, rec.type, rec.start, rec.end, rec.props, rec)
            store._rels[rid] = rec
            self._touched_rels.append(rid)
            self._undo.append((REL_PUSH, rid))
        props = rec.props
        rec.props = None
        self._undo.append((REL_DEL, rid, props))
        self._gc.append((vacuum.REL, rid, rec.type, rec.start, rec.end))
        delta = self._rel_delta
        delta[None] = delta.get(None, 0) - 1
        delta[rec.type] = delta.get(rec.type, 0) - 1
        by_key = store._rel_indexes.get(rec.type)
        if by_key:
            for key, index in by_key.items():
                value = props.get(key)  # type: ignore[union-attr]  # live until just now
                okey = order_key(value) if value is not None else None
                if okey is not None:
                    self._gc.append((vacuum.REL_ENTRY, index, okey, rid))
        self._has_deletes = True
        self._changes.append(("rel-", rid, rec.type, rec.start, rec.end, props))

    # -- schema catalog and property indexes --------------------------------------------------------

    def put_schema(self, name: str, definition: dict[str, Any]) -> None:
        """Create or replace a durable catalog entry."""
        if not self._active:
            self._require_active()
        store = self._store
        store._clean_value(definition)
        definition = codec.decode(codec.encode(definition))   # a private deep copy
        entries = self._schema_for_write()
        self._undo.append((SCHEMA, name, entries.get(name, ABSENT)))
        entries[name] = definition
        self._changes.append(("schema+", name, definition))

    def drop_schema(self, name: str) -> None:
        if not self._active:
            self._require_active()
        entries = self._schema_for_write()
        if name not in entries:
            return
        self._undo.append((SCHEMA, name, entries[name]))
        del entries[name]
        self._changes.append(("schema-", name))

    def _schema_for_write(self) -> dict[str, dict[str, Any]]:
        if self._schema_entries is None:
            self._schema_entries = dict(self._store._schema.entries)
        return self._schema_entries

    def create_property_index(self, entity: str, label: str, key: str) -> None:
        """Create (and fill) a property index; a no-op if it exists."""
        if not self._active:
            self._require_active()
        if entity not in ENTITY_KINDS:
            raise ArgumentError(f"an index is on 'node' or 'relationship', not {entity!r}")
        store = self._store
        if (entity, label, key) in store._prop_indexes:
            return
        index = PropertyIndex(entity, label, key, PENDING)
        vacuum.fill_index(store, index)
        store._register_index(index)
        self._new_indexes.append(index)
        self._has_index_changes = True
        self._undo.append((INDEX_NEW, index))
        self._changes.append(("pidx+", entity, label, key))

    def drop_property_index(self, entity: str, label: str, key: str) -> None:
        if not self._active:
            self._require_active()
        store = self._store
        index = store._prop_indexes.get((entity, label, key))
        if index is None:
            return
        store._unregister_index(index)
        self._has_index_changes = True
        self._undo.append((INDEX_DROP, index))
        self._changes.append(("pidx-", entity, label, key))

    # -- savepoints, rollback, commit ------------------------------------------------------------------

    def savepoint(self) -> tuple[int, int, int, int]:
        """A token for ``rollback_to``: undoes everything written after this call."""
        self._require_active()
        return (len(self._changes), len(self._undo), len(self._gc), len(self._deleted_nodes))

    def rollback_to(self, token: tuple[int, int, int, int]) -> None:
        self._require_active()
        changes, undo, gc, deleted = token
        self._undo_to(undo)
        del self._changes[changes:]
        del self._gc[gc:]
        del self._deleted_nodes[deleted:]

    def rollback(self) -> None:
        """Undo everything and release the writer lock; a no-op once finished."""
        if not self._active:
            return
        try:
            self._undo_to(0)
        finally:
            self._finish()

    def commit_and_continue(self) -> int:
        """Commit what was written so far and keep the writer lock for more (CALL { ... } IN
        TRANSACTIONS): a later rollback undoes only what comes after. Returns the commit timestamp."""
        self._require_active()
        try:
            if self._deleted_nodes:
                self._check_deleted_nodes_detached()
        except BaseException:
            self.rollback()
            raise
        if not self._changes:
            return self._store._assigned_ts
        return self._store._commit(self, keep_writer=True)

    def commit(self) -> int:
        """Make the changes durable and visible; returns the commit timestamp."""
        self._require_active()
        try:
            if self._deleted_nodes:
                self._check_deleted_nodes_detached()
            if not self._changes:
                self._finish()
                return self._store._assigned_ts
        except BaseException:
            self.rollback()
            raise
        return self._store._commit(self)

    def check_detached(self) -> None:
        """Raise ConstraintValidationFailed when a node deleted here still has relationships (undoes nothing)."""
        self._require_active()
        if self._deleted_nodes:
            self._check_deleted_nodes_detached()

    def _check_deleted_nodes_detached(self) -> None:
        nodes = self._store._nodes
        for nid in self._deleted_nodes:
            rec = nodes.get(nid)
            if rec is not None and rec.props is None and rec.ts == PENDING:
                for _ in self.expand(nid, "both"):
                    raise ConstraintValidationFailed(
                        f"cannot delete node {nid}: it still has relationships; delete them first "
                        "(DETACH DELETE)", detail="DeleteConnectedNode")

    def _finish(self) -> None:
        if self._active:
            self._active = False
            self._store._writer_lock.release()

    def _undo_to(self, mark: int) -> None:
        undo.undo_to(self, mark)
