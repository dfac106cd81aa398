"""Query-time (virtual) nodes and relationships: a relevance join's edges and pinned anchors.

They live in one transaction only, under negative ids that no stored entity has (ids come from one
process-wide counter, so two statements never hand out the same one). Reads go through the
transaction's ordinary lookups; any write to one raises ``CypherSemanticError``.
"""
from __future__ import annotations

import itertools
import threading
from typing import TYPE_CHECKING

from relate.protocol.errors import CypherSemanticError

from .versions import NodeVersion, RelVersion

if TYPE_CHECKING:
    from typing import Any, Callable, Iterable

    from .read_tx import ReadTx
    from .versions import Props

_ids = itertools.count(-1, -1)
_ids_lock = threading.Lock()


def next_id() -> int:
    with _ids_lock:
        return next(_ids)


def _overlay(tx: ReadTx, slot: str) -> dict[int, Any]:
    """The transaction's virtual entries for ``slot`` ("_nodes_get" / "_rels_get"), installed on first use."""
    get = getattr(tx, slot)
    table = getattr(get, "virtual", None)
    if table is None:
        table = {}
        base = get

        def lookup(eid: int, _base: Callable[[int], Any] = base, _table: dict[int, Any] = table) -> Any:
            return _table.get(eid) if eid < 0 else _base(eid)
        lookup.virtual = table  # type: ignore[attr-defined]  # marks the lookup as this overlay's
        setattr(tx, slot, lookup)
    return table


def add_rel(tx: ReadTx, type: str, start: int, end: int, props: Props) -> int:
    rid = next_id()
    _overlay(tx, "_rels_get")[rid] = RelVersion(0, type, start, end, props, None)
    return rid


def add_node(tx: ReadTx, labels: Iterable[str], props: Props) -> int:
    nid = next_id()
    _overlay(tx, "_nodes_get")[nid] = NodeVersion(0, frozenset(labels), props, None)
    return nid


def refuse_write(eid: int, what: str) -> None:
    """Raise for a write to a virtual entity (a negative id)."""
    raise CypherSemanticError(
        f"{what} {eid} is a virtual {what} made by a relevance join at query time; it cannot be written, "
        f"deleted or have properties set (store a real one with CREATE/MERGE instead)",
        detail="VirtualEntityWrite", phase="runtime")
