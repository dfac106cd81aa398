"""Type conversion functions: toString, toInteger, toFloat, toBoolean and their OrNull / List forms."""
from __future__ import annotations

import re
from decimal import Decimal

from relate.protocol.errors import CypherTypeError
from relate.protocol.values import Vector
from relate.server.query.exec.functions.registry import function, type_error
from relate.server.query.exec.values.ops import cypher_str

_INT64_MIN, _INT64_MAX = -2 ** 63, 2 ** 63 - 1


@function("toString", 1, description="The value as a string (numbers, booleans, temporal values, durations).")
def to_string(ctx, v):
    if v is None:
        return None
    s = cypher_str(v)
    if s is None:
        raise type_error("toString", v, "a String, Integer, Float, Boolean, temporal or Duration",
                         detail="InvalidArgumentValue")
    return s


@function("toStringOrNull", 1, description="The value as a string, or null when it has no string form.")
def to_string_or_null(ctx, v):
    return None if v is None else cypher_str(v)


# What Java's Long.parseLong, then BigDecimal, accept: no blanks, no NaN/Infinity, no d/f suffix.
_DECIMAL_RE = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")


def _parse_int(s: str, fn_name: str, strict: bool):
    """A string as Neo4j's toInteger reads it: a decimal number, truncated; null when it is none.

    A number outside the 64-bit range is a type error (Neo4j: "integer, <s>, is too large"); the
    OrNull forms answer null.
    """
    if not _DECIMAL_RE.fullmatch(s):
        return None
    number = Decimal(s)
    if _INT64_MIN <= number <= _INT64_MAX:
        return int(number)
    if strict:
        raise CypherTypeError(f"integer, {s}, is too large", detail="InvalidArgumentValue", phase="runtime")
    return None


_FLOAT_RE = re.compile(r"\s*[+-]?(\d+\.?\d*([eE][+-]?\d+)?|\.\d+([eE][+-]?\d+)?|NaN|Infinity)[dDfF]?\s*")


def _parse_float(s: str):
    if not _FLOAT_RE.fullmatch(s):
        return None
    text = s.strip().rstrip("dDfF")
    return float(text.replace("Infinity", "inf"))


def _to_integer(v, fn_name, strict):
    t = type(v)
    if t is int:
        return v
    if t is float:
        # Java's (long) cast, as Neo4j: truncated, clamped to the 64-bit range, NaN is 0
        if v != v:
            return 0
        if v >= 9.223372036854775807e18:
            return _INT64_MAX
        if v <= -9.223372036854775808e18:
            return _INT64_MIN
        return int(v)
    if t is str:
        return _parse_int(v, fn_name, strict)
    if t is bool:
        return 1 if v else 0
    if strict:
        raise type_error(fn_name, v, "a String, Integer, Float or Boolean", detail="InvalidArgumentValue")
    return None


@function("toInteger", 1, description="The value as an integer (numbers truncated, strings parsed).")
def to_integer(ctx, v):
    return None if v is None else _to_integer(v, "toInteger", True)


@function("toIntegerOrNull", 1, description="The value as an integer, or null when it cannot be converted.")
def to_integer_or_null(ctx, v):
    return None if v is None else _to_integer(v, "toIntegerOrNull", False)


def _to_float(v, fn_name, strict):
    t = type(v)
    if t is float:
        return v
    if t is int:
        return float(v)
    if t is str:
        return _parse_float(v)
    if strict:
        raise type_error(fn_name, v, "a String, Integer or Float", detail="InvalidArgumentValue")
    return None


@function("toFloat", 1, description="The value as a float (strings parsed).")
def to_float(ctx, v):
    return None if v is None else _to_float(v, "toFloat", True)


@function("toFloatOrNull", 1, description="The value as a float, or null when it cannot be converted.")
def to_float_or_null(ctx, v):
    return None if v is None else _to_float(v, "toFloatOrNull", False)


def _to_boolean(v, fn_name, strict):
    t = type(v)
    if t is bool:
        return v
    if t is str:
        text = v.strip().lower()
        return True if text == "true" else (False if text == "false" else None)
    if t is int:
        return v != 0
    if strict:
        raise type_error(fn_name, v, "a String, Integer or Boolean", detail="InvalidArgumentValue")
    return None


@function("toBoolean", 1, description="The value as a boolean ('true'/'false' strings, integers 0/1).")
def to_boolean(ctx, v):
    return None if v is None else _to_boolean(v, "toBoolean", True)


@function("toBooleanOrNull", 1, description="The value as a boolean, or null when it cannot be converted.")
def to_boolean_or_null(ctx, v):
    return None if v is None else _to_boolean(v, "toBooleanOrNull", False)


def _list_of(fn_name, v, convert):
    if v is None:
        return None
    if type(v) is not list:
        raise type_error(fn_name, v, "a List")
    return [None if x is None else convert(x, fn_name, False) for x in v]


@function("toBooleanList", 1, description="Each element of a list as a boolean (null where it cannot be converted).")
def to_boolean_list(ctx, v):
    return _list_of("toBooleanList", v, _to_boolean)


@function("toIntegerList", 1, description="Each element of a list or vector as an integer (null where it cannot be converted).")
def to_integer_list(ctx, v):
    if type(v) is Vector:           # Neo4j 2025.10: a vector's coordinates, truncated as toInteger does
        return [_to_integer(x, "toIntegerList", False) for x in v.tolist()]
    return _list_of("toIntegerList", v, _to_integer)


@function("toFloatList", 1, description="Each element of a list or vector as a float (null where it cannot be converted).")
def to_float_list(ctx, v):
    if type(v) is Vector:           # Neo4j 2025.10: a vector's coordinates as floats
        return [float(x) for x in v.tolist()]
    return _list_of("toFloatList", v, _to_float)


@function("toStringList", 1, description="Each element of a list as a string (null where it cannot be converted).")
def to_string_list(ctx, v):
    return _list_of("toStringList", v, lambda x, name, strict: cypher_str(x))
