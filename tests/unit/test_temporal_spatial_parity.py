"""Temporal and spatial values as the Neo4j Cypher manual has them: truncate without an input (now),
the quarterDay accessor, quarter date strings, offsets that must match a named zone, longitudes
wrapped into [-180, 180] and z as the height of a geographic point."""
from __future__ import annotations

import datetime as dt

import pytest

import relate
from relate.errors import ArgumentError
from relate.temporal import Date, DateTime, LocalDateTime, LocalTime, Time
from relate.values import Point
from relate.server.query.exec.functions.temporal import TEMPORAL_FUNCTIONS


@pytest.fixture
def db():
    database = relate.connect(":memory:")
    yield database
    database.close()


def one(db, query, params=None):
    rows = db.execute(query, params or {}).fetchall()
    assert len(rows) == 1
    return tuple(rows[0])


class Ctx:
    def __init__(self, now):
        self.now = now


CTX = Ctx(dt.datetime(2026, 5, 17, 23, 30, 15, 123456, tzinfo=dt.timezone.utc))


# -- 1. kind.truncate(unit) truncates the statement's now ---------------------------------------
@pytest.mark.parametrize("name, unit, expected", [
    ("date.truncate", "year", "2026-01-01"),
    ("date.truncate", "quarter", "2026-04-01"),
    ("datetime.truncate", "day", "2026-05-17T00:00Z"),
    ("datetime.truncate", "hour", "2026-05-17T23:00Z"),
    ("localdatetime.truncate", "month", "2026-05-01T00:00"),
    ("time.truncate", "minute", "23:30Z"),
    ("localtime.truncate", "second", "23:30:15"),
])
def test_truncate_without_input_uses_the_statement_clock(name, unit, expected):
    assert str(TEMPORAL_FUNCTIONS[name](CTX, unit)) == expected


@pytest.mark.parametrize("kind, unit, cls", [
    ("date", "year", Date), ("datetime", "hour", DateTime), ("localdatetime", "day", LocalDateTime),
    ("time", "minute", Time), ("localtime", "second", LocalTime),
])
def test_truncate_with_one_argument_in_a_query(db, kind, unit, cls):
    value, same = one(db, f"RETURN {kind}.truncate('{unit}'), "
                          f"{kind}.truncate('{unit}') = {kind}.truncate('{unit}', {kind}())")
    assert isinstance(value, cls) and same is True


def test_truncate_year_without_input_is_january_first_of_this_year(db):
    (value,) = one(db, "RETURN date.truncate('year')")
    assert value.month == 1 and value.day == 1
    assert value.year in (dt.datetime.now(dt.timezone.utc).year, dt.date.today().year)


def test_truncate_keeps_null_and_explicit_inputs(db):
    assert one(db, "RETURN date.truncate('year', null), date.truncate('month', date('2017-11-11'))") \
        == (None, Date(2017, 11, 1))


# -- 2. quarterDay ---------------------------------------------------------------------------------
def test_quarter_day_is_an_alias_of_day_of_quarter(db):
    assert one(db, "WITH date('1984-11-11') AS d RETURN d.quarterDay, d.dayOfQuarter") == (42, 42)
    assert one(db, "RETURN datetime('1984-11-11T12:00Z').quarterDay, "
                   "localdatetime('1984-11-11T12:00').quarterDay") == (42, 42)


# -- 3. quarter date strings -----------------------------------------------------------------------
@pytest.mark.parametrize("text, expected", [
    ("2015-Q2-60", Date(2015, 5, 30)), ("2015Q260", Date(2015, 5, 30)),
    ("2015-Q2", Date(2015, 4, 1)), ("2015Q2", Date(2015, 4, 1)),
    ("2015-Q4-92", Date(2015, 12, 31)), ("2016-Q1-91", Date(2016, 3, 31)),
])
def test_quarter_dates(db, text, expected):
    assert one(db, "RETURN date($t)", {"t": text}) == (expected,)


def test_quarter_dates_in_date_times(db):
    local, zoned = one(db, "RETURN localdatetime('2015-Q2-60T12:00'), datetime('2015Q260T12:00+01:00')")
    assert str(local) == "2015-05-30T12:00"
    assert str(zoned) == "2015-05-30T12:00+01:00"


