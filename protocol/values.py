"""Graph and special values returned to users: Node, Relationship, Path, Vector, Point, Duration, Row.

Embedded and network modes return exactly these types (plus int, float, str, bool, None, list,
dict, and the ``datetime`` types from ``relate.temporal``).
"""
from __future__ import annotations

import functools
import math
from typing import TYPE_CHECKING, Any, Iterable, Iterator, KeysView, Mapping, Sequence

import numpy as np

if TYPE_CHECKING:
    from fractions import Fraction

    _Amount = int | float | Fraction

__all__ = ["LabelSet", "Node", "Relationship", "Path", "Vector", "Point", "Duration", "Row", "row_class"]


class LabelSet(frozenset[str]):
    """A node's labels: a frozenset that iterates in the database's label order (the order labels were
    first created, as Neo4j's label tokens: ``CREATE (:Person:Employee)`` reads back Person, Employee)."""

    __slots__ = ("order",)
    order: tuple[str, ...]

    def __new__(cls, labels: Iterable[str] = ()) -> "LabelSet":
        order = tuple(dict.fromkeys(labels))
        self = super().__new__(cls, order)
        self.order = order
        return self

    def __iter__(self) -> Iterator[str]:
        return iter(self.order)

    def __reduce__(self) -> tuple[type["LabelSet"], tuple[tuple[str, ...]]]:
        return (LabelSet, (self.order,))

    def __repr__(self) -> str:
        return f"LabelSet({list(self.order)!r})"


def label_list(labels: Iterable[str]) -> list[str]:
    """``labels`` as a list in label order (a LabelSet's own; any other set's names sorted)."""
    if type(labels) is LabelSet:
        return list(labels.order)
    if isinstance(labels, (frozenset, set)):
        return sorted(labels)
    return list(dict.fromkeys(labels))


class _Entity:
    """What nodes and relationships share: an id, an element id and properties read like a mapping;
    equal when they are the same entity (same kind and id)."""

    __slots__ = ("id", "properties")
    id: int
    properties: dict[str, Any]
    _KIND = ""                  # "n" or "r": the element id's prefix and part of the hash

    @property
    def element_id(self) -> str:
        return f"{self._KIND}:{self.id}"

    def __getitem__(self, key: str) -> Any:
        return self.properties[key]

    def get(self, key: str, default: Any = None) -> Any:
        return self.properties.get(key, default)

    def keys(self) -> KeysView[str]:
        return self.properties.keys()

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Entity) and other._KIND == self._KIND and other.id == self.id

    def __hash__(self) -> int:
        return hash((self._KIND, self.id))


class Node(_Entity):
    """A node: integer id, element id, label set and properties (a detached copy)."""

    __slots__ = ("labels",)
    _KIND = "n"

    def __init__(self, id: int, labels: Iterable[str] = (), properties: Mapping[str, Any] | None = None):
        self.id = id
        self.labels = labels if type(labels) is LabelSet else LabelSet(label_list(labels))
        self.properties = dict(properties or {})

    def __repr__(self) -> str:
        labels = "".join(f":{label}" for label in self.labels)
        return f"<Node id={self.id} labels={labels or '-'} properties={self.properties!r}>"


class Relationship(_Entity):
    """A relationship: id, type, start and end node ids, properties (a detached copy)."""

    __slots__ = ("type", "start_id", "end_id")
    _KIND = "r"

    def __init__(self, id: int, type: str, start_id: int, end_id: int,
                 properties: Mapping[str, Any] | None = None):
        self.id = id
        self.type = type
        self.start_id = start_id
        self.end_id = end_id
        self.properties = dict(properties or {})

    def __repr__(self) -> str:
        return (f"<Relationship id={self.id} ({self.start_id})-[:{self.type}]->({self.end_id}) "
                f"properties={self.properties!r}>")


class Path:
    """A path: ``nodes`` (n + 1) and ``relationships`` (n) in traversal order."""

    __slots__ = ("nodes", "relationships")

    def __init__(self, nodes: Sequence[Node], relationships: Sequence[Relationship]):
        if len(nodes) != len(relationships) + 1:
            raise ValueError("a path has exactly one more node than relationships")
        self.nodes = tuple(nodes)
        self.relationships = tuple(relationships)

    @property
    def start_node(self) -> Node:
        return self.nodes[0]

    @property
    def end_node(self) -> Node:
        return self.nodes[-1]

    def __len__(self) -> int:
        return len(self.relationships)

    def __iter__(self) -> Iterator[Relationship]:
        return iter(self.relationships)

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, Path) and self.nodes == other.nodes
                and self.relationships == other.relationships)

    def __hash__(self) -> int:
        return hash((self.nodes, self.relationships))

    def __repr__(self) -> str:
        return f"<Path length={len(self)} nodes={[n.id for n in self.nodes]}>"


