"""POINT values: point(), point.distance(), point.withinBBox(), property access, equality, ordering,
storage (a property that survives a restart, an index seek) and the errors Neo4j gives."""
from __future__ import annotations

import math

import pytest

from relate.errors import ArgumentError, CypherTypeError
from relate.server.engine import Database
from relate.values import Point
from tests.helpers import rows


def one(db, text, params=None):
    (row,) = rows(db, text, params)
    return row


def test_point_from_a_map_in_each_crs(db):
    cartesian, cartesian_3d, wgs, wgs_3d = one(db, "RETURN point({x: 1, y: 2}), point({x: 1, y: 2, z: 3}), "
                                                   "point({latitude: 55.6, longitude: 12.5}), "
                                                   "point({longitude: 12.5, latitude: 55.6, height: 10})")
    assert cartesian == Point(7203, 1.0, 2.0) and cartesian_3d == Point(9157, 1.0, 2.0, 3.0)
    assert wgs == Point(4326, 12.5, 55.6) and wgs_3d == Point(4979, 12.5, 55.6, 10.0)
    assert one(db, "RETURN point({x: 2.3, y: 4.5, crs: 'WGS-84'}).srid, point({x: 1, y: 2, srid: 7203}).crs") \
        == (4326, "cartesian")
    assert one(db, "RETURN point(null), point({x: 1, y: null})") == (None, None)


@pytest.mark.parametrize("spec", ["{x: 1}", "{x: 1, y: 2, latitude: 3}", "{x: 1, y: 2, crs: 'mars'}",
                                  "{x: 1, y: 2, srid: 9157}", "{latitude: 91, longitude: 0}",
                                  "{x: 1, y: 2, w: 3}",
                                  "{longitude: 1, latitude: 2, crs: 'cartesian'}", "{x: 1, y: 2, crs: 'wgs-84', srid: 4326}"])
def test_invalid_point_maps_are_argument_errors(db, spec):
    with pytest.raises(ArgumentError):
        rows(db, f"RETURN point({spec})")


def test_wrong_types_are_type_errors(db):
    with pytest.raises(CypherTypeError):
        rows(db, "RETURN point({x: 'a', y: 2})")
    with pytest.raises(CypherTypeError):
        rows(db, "RETURN point(5)")
    with pytest.raises(CypherTypeError):
        rows(db, "RETURN point.distance(point({x: 1, y: 1}), 5)")


def test_distances(db):
    assert one(db, "RETURN point.distance(point({x: 0, y: 0}), point({x: 3, y: 4})), "
                   "point.distance(point({x: 0, y: 0, z: 0}), point({x: 1, y: 2, z: 2}))") == (5.0, 3.0)
    metres, same, across, nulls = one(db, """
        WITH point({latitude: 55.6761, longitude: 12.5683}) AS copenhagen,
             point({latitude: 59.3293, longitude: 18.0686}) AS stockholm
        RETURN point.distance(copenhagen, stockholm), distance(copenhagen, stockholm) = point.distance(copenhagen, stockholm),
               point.distance(copenhagen, point({x: 0, y: 0})), point.distance(copenhagen, null)""")
    assert 520_000 < metres < 525_000 and same and across is None and nulls is None
    # on Neo4j's earth radius, a degree of latitude is exactly pi/180 of it
    assert one(db, "RETURN point.distance(point({latitude: 0, longitude: 0}), point({latitude: 1, longitude: 0}))")[0] \
        == pytest.approx(6378140.0 * math.pi / 180)
    up = one(db, "RETURN point.distance(point({latitude: 0, longitude: 0, height: 0}), "
                 "point({latitude: 0, longitude: 0, height: 100}))")[0]
    assert up == pytest.approx(100.0)


def test_within_bbox_including_across_the_antimeridian(db):
    inside, outside, across, mixed = one(db, """
        RETURN point.withinBBox(point({x: 1, y: 1}), point({x: 0, y: 0}), point({x: 2, y: 2})),
               point.withinBBox(point({x: 3, y: 1}), point({x: 0, y: 0}), point({x: 2, y: 2})),
               point.withinBBox(point({longitude: 179.5, latitude: 0}), point({longitude: 179, latitude: -1}),
                                point({longitude: -179, latitude: 1})),
               point.withinBBox(point({x: 1, y: 1}), point({longitude: 0, latitude: 0}), point({x: 2, y: 2}))""")
    assert (inside, outside, across, mixed) == (True, False, True, None)


def test_fields_strings_types_and_errors(db):
    assert one(db, "WITH point({longitude: 12.5, latitude: 55.6, height: 3}) AS p "
                   "RETURN p.x, p.y, p.z, p.longitude, p.latitude, p.height, p.crs, p.srid") \
        == (12.5, 55.6, 3.0, 12.5, 55.6, 3.0, "wgs-84-3d", 4979)
    assert one(db, "RETURN toString(point({x: 1, y: 2})), valueType(point({x: 1, y: 2}))") \
        == ("point({x: 1.0, y: 2.0, crs: 'cartesian'})", "POINT NOT NULL")
    with pytest.raises(ArgumentError):
        rows(db, "RETURN point({x: 1, y: 2}).latitude")
    with pytest.raises(ArgumentError):
        rows(db, "RETURN point({x: 1, y: 2}).z")


def test_equality_ordering_and_grouping(db):
    assert one(db, "RETURN point({x: 1, y: 2}) = point({x: 1.0, y: 2.0}), "
                   "point({x: 1, y: 2}) = point({x: 1, y: 2, crs: 'wgs-84'}), "
                   "point({x: 1, y: 1}) < point({x: 2, y: 2})") == (True, False, None)
    ordered = [r[0] for r in rows(db, "UNWIND [1, point({x: 2, y: 1}), 'a', point({x: 1, y: 1}), [1], null] AS v "
                                      "RETURN v ORDER BY v")]
    assert ordered == [[1], Point(7203, 1.0, 1.0), Point(7203, 2.0, 1.0), "a", 1, None]
    assert one(db, "UNWIND [point({x: 1, y: 1}), point({x: 1.0, y: 1.0}), point({x: 2, y: 1})] AS p "
                   "RETURN count(DISTINCT p)") == (2,)


def test_points_are_stored_indexed_and_survive_a_restart(tmp_path):
    database = Database.open(str(tmp_path / "db"))
    rows(database, "CREATE INDEX city_location FOR (c:City) ON (c.location)")
    rows(database, "UNWIND $cities AS c CREATE (:City {name: c.name, location: point({latitude: c.lat, longitude: c.lon}), "
                   "corners: [point({x: 0, y: 0}), point({x: 1, y: 1, z: 1})]})",
         {"cities": [{"name": "Copenhagen", "lat": 55.6761, "lon": 12.5683},
                     {"name": "Oslo", "lat": 59.9139, "lon": 10.7522}]})
    database.close()
    reopened = Database.open(str(tmp_path / "db"))
    assert rows(reopened, "MATCH (c:City) WHERE c.location = $p RETURN c.name, c.corners",
                {"p": Point.wgs84(10.7522, 59.9139)}) == [("Oslo", [Point.cartesian(0, 0), Point.cartesian(1, 1, 1)])]
    near = rows(reopened, "MATCH (c:City) WHERE point.distance(c.location, point({latitude: 55.7, longitude: 12.6})) "
                          "< 10000 RETURN c.name")
    assert near == [("Copenhagen",)]
    reopened.close()
