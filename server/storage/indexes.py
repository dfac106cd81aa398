"""Property indexes: value -> entity ids, with a sorted key list for range seeks.

Entries are added eagerly when a write makes a value visible and removed lazily (by vacuum) once no
snapshot can see the old value, so an index may hold stale candidates: readers re-check every
candidate against their own snapshot. Keys are ``order_key(value)`` tuples ``(rank, value)``.
"""
from __future__ import annotations

import threading
import time
from bisect import bisect_left, bisect_right, insort
from typing import TYPE_CHECKING, Callable, TypeVar

from relate.protocol.values import Duration, Vector

from . import codec
from .substrings import SubstringKeys, fresh_limit

if TYPE_CHECKING:
    from typing import Any

    # ``(rank, value)``, or ``(rank,)`` as an open range bound; a list's value is a tuple of keys.
    OrderKey = tuple[Any, ...]
    # (lo_key, lo_strict, hi_key, hi_strict) of a range seek.
    Bounds = tuple[OrderKey, bool, OrderKey, bool]

T = TypeVar("T")

RANK_BOOL, RANK_NUMBER, RANK_STRING, RANK_LIST, RANK_VECTOR, RANK_DURATION = 1, 2, 4, 5, 6, 7
RANK_BYTES = 8                                # equality only (like Neo4j's byte arrays)
RANK_TEMPORAL_BASE = 10                       # + the temporal class's ext code
# Ranks whose keys go in the sorted list (range seeks); others support equality only.
SORTABLE_RANKS = {RANK_BOOL, RANK_NUMBER, RANK_STRING}
_orderable_checked: set[int] = set()


def _temporal_rank(value: Any) -> int | None:
    code = codec.ext_code(type(value))
    if code is None:
        return None
    rank = RANK_TEMPORAL_BASE + code
    if rank not in _orderable_checked:
        _orderable_checked.add(rank)
        try:
            value < value  # noqa: B015 - probe whether the class defines an ordering
            SORTABLE_RANKS.add(rank)
        except TypeError:
            pass
    return rank


def order_key(value: Any) -> OrderKey | None:
    """A hashable, totally ordered key per value kind; None for values that are not indexed (NaN)."""
    cls = type(value)
    if cls is str:
        return (RANK_STRING, value)
    if cls is int:
        return (RANK_NUMBER, value)
    if cls is float:
        return (RANK_NUMBER, value) if value == value else None
    if cls is bool:
        return (RANK_BOOL, value)
    if value is None:
        return None
    if cls is list:
        parts = []
        for item in value:
            key = (0, 0) if item is None else order_key(item)
            if key is None:
                return None
            parts.append(key)
        return (RANK_LIST, tuple(parts))
    if cls is Vector:
        return (RANK_VECTOR, value)
    if cls is Duration:
        return (RANK_DURATION, value.order_key())
    if cls is bytes:
        return (RANK_BYTES, value)
    rank = _temporal_rank(value)
    if rank is None:
        return None
    # a time-bearing value's own key (ints and a zone name, equal exactly when the values are): sorting
    # and probing keys then compares tuples in C, not through the class's __lt__ and __eq__ (which
    # recompute both sides' zone offsets: a datetime index of 50,000 nodes took 3.9 s to build)
    own = getattr(value, "_order_key", None)
    return (rank, value if own is None else own())


