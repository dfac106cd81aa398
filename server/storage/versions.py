"""Entity versions for MVCC: each write makes a new version on top of the last committed one."""
from __future__ import annotations

# Commit timestamp of versions a write transaction has made but not committed yet. It is larger
# than any real commit ts, so snapshots never see them, while the single writer (which reads with
# ts = PENDING) sees everything, its own writes included.
PENDING = 1 << 62

# The properties of every entity created without any: one shared dict (64 bytes saved per such
# entity). Writers never change it in place: set_node_prop/set_rel_prop swap in a private dict first.
EMPTY_PROPS: dict = {}


class NodeVersion:
    """One version of a node; ``props is None`` marks a deletion (tombstone)."""

    __slots__ = ("ts", "labels", "props", "prev")

    def __init__(self, ts: int, labels: frozenset, props: dict | None, prev: "NodeVersion | None"):
        self.ts = ts
        self.labels = labels
        self.props = props
        self.prev = prev


class RelVersion:
    """One version of a relationship; type and endpoints never change across versions."""

    __slots__ = ("ts", "type", "start", "end", "props", "prev")

    def __init__(self, ts: int, type: str, start: int, end: int, props: dict | None,
                 prev: "RelVersion | None"):
        self.ts = ts
        self.type = type
        self.start = start
        self.end = end
        self.props = props
        self.prev = prev


class CountsVersion:
    """Node counts by label and relationship counts by type (key None = all) as of ``ts``."""

    __slots__ = ("ts", "nodes", "rels", "prev")

    def __init__(self, ts: int, nodes: dict, rels: dict, prev: "CountsVersion | None"):
        self.ts = ts
        self.nodes = nodes
        self.rels = rels
        self.prev = prev


class SchemaVersion:
    """The durable catalog (name -> definition) as of ``ts``."""

    __slots__ = ("ts", "entries", "prev")

    def __init__(self, ts: int, entries: dict, prev: "SchemaVersion | None"):
        self.ts = ts
        self.entries = entries
        self.prev = prev


def visible(version, ts: int):
    """The newest version in the chain committed at or before ``ts`` (None if there is none)."""
    while version is not None and version.ts > ts:
        version = version.prev
    return version


def prune(version, horizon: int) -> None:
    """Drop the versions that no snapshot at or after ``horizon`` can see."""
    while version is not None and version.ts > horizon:
        version = version.prev
    if version is not None:
        version.prev = None