VECTOR_TYPES = {
    "FLOAT64": np.float64, "FLOAT32": np.float32, "FLOAT": np.float64,
    "INTEGER64": np.int64, "INTEGER32": np.int32, "INTEGER16": np.int16, "INTEGER8": np.int8,
    "INTEGER": np.int64, "INT64": np.int64, "INT32": np.int32, "INT16": np.int16, "INT8": np.int8,
}


class Vector:
    """A typed vector of fixed dimension (``vector(list, 384, FLOAT32)``), stored as a numpy array."""

    __slots__ = ("_array", "coordinate_type")

    def __init__(self, values: Iterable[float] | np.ndarray, coordinate_type: str = "FLOAT32"):
        coordinate_type = coordinate_type.upper()
        if coordinate_type not in VECTOR_TYPES:
            raise ValueError(f"unknown vector coordinate type {coordinate_type!r}")
        array = np.array(values, dtype=VECTOR_TYPES[coordinate_type])
        if array.ndim != 1:
            raise ValueError("a vector is one-dimensional")
        array.setflags(write=False)
        self._array = array
        self.coordinate_type = coordinate_type

    @property
    def dimension(self) -> int:
        return int(self._array.shape[0])

    def to_numpy(self) -> np.ndarray:
        """The coordinates as a read-only numpy array (no copy)."""
        return self._array

    def tolist(self) -> list[Any]:
        values: list[Any] = self._array.tolist()
        return values

    def __len__(self) -> int:
        return self.dimension

    def __iter__(self) -> Iterator[Any]:
        return iter(self._array.tolist())

    def __getitem__(self, index: Any) -> Any:
        return self._array.tolist()[index]

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, Vector) and other.coordinate_type == self.coordinate_type
                and np.array_equal(other._array, self._array))

    def __hash__(self) -> int:
        return hash((self.coordinate_type, self._array.tobytes()))

    def __repr__(self) -> str:
        head = ", ".join(f"{x:g}" for x in self._array[:4].tolist())
        more = ", ..." if self.dimension > 4 else ""
        return f"vector([{head}{more}], {self.dimension}, {self.coordinate_type})"


# Coordinate reference systems by SRID, as Neo4j names them: (name, dimensions, geographic).
CRS_BY_SRID = {7203: ("cartesian", 2, False), 9157: ("cartesian-3d", 3, False),
               4326: ("wgs-84", 2, True), 4979: ("wgs-84-3d", 3, True)}
SRID_BY_CRS = {name: srid for srid, (name, _, _) in CRS_BY_SRID.items()}


class Point:
    """A spatial point (Neo4j's POINT): x, y and for 3-D CRSs z, in one of four coordinate reference
    systems: cartesian (SRID 7203), cartesian-3d (9157), wgs-84 (4326: longitude, latitude in degrees)
    and wgs-84-3d (4979: and height in metres)."""

    __slots__ = ("srid", "coordinates")

    def __init__(self, srid: int, x: float, y: float, z: float | None = None):
        crs = CRS_BY_SRID.get(srid)
        if crs is None:
            raise ValueError(f"unknown SRID {srid!r} (one of {', '.join(map(str, CRS_BY_SRID))})")
        given = (x, y) if z is None else (x, y, z)
        if type(srid) is not int or not all(isinstance(c, (int, float)) and not isinstance(c, bool) for c in given):
            raise TypeError("a point has an integer SRID and numeric coordinates")
        coordinates = tuple(float(c) for c in given)
        if len(coordinates) != crs[1]:
            raise ValueError(f"a {crs[0]} point has {crs[1]} coordinates, not {len(coordinates)}")
        self.srid = srid
        self.coordinates = coordinates

    @classmethod
    def cartesian(cls, x: float, y: float, z: float | None = None) -> "Point":
        """A cartesian point (SRID 7203, or 9157 with z)."""
        return cls(7203 if z is None else 9157, x, y, z)

    @classmethod
    def wgs84(cls, longitude: float, latitude: float, height: float | None = None) -> "Point":
        """A geographic point in degrees (SRID 4326, or 4979 with a height in metres)."""
        return cls(4326 if height is None else 4979, longitude, latitude, height)

    @property
    def crs(self) -> str:
        return CRS_BY_SRID[self.srid][0]

    @property
    def geographic(self) -> bool:
        return CRS_BY_SRID[self.srid][2]

    @property
    def x(self) -> float:
        return self.coordinates[0]

    @property
    def y(self) -> float:
        return self.coordinates[1]

    @property
    def z(self) -> float | None:
        return self.coordinates[2] if len(self.coordinates) == 3 else None

    # the geographic names (Neo4j answers them for wgs-84 points only; here they alias x, y, z)
    longitude = x
    latitude = y
    height = z

    def to_state(self) -> tuple[int | float, ...]:
        return (self.srid, *self.coordinates)

    @classmethod
    def from_state(cls, state: Sequence[Any]) -> "Point":
        return cls(state[0], *state[1:])

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Point) and other.srid == self.srid and other.coordinates == self.coordinates

    def __hash__(self) -> int:
        return hash((Point, self.srid, self.coordinates))

    def __str__(self) -> str:
        parts = ", ".join(f"{name}: {_java_float(value)}" for name, value in zip("xyz", self.coordinates))
        return f"point({{{parts}, crs: '{self.crs}'}})"

    __repr__ = __str__


