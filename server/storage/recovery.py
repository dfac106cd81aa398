"""Recovery on open: load the latest snapshot, then replay the WAL records that follow it."""
from __future__ import annotations

import gc
import os
from typing import TYPE_CHECKING

import structlog

from relate.protocol.errors import DatabaseError

from . import codec
from .adjacency import link_rel
from .snapshot import NODE_RECORD, SNAPSHOT_NAME, TEMP_NAME, read_snapshot
from .indexes import PropertyIndex
from .vacuum import fill_index
from .versions import EMPTY_PROPS, NodeVersion, RelVersion
from . import integrity, tokens
from .wal import HEADER_SIZE, fsync_directory, list_segments, read_segment

if TYPE_CHECKING:
    from .store import GraphStore
    from .versions import Change
    from .write_tx import WriteTx

log = structlog.get_logger(__name__)


def recover(store: GraphStore, directory: str, recover_truncate: bool = False, read_only: bool = False) -> int:
    """Rebuild ``store`` from ``directory``; returns the seq number for the next WAL segment.
    Damage before valid records, or files the checkpoint manifest expects but cannot find, raise
    StorageDamaged unless ``recover_truncate`` (then what is dropped is logged). ``read_only``:
    change nothing on disk (a torn tail is only skipped)."""
    # Loading creates millions of long-lived objects and no garbage cycles: the cyclic GC would
    # rescan the growing heap again and again for nothing (it roughly doubles load time).
    gc_enabled = gc.isenabled()
    gc.disable()
    try:
        return _recover(store, directory, recover_truncate, read_only)
    finally:
        if gc_enabled:
            gc.enable()


def _recover(store: GraphStore, directory: str, recover_truncate: bool = False, read_only: bool = False) -> int:
    temp = os.path.join(directory, TEMP_NAME)
    if os.path.exists(temp) and not read_only:
        os.unlink(temp)            # an interrupted checkpoint; the previous snapshot still stands
    snapshot_path = os.path.join(directory, SNAPSHOT_NAME)
    manifest = integrity.read_manifest(directory)
    missing = integrity.missing_files(directory, manifest, os.path.exists(snapshot_path))
    if missing:
        if not recover_truncate:
            raise integrity.StorageDamaged(
                f"the database at {directory} is incomplete: missing {'; '.join(missing)}. Nothing was changed; "
                "`relate check` describes it, and opening with --recover-truncate (recover_truncate=True) "
                "opens what is left")
        log.warning("storage.recover_truncate", directory=directory, missing=missing)
        store.history_lost = True
    snapshot_ts = 0
    if os.path.exists(snapshot_path):
        snapshot_ts = load_snapshot(store, snapshot_path)
        store._snapshot_ts = snapshot_ts
        if manifest is not None and snapshot_ts < manifest["snapshot_ts"]:
            if not recover_truncate:
                raise integrity.StorageDamaged(
                    f"snapshot.msgpack in {directory} is at ts {snapshot_ts}, older than the checkpoint at ts "
                    f"{manifest['snapshot_ts']} that the manifest records")
            store.history_lost = True
    segments = list_segments(directory)
    last_ts = replay_wal(store, directory, segments, snapshot_ts, recover_truncate, read_only)
    store._assigned_ts = store._visible_ts = last_ts
    return segments[-1][0] + 1 if segments else 1


def load_snapshot(store: GraphStore, path: str) -> int:
    """Bulk-load a snapshot file into an empty store; returns its commit ts."""
    records = read_snapshot(path)
    header = next(records)
    ts: int = header["ts"]
    for key in header.get("keys") or ():
        store._intern_key(key)        # msgpack interns map keys, so entity dicts share these
    for label in header.get("labels") or ():
        store._intern_label(label)    # label order survives (older snapshots: first met, node by node)
    for type_name in header.get("types") or ():
        store._intern_type(type_name)  # so does the types' (older snapshots: first met, relationship by one)
    nodes, rels = store._nodes, store._rels
    label_index = store._label_index
    labelset, intern_type = store._labelset, store._intern_type
    key_names = store._key_names
    node_counts: dict[str | None, int] = {None: 0}
    rel_counts: dict[str | None, int] = {None: 0}
    # The node records' id objects by id: a relationship record repeats its endpoints' ids, each a
    # new int (32 bytes) that the adjacency maps would keep; they keep the node's own instead.
    ids: list[int | None] = []
    for record in records:
        if record[0] == NODE_RECORD:
            _, nid, labels, props = record
            if nid == len(ids):
                ids.append(nid)
            elif len(ids) < nid <= 2 * len(ids) + 65536:       # a gap (deleted ids), bounded
                ids.extend([None] * (nid - len(ids)))
                ids.append(nid)
            elif 0 <= nid < len(ids):
                ids[nid] = nid
            labels = labelset(labels)
            nodes[nid] = NodeVersion(0, labels, props or EMPTY_PROPS, None)
            for key in props:
                if key not in key_names:
                    store._intern_key(key)
            node_counts[None] += 1
            for label in labels:
                members = label_index.get(label)
                if members is None:
                    label_index[label] = {nid: None}
                else:
                    members[nid] = None
                node_counts[label] = node_counts.get(label, 0) + 1
        else:
            _, rid, type, start, end, props = record
            if 0 <= start < len(ids) and (same := ids[start]) is not None:
                start = same
            if 0 <= end < len(ids) and (same := ids[end]) is not None:
                end = same
            type = intern_type(type)
            rels[rid] = RelVersion(0, type, start, end, props or EMPTY_PROPS, None)
            for key in props:
                if key not in key_names:
                    store._intern_key(key)
            link_rel(store, rid, type, start, end)
            rel_counts[None] += 1
            rel_counts[type] = rel_counts.get(type, 0) + 1
    del ids
    store._counts.nodes, store._counts.rels = node_counts, rel_counts
    store._schema.entries = dict(header.get("schema") or {})
    tokens.adopt(store, store._schema.entries.values())   # older snapshots: names only the catalog uses
    store._next_node_id = header["next_node_id"]
    store._next_rel_id = header["next_rel_id"]
    for entity, label, key in header.get("indexes") or ():
        index = PropertyIndex(entity, label, key, 0)
        fill_index(store, index)
        store._register_index(index)
    return ts


