"""Undo for WriteTx: replays the undo log backwards to a mark (rollback and savepoints)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from . import vacuum

if TYPE_CHECKING:
    from typing import Any

    from .versions import LiveNode, LiveRel
    from .write_tx import WriteTx

# Undo entry kinds (first item of each undo tuple).
NODE_NEW, NODE_PUSH, NPROP, LABELS, NODE_DEL = range(5)
REL_NEW, REL_PUSH, RPROP, REL_DEL = range(5, 9)
SCHEMA, INDEX_NEW, INDEX_DROP = range(9, 12)
ABSENT = object()          # "no catalog entry before" in SCHEMA entries


def undo_to(tx: WriteTx, mark: int) -> None:
    """Undo ``tx``'s writes after undo-log position ``mark``, then drop index entries they left."""
    store = tx._store
    undo = tx._undo
    checks: list[tuple[Any, ...]] = []     # index entries that may have lost their last justification
    nodes, rels = store._nodes, store._rels
    node_delta, rel_delta = tx._node_delta, tx._rel_delta
    # Entries are tuples of mixed kinds; ``rec`` is the node or relationship version an entry names,
    # in the state that entry left it (the log is undone newest first), so its props are a dict.
    rec: Any
    while len(undo) > mark:
        entry = undo.pop()
        kind = entry[0]
        if kind == NPROP:
            _, nid, key, old = entry
            rec = nodes[nid]
            new = _restore_prop(rec, key, old)
            if new is not None:
                vacuum.collect_node_entries(store, checks, nid, rec.labels, {key: new}, key)
        elif kind == NODE_NEW:
            _, nid = entry
            rec = nodes.pop(nid)
            node_delta[None] -= 1
            for label in rec.labels:
                node_delta[label] -= 1
                checks.append((vacuum.LABEL, nid, label))
            vacuum.collect_node_entries(store, checks, nid, rec.labels, rec.props, None)
        elif kind == NODE_PUSH or kind == REL_PUSH:
            table = nodes if kind == NODE_PUSH else rels
            # (the pushed version's prev is the one it replaced: never None)
            table[entry[1]] = table[entry[1]].prev  # type: ignore[assignment]  # drop this transaction's version
        elif kind == LABELS:
            _, nid, old_labels = entry
            rec = nodes[nid]
            added, removed = rec.labels - old_labels, old_labels - rec.labels
            rec.labels = old_labels
            for label in added:
                node_delta[label] -= 1
                checks.append((vacuum.LABEL, nid, label))
            for label in removed:
                node_delta[label] += 1
            vacuum.collect_node_entries(store, checks, nid, added, rec.props, None)
        elif kind == NODE_DEL:
            _, nid, props = entry
            rec = nodes[nid]
            rec.props = props
            node_delta[None] += 1
            for label in rec.labels:
                node_delta[label] += 1
        elif kind == RPROP:
            _, rid, key, old = entry
            rec = rels[rid]
            new = _restore_prop(rec, key, old)
            if new is not None:
                vacuum.collect_rel_entries(store, checks, rid, rec.type, {key: new})
        elif kind == REL_NEW:
            _, rid = entry
            rec = rels.pop(rid)
            rel_delta[None] -= 1
            rel_delta[rec.type] -= 1
            checks.append((vacuum.REL, rid, rec.type, rec.start, rec.end))
            vacuum.collect_rel_entries(store, checks, rid, rec.type, rec.props)
        elif kind == REL_DEL:
            _, rid, props = entry
            rec = rels[rid]
            rec.props = props
            rel_delta[None] += 1
            rel_delta[rec.type] += 1
        elif kind == SCHEMA:
            _, name, old = entry
            # A SCHEMA entry exists only after _schema_for_write() set tx._schema_entries.
            if old is ABSENT:
                tx._schema_entries.pop(name, None)  # type: ignore[union-attr]
            else:
                tx._schema_entries[name] = old  # type: ignore[index]
        elif kind == INDEX_NEW:
            index = entry[1]
            store._unregister_index(index)
            if index in tx._new_indexes:
                tx._new_indexes.remove(index)
        elif kind == INDEX_DROP:
            index = entry[1]
            index.entries.clear()
            vacuum.fill_index(store, index)
            store._register_index(index)
    if checks:
        vacuum.run_checks(store, checks, -1)


def _restore_prop(rec: LiveNode | LiveRel, key: str, old: Any) -> Any:
    """Put a node's or relationship's property back to ``old`` (None = absent); returns the value undone."""
    new = rec.props.get(key)
    if old is None:
        rec.props.pop(key, None)
    else:
        rec.props[key] = old
    return new
