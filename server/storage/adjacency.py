"""Linking a relationship into the store's adjacency maps and type index (shared by commits and recovery)."""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .store import GraphStore


def link_rel(store: GraphStore, rid: int, type: str, start: int, end: int) -> None:
    """Add ``rid`` to ``start``'s outgoing and ``end``'s incoming group of ``type``, and to the type index."""
    # Maps: node -> type -> {rid: other node}; dict lookups spelled out (the load hot path).
    out = store._out
    by_type = out.get(start)
    if by_type is None:
        out[start] = {type: {rid: end}}
    else:
        group = by_type.get(type)
        if group is None:
            by_type[type] = {rid: end}
        else:
            group[rid] = end
    inc = store._in
    by_type = inc.get(end)
    if by_type is None:
        inc[end] = {type: {rid: start}}
    else:
        group = by_type.get(type)
        if group is None:
            by_type[type] = {rid: start}
        else:
            group[rid] = start
    members = store._type_index.get(type)
    if members is None:
        store._type_index[type] = {rid: None}
    else:
        members[rid] = None
