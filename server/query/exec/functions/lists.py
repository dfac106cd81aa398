"""List and general functions: head, last, tail, size, range, reverse, coalesce, isEmpty, valueType."""
from __future__ import annotations

from relate.protocol.errors import ArgumentError
from relate.protocol.values import Duration, Point, Vector
from relate.server.query.context import checked
from relate.server.query.exec.functions.registry import function, type_error
from relate.server.query.exec.values.ops import equals, temporal_rank
from relate.server.query.refs import NodeRef, PathRef, RelRef


@function("head", 1, description="The first element of a list.")
def head(ctx, v):
    if v is None:
        return None
    if type(v) is list:
        return v[0] if v else None
    raise type_error("head", v, "a List")


@function("last", 1, description="The last element of a list.")
def last(ctx, v):
    if v is None:
        return None
    if type(v) is list:
        return v[-1] if v else None
    raise type_error("last", v, "a List")


@function("tail", 1, description="A list without its first element.")
def tail(ctx, v):
    if v is None:
        return None
    if type(v) is list:
        return v[1:]
    raise type_error("tail", v, "a List")


@function("size", 1, description="The number of elements of a list or characters of a string.")
def size(ctx, v):
    if v is None:
        return None
    t = type(v)
    if t is list or t is str:
        return len(v)
    if t is Vector:
        return v.dimension
    raise type_error("size", v, "a String or List")


def _range_int(v, what):
    if type(v) is not int:
        raise type_error("range", v, f"an Integer {what}")
    return v


# Ranges longer than this are not built at plan time (constant folding): at run time the build
# can be cancelled and timed out, and the plan cache does not keep the list.
FOLD_LIMIT = 10_000


class _NotFoldable(Exception):
    """Raised while folding constants (ctx None) to leave an evaluation to run time."""


def range_values(start, end, step=1) -> range:
    """What ``range(start, end[, step])`` yields, as a lazy Python range (arguments checked)."""
    if start is None or end is None or step is None:
        raise ArgumentError("range() does not accept null arguments", detail="InvalidArgumentType",
                            phase="runtime")
    start, end, step = _range_int(start, "start"), _range_int(end, "end"), _range_int(step, "step")
    if step == 0:
        raise ArgumentError("Step argument to range() can't be 0", detail="NumberOutOfRange",
                            phase="runtime")
    return range(start, end + (1 if step > 0 else -1), step)


@function("range", 2, 3, description="A list of integers from start to end (inclusive), with an optional step.")
def range_(ctx, start, end, step=1):
    values = range_values(start, end, step)
    if ctx is None and not values[FOLD_LIMIT:]:
        return list(values)
    if ctx is None:
        raise _NotFoldable()
    return list(checked(values, ctx))


@function("reverse", 1, description="A list or string in reverse order.")
def reverse(ctx, v):
    if v is None:
        return None
    if type(v) is str or type(v) is list:
        return v[::-1]
    raise type_error("reverse", v, "a String or List")


@function("coalesce", 1, None, description="The first non-null argument.")
def coalesce(ctx, *args):
    for a in args:
        if a is not None:
            return a
    return None


@function("isEmpty", 1, description="Whether a list, map or string is empty.")
def is_empty(ctx, v):
    if v is None:
        return None
    t = type(v)
    if t is list or t is str or t is dict:
        return len(v) == 0
    raise type_error("isEmpty", v, "a String, List or Map")


# Canonical order of members in a union type (Cypher type normalization).
_TYPE_ORDER = ["NULL", "BOOLEAN", "STRING", "INTEGER", "FLOAT", "DATE", "LOCAL TIME", "ZONED TIME",
               "LOCAL DATETIME", "ZONED DATETIME", "DURATION", "POINT", "NODE", "RELATIONSHIP",
               "MAP", "LIST", "PATH", "VECTOR"]
_TEMPORAL_TYPE_NAMES = {"Date": "DATE", "LocalTime": "LOCAL TIME", "Time": "ZONED TIME",
                        "LocalDateTime": "LOCAL DATETIME", "DateTime": "ZONED DATETIME"}
_SIMPLE_TYPE_NAMES = {bool: "BOOLEAN", str: "STRING", int: "INTEGER", float: "FLOAT", dict: "MAP",
                      NodeRef: "NODE", RelRef: "RELATIONSHIP", PathRef: "PATH", Duration: "DURATION",
                      Point: "POINT"}


def _base_type(v) -> str:
    """The type without nullability: ``INTEGER``, ``LIST<STRING NOT NULL>``."""
    t = type(v)
    name = _SIMPLE_TYPE_NAMES.get(t)
    if name is not None:
        return name
    if t is list:
        return f"LIST<{_element_union(v)}>"
    if t is Vector:
        return f"VECTOR<{v.coordinate_type}>({v.dimension})"
    if temporal_rank(v) is not None:
        return _TEMPORAL_TYPE_NAMES.get(type(v).__name__, type(v).__name__.upper())
    return "ANY"


def _element_union(items: list) -> str:
    if not items:
        return "NOTHING"
    has_null = any(x is None for x in items)
    bases = {_base_type(x) for x in items if x is not None}
    if not bases:
        return "NULL"

    def rank(name):
        head_word = name.split("<")[0]
        return (_TYPE_ORDER.index(head_word) if head_word in _TYPE_ORDER else len(_TYPE_ORDER), name)

    ordered = sorted(bases, key=rank)
    suffix = "" if has_null else " NOT NULL"
    return " | ".join(b + suffix for b in ordered)


def value_type_name(v) -> str:
    """Cypher's type name of a value, as valueType() returns it (``INTEGER NOT NULL``)."""
    if v is None:
        return "NULL"
    return _base_type(v) + " NOT NULL"


@function("valueType", 1, description="The Cypher type name of a value.")
def value_type(ctx, v):
    return value_type_name(v)


@function("nullIf", 2, description="Null when both arguments are equal, else the first.")
def null_if(ctx, v1, v2):
    """null when the two values are equal (Cypher ``=``), else the first."""
    return None if equals(v1, v2) is True else v1
