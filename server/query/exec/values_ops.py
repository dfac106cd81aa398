"""Cypher value semantics shared by expressions and operators: equality, comparison, ordering, grouping.

`equals` and `compare` follow Cypher's three-valued logic (None = null / unknown); `order_key` and
`group_key` give Python-comparable / hashable keys for ORDER BY and DISTINCT / grouping.
Aggregates live in `aggregates.py`; `is_aggregate` and `make_aggregator` are re-exported here.
"""
from __future__ import annotations

import math
from typing import Any

from relate.values import Duration, Vector
from relate.server.query.refs import NodeRef, PathRef, RelRef

__all__ = [
    "equals", "compare", "less", "less_equal", "greater", "greater_equal",
    "order_key", "group_key", "is_aggregate", "make_aggregator",
    "TEMPORAL_ORDER", "temporal_rank", "type_name", "is_number",
]

# ORDER BY ranks (ascending): MAP < NODE < RELATIONSHIP < LIST < PATH < DATETIME < LOCALDATETIME
# < DATE < TIME < LOCALTIME < DURATION < STRING < BOOLEAN < NUMBER < NULL (Neo4j's order).
_MAP, _NODE, _REL, _LIST, _VECTOR, _PATH = 0, 1, 2, 3, 4, 5
TEMPORAL_ORDER = {"DateTime": 6, "LocalDateTime": 7, "Date": 8, "Time": 9, "LocalTime": 10}
_DURATION, _STRING, _BOOL, _NUMBER, _NULL, _OTHER = 11, 12, 13, 14, 15, 16

# Sentinel returned by the internal comparison for "unordered" (NaN involved): every <, <=, >, >= is false.
_UNORDERED = 2


def is_number(v: Any) -> bool:
    t = type(v)
    return t is int or t is float


def temporal_rank(v: Any) -> int | None:
    """The ORDER BY rank of a temporal value (relate.temporal classes, matched by name), else None."""
    return TEMPORAL_ORDER.get(type(v).__name__) if type(v).__module__.startswith("relate") else None


def _temporal_ops():
    try:
        from relate.server.query.exec import temporal_functions
    except ImportError:
        return None
    return temporal_functions


# --------------------------------------------------------------------------------------------
# Equality
# --------------------------------------------------------------------------------------------
def equals(a: Any, b: Any) -> bool | None:
    """Cypher ``a = b``: null if either side is null (or a list/map element pair is), else bool."""
    if a is None or b is None:
        return None
    ta, tb = type(a), type(b)
    if ta is int or ta is float:
        if tb is int or tb is float:
            return a == b           # NaN is never equal; 1 = 1.0 holds
        return False
    if ta is str or ta is bool:
        return tb is ta and a == b
    if ta is list or ta is Vector:
        if tb is not list and tb is not Vector:
            return False
        if len(a) != len(b):
            return False
        return _all_equal(zip(a, b))
    if ta is dict:
        if tb is not dict or a.keys() != b.keys():
            return False
        return _all_equal((a[k], b[k]) for k in a)
    if ta is not tb:
        return False
    return a == b


def _all_equal(pairs) -> bool | None:
    unknown = False
    for x, y in pairs:
        r = equals(x, y)
        if r is False:
            return False
        if r is None:
            unknown = True
    return None if unknown else True


# --------------------------------------------------------------------------------------------
# Comparison (<, <=, >, >=)
# --------------------------------------------------------------------------------------------
def _compare(a: Any, b: Any) -> int | None:
    """-1/0/1, None when incomparable or null, _UNORDERED when NaN is involved."""
    if a is None or b is None:
        return None
    ta, tb = type(a), type(b)
    if ta is int or ta is float:
        if tb is not int and tb is not float:
            return None
        if a < b:
            return -1
        if a > b:
            return 1
        if a == b:
            return 0
        return _UNORDERED
    if ta is str:
        if tb is not str:
            return None
        return -1 if a < b else (1 if a > b else 0)
    if ta is bool:
        if tb is not bool:
            return None
        return -1 if a < b else (1 if a > b else 0)
    if ta is list:
        if tb is not list:
            return None
        for x, y in zip(a, b):
            r = _compare(x, y)
            if r != 0:
                return r
        return -1 if len(a) < len(b) else (1 if len(a) > len(b) else 0)
    rank = temporal_rank(a)
    if rank is not None:
        if temporal_rank(b) != rank:
            return None
        ops = _temporal_ops()
        if ops is not None:
            return ops.temporal_compare(a, b)
        try:
            return -1 if a < b else (1 if a > b else 0)
        except TypeError:
            return None
    return None


def compare(a: Any, b: Any) -> int | None:
    """Cypher comparison: -1/0/1, or None when the values are incomparable, null, or NaN is involved."""
    r = _compare(a, b)
    return None if r == _UNORDERED else r