def _java_float(x: float) -> str:
    """A coordinate as Cypher prints floats (Java's Double.toString: 1.0, 0.001, 1.0E-4, 1.0E7)."""
    if x != x:
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    if x == 0.0 or 1e-3 <= abs(x) < 1e7:
        text = repr(x) if "e" not in repr(x) else format(x, "f")
        return text if "." in text else text + ".0"
    mantissa, exponent = f"{x:e}".split("e")         # normalise: one digit before the point
    digits = repr(abs(x)).replace(".", "").split("e")[0].strip("0") or "0"
    body = digits[0] + "." + (digits[1:] or "0")
    return f"{'-' if x < 0 else ''}{body}E{int(exponent)}"


_NANOS_PER_SECOND = 1_000_000_000


class Duration:
    """A Cypher duration: months, days, seconds and nanoseconds, kept apart as Neo4j does."""

    __slots__ = ("months", "days", "seconds", "nanoseconds")

    # A month averages 30.436875 days (the Gregorian 400-year cycle); fractions of months cascade
    # into days with it, as Neo4j does.
    AVERAGE_SECONDS_PER_MONTH = 2_629_746

    def __init__(self, months: int = 0, days: int = 0, seconds: int = 0, nanoseconds: int = 0):
        extra, nanoseconds = divmod(int(nanoseconds), _NANOS_PER_SECOND)
        self.months = int(months)
        self.days = int(days)
        self.seconds = int(seconds) + extra
        self.nanoseconds = nanoseconds

    @classmethod
    def approximate(cls, months: _Amount = 0, days: _Amount = 0, seconds: _Amount = 0,
                    nanoseconds: _Amount = 0) -> "Duration":
        """A duration from possibly fractional amounts: each unit's fraction flows into the next
        smaller one (months -> days -> seconds -> nanoseconds), truncating toward zero."""
        if type(months) is int and type(days) is int and type(seconds) is int and type(nanoseconds) is int:
            return cls(months, days, seconds, nanoseconds)      # whole amounts: nothing to cascade
        from fractions import Fraction

        def exact(value: _Amount) -> Fraction:
            # Floats are taken as written (0.3 means 3/10), not as their binary expansion.
            return Fraction(repr(value)) if isinstance(value, float) else Fraction(value)

        months, days, seconds, nanoseconds = map(exact, (months, days, seconds, nanoseconds))
        whole_months = int(months)
        days += (months - whole_months) * cls.AVERAGE_SECONDS_PER_MONTH / 86_400
        whole_days = int(days)
        seconds += (days - whole_days) * 86_400
        whole_seconds = int(seconds)
        nanoseconds += (seconds - whole_seconds) * _NANOS_PER_SECOND
        return cls(whole_months, whole_days, whole_seconds, int(nanoseconds))

    def order_key(self) -> tuple[int, int, int, int, int]:
        """Neo4j's ordering of durations: average length (a month 2,629,746 s, a day 86,400 s), then
        nanoseconds, then the fields (two equal keys are equal durations)."""
        length = self.months * self.AVERAGE_SECONDS_PER_MONTH + self.days * 86_400 + self.seconds
        return (length, self.nanoseconds, self.months, self.days, self.seconds)

    # Component views as Cypher exposes them (d.years, d.hours, ...); division truncates toward zero.
    @property
    def years(self) -> int:
        return self._truncating_div(self.months, 12)

    @property
    def hours(self) -> int:
        return self._truncating_div(self.seconds, 3600)

    @property
    def minutes(self) -> int:
        return self._truncating_div(self.seconds, 60)

    @property
    def total_nanoseconds(self) -> int:
        """Seconds and nanoseconds together (months and days left out)."""
        return self.seconds * _NANOS_PER_SECOND + self.nanoseconds

    def total_seconds(self) -> float:
        """Approximate length in seconds (a month counts as 30.436875 days, as in ISO averages)."""
        return (self.months * self.AVERAGE_SECONDS_PER_MONTH + self.days * 86400 + self.seconds
                + self.nanoseconds / _NANOS_PER_SECOND)

    def __neg__(self) -> "Duration":
        return Duration(-self.months, -self.days, -self.seconds, -self.nanoseconds)

    def __add__(self, other: object) -> Duration:
        if not isinstance(other, Duration):
            return NotImplemented
        return Duration(self.months + other.months, self.days + other.days,
                        self.seconds + other.seconds, self.nanoseconds + other.nanoseconds)

    def __sub__(self, other: object) -> Duration:
        if not isinstance(other, Duration):
            return NotImplemented
        return self + (-other)

    def to_state(self) -> tuple[int, int, int, int]:
        return (self.months, self.days, self.seconds, self.nanoseconds)

    @classmethod
    def from_state(cls, state: Iterable[int]) -> "Duration":
        return cls(*state)

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, Duration) and self.months == other.months and self.days == other.days
                and self.seconds == other.seconds and self.nanoseconds == other.nanoseconds)

    def __hash__(self) -> int:
        return hash((self.months, self.days, self.seconds, self.nanoseconds))

    def __str__(self) -> str:
        """ISO 8601 form as Neo4j prints it, e.g. ``P1Y2M3DT4H5M6.000000007S``."""
        years = self._truncating_div(self.months, 12)
        months = self.months - 12 * years
        total_nanos = self.seconds * _NANOS_PER_SECOND + self.nanoseconds
        sign = -1 if total_nanos < 0 else 1
        total_nanos = abs(total_nanos)
        secs, nanos = divmod(total_nanos, _NANOS_PER_SECOND)
        hours, secs = divmod(secs, 3600)
        minutes, secs = divmod(secs, 60)
        out = "P"
        if years:
            out += f"{years}Y"
        if months:
            out += f"{months}M"
        if self.days:
            out += f"{self.days}D"
        time = ""
        if hours:
            time += f"{sign * hours}H"
        if minutes:
            time += f"{sign * minutes}M"
        if secs or nanos:
            frac = f".{nanos:09d}".rstrip("0") if nanos else ""
            text = f"{secs}{frac}"
            time += f"{'-' if sign < 0 else ''}{text}S"
        if time:
            out += "T" + time
        return out if out != "P" else "PT0S"

    def __repr__(self) -> str:
        return f"Duration('{self}')"

    @staticmethod
    def _truncating_div(a: int, b: int) -> int:
        """Integer division rounding toward zero (Java's ``/``), exact for any size."""
        q = abs(a) // abs(b)
        return q if (a >= 0) == (b > 0) else -q


