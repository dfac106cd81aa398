"""Cypher value semantics shared by expressions and operators: equality, comparison, ordering, grouping.

`equals` and `compare` follow Cypher's three-valued logic (None = null / unknown); `order_key` and
`group_key` give Python-comparable / hashable keys for ORDER BY and DISTINCT / grouping.
Aggregates live in `aggregates.py`; `is_aggregate` and `make_aggregator` are re-exported here.
"""
from __future__ import annotations

import math
from typing import Any

from relate.protocol.errors import CypherArithmeticError, CypherTypeError
from relate.protocol.values import Duration, Point, Vector
from relate.protocol.temporal import iso_text
from relate.server.query.refs import NodeRef, PathRef, RelRef
from relate.server.query import limits

__all__ = [
    "equals", "compare", "less", "less_equal", "greater", "greater_equal",
    "order_key", "order_key_desc", "group_key", "is_aggregate", "make_aggregator", "aggregator_factory",
    "TEMPORAL_ORDER", "temporal_rank", "type_name", "is_number", "format_float", "cypher_str", "java_str",
    "add", "subtract", "multiply", "divide", "modulo", "power", "negate",
]

# ORDER BY ranks (ascending): MAP < NODE < RELATIONSHIP < LIST < PATH < POINT < DATETIME < LOCALDATETIME
# < DATE < TIME < LOCALTIME < DURATION < STRING < BOOLEAN < NUMBER < NULL (Neo4j's order).
_MAP, _NODE, _REL, _LIST, _VECTOR, _PATH = 0, 1, 2, 3, 4, 5
TEMPORAL_ORDER = {"DateTime": 6, "LocalDateTime": 7, "Date": 8, "Time": 9, "LocalTime": 10}
_DURATION, _STRING, _BOOL, _NUMBER, _NULL, _OTHER = 11, 12, 13, 14, 15, 16
_POINT = 5.5                 # between PATH and the temporal ranks

# Sentinel returned by the internal comparison for "unordered" (NaN involved): every <, <=, >, >= is false.
_UNORDERED = 2


def is_number(v: Any) -> bool:
    t = type(v)
    return t is int or t is float


def temporal_rank(v: Any) -> int | None:
    """The ORDER BY rank of a temporal value (relate.temporal classes, matched by name), else None."""
    return TEMPORAL_ORDER.get(type(v).__name__) if type(v).__module__.startswith("relate") else None


def _temporal_ops():
    # imported on first use: the function registry imports this module
    from relate.server.query.exec.functions import temporal as temporal_functions
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
        return _temporal_ops().temporal_compare(a, b)
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
        r = _temporal_ops().temporal_compare(self.value, other.value)
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
        return (_DURATION, *v.order_key())
    if t is Vector:
        return (_VECTOR, tuple(v.tolist()))
    if t is Point:
        return (_POINT, v.srid, v.coordinates)
    rank = temporal_rank(v)
    if rank is not None:
        return (rank, _temporal_order(v))
    return (_OTHER, repr(v))


def _temporal_order(v: Any) -> Any:
    """A plain key (ints, strings) ordering temporal values of one kind as temporal_compare does: their
    own ``_order_key`` (equal exactly when the values are, for every kind), a date's ordinal. Computed
    once per value: compared through temporal_compare, each comparison recomputed both sides' zone
    offsets (ORDER BY a datetime over 100,000 nodes took 15 s)."""
    own = getattr(v, "_order_key", None)
    if own is not None:
        return own()
    toordinal = getattr(v, "toordinal", None)
    return toordinal() if toordinal is not None else _TemporalKey(v)


def order_key_desc(v: Any) -> tuple:
    """A key whose Python ordering is Cypher's ORDER BY ... DESC (nulls first), beside ascending keys.

    Numbers and null, the usual descending keys (scores, timestamps), are plain tuples compared in C;
    other values wrap their ascending key reversed (a Python-level comparison)."""
    t = type(v)
    if t is int:
        return (-_NUMBER, 0, -v)
    if t is float:
        return (-_NUMBER, -1, 0) if v != v else (-_NUMBER, 0, -v)
    if v is None:
        return (-_NULL,)
    key = order_key(v)
    return (-key[0], Reversed(key[1:]))


