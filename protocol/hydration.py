"""Relate's values <-> wire structures, both directions. The driver and the server share this leaf
module of the kernel (it imports only the kernel's values and temporal types and the codec).

Field layouts per ext code are documented in docs/protocol.md ("Value encodings").
"""
from __future__ import annotations

import datetime as _dt
from typing import Any, Callable

import numpy as np

from . import codec as wire
from . import temporal
from .codec import Codec, Hydrator, Structure
from .values import VECTOR_TYPES, Duration, Node, Path, Point, Relationship, Vector

__all__ = ["dehydrate", "HYDRATORS", "value_codec"]

# Values sent as their ``to_state()`` fields and read back with ``from_state``.
_STATE_CODES: dict[Any, int] = {temporal.Date: wire.DATE, temporal.Time: wire.TIME, temporal.LocalTime: wire.LOCAL_TIME,
                                temporal.DateTime: wire.DATE_TIME, temporal.LocalDateTime: wire.LOCAL_DATE_TIME,
                                Duration: wire.DURATION, Point: wire.POINT}


def _node(node: Node) -> Structure:
    return Structure(wire.NODE, [node.id, list(node.labels), node.properties])


def _relationship(rel: Relationship) -> Structure:
    return Structure(wire.RELATIONSHIP, [rel.id, rel.type, rel.start_id, rel.end_id, rel.properties])


def _path(path: Path) -> Structure:
    return Structure(wire.PATH, [[_node(n) for n in path.nodes], [_relationship(r) for r in path.relationships]])


def _vector(vector: Vector) -> Structure:
    array = vector.to_numpy()
    little = array.astype(array.dtype.newbyteorder("<"), copy=False)
    return Structure(wire.VECTOR, [vector.coordinate_type, vector.dimension, little.tobytes()])


_DEHYDRATORS: dict[type, Callable[[Any], Structure]] = {Node: _node, Relationship: _relationship, Path: _path, Vector: _vector}
for _cls, _code in _STATE_CODES.items():
    _DEHYDRATORS[_cls] = (lambda code: lambda value: Structure(code, list(value.to_state())))(_code)


def dehydrate(value: Any) -> Any:
    """A value msgpack does not know, as a Structure (or a plain value); TypeError if unsupported."""
    convert = _DEHYDRATORS.get(type(value))
    if convert is not None:
        return convert(value)
    if isinstance(value, (_dt.date, _dt.time, _dt.timedelta)):
        return _from_python(value)
    if isinstance(value, np.generic):           # numpy scalars leak out of vector maths
        return value.item()
    if isinstance(value, (set, frozenset, np.ndarray)):
        return list(value.tolist() if isinstance(value, np.ndarray) else value)
    for cls, convert in _DEHYDRATORS.items():   # subclasses
        if isinstance(value, cls):
            return convert(value)
    raise TypeError(f"cannot send a value of type {type(value).__name__} over the wire")


def _from_python(value: Any) -> Structure:
    """Plain ``datetime`` values as parameters: sent as the matching Relate temporal type."""
    cls: Any
    if isinstance(value, _dt.datetime):
        cls = temporal.DateTime if value.tzinfo is not None else temporal.LocalDateTime
    elif isinstance(value, _dt.date):
        cls = temporal.Date
    elif isinstance(value, _dt.time):
        cls = temporal.Time if value.tzinfo is not None else temporal.LocalTime
    else:
        return _DEHYDRATORS[Duration](Duration(days=value.days, seconds=value.seconds,
                                               nanoseconds=value.microseconds * 1000))
    return _DEHYDRATORS[cls](cls.from_python(value))


def _hydrate_vector(fields: list[Any]) -> Vector:
    coordinate_type, dimension, data = fields
    dtype = np.dtype(VECTOR_TYPES[coordinate_type]).newbyteorder("<")
    if len(data) != dimension * dtype.itemsize:
        raise ValueError(f"vector data holds {len(data)} bytes, not {dimension} coordinates")
    return Vector(np.frombuffer(data, dtype=dtype), coordinate_type)


def _hydrate_path(fields: list[Any]) -> Path:
    nodes, rels = fields
    if not all(isinstance(n, Node) for n in nodes) or not all(isinstance(r, Relationship) for r in rels):
        raise ValueError("a path holds nodes and relationships")
    return Path(nodes, rels)


HYDRATORS: dict[int, Hydrator] = {
    wire.NODE: lambda f: Node(f[0], f[1], f[2]),
    wire.RELATIONSHIP: lambda f: Relationship(f[0], f[1], f[2], f[3], f[4]),
    wire.PATH: _hydrate_path,
    wire.VECTOR: _hydrate_vector,
}
for _cls, _code in _STATE_CODES.items():
    HYDRATORS[_code] = (lambda cls: lambda fields: cls.from_state(tuple(fields)))(_cls)


def value_codec(*, strict: bool = False) -> Codec:
    """A codec that sends and receives Relate's values (``strict``: see ``Codec``)."""
    return Codec(dehydrate=dehydrate, hydrators=HYDRATORS, strict=strict)
