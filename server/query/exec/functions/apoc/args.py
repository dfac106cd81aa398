"""Argument checks and Cypher-equality helpers shared by the APOC function modules."""
from __future__ import annotations

import math
from typing import Any

from relate.protocol.errors import ArgumentError
from relate.protocol.values import Vector
from relate.server.query import limits
from relate.server.query.exec.functions.registry import type_error
from relate.server.query.exec.values.ops import group_key


def as_list(name: str, value: Any) -> list:
    """A list argument (a Vector counts as a list of numbers); a typed error for anything else."""
    if type(value) is list:
        return value
    if type(value) is Vector:
        return value.tolist()
    raise type_error(name, value, "a List")


def java_long(number: int | float) -> int:
    """Java's ``Number.longValue()``: floats truncated, NaN 0, out of range (infinities too) clamped."""
    if type(number) is float:
        if number != number:
            return 0
        if number >= 2.0 ** 63:
            return 2 ** 63 - 1
        if number < -2.0 ** 63:
            return -2 ** 63
        return int(number)
    return number


def utf8(name: str, text: str) -> bytes:
    """The UTF-8 bytes of ``text``; a lone surrogate (no Unicode character) is an ArgumentError."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        raise invalid(name, "the string holds a lone surrogate, which UTF-8 cannot encode") from None


def as_str(name: str, value: Any) -> str:
    if type(value) is str:
        return value
    raise type_error(name, value, "a String")


def as_int(name: str, value: Any) -> int:
    if type(value) is int:
        return value
    if type(value) is float and value.is_integer():
        return int(value)               # APOC's Long parameters take whole floats too
    raise type_error(name, value, "an Integer")


def as_number(name: str, value: Any) -> int | float:
    if type(value) is int or type(value) is float:
        return value
    raise type_error(name, value, "a Number")


def as_bool(name: str, value: Any) -> bool:
    if type(value) is bool:
        return value
    raise type_error(name, value, "a Boolean")


def as_map(name: str, value: Any) -> dict:
    if type(value) is dict:
        return value
    raise type_error(name, value, "a Map")


def out_of_range(name: str, message: str) -> ArgumentError:
    return ArgumentError(f"{name}(): {message}", detail="NumberOutOfRange", phase="runtime")


def invalid(name: str, message: str) -> ArgumentError:
    return ArgumentError(f"{name}(): {message}", detail="InvalidArgumentValue", phase="runtime")


def key(value: Any) -> Any:
    """A hashable key under which Cypher-equal values meet (1 and 1.0, lists and maps by content)."""
    k = group_key(value)
    try:
        hash(k)
    except TypeError:
        return ("repr", type(value).__name__, repr(value))
    return k


def distinct(items: list) -> list:
    """The items without repeats (Cypher equality), in first-seen order."""
    seen: set = set()
    out = []
    for item in items:
        k = key(item)
        if k not in seen:
            seen.add(k)
            out.append(item)
    return out


def keys_of(items: list) -> set:
    return {key(item) for item in items}


def sized_list(size: int) -> None:
    """Refuse, before building it, a list over the statement's value limit."""
    limits.check_list(size)


def sized_string(size: int) -> None:
    limits.check_string(size)


def total(numbers) -> float:
    """The float sum of numbers, exact where it can be (math.fsum), plain where that overflows (inf, nan)."""
    values = [float(x) for x in numbers]
    try:
        return math.fsum(values)
    except (OverflowError, ValueError):
        return sum(values)
