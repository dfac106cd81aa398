"""Msgpack encoding of stored values: plain msgpack plus ext types for vectors, temporal values and points.

Ext codes are part of the on-disk format; never renumber them.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import msgpack
import numpy as np

from relate.protocol.errors import CypherTypeError as CypherTypeError   # re-exported: storage raises it as codec.CypherTypeError
from relate.protocol.temporal import Date, DateTime, LocalDateTime, LocalTime, Time
from relate.protocol.values import VECTOR_TYPES, Duration, Point, LabelSet, Vector

if TYPE_CHECKING:
    from typing import IO, Any

    # The value classes stored under an ext code of their own (to_state / from_state).
    StateClass = type[Duration | Date | Time | LocalTime | DateTime | LocalDateTime | Point]

EXT_VECTOR = 1
EXT_DURATION = 2
_class_by_code: dict[int, StateClass] = {EXT_DURATION: Duration, 3: Date, 4: Time, 5: LocalTime, 6: DateTime,
                                         7: LocalDateTime, 8: Point}
_code_by_class: dict[type[Any], int] = {cls: code for code, cls in _class_by_code.items()}

INT64_MIN = -(1 << 63)
INT64_MAX = (1 << 63) - 1
# Stored as they are, with no check or copy (ints need their range check; lists are copied).
SCALAR_CLASSES: frozenset[type[Any]] = frozenset((str, float, bool, bytes, Vector, *_code_by_class))


def ext_code(cls: type[Any]) -> int | None:
    """The ext code for a temporal, Duration or Point class, or None if it is not a stored class."""
    return _code_by_class.get(cls)


def _default(obj: Any) -> Any:
    cls = type(obj)
    if cls is Vector:
        return msgpack.ExtType(EXT_VECTOR, obj.coordinate_type.encode() + b"\0" + obj.to_numpy().tobytes())
    code = ext_code(cls)
    if code is not None:
        return msgpack.ExtType(code, msgpack.packb(obj.to_state(), default=_default, use_bin_type=True))
    if cls is tuple or cls is frozenset or cls is set or cls is LabelSet:
        return list(obj)
    raise TypeError(f"cannot store a value of type {cls.__name__}")


def _ext_hook(code: int, data: bytes) -> Any:
    if code == EXT_VECTOR:
        cut = data.index(b"\0")
        coordinate_type = data[:cut].decode()
        array = np.frombuffer(data, dtype=VECTOR_TYPES[coordinate_type], offset=cut + 1)
        return Vector(array, coordinate_type)
    cls = _class_by_code.get(code)
    if cls is None:
        return msgpack.ExtType(code, data)
    return cls.from_state(msgpack.unpackb(data, use_list=False, ext_hook=_ext_hook, raw=False))


def encode(obj: Any) -> bytes:
    """Serialize ``obj`` (WAL records, catalog entries) to msgpack bytes."""
    return msgpack.packb(obj, default=_default, use_bin_type=True)


def decode(data: bytes | bytearray | memoryview) -> Any:
    """Inverse of ``encode``; accepts any bytes-like object."""
    return msgpack.unpackb(data, ext_hook=_ext_hook, raw=False, strict_map_key=False)


def new_packer() -> msgpack.Packer:
    return msgpack.Packer(default=_default, use_bin_type=True)


def new_unpacker(file: IO[bytes] | Any) -> msgpack.Unpacker:
    return msgpack.Unpacker(file, ext_hook=_ext_hook, raw=False, strict_map_key=False,
                            max_buffer_size=1 << 31)


_PLAIN_ITEMS = frozenset((str, float, bool, Vector, bytes, type(None)))    # list items valid as they are


def check_value(value: Any) -> None:
    """Raise CypherTypeError unless ``value`` can be stored as a property value."""
    cls = type(value)
    if cls is str or cls is float or cls is bool or cls is Vector or cls is bytes:
        return
    if cls is int:
        if INT64_MIN <= value <= INT64_MAX:
            return
        raise CypherTypeError(f"integer {value} does not fit in 64 bits", detail="InvalidPropertyType")
    if cls is list:
        # Fast path: one C-level pass over the item types; ints still need their range check below.
        if _PLAIN_ITEMS.issuperset(map(type, value)):
            return
        for item in value:
            if item is not None:
                check_value(item)
        return
    if cls is dict:
        for key, item in value.items():
            if type(key) is not str:
                raise CypherTypeError("map keys must be strings", detail="InvalidPropertyType")
            if item is not None:
                check_value(item)
        return
    if ext_code(cls) is None:
        raise CypherTypeError(f"a value of type {cls.__name__} cannot be stored as a property",
                              detail="InvalidPropertyType")
