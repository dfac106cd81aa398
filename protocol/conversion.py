"""Python values -> Relate values: the one conversion of query parameters, used by embedded and
network connections alike (so both modes see, store and return exactly the same values).

Modelled on the Neo4j Python driver: ``datetime``/``date``/``time`` (naive or zoned) become Relate
temporal values and ``timedelta`` a Duration (a ``relate.Point`` stays a point); tuples, sets and frozensets become lists; numpy scalars
become int/float/bool/str; a 1-D float32 numpy array becomes a Vector, other arrays lists; ``bytes``
stay bytes. Anything else (``Decimal``, ``UUID``, arbitrary objects) and integers outside 64 bits are
refused with ``CypherTypeError`` (detail ``InvalidArgumentType``) before the statement runs.
"""
from __future__ import annotations

import datetime as _dt
from itertools import chain
from typing import Any, Mapping

import numpy as np

from relate.protocol import temporal
from relate.protocol.errors import CypherTypeError
from relate.protocol.values import Duration, Node, Path, Point, Relationship, Vector

__all__ = ["to_parameters", "to_value", "MAX_DEPTH"]

INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1
MAX_DEPTH = 256        # nesting of lists/maps; deeper values are refused (msgpack allows ~500)

_PLAIN = frozenset((str, float, bool, bytes, type(None), Vector, Duration, Point, Node, Relationship, Path,
                    temporal.Date, temporal.Time, temporal.LocalTime, temporal.DateTime,
                    temporal.LocalDateTime))
_PLAIN_ITEMS = frozenset((str, float, bool, type(None)))   # list items needing no look (embeddings)
_PLAIN_SCALARS = _PLAIN | {int}                             # ints: in 64 bits


def to_parameters(params: Mapping[str, Any] | None) -> dict[str, Any]:
    """Statement parameters converted for the engine or the wire; raises CypherTypeError."""
    if not params:
        return {}
    out = {}
    for key, value in params.items():
        if type(key) is not str:
            raise _refuse(f"parameter names must be strings, not {type(key).__name__}")
        kind = type(value)
        if (kind is int and INT64_MIN <= value <= INT64_MAX) or kind in _PLAIN:
            out[key] = value                    # the common case without a call
        else:
            out[key] = to_value(value, key)
    return out


def to_value(value: Any, name: str = "", depth: int = 0) -> Any:
    """One Python value as a Relate value (recursively); ``name`` is used in error messages."""
    cls = type(value)
    if cls in _PLAIN:
        return value
    if cls is int:
        if INT64_MIN <= value <= INT64_MAX:
            return value
        raise _refuse(f"parameter ${name}: integer {value} does not fit in 64 bits")
    if depth >= MAX_DEPTH:
        raise _refuse(f"parameter ${name}: lists and maps nest deeper than {MAX_DEPTH} levels")
    if cls is list or cls is tuple or cls is set or cls is frozenset:
        if _PLAIN_ITEMS.issuperset(map(type, value)):
            return value if cls is list else list(value)      # the engine copies lists it stores
        return _list(value, name, depth + 1)
    if cls is dict or isinstance(value, Mapping):
        out = {}
        for key, item in value.items():
            if type(key) is not str:
                if not isinstance(key, str):
                    raise _refuse(f"parameter ${name}: map keys must be strings, not {type(key).__name__}")
                key = str.__str__(key)
            kind = type(item)
            # Scalars inline: a batch of 10,000 row maps would otherwise cost 30,000 recursive calls.
            if kind in _PLAIN or (kind is int and INT64_MIN <= item <= INT64_MAX):
                out[key] = item
            else:
                out[key] = to_value(item, name, depth + 1)
        return out
    if isinstance(value, np.ndarray):
        return _array(value, name, depth)
    if isinstance(value, np.generic):
        item = value.item()
        if isinstance(item, np.generic):        # float128 and friends have no Python equivalent
            raise _refuse(f"parameter ${name}: numpy {value.dtype} values are not supported")
        return to_value(item, name, depth)
    if isinstance(value, (_dt.date, _dt.time, _dt.timedelta)):
        return _temporal(value)
    # Subclasses of the plain types (enum.IntEnum, str enums, bytearray, ...) as their base type.
    if isinstance(value, bool):
        return bool(value)
    if isinstance(value, int):
        return to_value(int(value), name, depth)
    if isinstance(value, float):
        return float(value)
    if isinstance(value, str):
        return str.__str__(value)
    if isinstance(value, (bytearray, memoryview)):
        return bytes(value)
    if isinstance(value, (list, tuple, set, frozenset)):
        return [to_value(item, name, depth + 1) for item in value]
    if isinstance(value, (Vector, Node, Relationship, Path, Duration, Point)):
        return value
    raise _refuse(f"parameter ${name}: values of type {cls.__name__} are not supported "
                  "(use str, int, float, bool, bytes, lists, maps, datetime types, numpy arrays)")


