"""Relate's values <-> Bolt PackStream structures (Bolt 4.4, 5.x and 6.0).

Outgoing: Node, Relationship, Path, the temporal types, Duration, Point (Point2D/Point3D) and Vector
(a list of numbers before Bolt 6.0). Incoming parameters: the temporal types, Duration, points and
(Bolt 6.0) Vector; graph entities are refused with a typed error (they are matched by id).
Bolt 4.4 has no element ids in entities, and its DateTimes count seconds of local wall time (``F``,
``f``) unless the client's HELLO asked for the ``utc`` patch (then they are 5.x's ``I``, ``i``).
"""
from __future__ import annotations

import datetime as _dt
from typing import Any

import numpy as np

from relate.protocol import temporal
from relate.protocol.bolt.handshake import BoltVersion
from relate.protocol.bolt.packstream import PackStreamError, Structure
from relate.protocol.values import CRS_BY_SRID, Duration, Node, Path, Point, Relationship, Vector

NODE, RELATIONSHIP, UNBOUND_RELATIONSHIP, PATH = 0x4E, 0x52, 0x72, 0x50
DATE, TIME, LOCAL_TIME, DATE_TIME, DATE_TIME_ZONE_ID, LOCAL_DATE_TIME = 0x44, 0x54, 0x74, 0x49, 0x69, 0x64
DURATION, POINT_2D, POINT_3D, VECTOR = 0x45, 0x58, 0x59, 0x56
LEGACY_DATE_TIME, LEGACY_DATE_TIME_ZONE_ID = 0x46, 0x66               # Bolt 4.4 without the utc patch
NANOS = 1_000_000_000
_EPOCH_ORDINAL = _dt.date(1970, 1, 1).toordinal()
VECTOR_6 = BoltVersion(6, 0)
ELEMENT_IDS = BoltVersion(5, 0)


class Patches:
    """What a Bolt 4.4 client's HELLO patched (``utc``: 5.x DateTimes); later versions have it built in."""

    def __init__(self, version: BoltVersion):
        self.utc = version >= ELEMENT_IDS

# Bolt 6 vector element types: the PackStream marker of the element type, as one byte.
_VECTOR_MARKERS = {"INTEGER8": b"\xC8", "INTEGER16": b"\xC9", "INTEGER32": b"\xCA", "INTEGER64": b"\xCB",
                   "FLOAT32": b"\xC6", "FLOAT64": b"\xC1"}
_VECTOR_TYPES = {marker: name for name, marker in _VECTOR_MARKERS.items()}
_BIG_ENDIAN = {"INTEGER8": ">i1", "INTEGER16": ">i2", "INTEGER32": ">i4", "INTEGER64": ">i8",
               "FLOAT32": ">f4", "FLOAT64": ">f8"}
_CANONICAL = {"FLOAT": "FLOAT64", "INTEGER": "INTEGER64", "INT64": "INTEGER64", "INT32": "INTEGER32",
              "INT16": "INTEGER16", "INT8": "INTEGER8"}


class BoltValueError(PackStreamError):
    """A parameter Bolt can carry but Relate cannot take (a node, a malformed temporal or point)."""
    code = "Neo.ClientError.Statement.TypeError"


# -- Relate -> Bolt --------------------------------------------------------------------------------

def _node(node: Node) -> Structure:
    return Structure(NODE, [node.id, list(node.labels), node.properties, node.element_id])


def _relationship(rel: Relationship) -> Structure:
    return Structure(RELATIONSHIP, [rel.id, rel.start_id, rel.end_id, rel.type, rel.properties, rel.element_id,
                                    f"n:{rel.start_id}", f"n:{rel.end_id}"])


def _path(path: Path, element_ids: bool = True) -> Structure:
    """Unique nodes, unique unbound relationships, and the walk as indices: a relationship's 1-based
    index (negative when walked against its direction), then the next node's index."""
    node_struct = _node if element_ids else _node_4
    nodes, node_index, rels, rel_index, indices = [], {}, [], {}, []
    for node in path.nodes:
        if node.id not in node_index:
            node_index[node.id] = len(nodes)
            nodes.append(node_struct(node))
    for step, rel in enumerate(path.relationships):
        if rel.id not in rel_index:
            rel_index[rel.id] = len(rels) + 1
            rels.append(Structure(UNBOUND_RELATIONSHIP, [rel.id, rel.type, rel.properties, rel.element_id][
                :4 if element_ids else 3]))
        before, after = path.nodes[step], path.nodes[step + 1]
        forward = rel.start_id == before.id and rel.end_id == after.id
        indices += [rel_index[rel.id] if forward else -rel_index[rel.id], node_index[after.id]]
    return Structure(PATH, [nodes, rels, indices])


