"""A statement's transient hash index over a property (its toLower/toUpper, or several properties) of a
label's nodes, of every node or of a type's relationships: what a scan repeated per input row (``UNWIND $rows AS r MERGE (n:Person {name:
r.name})``, ``MATCH (a:P {id: r.a})``, ``MATCH ()-[e:R {id: r.id}]->()`` with no index on the key) uses
instead of reading them all again for every row (SQLite's automatic indexes, kept for one statement).
Built once from the transaction's view; a write transaction's later changes are folded in from its
change log before each lookup, so the statement sees its own writes.

The map is a superset (an entity changed is filed under its new value, its old entry kept): every
candidate is checked against the entity as it is now, so a stale entry costs a lookup and no more.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from .read_tx import _SCALARS, SCAN_TICK

if TYPE_CHECKING:
    from .read_tx import ReadTx


class ValueLookup:
    """Ids of the nodes labelled ``name`` (every node when None) or the relationships of type ``name`` by
    the value of their key (str, bool, int, float values: Python's equality, the same superset of
    Cypher's as the scan's own test), or the tuple of their keys' values: one id, or an ordered set (a
    dict) of the ids sharing a value."""

    __slots__ = ("is_node", "name", "key", "keys", "_case", "_tx", "_log", "_pos", "_by_value", "_odd")

    def __init__(self, tx: ReadTx, entity: str, name: str | None, keys: tuple[str, ...], tick: Callable[[], Any],
                 transform: str | None = None):
        # Several keys (MERGE (n:E {type: $t, name: $n})): filed by the tuple of their values, each a
        # scalar; an entity lacking one cannot pass the equalities and is not filed.
        self.is_node, self.name, self.key, self.keys = entity == "node", name, keys[0], keys
        # With a transform ("lower", "upper": toLower(n.key) = $x) strings are filed cased, and other
        # values apart (``_odd``): they are always candidates, so the filter raises for them as it
        # would without the lookup.
        self._case = None if transform is None else str.lower if transform == "lower" else str.upper
        self._build(tx, tick)

    def _entity(self, tx: ReadTx, eid: int) -> Any:
        """The live version of ``eid`` as this transaction sees it when it is one of the set, else None."""
        name = self.name
        if self.is_node:
            rec = tx._node(eid)
            return rec if rec is not None and (name is None or name in rec.labels) else None
        rel = tx._rel(eid)
        return rel if rel is not None and rel.type == name else None

    def _build(self, tx: ReadTx, tick: Callable[[], Any]) -> None:
        store, name = tx._store, self.name
        if not self.is_node:
            members = list(store._type_index.get(name) or ()) if name is not None else []
        else:
            members = list(store._nodes if name is None else store._label_index.get(name) or ())
        self._by_value: dict[Any, Any] = {}
        self._odd: dict[int, None] = {}
        entity, file = self._entity, self._file_version
        for start in range(0, len(members), SCAN_TICK):
            if start:
                tick()
            for eid in members[start:start + SCAN_TICK]:
                rec = entity(tx, eid)
                if rec is not None:
                    file(eid, rec)
        self._tx = tx
        self._log = tx.change_log()
        self._pos = len(self._log)

    def _value(self, props: Any) -> Any:
        """What ``props`` is filed under (before a case transform): one key's value, or the keys' tuple
        (None when one of them is not a scalar)."""
        if len(self.keys) == 1:
            return props.get(self.key)
        value = tuple(map(props.get, self.keys))
        return value if _SCALARS.issuperset(map(type, value)) else None

    def _file_version(self, eid: int, rec: Any) -> None:
        value = self._value(rec.props)
        if self._case is not None and value is not None:
            if type(value) is not str:
                self._odd[eid] = None
                return
            value = self._case(value)
        if type(value) not in _SCALARS and type(value) is not tuple:
            return
        by_value = self._by_value
        held = by_value.get(value)
        if held is None:
            by_value[value] = eid
        elif type(held) is int:
            if held != eid:
                by_value[value] = {held: None, eid: None}
        else:
            held[eid] = None

    def _file(self, tx: ReadTx, eid: int) -> None:
        """File ``eid`` under its value now (a change touched it)."""
        rec = self._entity(tx, eid)
        if rec is not None:
            self._file_version(eid, rec)

    def _catch_up(self, tx: ReadTx, tick: Callable[[], Any]) -> None:
        """Fold in what the transaction wrote since the last lookup. A batch of ``IN TRANSACTIONS``
        committed starts a new log (the old one is read to its end first: a commit changes nothing
        seen); another transaction, or a log cut back (a savepoint rolled back: an entity may return
        to a value it was never filed under), means building again."""
        log = tx.change_log()
        if tx is not self._tx or len(self._log) < self._pos:
            self._build(tx, tick)
            return
        if log is not self._log:
            self._fold(tx, self._log, len(self._log))
            self._log, self._pos = log, 0
        if len(log) < self._pos:
            self._build(tx, tick)
            return
        self._fold(tx, log, len(log))

    def _fold(self, tx: ReadTx, log: Any, end: int) -> None:
        """File what ``log[self._pos:end]`` touched (the changes this set and key care about)."""
        if end == self._pos:
            return
        name, keys = self.name, self.keys
        created, changed = ("node+", "nprop") if self.is_node else ("rel+", "rprop")
        for index in range(self._pos, end):
            change = log[index]
            kind = change[0]
            if kind == changed:
                if change[2] in keys:
                    self._file(tx, change[1])
            elif kind == created:
                # a node's labels, a relationship's type
                if name is None or (name in change[2] if self.is_node else change[2] == name):
                    self._file(tx, change[1])
            elif kind == "label+" and self.is_node and change[2] == name:
                self._file(tx, change[1])
        self._pos = end

    def find(self, tx: ReadTx, values: frozenset[Any], tick: Callable[[], Any]) -> list[int]:
        """Ids of the set's live entities whose ``key`` (cased, with a transform) is among ``values`` now
        (with a transform, also those whose ``key`` is not a string), by id."""
        self._catch_up(tx, tick)
        by_value, case = self._by_value, self._case
        candidates: list[int] = list(self._odd) if case is not None else []
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
        entity, value_of = self._entity, self._value
        found = []
        for eid in sorted(set(candidates)) if len(candidates) > 1 else candidates:
            rec = entity(tx, eid)
            if rec is None:
                continue
            value = value_of(rec.props)
            if case is not None and value is not None:
                if type(value) is not str or case(value) in values:
                    found.append(eid)
            elif (type(value) in _SCALARS or type(value) is tuple) and value in values:
                found.append(eid)
        return found
