"""Spatial functions over POINT values: point(), point.distance() (and its older name distance()),
point.withinBBox(). Distances are Euclidean for cartesian points and great-circle metres (haversine, on
Neo4j's earth radius) for WGS-84 ones; points of different CRSs have no distance (null)."""
from __future__ import annotations

import math
from typing import Any

from relate.protocol.errors import ArgumentError
from relate.protocol.values import CRS_BY_SRID, SRID_BY_CRS, Point
from relate.server.query.exec.functions.registry import function, type_error

EARTH_RADIUS_M = 6378140.0          # the radius Neo4j's distance uses, so the same points give the same metres
_CARTESIAN_KEYS = ("x", "y", "z")
_GEOGRAPHIC_KEYS = ("longitude", "latitude", "height")
_OTHER_KEYS = frozenset(("crs", "srid"))


def _invalid(message: str) -> ArgumentError:
    return ArgumentError(message, detail="InvalidArgumentValue", phase="runtime")


def _number(key: str, value: Any) -> float:
    if type(value) not in (int, float):
        raise type_error("point", value, f"a number for the point's {key}")
    return float(value)


def make_point(spec: dict) -> Point | None:
    """point({x, y[, z]} | {longitude, latitude[, height]} [, crs | srid]), as Neo4j checks it."""
    for key in spec:
        if key not in _OTHER_KEYS and key not in _CARTESIAN_KEYS and key not in _GEOGRAPHIC_KEYS:
            raise _invalid(f"Unknown key '{key}' for creating new point")
    cartesian = [k for k in _CARTESIAN_KEYS if k in spec]
    geographic = [k for k in _GEOGRAPHIC_KEYS if k in spec]
    if "z" in spec and "x" not in spec and "y" not in spec and "longitude" in spec and "latitude" in spec:
        # Neo4j takes z as the height of a geographic point (z winning over a height given too)
        spec = {**{k: v for k, v in spec.items() if k not in ("z", "height")}, "height": spec["z"]}
        cartesian, geographic = [], list(_GEOGRAPHIC_KEYS)
    if cartesian and geographic:
        raise _invalid("A point cannot have both cartesian (x, y, z) and geographic (longitude, latitude, "
                       "height) coordinates")
    keys = cartesian or geographic
    names = _CARTESIAN_KEYS if cartesian else _GEOGRAPHIC_KEYS
    if keys not in (list(names[:2]), list(names)):
        raise _invalid("A point needs x and y (and z for 3-D), or longitude and latitude (and height for 3-D)")
    values = [spec[k] for k in keys]
    if any(v is None for v in values):
        return None
    coordinates = [_number(k, v) for k, v in zip(keys, values)]
    srid = _srid(spec, geographic=bool(geographic), dimensions=len(coordinates))
    if CRS_BY_SRID[srid][1] != len(coordinates):
        raise _invalid(f"Cannot create a point with {len(coordinates)} coordinates in the "
                       f"{CRS_BY_SRID[srid][0]} CRS ({CRS_BY_SRID[srid][1]} dimensions)")
    if CRS_BY_SRID[srid][2]:
        longitude, latitude = coordinates[0], coordinates[1]
        if not -90.0 <= latitude <= 90.0:
            raise _invalid(f"Cannot create a WGS-84 point with a latitude of {latitude}: it must be in "
                           "[-90, 90]")
        if not math.isfinite(longitude):
            raise _invalid(f"Cannot create a WGS-84 point with a longitude of {longitude}")
        coordinates[0] = wrap_longitude(longitude)
    return Point(srid, *coordinates)


def wrap_longitude(longitude: float) -> float:
    """A longitude brought into [-180, 180] by whole turns, as Neo4j does (190 is -170; 180 and -180
    stay as they are)."""
    if longitude > 180.0:
        return longitude - 360.0 * math.ceil((longitude - 180.0) / 360.0)
    if longitude < -180.0:
        return longitude + 360.0 * math.ceil((-180.0 - longitude) / 360.0)
    return longitude


