"""Adjacency maps (node -> its relationships in one direction, by type) and the type index.

A node's entry takes one of two forms:

- small (at most ``SMALL`` relationships): a flat tuple ``(type, rid, other, type, rid, other, ...)``
  whose triples are grouped by type in first-seen order. Most nodes have a few relationships, and
  one triple costs 64 bytes where the nested form costs two dicts (~370 bytes).
- large: ``{type: {rid: other}}``, which a small entry becomes when it outgrows ``SMALL``.

Both forms list relationships in the same order (types in first-seen order, then insertion order).
Tuples are replaced, never changed, so readers iterate them without a copy.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

SMALL = 8

if TYPE_CHECKING:
    from typing import Any

    from .store import GraphStore

    Small = tuple[Any, ...]                  # (type, rid, other, type, rid, other, ...)
    Large = dict[str, dict[int, int]]        # type -> rid -> other
    Entry = Small | Large
    Adjacency = dict[int, Entry]             # node id -> its entry in one direction


def link_rel(store: GraphStore, rid: int, type: str, start: int, end: int) -> None:
    """Add ``rid`` to ``start``'s outgoing and ``end``'s incoming group of ``type``, and to the type index."""
    add(store._out, start, type, rid, end)
    add(store._in, end, type, rid, start)
    members = store._type_index.get(type)
    if members is None:
        store._type_index[type] = {rid: None}
    else:
        members[rid] = None


def add(adjacency: Adjacency, nid: int, rel_type: str, rid: int, other: int) -> None:
    """Record relationship ``rid`` of ``rel_type`` from ``nid`` to ``other``."""
    entry = adjacency.get(nid)
    if entry is None:
        adjacency[nid] = (rel_type, rid, other)
    elif isinstance(entry, tuple):
        if len(entry) < 3 * SMALL:
            adjacency[nid] = _inserted(entry, rel_type, rid, other)
        else:
            grown = _as_dict(entry)
            grown.setdefault(rel_type, {})[rid] = other
            adjacency[nid] = grown
    else:
        group = entry.get(rel_type)
        if group is None:
            entry[rel_type] = {rid: other}
        else:
            group[rid] = other


def remove(adjacency: Adjacency, nid: int, rel_type: str, rid: int) -> None:
    """Forget relationship ``rid`` of ``rel_type`` at ``nid`` (no-op when absent)."""
    entry = adjacency.get(nid)
    if entry is None:
        return
    if isinstance(entry, tuple):
        for i in range(0, len(entry), 3):
            if entry[i + 1] == rid and entry[i] == rel_type:
                rest = entry[:i] + entry[i + 3:]
                if rest:
                    adjacency[nid] = rest
                else:
                    del adjacency[nid]
                return
        return
    group = entry.get(rel_type)
    if group is None:
        return
    group.pop(rid, None)
    if not group:
        del entry[rel_type]
        if not entry:
            del adjacency[nid]


def typed_pairs(entry: Entry | None, rel_type: str) -> list[tuple[int, int]]:
    """``(rid, other)`` of ``entry`` (an adjacency value or None) for one type, in order."""
    if entry is None:
        return []
    if isinstance(entry, tuple):
        size = len(entry)
        if size == 3:
            return [(entry[1], entry[2])] if entry[0] == rel_type else []
        if size == 6 and entry[0] == rel_type and entry[3] == rel_type:     # two of one type: common
            return [(entry[1], entry[2]), (entry[4], entry[5])]
        return [(entry[i + 1], entry[i + 2]) for i in range(0, size, 3) if entry[i] == rel_type]
    group = entry.get(rel_type)
    return list(group.items()) if group else []


def pairs(entry: Entry | None, types: tuple[str, ...] | list[str] | None) -> list[tuple[int, int]]:
    """``(rid, other)`` of ``entry`` for ``types`` (None = every type; duplicates count once), in order."""
    if entry is None:
        return []
    if types is not None:
        if len(types) == 1:
            return typed_pairs(entry, types[0])
        found: list[tuple[int, int]] = []
        for rel_type in dict.fromkeys(types):
            found += typed_pairs(entry, rel_type)
        return found
    if isinstance(entry, tuple):
        return [(entry[i + 1], entry[i + 2]) for i in range(0, len(entry), 3)]
    found = []
    for group in list(entry.values()):
        found += list(group.items())
    return found


def size(entry: Entry | None, types: tuple[str, ...] | list[str] | None) -> int:
    """How many relationships ``entry`` lists for ``types`` (None = every type), at once: an upper
    bound on what a reader sees (it lists versions a snapshot may not), to choose a side to expand."""
    if entry is None:
        return 0
    if isinstance(entry, tuple):
        if types is None:
            return len(entry) // 3
        return sum(1 for i in range(0, len(entry), 3) if entry[i] in types)
    if types is None:
        return sum(map(len, list(entry.values())))
    return sum(len(entry.get(rel_type) or ()) for rel_type in dict.fromkeys(types))


def as_dict(entry: Entry) -> Large:
    """``entry`` in the large form (a fresh copy): ``{type: {rid: other}}``."""
    if isinstance(entry, tuple):
        return _as_dict(entry)
    return {rel_type: dict(group) for rel_type, group in entry.items()}


def _as_dict(entry: Small) -> Large:
    grown: Large = {}
    for i in range(0, len(entry), 3):
        group = grown.get(entry[i])
        if group is None:
            grown[entry[i]] = {entry[i + 1]: entry[i + 2]}
        else:
            group[entry[i + 1]] = entry[i + 2]
    return grown


def _inserted(entry: Small, rel_type: str, rid: int, other: int) -> Small:
    """``entry`` with the triple added after the last one of ``rel_type`` (at the end if none); a
    ``rid`` already there gets the new ``other`` in place, as a dict would."""
    at = len(entry)
    for i in range(0, len(entry), 3):
        if entry[i] == rel_type:
            if entry[i + 1] == rid:
                return entry[:i + 2] + (other,) + entry[i + 3:]
            at = i + 3
    return entry[:at] + (rel_type, rid, other) + entry[at:]
