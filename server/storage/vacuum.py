"""Vacuum: drops old versions and stale index entries once no snapshot can see them.

Writers add index/adjacency entries eagerly and queue removal tasks; a task runs when every live
snapshot is at or after the commit that queued it (or at once, without pruning, after an undo).
Runs only under the writer lock, so it never races a writer.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from .adjacency import remove as adjacency_remove
from .indexes import RANK_STRING, order_key
from .versions import prune

if TYPE_CHECKING:
    from typing import Any, Iterable

    from .indexes import OrderKey, PropertyIndex
    from .store import GraphStore
    from .versions import NodeVersion, Props, RelVersion

# Task kinds: the first item of each task tuple.
NODE = 0          # (NODE, nid): prune the version chain, drop a dead node
REL = 1           # (REL, rid, type, start, end): prune, drop a dead relationship and its adjacency
LABEL = 2         # (LABEL, nid, label): label-scan entry
NODE_ENTRY = 3    # (NODE_ENTRY, index, okey, nid): node property-index entry
REL_ENTRY = 4     # (REL_ENTRY, index, okey, rid): relationship property-index entry


def collect_node_entries(store: GraphStore, checks: list[tuple[Any, ...]], nid: int, labels: Iterable[str],
                         props: Props, only_key: str | None) -> None:
    """Queue checks for the index entries that ``props`` under ``labels`` account for."""
    by_label = store._node_indexes
    if not by_label:
        return
    for label in labels:
        by_key = by_label.get(label)
        if not by_key:
            continue
        for key, index in by_key.items():
            if only_key is not None and key != only_key:
                continue
            value = props.get(key)
            okey = order_key(value) if value is not None else None
            if okey is not None:
                checks.append((NODE_ENTRY, index, okey, nid))


def collect_rel_entries(store: GraphStore, checks: list[tuple[Any, ...]], rid: int, type: str, props: Props) -> None:
    by_key = store._rel_indexes.get(type)
    if not by_key:
        return
    for key, index in by_key.items():
        value = props.get(key)
        okey = order_key(value) if value is not None else None
        if okey is not None:
            checks.append((REL_ENTRY, index, okey, rid))


def _justifies(rec: Any, index: PropertyIndex, okey: OrderKey, check_label: bool) -> bool:
    # ``rec``: a node's or a relationship's version chain (``check_label``: a node's, with labels)
    label, key = index.label, index.key
    while rec is not None:
        props = rec.props
        if props is not None and (not check_label or label in rec.labels):
            value = props.get(key)
            if value is not None and order_key(value) == okey:
                return True
        rec = rec.prev
    return False


def run_checks(store: GraphStore, tasks: list[tuple[Any, ...]], horizon: int) -> None:
    """Run vacuum tasks; ``horizon`` is the oldest visible ts, or -1 to skip pruning (after undo)."""
    nodes, rels = store._nodes, store._rels
    rec: NodeVersion | RelVersion | None
    for task in tasks:
        kind = task[0]
        if kind == NODE:
            if horizon < 0:
                continue
            rec = nodes.get(task[1])
            if rec is not None:
                prune(rec, horizon)
                if rec.props is None and rec.prev is None and rec.ts <= horizon:
                    del nodes[task[1]]
        elif kind == REL:
            _, rid, type, start, end = task
            rec = rels.get(rid)
            if rec is not None:
                if horizon < 0:
                    continue
                prune(rec, horizon)
                if not (rec.props is None and rec.prev is None and rec.ts <= horizon):
                    continue
                del rels[rid]
            adjacency_remove(store._out, start, type, rid)
            adjacency_remove(store._in, end, type, rid)
            members = store._type_index.get(type)
            if members is not None:
                members.pop(rid, None)
    for task in tasks:
        kind = task[0]
        if kind == LABEL:
            _, nid, label = task
            rec = nodes.get(nid)
            while rec is not None:
                if rec.props is not None and label in rec.labels:
                    break
                rec = rec.prev
            else:
                members = store._label_index.get(label)
                if members is not None:
                    members.pop(nid, None)
        elif kind == NODE_ENTRY:
            _, index, okey, nid = task
            if not _justifies(nodes.get(nid), index, okey, True):
                index.discard(okey, nid)
        elif kind == REL_ENTRY:
            _, index, okey, rid = task
            if not _justifies(rels.get(rid), index, okey, False):
                index.discard(okey, rid)


def vacuum(store: GraphStore) -> None:
    """Run every queued task whose commit no live snapshot predates."""
    horizon = store._horizon()
    prune(store._counts, horizon)
    prune(store._schema, horizon)
    queue = store._gc_queue
    if not queue or queue[0][0] > horizon:
        return
    due: list[tuple[Any, ...]] = []
    while queue and queue[0][0] <= horizon:
        due.extend(queue.popleft()[1])
    run_checks(store, due, horizon)


def fill_index(store: GraphStore, index: PropertyIndex) -> None:
    """Fill a new (unpublished) property index from every retained version."""
    rec: Any                        # a node or relationship version (``check_label``: a node's)
    chains: dict[int, NodeVersion] | dict[int, RelVersion]
    if index.entity == "node":
        members, chains, check_label = store._label_index.get(index.label, {}), store._nodes, True
    else:
        members, chains, check_label = store._type_index.get(index.label, {}), store._rels, False
    label, key, put = index.label, index.key, index.put_unsorted
    entries = index.entries
    for eid in list(members):
        rec = chains.get(eid)
        if rec is not None and rec.prev is None:     # one version (the usual case): inlined
            props = rec.props
            if props is not None and (not check_label or label in rec.labels):
                value = props.get(key)
                if value is not None:
                    okey = (RANK_STRING, value) if type(value) is str else order_key(value)
                    if okey is not None:
                        if okey in entries:
                            put(okey, eid)
                        else:
                            entries[okey] = eid
                    else:
                        index.unindexed = True
            continue
        while rec is not None:
            props = rec.props
            if props is not None and (not check_label or label in rec.labels):
                value = props.get(key)
                okey = order_key(value) if value is not None else None
                if okey is not None:
                    put(okey, eid)
                elif value is not None:
                    index.unindexed = True
            rec = rec.prev
    index.rebuild_sorted()