def _srid(spec: dict, geographic: bool, dimensions: int) -> int:
    crs, srid = spec.get("crs"), spec.get("srid")
    if crs is not None and srid is not None:
        raise _invalid("A point takes either crs or srid, not both")
    if crs is not None:
        if type(crs) is not str or crs.lower() not in SRID_BY_CRS:
            raise _invalid(f"Unknown coordinate reference system: {crs!r} (one of "
                           f"{', '.join(SRID_BY_CRS)})")
        chosen = SRID_BY_CRS[crs.lower()]
    elif srid is not None:
        if type(srid) is not int or srid not in CRS_BY_SRID:
            raise _invalid(f"Unknown coordinate reference system: SRID {srid!r} (one of "
                           f"{', '.join(map(str, CRS_BY_SRID))})")
        chosen = srid
    else:
        chosen = {(False, 2): 7203, (False, 3): 9157, (True, 2): 4326, (True, 3): 4979}[(geographic, dimensions)]
    if geographic and not CRS_BY_SRID[chosen][2]:        # x/y in a WGS-84 CRS is fine (Neo4j's example)
        raise _invalid(f"Geographic coordinates (longitude, latitude) cannot be in the {CRS_BY_SRID[chosen][0]} CRS")
    return chosen


@function("point", 1, description="A spatial point from a map: {x, y[, z]} or {longitude, latitude[, height]}, "
                                  "with an optional crs or srid.")
def point(ctx, spec):
    if spec is None:
        return None
    if type(spec) is not dict:
        raise type_error("point", spec, "a Map")
    return make_point(spec)


def _points(name: str, *values) -> bool:
    """Whether every value is a point (False: one is null); a TypeError for anything else."""
    for value in values:
        if value is None:
            return False
        if type(value) is not Point:
            raise type_error(name, value, "a Point")
    return True


def distance(a: Point, b: Point) -> float | None:
    """Metres between WGS-84 points (great circle, then height by Pythagoras), else Euclidean; None
    for points of different CRSs."""
    if a.srid != b.srid:
        return None
    if not a.geographic:
        return math.dist(a.coordinates, b.coordinates)
    lon1, lat1, lon2, lat2 = map(math.radians, (a.x, a.y, b.x, b.y))
    h = math.sin((lat2 - lat1) / 2) ** 2 + math.cos(lat1) * math.cos(lat2) * math.sin((lon2 - lon1) / 2) ** 2
    ground = 2 * EARTH_RADIUS_M * math.asin(min(1.0, math.sqrt(h)))
    if a.z is None:
        return ground
    return math.hypot(ground, a.z - b.z)


@function("point.distance", 2, description="The distance between two points of one CRS: metres for "
                                           "WGS-84, Euclidean for cartesian; null across CRSs.")
def point_distance(ctx, a, b):
    return distance(a, b) if _points("point.distance", a, b) else None


@function("distance", 2, description="point.distance under its older name (Neo4j 4, FalkorDB).")
def distance_(ctx, a, b):
    return distance(a, b) if _points("distance", a, b) else None


@function("point.withinBBox", 3, description="Whether a point lies in the box of two corners (lower-left, "
                                             "upper-right); a WGS-84 box may cross the antimeridian.")
def within_bbox(ctx, p, lower_left, upper_right):
    if not _points("point.withinBBox", p, lower_left, upper_right):
        return None
    if not (p.srid == lower_left.srid == upper_right.srid):
        return None
    for axis in range(1, len(p.coordinates)):
        if not lower_left.coordinates[axis] <= p.coordinates[axis] <= upper_right.coordinates[axis]:
            return False
    x, low, high = p.x, lower_left.x, upper_right.x
    if p.geographic and low > high:          # the box crosses the antimeridian
        return x >= low or x <= high
    return low <= x <= high