def _date(value) -> Structure:
    return Structure(DATE, [value.toordinal() - _EPOCH_ORDINAL])


def _local_datetime(value) -> Structure:
    seconds, nanos = divmod(value.epoch_nanos, NANOS)
    return Structure(LOCAL_DATE_TIME, [seconds, nanos])


def _datetime(value) -> Structure:
    seconds, nanos, zone = value.to_state()
    return Structure(DATE_TIME_ZONE_ID if isinstance(zone, str) else DATE_TIME, [seconds, nanos, zone])


def _legacy_datetime(value) -> Structure:
    """Bolt 4.4's DateTime: seconds of local wall time since the epoch, nanoseconds, the offset or zone."""
    local = value.epoch_seconds + value.offset_seconds
    if value.has_named_zone:
        return Structure(LEGACY_DATE_TIME_ZONE_ID, [local, value.nanosecond, value.zone_id])
    return Structure(LEGACY_DATE_TIME, [local, value.nanosecond, value.offset_seconds])


def _node_4(node: Node) -> Structure:
    return Structure(NODE, [node.id, list(node.labels), node.properties])


def _relationship_4(rel: Relationship) -> Structure:
    return Structure(RELATIONSHIP, [rel.id, rel.start_id, rel.end_id, rel.type, rel.properties])


def _vector_struct(vector: Vector) -> Structure:
    name = _CANONICAL.get(vector.coordinate_type, vector.coordinate_type)
    data = vector.to_numpy().astype(_BIG_ENDIAN[name], copy=False).tobytes()
    return Structure(VECTOR, [_VECTOR_MARKERS[name], data])


_OUT = {
    Node: _node, Relationship: _relationship, Path: _path,
    temporal.Date: _date,
    temporal.Time: lambda v: Structure(TIME, list(v.to_state())),
    temporal.LocalTime: lambda v: Structure(LOCAL_TIME, [v.nanos_of_day]),
    temporal.DateTime: _datetime,
    temporal.LocalDateTime: _local_datetime,
    Duration: lambda v: Structure(DURATION, [v.months, v.days, v.seconds, v.nanoseconds]),
    Point: lambda v: Structure(POINT_2D if len(v.coordinates) == 2 else POINT_3D, [v.srid, *v.coordinates]),
}


def dehydrator(version: BoltVersion, patches: Patches | None = None):
    """The Packer hook for ``version``: vectors are a Structure from Bolt 6.0, a list before; Bolt 4.4's
    entities and (unless ``patches.utc``) DateTimes in their own forms."""
    vectors = version >= VECTOR_6
    table = _OUT
    if version < ELEMENT_IDS:
        patched = patches if patches is not None else Patches(version)
        table = {**_OUT, Node: _node_4, Relationship: _relationship_4, Path: lambda p: _path(p, False),
                 temporal.DateTime: lambda v: _datetime(v) if patched.utc else _legacy_datetime(v)}

    def dehydrate(value: Any) -> Any:
        convert = table.get(type(value))
        if convert is not None:
            return convert(value)
        if isinstance(value, Vector):
            return _vector_struct(value) if vectors else value.tolist()
        if isinstance(value, np.generic):
            return value.item()
        if isinstance(value, (set, frozenset)):
            return list(value)
        if isinstance(value, np.ndarray):
            return value.tolist()
        if isinstance(value, (_dt.datetime, _dt.date, _dt.time)):
            return _python_temporal(value)
        for cls, convert in table.items():      # subclasses
            if isinstance(value, cls):
                return convert(value)
        raise TypeError(f"cannot send a value of type {type(value).__name__} over Bolt")
    return dehydrate


def _python_temporal(value):
    if isinstance(value, _dt.datetime):
        cls = temporal.DateTime if value.tzinfo is not None else temporal.LocalDateTime
    elif isinstance(value, _dt.date):
        cls = temporal.Date
    else:
        cls = temporal.Time if value.tzinfo is not None else temporal.LocalTime
    return _OUT[cls](cls.from_python(value))


# -- Bolt -> Relate --------------------------------------------------------------------------------

def _ints(fields: list, count: int, what: str, last_may_be_str: bool = False) -> list:
    if len(fields) != count:
        raise BoltValueError(f"a {what} has {count} fields, not {len(fields)}")
    for i, field in enumerate(fields):
        if type(field) is not int and not (last_may_be_str and i == count - 1 and type(field) is str):
            raise BoltValueError(f"malformed {what}: field {i + 1} must be an integer")
    return fields


def _in_date(f):
    (days,) = _ints(f, 1, "Date")
    return temporal.Date.from_python(_dt.date.fromordinal(days + _EPOCH_ORDINAL))