class PropertyIndex:
    """Index of one (entity kind, label or type, property key).

    ``entries`` maps a key to its one entity id (an int: most indexed values are unique, and a
    dict per key would cost ~180 bytes more) or, from the second id on, to ``{id: None}``.
    """

    __slots__ = ("entity", "label", "key", "entries", "sorted_keys", "seq", "ts", "unindexed", "_substrings",
                 "_fresh", "_substrings_lock")

    def __init__(self, entity: str, label: str, key: str, ts: int):
        self.entity = entity
        self.label = label
        self.key = key
        self.entries: dict[OrderKey, int | dict[int, None]] = {}
        self.sorted_keys: list[OrderKey] = []
        self.seq = 0          # +1 before and after each change of sorted_keys (readers retry)
        self.ts = ts          # commit ts of the transaction that created it
        # Set for good once a non-null value was left out (NaN, a list holding NaN): then the entries
        # are not every entity with the key, and ``IS NOT NULL`` cannot be answered from them alone.
        self.unindexed = False
        # CONTAINS / ENDS WITH: the string keys' corpus, built by the first such search (substrings.py),
        # and the list of string keys added since (None while there is no corpus: nothing to track)
        self._substrings: SubstringKeys | None = None
        self._fresh: list[OrderKey] | None = None
        self._substrings_lock = threading.Lock()

    @property
    def ident(self) -> tuple[str, str, str]:
        return (self.entity, self.label, self.key)

    def add(self, key: OrderKey, eid: int) -> None:
        if self.put_unsorted(key, eid) and key[0] in SORTABLE_RANKS:
            self.seq += 1            # odd while the list changes (a seqlock for readers)
            insort(self.sorted_keys, key)
            self.seq += 1
            fresh = self._fresh
            if fresh is not None and key[0] == RANK_STRING:
                # after the insort: a corpus built from the sorted keys read before it finds the key here
                fresh.append(key)
                substrings = self._substrings
                if substrings is not None and len(fresh) > fresh_limit(len(substrings.keys)):
                    with self._substrings_lock:             # not while a search builds a new one
                        if self._substrings is substrings:  # many writes since: the next search rebuilds
                            self._substrings = self._fresh = None

    def put_unsorted(self, key: OrderKey, eid: int) -> bool:
        """Add an entry, leaving ``sorted_keys`` alone (a bulk fill re-sorts once); True for a new key."""
        entries = self.entries
        ids = entries.get(key)
        if ids is None:
            entries[key] = eid
            return True
        if isinstance(ids, int):
            if ids != eid:
                entries[key] = {ids: None, eid: None}
        else:
            ids[eid] = None
        return False

    def discard(self, key: OrderKey, eid: int) -> None:
        ids = self.entries.get(key)
        if ids is None:
            return
        if isinstance(ids, int):
            if ids != eid:
                return
        else:
            if eid not in ids:
                return
            del ids[eid]
            if ids:
                return
        del self.entries[key]
        if key[0] in SORTABLE_RANKS:
            keys = self.sorted_keys
            i = bisect_left(keys, key)
            if i < len(keys) and keys[i] == key:
                self.seq += 1
                del keys[i]
                self.seq += 1

    def rebuild_sorted(self) -> None:
        """Re-sort after a bulk fill of ``entries``."""
        self.sorted_keys = sorted(k for k in self.entries if k[0] in SORTABLE_RANKS)
        self.seq += 2
        self._substrings = self._fresh = None

    def substring_keys(self, needle: str, suffix: bool) -> list[OrderKey]:
        """String keys containing ``needle`` (``suffix``: ending with it), in key order; possibly stale or
        a few that do not match (the caller re-checks each id's value)."""
        substrings = self._substrings
        if substrings is None:
            with self._substrings_lock:
                substrings = self._substrings
                if substrings is None:
                    # The list for keys added from now on comes first: a key inserted after the read
                    # below is appended to it (add), one inserted before is in what is read.
                    fresh: list[OrderKey] = []
                    self._fresh = fresh
                    keys = self.range_keys((RANK_STRING,), False, (RANK_STRING + 1,), True)
                    substrings = self._substrings = SubstringKeys(keys, fresh)
        return substrings.matching(needle, suffix)

    def candidates(self, key: OrderKey) -> list[int]:
        ids = self.entries.get(key)
        if ids is None:
            return []
        return [ids] if isinstance(ids, int) else list(ids)

    def all_candidates(self) -> list[int]:
        out: list[int] = []
        for ids in list(self.entries.values()):
            if isinstance(ids, int):
                out.append(ids)
            else:
                out.extend(list(ids))
        return out

    def entry_pairs(self) -> list[tuple[OrderKey, int]]:
        """Every (key, id) entry."""
        return [(key, eid) for key, ids in list(self.entries.items())
                for eid in ((ids,) if isinstance(ids, int) else list(ids))]

    def ordered_keys(self) -> list[OrderKey]:
        """Every key: the sortable ones in order, then the equality-only ones."""
        ordered = self.range_keys((0,), False, (1 << 30,), True)
        ordered.extend(k for k in list(self.entries) if k[0] not in SORTABLE_RANKS)
        return ordered

    def _read_sorted(self, read: Callable[[list[OrderKey]], T]) -> T:
        """``read(sorted_keys)``, consistent even while a writer inserts concurrently: a seqlock,
        retried when a writer was mid-change or changed the list meanwhile."""
        while True:
            seq = self.seq
            if seq & 1:                  # a writer is mid-change: let it finish
                time.sleep(0)
                continue
            keys = self.sorted_keys
            found = read(keys)
            if seq == self.seq and keys is self.sorted_keys:
                return found

    def key_chunk(self, after: OrderKey | None, descending: bool, limit: int) -> list[OrderKey]:
        """Up to ``limit`` sorted keys past ``after`` in the walk's direction (from the first key, or
        the last when descending, with ``after`` None), in that direction."""
        def read(keys: list[OrderKey]) -> list[OrderKey]:
            if descending:
                j = len(keys) if after is None else bisect_left(keys, after)
                return keys[max(0, j - limit):j][::-1]
            i = 0 if after is None else bisect_right(keys, after)
            return keys[i:i + limit]
        return self._read_sorted(read)

    def rank_span(self) -> tuple[int, int] | None:
        """The kinds (ranks) of the least and the greatest sorted key; None when there is none."""
        return self._read_sorted(lambda keys: (keys[0][0], keys[-1][0]) if keys else None)

    def range_keys(self, lo_key: OrderKey, lo_strict: bool, hi_key: OrderKey, hi_strict: bool
                   ) -> list[OrderKey]:
        """Sorted keys between the bounds."""
        def read(keys: list[OrderKey]) -> list[OrderKey]:
            i = bisect_right(keys, lo_key) if lo_strict else bisect_left(keys, lo_key)
            j = bisect_left(keys, hi_key) if hi_strict else bisect_right(keys, hi_key)
            return keys[i:j]
        return self._read_sorted(read)