class Row(tuple):  # type: ignore[type-arg]
    """A result row: a tuple that also indexes by column name (``row["id"]``, ``row.id``)."""

    __slots__ = ()
    _keys: tuple[str, ...] = ()
    _index: dict[str, int] = {}

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, str):
            try:
                return tuple.__getitem__(self, self._index[key])
            except KeyError:
                raise KeyError(f"no column named {key!r}; columns are {list(self._keys)}") from None
        return tuple.__getitem__(self, key)

    def __getattr__(self, name: str) -> Any:
        try:
            return tuple.__getitem__(self, self._index[name])
        except KeyError:
            raise AttributeError(name) from None

    def keys(self) -> tuple[str, ...]:
        return self._keys

    def get(self, key: str, default: Any = None) -> Any:
        index = self._index.get(key)
        return default if index is None else tuple.__getitem__(self, index)

    def as_dict(self) -> dict[str, Any]:
        return dict(zip(self._keys, self))

    def __repr__(self) -> str:
        inner = ", ".join(f"{k}={v!r}" for k, v in zip(self._keys, self))
        return f"Row({inner})"


@functools.lru_cache(maxsize=1024)
def _row_class(keys: tuple[str, ...]) -> type[Row]:
    return type("Row", (Row,), {"__slots__": (), "_keys": keys, "_index": {k: i for i, k in enumerate(keys)}})


def row_class(columns: Sequence[str]) -> type[Row]:
    """A Row subclass bound to ``columns``, cached by column names (then ``cls(values)``)."""
    return _row_class(tuple(columns))




def is_nan(value: Any) -> bool:
    return isinstance(value, float) and math.isnan(value)