def less(a: Any, b: Any) -> bool | None:
    r = _compare(a, b)
    return None if r is None else r == -1


def less_equal(a: Any, b: Any) -> bool | None:
    r = _compare(a, b)
    return None if r is None else (r == -1 or r == 0)


def greater(a: Any, b: Any) -> bool | None:
    r = _compare(a, b)
    return None if r is None else r == 1


def greater_equal(a: Any, b: Any) -> bool | None:
    r = _compare(a, b)
    return None if r is None else (r == 1 or r == 0)


# --------------------------------------------------------------------------------------------
# ORDER BY keys
# --------------------------------------------------------------------------------------------
class _TemporalKey:
    """Orders temporal values of one kind through temporal_compare (fallback: their own ordering)."""
    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value

    def _cmp(self, other) -> int:
        ops = _temporal_ops()
        r = ops.temporal_compare(self.value, other.value) if ops is not None else None
        if r is None:
            a, b = self.value, other.value
            try:
                r = -1 if a < b else (1 if a > b else 0)
            except TypeError:
                sa, sb = a.to_state(), b.to_state()
                r = -1 if sa < sb else (1 if sa > sb else 0)
        return r

    def __lt__(self, other):
        return self._cmp(other) < 0

    def __gt__(self, other):
        return self._cmp(other) > 0

    def __eq__(self, other):
        return self._cmp(other) == 0

    def __le__(self, other):
        return self._cmp(other) <= 0

    def __ge__(self, other):
        return self._cmp(other) >= 0

    __hash__ = None


def order_key(v: Any) -> tuple:
    """A key whose Python ordering is Cypher's ORDER BY order (ascending, nulls last)."""
    t = type(v)
    if t is int:
        return (_NUMBER, 0, v)
    if t is float:
        return (_NUMBER, 1, 0) if v != v else (_NUMBER, 0, v)   # NaN sorts above every number
    if t is str:
        return (_STRING, v)
    if v is None:
        return (_NULL,)
    if t is bool:
        return (_BOOL, v)
    if t is list:
        return (_LIST, tuple(order_key(x) for x in v))
    if t is NodeRef:
        return (_NODE, v.id)
    if t is RelRef:
        return (_REL, v.id)
    if t is dict:
        return (_MAP, tuple((k, order_key(v[k])) for k in sorted(v)))
    if t is PathRef:
        ids = []
        for i, node in enumerate(v.nodes):
            ids.append(node.id)
            if i < len(v.rels):
                ids.append(v.rels[i].id)
        return (_PATH, tuple(ids))
    if t is Duration:
        return (_DURATION, v.months, v.days, v.seconds, v.nanoseconds)
    if t is Vector:
        return (_VECTOR, tuple(v.tolist()))
    rank = temporal_rank(v)
    if rank is not None:
        return (rank, _TemporalKey(v))
    return (_OTHER, repr(v))


# --------------------------------------------------------------------------------------------
# Grouping keys
# --------------------------------------------------------------------------------------------
_NAN_KEY = ("nan",)


def group_key(v: Any) -> Any:
    """A hashable key: equal Cypher values (1 and 1.0, lists/maps by content, NaN and NaN) match."""
    t = type(v)
    if t is str or t is int or v is None:
        return v
    if t is float:
        if v != v:
            return _NAN_KEY
        if v.is_integer() and abs(v) < 2 ** 63:
            return int(v)
        return v
    if t is bool:
        return ("bool", v)          # True == 1 in Python, not in Cypher
    if t is list:
        return ("list", tuple(group_key(x) for x in v))
    if t is dict:
        return ("map", tuple(sorted((k, group_key(x)) for k, x in v.items())))
    if t is Vector:
        return ("list", tuple(group_key(x) for x in v.tolist()))
    return v


# --------------------------------------------------------------------------------------------
# Names of types (error messages, valueType)
# --------------------------------------------------------------------------------------------
_TYPE_NAMES = {
    type(None): "Null", bool: "Boolean", int: "Integer", float: "Float", str: "String",
    list: "List", dict: "Map", NodeRef: "Node", RelRef: "Relationship", PathRef: "Path",
    Duration: "Duration", Vector: "Vector",
}


def type_name(v: Any) -> str:
    """The value's Cypher type as Neo4j names it in messages (``Integer``, ``Map``, ``Node``)."""
    name = _TYPE_NAMES.get(type(v))
    return name if name is not None else type(v).__name__


def is_aggregate(name: str) -> bool:
    from relate.server.query.exec.aggregates import is_aggregate as _is
    return _is(name)


def make_aggregator(name: str, distinct: bool = False):
    from relate.server.query.exec.aggregates import make_aggregator as _make
    return _make(name, distinct)