def replay_wal(store: GraphStore, directory: str, segments: list[tuple[int, str]], after_ts: int, recover_truncate: bool = False,
               read_only: bool = False) -> int:
    """Apply the records newer than ``after_ts`` in one internal transaction; returns the last ts.

    A torn tail (a bad record with nothing valid after it, in this segment or a later one) ends the
    log: its segment is truncated there and later segments go. A bad record followed by valid ones
    raises StorageDamaged before anything is changed, unless ``recover_truncate``.
    """
    last_ts = after_ts
    tx: WriteTx | None = None
    for position, (seq, path) in enumerate(segments):
        payloads, good_end, damaged = read_segment(path)
        offset = 0
        for payload in payloads:
            try:
                commit_ts, changes = integrity.decode_record(payload, path, offset, codec.decode)
            except integrity.StorageDamaged:
                if not recover_truncate:
                    raise
                good_end, damaged = offset, True     # drop from this record on
                store.history_lost = True            # a complete (checksummed) commit is dropped
                break
            offset += HEADER_SIZE + len(payload)
            if commit_ts <= last_ts:
                continue
            if tx is None:
                tx = store._begin_replay()
            for change in changes:
                apply_change(tx, change)
            tx._changes.clear()       # replay is never undone: keep memory flat
            tx._undo.clear()
            last_ts = commit_ts
        if damaged and _check_damage(path, good_end, [p for _, p in segments[position + 1:]], recover_truncate):
            store.history_lost = True
        if damaged:
            log.warning("wal.torn_tail", segment=path, kept_bytes=good_end,
                        dropped_segments=len(segments) - position - 1)
            if read_only:
                break
            with open(path, "r+b") as f:
                f.truncate(good_end)
                os.fsync(f.fileno())
            for _, later in segments[position + 1:]:
                os.unlink(later)
            del segments[position + 1:]
            fsync_directory(directory)
            break
    if tx is not None:
        store._finish_replay(tx, last_ts)
    return last_ts


def _check_damage(path: str, offset: int, later_segments: list[str], recover_truncate: bool) -> bool:
    """A bad record at ``offset``: a torn tail passes (False); valid commits after it are refused (or,
    with ``recover_truncate``, logged as dropped: True)."""
    with open(path, "rb") as f:
        data = f.read()
    later = integrity.valid_records_after(data, offset, codec.decode)
    later += integrity.later_segment_commits(later_segments, codec.decode)
    if not later:
        return False
    damage = integrity.Damage(path, offset, later)
    if not recover_truncate:
        raise integrity.StorageDamaged(
            f"the WAL is damaged in the middle: {damage.describe()}. Nothing was changed; `relate check` "
            "describes it, and opening with --recover-truncate (recover_truncate=True) drops every commit "
            "from the damage on")
    log.warning("storage.recover_truncate", segment=path, offset=offset, dropped_commits=len(later),
                dropped_ts=f"{min(later)}..{max(later)}")
    return True


def apply_change(tx: WriteTx, change: Change) -> None:
    """Re-apply one logged Change (plus the internal pidx+/pidx- kinds)."""
    kind = change[0]
    if kind == "node+":
        _, nid, labels, props = change
        tx._insert_node(nid, labels, props, trusted=True)
        if nid >= tx._store._next_node_id:
            tx._store._next_node_id = nid + 1
    elif kind == "nprop":
        tx.set_node_prop(change[1], change[2], change[4])
    elif kind == "rel+":
        _, rid, type, start, end, props = change
        tx._insert_rel(rid, type, start, end, props, trusted=True)
        if rid >= tx._store._next_rel_id:
            tx._store._next_rel_id = rid + 1
    elif kind == "rprop":
        tx.set_rel_prop(change[1], change[2], change[4])
    elif kind == "label+":
        tx.add_labels(change[1], (change[2],))
    elif kind == "label-":
        tx.remove_labels(change[1], (change[2],))
    elif kind == "node-":
        tx.delete_node(change[1])
    elif kind == "rel-":
        tx.delete_rel(change[1])
    elif kind == "schema+":
        tx.put_schema(change[1], change[2])
        tokens.adopt(tx._store, (change[2],))     # as the commit did (in commit order: tokens.py)
    elif kind == "schema-":
        tx.drop_schema(change[1])
    elif kind == "pidx+":
        tx.create_property_index(change[1], change[2], change[3])
    elif kind == "pidx-":
        tx.drop_property_index(change[1], change[2], change[3])
    else:
        raise DatabaseError(f"unknown WAL change kind {kind!r}")
