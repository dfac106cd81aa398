"""Substring search over a property index's string keys: what ``CONTAINS`` and ``ENDS WITH`` ask of
an index (Neo4j's text index serves both).

The keys' strings are joined into one corpus, each followed by a separator, and searched with
``str.find`` (C speed: ~1 ms for 7 MB of text where scanning 100,000 nodes and testing each value
took ~40 ms); a hit's key is found by bisecting the keys' start offsets. The corpus is built on the
first such search and kept; keys added after it wait in a short list beside it, and once that list
is long the next search rebuilds. Keys removed since are still found: the caller looks each key up
in the index's entries (gone: skipped) and re-checks every id against its snapshot, like any seek.
"""
from __future__ import annotations

from array import array
from bisect import bisect_right
from operator import itemgetter
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from typing import Any

    OrderKey = tuple[Any, ...]

SEPARATOR = "\x00"
# Keys added since the corpus was built that one search still checks one by one; past this (and an
# eighth of the corpus), the corpus is dropped and the next search builds it again.
FRESH_MIN = 1024


def fresh_limit(built: int) -> int:
    """How many keys may be added to a corpus of ``built`` keys before it is rebuilt."""
    return FRESH_MIN + built // 8


class SubstringKeys:
    """String keys (``(rank, str)`` tuples, in sorted order) and their joined corpus. ``fresh`` is the
    list writers append keys to after the build (the index hands the same list to both)."""

    __slots__ = ("keys", "corpus", "starts", "fresh")

    def __init__(self, keys: list[OrderKey], fresh: list[OrderKey]):
        self.keys = keys
        self.fresh = fresh
        strings = list(map(itemgetter(1), keys))
        self.corpus = SEPARATOR.join(strings) + SEPARATOR if strings else ""
        # each key's offset in the corpus, and the corpus's length last (summed at C speed: a loop
        # over 100,000 keys in Python took most of a 55 ms build)
        lengths = np.fromiter(map(len, strings), dtype=np.int64, count=len(strings)) + 1
        self.starts = array("q", np.concatenate(([0], np.cumsum(lengths))).astype(np.int64).tobytes())

    def matching(self, needle: str, suffix: bool) -> list[OrderKey]:
        """Keys whose string contains ``needle`` (``suffix``: ends with it), in key order. May hold a key
        that does not match (a string holding the separator): the caller's filter decides."""
        found = self._in_corpus(needle, suffix) if SEPARATOR not in needle else \
            [k for k in self.keys if (k[1].endswith(needle) if suffix else needle in k[1])]
        fresh = [k for k in list(self.fresh) if (k[1].endswith(needle) if suffix else needle in k[1])]
        if fresh:
            found = sorted(set(found).union(fresh))
        return found

    def _in_corpus(self, needle: str, suffix: bool) -> list[OrderKey]:
        keys, corpus, starts = self.keys, self.corpus, self.starts
        if not needle:
            return list(keys)
        target = needle + SEPARATOR if suffix else needle
        find, out = corpus.find, []
        at = find(target)
        while at >= 0:
            i = bisect_right(starts, at) - 1
            out.append(keys[i])
            at = find(target, starts[i + 1])        # on from the next key: one hit per key
        return out