def _plain_items(items: Any) -> bool:
    """Whether every item of a list parameter is a plain scalar (64-bit ints included) or a str-keyed
    map of them, so the list needs no copy: one check, no list built (UNWIND loads' row batches).
    Types are collected at C speed (a batch of 10,000 three-field rows: ~2 ms instead of ~11 looping
    over every field); only ints are then looked at one by one, for their range."""
    kinds = set(map(type, items))
    if dict in kinds:
        if not kinds <= {dict}:
            return False
        if not set(map(type, chain.from_iterable(items))) <= {str}:      # iterating a map gives its keys
            return False
        values: Any = list(chain.from_iterable(map(dict.values, items)))
        kinds = set(map(type, values))
    else:
        values = items
    if not kinds <= _PLAIN_SCALARS:
        return False
    if int in kinds:
        ints = [value for value in values if type(value) is int]
        return INT64_MIN <= min(ints) and max(ints) <= INT64_MAX
    return True


def _list(items: Any, name: str, depth: int) -> list[Any]:
    """Items of a list parameter; maps of scalars inline, since a batch of 10,000 row maps would
    otherwise cost 10,000 recursive calls (UNWIND loads are the common case)."""
    if depth < MAX_DEPTH and _plain_items(items):
        return items if type(items) is list else list(items)     # the engine copies lists it stores
    out: list[Any] = []
    append = out.append
    for item in items:
        kind = type(item)
        if kind is dict and depth < MAX_DEPTH:
            # A map of plain scalars is used as it is (the engine never changes a parameter).
            for key, field in item.items():
                field_kind = type(field)
                if type(key) is not str or not (field_kind in _PLAIN or (
                        field_kind is int and INT64_MIN <= field <= INT64_MAX)):
                    item = to_value(item, name, depth)
                    break
            append(item)
        elif kind in _PLAIN or (kind is int and INT64_MIN <= item <= INT64_MAX):
            append(item)
        else:
            append(to_value(item, name, depth))
    return out


def _array(array: np.ndarray, name: str, depth: int) -> Any:
    if array.ndim == 1 and array.dtype == np.float32:     # an embedding, as the vector index expects
        return Vector(array, "FLOAT32")
    return to_value(array.tolist(), name, depth)         # tolist() gives Python scalars


def _temporal(value: _dt.date | _dt.time | _dt.timedelta) -> Any:
    cls: Any
    if isinstance(value, _dt.datetime):
        cls = temporal.DateTime if value.tzinfo is not None else temporal.LocalDateTime
    elif isinstance(value, _dt.date):
        cls = temporal.Date
    elif isinstance(value, _dt.time):
        cls = temporal.Time if value.tzinfo is not None else temporal.LocalTime
    else:
        return Duration(days=value.days, seconds=value.seconds, nanoseconds=value.microseconds * 1000)
    return cls.from_python(value)


def _refuse(message: str) -> CypherTypeError:
    return CypherTypeError(message, detail="InvalidArgumentType", phase="compile time")