def _in_local_datetime(f):
    seconds, nanos = _ints(f, 2, "LocalDateTime")
    day, second_of_day = divmod(seconds, 86400)
    date = temporal.Date.from_python(_dt.date.fromordinal(day + _EPOCH_ORDINAL))
    return temporal.LocalDateTime.of(date, second_of_day * NANOS + nanos)


def _in_vector(f):
    if len(f) != 2 or not isinstance(f[0], bytes) or not isinstance(f[1], bytes):
        raise BoltValueError("a Vector has a type marker and a byte array")
    name = _VECTOR_TYPES.get(f[0])
    if name is None:
        raise BoltValueError(f"unknown vector element type {f[0]!r}")
    dtype = np.dtype(_BIG_ENDIAN[name])
    if len(f[1]) % dtype.itemsize or not f[1]:
        raise BoltValueError("vector data is not a whole, non-zero number of elements")
    return Vector(np.frombuffer(f[1], dtype=dtype).astype(dtype.newbyteorder("=")), name)


def _in_point(f, dimensions: int) -> Point:
    if len(f) != dimensions + 1 or type(f[0]) is not int or any(type(c) is not float for c in f[1:]):
        raise BoltValueError(f"a Point{dimensions}D has an integer SRID and {dimensions} float coordinates")
    crs = CRS_BY_SRID.get(f[0])
    if crs is None or crs[1] != dimensions:
        raise BoltValueError(f"unknown {dimensions}-D coordinate reference system: SRID {f[0]}")
    return Point(*f)


_IN = {
    DATE: _in_date,
    TIME: lambda f: temporal.Time.from_state(tuple(_ints(f, 2, "Time"))),
    LOCAL_TIME: lambda f: temporal.LocalTime.from_state(tuple(_ints(f, 1, "LocalTime"))),
    DATE_TIME: lambda f: temporal.DateTime.from_state(tuple(_ints(f, 3, "DateTime"))),
    DATE_TIME_ZONE_ID: lambda f: temporal.DateTime.from_state(tuple(_ints(f, 3, "DateTimeZoneId", True))),
    LOCAL_DATE_TIME: _in_local_datetime,
    DURATION: lambda f: Duration(*_ints(f, 4, "Duration")),
    POINT_2D: lambda f: _in_point(f, 2),
    POINT_3D: lambda f: _in_point(f, 3),
}
def _in_legacy_datetime(f):
    local, nanos, offset = _ints(f, 3, "DateTime")
    return temporal.DateTime.of_instant(local - offset, nanos, temporal.offset_zone(offset))


def _in_legacy_datetime_zone(f):
    local, nanos, zone = _ints(f, 3, "DateTimeZoneId", True)
    if type(zone) is not str:
        raise BoltValueError("malformed DateTimeZoneId: field 3 must be a zone name")
    return temporal.DateTime.of_local(_in_local_datetime([local, nanos]), temporal.named_zone(zone))


_LEGACY_IN = {LEGACY_DATE_TIME: _in_legacy_datetime, LEGACY_DATE_TIME_ZONE_ID: _in_legacy_datetime_zone}
_REFUSED = {NODE: "a node", RELATIONSHIP: "a relationship", UNBOUND_RELATIONSHIP: "a relationship",
            PATH: "a path"}


def hydrator(version: BoltVersion, patches: Patches | None = None):
    """The Unpacker hook for ``version``: parameters as Relate values (Bolt 4.4: its DateTimes too)."""
    table = dict(_IN)
    if version >= VECTOR_6:
        table[VECTOR] = _in_vector
    legacy = None
    if version < ELEMENT_IDS:
        patched = patches if patches is not None else Patches(version)
        legacy = lambda tag: None if patched.utc else _LEGACY_IN.get(tag)     # noqa: E731

    def hydrate(structure: Structure) -> Any:
        convert = table.get(structure.tag)
        if legacy is not None:
            old = legacy(structure.tag)
            if old is not None:
                convert = old
            elif structure.tag in (DATE_TIME, DATE_TIME_ZONE_ID) and not patched.utc:
                convert = None
        if convert is None:
            what = _REFUSED.get(structure.tag)
            if what is not None:
                raise BoltValueError(f"{what} cannot be sent as a parameter; pass its id or element id")
            raise BoltValueError(f"unknown structure tag 0x{structure.tag:02X}")
        try:
            return convert(structure.fields)
        except BoltValueError:
            raise
        except (ValueError, TypeError, OverflowError, KeyError, LookupError) as exc:
            raise BoltValueError(f"malformed {type(exc).__name__}: {exc}") from None
        except Exception as exc:   # relate.temporal raises its own typed errors for invalid values
            raise BoltValueError(f"invalid temporal value: {exc}") from None
    return hydrate