class Reversed:
    """An order key compared the other way round (a descending item inside a composite key)."""
    __slots__ = ("key",)

    def __init__(self, key):
        self.key = key

    def __lt__(self, other):
        return other.key < self.key

    def __gt__(self, other):
        return other.key > self.key

    def __eq__(self, other):
        return self.key == other.key

    def __le__(self, other):
        return other.key <= self.key

    def __ge__(self, other):
        return other.key >= self.key

    __hash__ = None


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
    Duration: "Duration", Vector: "Vector", Point: "Point",
}


def type_name(v: Any) -> str:
    """The value's Cypher type as Neo4j names it in messages (``Integer``, ``Map``, ``Node``)."""
    name = _TYPE_NAMES.get(type(v))
    return name if name is not None else type(v).__name__


# --------------------------------------------------------------------------------------------
# Values as Cypher prints them (toString, string concatenation)
# --------------------------------------------------------------------------------------------
def format_float(x: float) -> str:
    """A float as Java's Double.toString prints it: 1.0, 0.001, 1.0E-4, 1.0E7, NaN, Infinity."""
    if x != x:
        return "NaN"
    if x in (math.inf, -math.inf):
        return "Infinity" if x > 0 else "-Infinity"
    if x == 0.0:
        return "-0.0" if math.copysign(1.0, x) < 0 else "0.0"
    ax = abs(x)
    if 1e-3 <= ax < 1e7:
        text = repr(x)
        if "e" in text:                 # repr uses exponents below 1e-4; expand them
            text = format(x, "f")
        return text if "." in text else text + ".0"
    text = repr(ax)                     # shortest round-trip digits, as Java 19+ prints them
    if "e" in text:
        mantissa, exponent = text.split("e")
        digits, exp = mantissa.replace(".", ""), int(exponent)
    else:
        whole, _, frac = text.partition(".")
        if whole != "0":
            digits, exp = whole + frac, len(whole) - 1
        else:
            stripped = frac.lstrip("0")
            digits, exp = stripped, -(len(frac) - len(stripped) + 1)
    digits = digits.lstrip("0").rstrip("0") or "0"
    body = digits[0] + "." + (digits[1:] or "0")
    return f"{'-' if x < 0 else ''}{body}E{exp}"


def cypher_str(v: Any) -> str | None:
    """The string form toString() and string concatenation use; None if the type has none."""
    t = type(v)
    if t is str:
        return v
    if t is int:
        return str(v)
    if t is float:
        return format_float(v)
    if t is bool:
        return "true" if v else "false"
    if t is Duration or t is Point:
        return str(v)
    if temporal_rank(v) is not None:
        return iso_text(v)
    return None


def java_str(v: Any) -> str | None:
    """The string APOC gives a value (Java's ``toString``: ``08:40Z``, where toString() says ``08:40:00Z``)."""
    if temporal_rank(v) is not None:
        return str(v)
    return cypher_str(v)


def is_aggregate(name: str) -> bool:
    from relate.server.query.exec.functions.aggregates import is_aggregate as _is
    return _is(name)


def make_aggregator(name: str, distinct: bool = False):
    from relate.server.query.exec.functions.aggregates import make_aggregator as _make
    return _make(name, distinct)


def aggregator_factory(name: str, distinct: bool = False):
    from relate.server.query.exec.functions.aggregates import aggregator_factory as _factory
    return _factory(name, distinct)


# --------------------------------------------------------------------------------------------
# Arithmetic (+ - * / % ^ and unary minus)
# --------------------------------------------------------------------------------------------
_INT64_MIN, _INT64_MAX = -2 ** 63, 2 ** 63 - 1


def arithmetic_error(message: str) -> CypherArithmeticError:
    return CypherArithmeticError(message, phase="runtime")


def _operand_error(op: str, a: Any, b: Any):
    return CypherTypeError(f"Cannot apply `{op}` to {type_name(a)} and {type_name(b)}",
                           detail="InvalidArgumentType", phase="runtime")


def _int64(n: int) -> int:
    if _INT64_MIN <= n <= _INT64_MAX:
        return n
    raise arithmetic_error("long overflow")


def _temporal(a: Any) -> bool:
    return type(a) is Duration or temporal_rank(a) is not None


