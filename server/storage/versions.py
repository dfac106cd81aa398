"""Entity versions for MVCC: each write makes a new version on top of the last committed one."""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any, Protocol, Self, TypeVar

    # A property map as stored: interned string keys, storable values (see codec.check_value).
    Props = dict[str, Any]
    # One Change record, ``(kind, ...)``: what the WAL logs and commit listeners receive (the kinds
    # and their fields are listed in docs/architecture.md).
    Change = tuple[Any, ...]

    class Versioned(Protocol):
        """What a version chain's walk reads: the commit ts and the older version."""
        ts: int
        prev: Self | None

    class EntityVersion(Versioned, Protocol):
        """A node or relationship version: ``props`` None marks a deletion."""
        props: Props | None

    V = TypeVar("V", bound=Versioned)
    E = TypeVar("E", bound=EntityVersion)

# Commit timestamp of versions a write transaction has made but not committed yet. It is larger
# than any real commit ts, so snapshots never see them, while the single writer (which reads with
# ts = PENDING) sees everything, its own writes included.
PENDING = 1 << 62

# The properties of every entity created without any: one shared dict (64 bytes saved per such
# entity). Writers never change it in place: set_node_prop/set_rel_prop swap in a private dict first.
EMPTY_PROPS: Props = {}


class NodeVersion:
    """One version of a node; ``props is None`` marks a deletion (tombstone)."""

    __slots__ = ("ts", "labels", "props", "prev")

    def __init__(self, ts: int, labels: frozenset[str], props: Props | None, prev: "NodeVersion | None"):
        self.ts = ts
        self.labels = labels
        self.props = props
        self.prev = prev


class RelVersion:
    """One version of a relationship; type and endpoints never change across versions."""

    __slots__ = ("ts", "type", "start", "end", "props", "prev")

    def __init__(self, ts: int, type: str, start: int, end: int, props: Props | None,
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

    def __init__(self, ts: int, nodes: dict[str | None, int], rels: dict[str | None, int],
                 prev: "CountsVersion | None"):
        self.ts = ts
        self.nodes = nodes
        self.rels = rels
        self.prev = prev


class SchemaVersion:
    """The durable catalog (name -> definition) as of ``ts``."""

    __slots__ = ("ts", "entries", "prev")

    def __init__(self, ts: int, entries: dict[str, dict[str, Any]], prev: "SchemaVersion | None"):
        self.ts = ts
        self.entries = entries
        self.prev = prev


def visible(version: V | None, ts: int) -> V | None:
    """The newest version in the chain committed at or before ``ts`` (None if there is none)."""
    while version is not None and version.ts > ts:
        version = version.prev
    return version


def prune(version: Versioned | None, horizon: int) -> None:
    """Drop the versions that no snapshot at or after ``horizon`` can see."""
    while version is not None and version.ts > horizon:
        version = version.prev
    if version is not None:
        version.prev = None


if TYPE_CHECKING:
    class LiveNode(NodeVersion):
        """A node version that is not a tombstone (what the checked lookups return)."""
        props: Props

    class LiveRel(RelVersion):
        """A relationship version that is not a tombstone."""
        props: Props