def range_bounds(lo: Any, lo_inclusive: bool, hi: Any, hi_inclusive: bool) -> Bounds | None:
    """(lo_key, lo_strict, hi_key, hi_strict) for a range seek, or None when nothing can match."""
    lo_key = order_key(lo) if lo is not None else None
    hi_key = order_key(hi) if hi is not None else None
    if (lo is not None and lo_key is None) or (hi is not None and hi_key is None):
        return None
    rank = (lo_key or hi_key)[0]  # type: ignore[index]  # the caller passes at least one bound
    if hi_key is not None and hi_key[0] != rank:
        return None
    if rank not in SORTABLE_RANKS:
        return None
    if lo_key is None:
        lo_key, lo_strict = (rank,), False       # (rank,) sorts before every (rank, value)
    else:
        lo_strict = not lo_inclusive
    if hi_key is None:
        hi_key, hi_strict = (rank + 1,), True    # (rank + 1,) sorts after every (rank, value)
    else:
        hi_strict = not hi_inclusive
    return lo_key, lo_strict, hi_key, hi_strict


def prefix_successor(prefix: str) -> str | None:
    """The least string after every string that starts with ``prefix`` (a prefix as a range seek), or
    None when there is none (the prefix is all U+10FFFF)."""
    for i in range(len(prefix) - 1, -1, -1):
        if ord(prefix[i]) < 0x10FFFF:
            return prefix[:i] + chr(ord(prefix[i]) + 1)
    return None


def in_bounds(key: OrderKey | None, lo_key: OrderKey, lo_strict: bool, hi_key: OrderKey, hi_strict: bool) -> bool:
    if key is None:
        return False
    if lo_strict:
        if not key > lo_key:
            return False
    elif not key >= lo_key:
        return False
    return key < hi_key if hi_strict else key <= hi_key
