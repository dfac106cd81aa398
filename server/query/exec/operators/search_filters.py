"""Filters inside a SEARCH that the index does not hold itself: candidate sets and full-text WHERE.

A full-text index keeps no filter columns, so ``WHERE n.prop op value`` inside ``FULLTEXT INDEX ...``
reads the property through the statement's transaction (the snapshot's own values) as a pre-filter:
the index takes the k best among the entities that pass, as a vector search does with its columns.
"""
from __future__ import annotations

from relate.protocol.errors import CypherTypeError

from ...refs import NodeRef, RelRef
from ..values.ops import compare, equals, type_name

_ORDER = {"<": lambda c: c < 0, "<=": lambda c: c <= 0, ">": lambda c: c > 0, ">=": lambda c: c >= 0}


def candidate_keys(value, previous: set | None) -> set | None:
    """The entity ids of ``n IN value`` (nodes, relationships, integer ids or element ids), intersected
    with ``previous``; a null list matches nothing (as `n IN null` would)."""
    if value is None:
        return set()
    if not isinstance(value, list):
        raise CypherTypeError(f"`IN` inside a SEARCH takes a list of candidates, got {type_name(value)}",
                              detail="InvalidArgumentType", phase="runtime")
    keys = set()
    for item in value:
        if isinstance(item, (NodeRef, RelRef)):
            keys.add(item.id)
        elif type(item) is int:
            keys.add(item)
        elif isinstance(item, str) and len(item) > 2 and item[1] == ":" and item[2:].isdigit():
            keys.add(int(item[2:]))       # an element id, "n:12" / "r:7"
        elif item is not None:
            ident = getattr(item, "id", None)
            if type(ident) is not int:
                raise CypherTypeError("A SEARCH candidate is a node, a relationship, an id or an element id, "
                                      f"got {type_name(item)}", detail="InvalidArgumentType", phase="runtime")
            keys.add(ident)
    return keys if previous is None else keys & previous


def property_filter(tx, entity: str, filters):
    """``accept(id)`` for ANDed (prop, op, value) filters, read through ``tx``."""
    read = tx.node_prop if entity == "node" else tx.rel_prop

    def accept(key: int) -> bool:
        for prop, op, value in filters:
            try:
                current = read(key, prop)
            except Exception:                # deleted in this snapshot: not a result anyway
                return False
            if not _passes(current, op, value):
                return False
        return True
    return accept


def _passes(current, op: str, value) -> bool:
    if current is None or value is None:
        return False
    op = op.upper()
    if op == "=":
        return equals(current, value) is True
    if op == "IN":
        return isinstance(value, list) and any(equals(current, v) is True for v in value)
    c = compare(current, value)
    return c is not None and _ORDER[op](c)
