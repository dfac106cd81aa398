"""A statement's transient hash index over one label's property: what a label scan repeated per input
row (``UNWIND $rows AS r MERGE (n:Person {name: r.name})``, ``MATCH (a:P {id: r.a})`` with no index
on the key) uses instead of scanning the label again for every row (SQLite's automatic indexes, kept
for one statement). Built once from the transaction's view; a write transaction's later changes
are folded in from its change log before each lookup, so the statement sees its own writes.

The map is a superset (a node changed is filed under its new value, its old entry kept): every
candidate is checked against the node as it is now, so a stale entry costs a lookup and no more.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from .read_tx import _SCALARS, SCAN_TICK

if TYPE_CHECKING:
    from .read_tx import ReadTx


class ValueLookup:
    """Ids of the nodes labelled ``label`` by the value of their ``key`` (str, bool, int, float values:
    Python's equality, the same superset of Cypher's as the scan's own test): one id, or an ordered
    set (a dict) of the ids sharing a value."""

    __slots__ = ("label", "key", "_tx", "_log", "_pos", "_by_value")

    def __init__(self, tx: ReadTx, label: str, key: str, tick: Callable[[], Any]):
        self.label, self.key = label, key
        self._build(tx, tick)

    def _build(self, tx: ReadTx, tick: Callable[[], Any]) -> None:
        label, key, scalars = self.label, self.key, _SCALARS
        by_value: dict[Any, Any] = {}
        members = list(tx._store._label_index.get(label) or ())
        node = tx._node
        for start in range(0, len(members), SCAN_TICK):
            if start:
                tick()
            for nid in members[start:start + SCAN_TICK]:
                rec = node(nid)
                if rec is None or label not in rec.labels:
                    continue
                value = rec.props.get(key)
                if type(value) in scalars:
                    held = by_value.get(value)
                    if held is None:
                        by_value[value] = nid
                    elif type(held) is int:
                        by_value[value] = {held: None, nid: None}
                    else:
                        held[nid] = None
        self._by_value = by_value
        self._tx = tx
        self._log = tx.change_log()
        self._pos = len(self._log)

    def _file(self, tx: ReadTx, nid: int) -> None:
        """File node ``nid`` under its value now (a change touched it)."""
        rec = tx._node(nid)
        if rec is None or self.label not in rec.labels:
            return
        value = rec.props.get(self.key)
        if type(value) not in _SCALARS:
            return
        held = self._by_value.get(value)
        if held is None:
            self._by_value[value] = nid
        elif type(held) is int:
            if held != nid:
                self._by_value[value] = {held: None, nid: None}
        else:
            held[nid] = None

    def _catch_up(self, tx: ReadTx, tick: Callable[[], Any]) -> None:
        """Fold in what the transaction wrote since the last lookup. A transaction replaced (a batch of
        ``IN TRANSACTIONS`` committed) or its log cut back (a savepoint rolled back: a node may return
        to a value it was never filed under) means building again."""
        log = tx.change_log()
        if tx is not self._tx or log is not self._log or len(log) < self._pos:
            self._build(tx, tick)
            return
        end = len(log)
        if end == self._pos:
            return
        label, key = self.label, self.key
        for index in range(self._pos, end):
            change = log[index]
            kind = change[0]
            if kind == "node+":
                if label in change[2]:
                    self._file(tx, change[1])
            elif kind == "nprop":
                if change[2] == key:
                    self._file(tx, change[1])
            elif kind == "label+":
                if change[2] == label:
                    self._file(tx, change[1])
        self._pos = end

    def find(self, tx: ReadTx, values: frozenset[Any], tick: Callable[[], Any]) -> list[int]:
        """Ids of the live nodes labelled ``label`` whose ``key`` is among ``values`` now, by id."""
        self._catch_up(tx, tick)
        by_value = self._by_value
        candidates: list[int] = []
        for value in values:
            held = by_value.get(value)
            if held is None:
                continue
            if type(held) is int:
                candidates.append(held)
            else:
                candidates.extend(held)
        if not candidates:
            return candidates
        label, key, node = self.label, self.key, tx._node
        found = []
        for nid in sorted(set(candidates)) if len(candidates) > 1 else candidates:
            rec = node(nid)
            if rec is None or label not in rec.labels:
                continue
            value = rec.props.get(key)
            if type(value) in _SCALARS and value in values:
                found.append(nid)
        return found
