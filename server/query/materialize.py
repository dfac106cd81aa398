"""Turn engine values (NodeRef, RelRef, PathRef inside lists and maps) into detached user values."""
from __future__ import annotations

from typing import Any

from relate.protocol.values import Node, Path, Relationship

from .refs import NodeRef, PathRef, RelRef

# Values that need no conversion; checked first because they are nearly every value.
_PLAIN = frozenset((int, float, str, bool, type(None)))


def materialize(value: Any, tx) -> Any:
    """The user-facing form of ``value``, read through ``tx``."""
    kind = type(value)
    if kind in _PLAIN:
        return value
    if kind is NodeRef:
        return _node(value.id, tx)
    if kind is RelRef:
        return _rel(value.id, tx)
    if kind is PathRef:
        return Path([_node(n.id, tx) for n in value.nodes], [_rel(r.id, tx) for r in value.rels])
    if kind is list:
        if _PLAIN.issuperset(map(type, value)):     # an embedding, tags: copied at C speed
            return list(value)
        return [materialize(v, tx) for v in value]
    if kind is dict:
        return {k: materialize(v, tx) for k, v in value.items()}
    return value


def materialize_row(row: tuple, tx) -> tuple:
    """A result row with every value materialized."""
    for value in row:
        if type(value) not in _PLAIN:
            return tuple([materialize(v, tx) for v in row])
    return row


def _node(nid: int, tx) -> Node:
    if not tx.node_exists(nid):        # deleted by the statement that returns it
        return Node(nid)
    return Node(nid, tx.node_labels(nid), tx.node_props(nid))


def _rel(rid: int, tx) -> Relationship:
    if not tx.rel_exists(rid):
        return Relationship(rid, "", -1, -1)
    start, end = tx.rel_endpoints(rid)
    return Relationship(rid, tx.rel_type(rid), start, end, tx.rel_props(rid))