def add(a: Any, b: Any) -> Any:
    """Cypher ``a + b``: numbers, string concatenation, list concatenation/append, temporal + duration."""
    ta, tb = type(a), type(b)
    if ta is int and tb is int:
        return _int64(a + b)
    if (ta is int or ta is float) and (tb is int or tb is float):
        return a + b
    if a is None or b is None:
        return None
    if ta is list:
        limits.check_list(len(a) + (len(b) if tb is list else 1))
        return a + b if tb is list else a + [b]
    if tb is list:
        limits.check_list(len(b) + 1)
        return [a] + b
    if ta is str or tb is str:
        sa, sb = cypher_str(a), cypher_str(b)
        if sa is None or sb is None:
            raise _operand_error("+", a, b)
        limits.check_string(len(sa) + len(sb))
        return sa + sb
    if _temporal(a) and _temporal(b):
        return _temporal_ops().temporal_add(a, b)
    raise _operand_error("+", a, b)


def subtract(a: Any, b: Any) -> Any:
    ta, tb = type(a), type(b)
    if ta is int and tb is int:
        return _int64(a - b)
    if (ta is int or ta is float) and (tb is int or tb is float):
        return a - b
    if a is None or b is None:
        return None
    if _temporal(a) and tb is Duration:
        return _temporal_ops().temporal_subtract(a, b)
    raise _operand_error("-", a, b)


def multiply(a: Any, b: Any) -> Any:
    ta, tb = type(a), type(b)
    if ta is int and tb is int:
        return _int64(a * b)
    if (ta is int or ta is float) and (tb is int or tb is float):
        return a * b
    if a is None or b is None:
        return None
    if ta is Duration and (tb is int or tb is float):
        return _temporal_ops().temporal_multiply(a, b)
    if tb is Duration and (ta is int or ta is float):
        return _temporal_ops().temporal_multiply(b, a)
    raise _operand_error("*", a, b)


def divide(a: Any, b: Any) -> Any:
    """Integer division truncates toward zero and fails on zero; float division gives Inf/NaN."""
    ta, tb = type(a), type(b)
    if ta is int and tb is int:
        if b == 0:
            raise arithmetic_error("/ by zero")
        q = abs(a) // abs(b)
        return _int64(q if (a >= 0) == (b >= 0) else -q)
    if (ta is int or ta is float) and (tb is int or tb is float):
        if b == 0:
            if a != a or a == 0:
                return math.nan
            return math.copysign(math.inf, a) * math.copysign(1.0, b)
        return a / b
    if a is None or b is None:
        return None
    if ta is Duration and (tb is int or tb is float):
        if b == 0:
            raise arithmetic_error("/ by zero")
        return _temporal_ops().temporal_divide(a, b)
    raise _operand_error("/", a, b)


def modulo(a: Any, b: Any) -> Any:
    """``%`` takes the sign of the dividend (Java); integer modulo by zero fails, float gives NaN."""
    ta, tb = type(a), type(b)
    if ta is int and tb is int:
        if b == 0:
            raise arithmetic_error("/ by zero")
        r = abs(a) % abs(b)
        return -r if a < 0 else r
    if (ta is int or ta is float) and (tb is int or tb is float):
        if b == 0 or a in (math.inf, -math.inf) or a != a or b != b:
            return math.nan
        if b in (math.inf, -math.inf):
            return float(a)
        return math.fmod(a, b)
    if a is None or b is None:
        return None
    raise _operand_error("%", a, b)


def power(a: Any, b: Any) -> Any:
    """``^`` always gives a float (Java Math.pow)."""
    ta, tb = type(a), type(b)
    if (ta is int or ta is float) and (tb is int or tb is float):
        x, y = float(a), float(b)
        try:
            return math.pow(x, y)
        except OverflowError:
            return math.inf if x > 0 or y.is_integer() and int(y) % 2 == 0 else -math.inf
        except ValueError:
            if x == 0.0 and y < 0:      # Java: 0 ^ negative = Infinity
                odd = y.is_integer() and int(y) % 2 == 1
                return math.copysign(math.inf, x) if odd else math.inf
            return math.nan
    if a is None or b is None:
        return None
    raise _operand_error("^", a, b)


def negate(a: Any) -> Any:
    t = type(a)
    if t is int:
        return _int64(-a)
    if t is float:
        return -a
    if a is None:
        return None
    if t is Duration:
        return Duration(-a.months, -a.days, -a.seconds, -a.nanoseconds)
    raise CypherTypeError(f"Cannot negate {type_name(a)}", detail="InvalidArgumentType",
                          phase="runtime")