@pytest.mark.parametrize("text", ["2015-Q5", "2015-Q0-01", "2015-Q1-91", "2015-Q2-00", "2015-Q2-6"])
def test_invalid_quarter_dates(db, text):
    with pytest.raises(ArgumentError) as raised:
        one(db, "RETURN date($t)", {"t": text})
    assert raised.value.code == "Neo.ClientError.Statement.ArgumentError"


# -- 4. an offset must match the named zone --------------------------------------------------------
def test_offset_that_contradicts_the_zone_is_an_error(db):
    with pytest.raises(ArgumentError, match="Timezone and offset do not match") as raised:
        one(db, "RETURN datetime('2015-07-21T21:40:32+05:00[Europe/Stockholm]')")
    assert raised.value.code == "Neo.ClientError.Statement.ArgumentError"


@pytest.mark.parametrize("text, expected", [
    ("2015-07-21T21:40:32+02:00[Europe/Stockholm]", "2015-07-21T21:40:32+02:00[Europe/Stockholm]"),
    ("2015-01-21T21:40:32+0100[Europe/Stockholm]", "2015-01-21T21:40:32+01:00[Europe/Stockholm]"),
    # in the autumn overlap both offsets are valid and choose the instant
    ("2017-10-29T02:30+02:00[Europe/Stockholm]", "2017-10-29T02:30+02:00[Europe/Stockholm]"),
    ("2017-10-29T02:30+01:00[Europe/Stockholm]", "2017-10-29T02:30+01:00[Europe/Stockholm]"),
])
def test_offset_that_matches_the_zone_is_kept(db, text, expected):
    assert str(one(db, "RETURN datetime($t)", {"t": text})[0]) == expected


def test_winter_offset_in_summer_is_an_error(db):
    with pytest.raises(ArgumentError) as raised:
        one(db, "RETURN datetime('2015-07-21T21:40:32+01:00[Europe/Stockholm]')")
    assert raised.value.code == "Neo.ClientError.Statement.ArgumentError"


# -- 5. points -------------------------------------------------------------------------------------
@pytest.mark.parametrize("longitude, x", [
    (190, -170.0), (-190, 170.0), (180, 180.0), (-180, -180.0), (540, 180.0), (-540, -180.0),
    (370.5, 10.5), (725, 5.0), (12.5, 12.5),
])
def test_longitude_wraps_into_range(db, longitude, x):
    (p,) = one(db, "RETURN point({latitude: 10, longitude: $lon})", {"lon": longitude})
    assert p == Point(4326, x, 10.0) and p.x == x


def test_longitude_wraps_for_x_y_in_a_geographic_crs(db):
    assert one(db, "RETURN point({x: 190, y: 10, crs: 'wgs-84'}).x") == (-170.0,)


@pytest.mark.parametrize("latitude", [100, -90.5, 91])
def test_latitude_out_of_range_is_an_error(db, latitude):
    with pytest.raises(ArgumentError) as raised:
        one(db, "RETURN point({latitude: $lat, longitude: 0})", {"lat": latitude})
    assert raised.value.code == "Neo.ClientError.Statement.ArgumentError"


def test_z_is_the_height_of_a_geographic_point(db):
    row = one(db, "WITH point({latitude: 12, longitude: 56, z: 100}) AS p "
                  "RETURN p.srid, p.crs, p.longitude, p.latitude, p.height, p.z, p")
    assert row[:6] == (4979, "wgs-84-3d", 56.0, 12.0, 100.0, 100.0)
    assert row[6] == Point(4979, 56.0, 12.0, 100.0)
    assert one(db, "RETURN point({latitude: 12, longitude: 56, height: 100}) = "
                   "point({latitude: 12, longitude: 56, z: 100})") == (True,)
    assert one(db, "RETURN point({latitude: 12, longitude: 56, z: null})") == (None,)


def test_z_with_a_2d_geographic_crs_is_an_error(db):
    with pytest.raises(ArgumentError) as raised:
        one(db, "RETURN point({latitude: 12, longitude: 56, z: 100, crs: 'wgs-84'})")
    assert raised.value.code == "Neo.ClientError.Statement.ArgumentError"
