"""TEMPORAL_FUNCTIONS: constructors from maps, strings, other temporals and the clock; truncate;
epoch functions; accessors."""
from __future__ import annotations

import datetime as dt

import pytest

from relate.errors import ArgumentError, CypherTypeError
from relate.temporal import Date, DateTime, LocalDateTime, LocalTime, Time
from relate.values import Duration
from relate.server.query.exec.functions.temporal import TEMPORAL_FUNCTIONS, temporal_property


class Ctx:
    def __init__(self, now=None):
        self.now = now


CTX = Ctx(dt.datetime(2026, 3, 16, 23, 30, 15, 123456, tzinfo=dt.timezone.utc))


def call(name, *args, ctx=CTX):
    return TEMPORAL_FUNCTIONS[name](ctx, *args)


def text(name, *args, ctx=CTX):
    return str(call(name, *args, ctx=ctx))


def test_registry_names_are_lower_case_and_complete():
    expected = {"date", "localtime", "time", "localdatetime", "datetime", "duration",
                "datetime.fromepoch", "datetime.fromepochmillis", "duration.between",
                "duration.inmonths", "duration.indays", "duration.inseconds"}
    for kind in ("date", "localtime", "time", "localdatetime", "datetime"):
        expected |= {f"{kind}.{suffix}" for suffix in ("transaction", "statement", "realtime", "truncate")}
    assert expected <= set(TEMPORAL_FUNCTIONS)
    assert all(name == name.lower() for name in TEMPORAL_FUNCTIONS)


@pytest.mark.parametrize("name, fields, expected", [
    ("date", {"year": 1984, "month": 10, "day": 11}, "1984-10-11"),
    ("date", {"year": 1984, "week": 10, "dayOfWeek": 3}, "1984-03-07"),
    ("date", {"year": 1817, "week": 1}, "1816-12-30"),
    ("date", {"year": 1984, "ordinalDay": 202}, "1984-07-20"),
    ("date", {"year": 1984, "quarter": 3, "dayOfQuarter": 45}, "1984-08-14"),
    ("date", {"YEAR": 1984}, "1984-01-01"),
    ("localtime", {"hour": 12, "minute": 31, "second": 14, "nanosecond": 789, "millisecond": 123,
                   "microsecond": 456}, "12:31:14.123456789"),
    ("time", {"hour": 12, "timezone": "+01:00"}, "12:00+01:00"),
    ("time", {"hour": 12}, "12:00Z"),
    ("localdatetime", {"year": 1984, "week": 10, "dayOfWeek": 3, "hour": 12}, "1984-03-07T12:00"),
    ("datetime", {"year": 1984, "month": 10, "day": 11, "hour": 12, "timezone": "Europe/Stockholm"},
     "1984-10-11T12:00+01:00[Europe/Stockholm]"),
    ("datetime", {"year": 1984, "ordinalDay": 202, "timezone": "Europe/Stockholm"},
     "1984-07-20T00:00+02:00[Europe/Stockholm]"),
    ("datetime", {"year": 1984, "month": 10, "day": 11, "hour": 12, "minute": 34, "second": 56,
                  "timezone": "+02:05:59"}, "1984-10-11T12:34:56+02:05:59"),
])
def test_construct_from_map(name, fields, expected):
    assert text(name, fields) == expected


@pytest.mark.parametrize("name, fields", [
    ("date", {"year": 1984, "month": 13}),
    ("date", {"month": 3}),
    ("date", {"year": 1984, "day": 3}),
    ("date", {"year": 1984, "hour": 3}),
    ("localtime", {"minute": 3}),
    ("localtime", {"hour": 24}),
    ("date", {"year": 1984, "bogus": 1}),
    ("datetime", {"year": 1984, "timezone": "Nowhere/Special"}),
])
def test_invalid_maps_raise_argument_errors(name, fields):
    with pytest.raises(ArgumentError) as info:
        call(name, fields)
    assert info.value.detail == "InvalidArgumentValue"


def test_non_integer_fields_are_type_errors():
    with pytest.raises(CypherTypeError):
        call("date", {"year": "1984"})
    with pytest.raises(CypherTypeError):
        call("date", 42)


def test_epoch_constructors_give_the_right_year():
    assert text("datetime", {"epochMillis": 1773652800000}) == "2026-03-16T09:20Z"
    assert text("datetime", {"epochSeconds": 416779, "nanosecond": 999999999}) == "1970-01-05T19:46:19.999999999Z"
    assert text("datetime", {"epochSeconds": 0, "timezone": "Europe/Stockholm"}) == \
        "1970-01-01T01:00+01:00[Europe/Stockholm]"
    assert text("date", {"epochMillis": 1773652800000}) == "2026-03-16"
    assert text("datetime.fromepoch", 416779, 999999999) == "1970-01-05T19:46:19.999999999Z"
    assert text("datetime.fromepochmillis", 237821673987) == "1977-07-15T13:34:33.987Z"
    assert text("date", call("datetime.fromepochmillis", 1773652800000)) == "2026-03-16"
    assert call("datetime.fromepochmillis", -1).epoch_seconds == -1


def test_application_examples():
    assert temporal_property(call("datetime", "2026-03-01T00:00:00Z"), "epochMillis") == 1772323200000
    assert text("date", call("datetime.fromepochmillis", 1773652800000)) == "2026-03-16"


def test_select_from_other_temporals():
    other = call("datetime", {"year": 1984, "month": 10, "day": 11, "hour": 12, "timezone": "Europe/Stockholm"})
    assert text("date", other) == "1984-10-11"
    assert text("localtime", other) == "12:00"
    assert text("time", other) == "12:00+01:00"
    assert text("localdatetime", other) == "1984-10-11T12:00"
    assert text("datetime", {"datetime": other, "timezone": "+05:00"}) == "1984-10-11T16:00+05:00"
    assert text("datetime", {"datetime": other, "day": 28, "second": 42, "timezone": "Pacific/Honolulu"}) == \
        "1984-10-28T01:00:42-10:00[Pacific/Honolulu]"
    assert text("time", {"time": other, "second": 42, "timezone": "+05:00"}) == "16:00:42+05:00"
    date = call("date", {"year": 1984, "month": 11, "day": 11})
    assert text("date", {"date": date, "week": 1}) == "1984-01-08"
    assert text("date", {"date": date, "quarter": 3}) == "1984-08-11"
    assert text("date", {"date": date, "year": 28}) == "0028-11-11"
    assert text("datetime", {"date": date, "time": call("localtime", "12:31:14.645876123")}) == \
        "1984-11-11T12:31:14.645876123Z"
    with pytest.raises(CypherTypeError):
        call("date", call("localtime", "12:00"))


def test_null_propagation():
    for name in ("date", "time", "localtime", "datetime", "localdatetime", "duration",
                 "date.transaction", "datetime.statement", "localtime.realtime"):
        assert call(name, None) is None
    for name in ("duration.between", "duration.inmonths", "duration.indays", "duration.inseconds"):
        assert call(name, None, None) is None
    assert call("date.truncate", "year", None) is None


def test_clock_uses_the_statement_time():
    assert text("datetime") == "2026-03-16T23:30:15.123456Z"
    assert text("date") == "2026-03-16"
    assert text("date", {"timezone": "Pacific/Kiritimati"}) == "2026-03-17"
    assert text("localtime.statement", "+01:00") == "00:30:15.123456"
    assert text("datetime.transaction", "Europe/Stockholm") == "2026-03-17T00:30:15.123456+01:00[Europe/Stockholm]"
    assert call("datetime") == call("datetime")
    assert isinstance(call("datetime.realtime"), DateTime)
    assert isinstance(call("date", ctx=Ctx(None)), Date)      # no statement clock: the real one


@pytest.mark.parametrize("name, unit, value, fields, expected", [
    ("date", "millennium", "date('2017-10-11')", {"day": 2}, "2000-01-02"),
    ("date", "weekYear", "localdatetime('1984-01-01T12:31')", {}, "1983-01-03"),
    ("date", "week", "date('1984-10-11')", {"dayOfWeek": 2}, "1984-10-09"),
    ("datetime", "decade", "datetime('1984-10-11T12:31:14-01:00')", {"timezone": "Europe/Stockholm"},
     "1980-01-01T00:00+01:00[Europe/Stockholm]"),
    ("datetime", "hour", "datetime('1984-10-11T12:31:14-01:00')", {"timezone": "Europe/Stockholm"},
     "1984-10-11T12:00+01:00[Europe/Stockholm]"),
    ("datetime", "quarter", "date('1984-11-11')", {}, "1984-10-01T00:00Z"),
    ("localdatetime", "second", "localdatetime('1984-10-11T12:31:14.645876123')", {"nanosecond": 2},
     "1984-10-11T12:31:14.000000002"),
    ("localtime", "millisecond", "localtime('12:31:14.645876123')", {"nanosecond": 2}, "12:31:14.645000002"),
    ("time", "day", "datetime('1984-10-11T12:31+01:00')", {}, "00:00+01:00"),
    ("time", "hour", "time('12:31:14-01:00')", {"timezone": "+01:00"}, "12:00+01:00"),
])
def test_truncate(name, unit, value, fields, expected):
    kind, _, literal = value.partition("(")
    source = call(kind, literal.strip(")'"))
    assert text(f"{name}.truncate", unit, source, fields) == expected


def test_truncate_rejects_units_the_type_cannot_hold():
    with pytest.raises(ArgumentError):
        call("date.truncate", "hour", call("date", "2017-10-11"))
    with pytest.raises(ArgumentError):
        call("localtime.truncate", "year", call("localtime", "12:00"))
    with pytest.raises(ArgumentError):
        call("date.truncate", "fortnight", call("date", "2017-10-11"))


def test_accessors():
    d = call("datetime", {"year": 1984, "month": 11, "day": 11, "hour": 12, "minute": 31, "second": 14,
                          "nanosecond": 645876123, "timezone": "Europe/Stockholm"})
    got = {key: temporal_property(d, key) for key in (
        "year", "quarter", "month", "week", "weekYear", "day", "ordinalDay", "weekDay", "dayOfWeek",
        "dayOfQuarter", "hour", "minute", "second", "millisecond", "microsecond", "nanosecond",
        "timezone", "offset", "offsetMinutes", "offsetSeconds", "epochSeconds", "epochMillis")}
    assert got == {"year": 1984, "quarter": 4, "month": 11, "week": 45, "weekYear": 1984, "day": 11,
                   "ordinalDay": 316, "weekDay": 7, "dayOfWeek": 7, "dayOfQuarter": 42, "hour": 12,
                   "minute": 31, "second": 14, "millisecond": 645, "microsecond": 645876,
                   "nanosecond": 645876123, "timezone": "Europe/Stockholm", "offset": "+01:00",
                   "offsetMinutes": 60, "offsetSeconds": 3600, "epochSeconds": 469020674,
                   "epochMillis": 469020674645}
    assert temporal_property(call("time", "12:00Z"), "timezone") == "Z"
    assert temporal_property(call("date", "1984-01-01"), "weekYear") == 1983
    assert temporal_property(None, "year") is None
    with pytest.raises(ArgumentError):
        temporal_property(call("date", "1984-01-01"), "hour")
    with pytest.raises(ArgumentError):
        temporal_property(call("localtime", "12:00"), "nonsense")


def test_duration_accessors():
    d = call("duration", {"years": 1, "months": 4, "days": 10, "hours": 1, "minutes": 1, "seconds": 1,
                          "nanoseconds": 111111111})
    keys = ("years", "quarters", "months", "weeks", "days", "hours", "minutes", "seconds", "milliseconds",
            "microseconds", "nanoseconds", "quartersOfYear", "monthsOfQuarter", "monthsOfYear", "daysOfWeek",
            "minutesOfHour", "secondsOfMinute", "millisecondsOfSecond", "microsecondsOfSecond",
            "nanosecondsOfSecond")
    assert [temporal_property(d, k) for k in keys] == [
        1, 5, 16, 1, 10, 1, 61, 3661, 3661111, 3661111111, 3661111111111, 1, 1, 4, 3, 1, 1, 111, 111111,
        111111111]
    negative = call("duration", "PT-23H-59M-59.9S")
    assert (temporal_property(negative, "seconds"), temporal_property(negative, "nanosecondsOfSecond")) == \
        (-86400, 100000000)


@pytest.mark.parametrize("fields, expected", [
    ({"days": 14, "hours": 16, "minutes": 12}, "P14DT16H12M"),
    ({"months": 5, "days": 1.5}, "P5M1DT12H"),
    ({"months": 0.75}, "P22DT19H51M49.5S"),
    ({"weeks": 2.5}, "P17DT12H"),
    ({"days": 14, "seconds": 70, "nanoseconds": 1}, "P14DT1M10.000000001S"),
    ({"minutes": 1.5, "seconds": 1}, "PT1M31S"),
    ({"seconds": 0.1}, "PT0.1S"),
    ({"Years": 1}, "P1Y"),
])
def test_duration_from_map(fields, expected):
    assert text("duration", fields) == expected


def test_duration_errors():
    with pytest.raises(ArgumentError):
        call("duration", {"fortnights": 1})
    with pytest.raises(CypherTypeError):
        call("duration", {"days": "1"})
    with pytest.raises(ArgumentError):
        call("duration", "P")
    assert isinstance(call("duration", "PT1S"), Duration)


def test_types_returned():
    assert type(call("date", "2015-07-21")) is Date
    assert type(call("localtime", "21:40")) is LocalTime
    assert type(call("time", "21:40")) is Time
    assert type(call("localdatetime", "2015-07-21T21:40")) is LocalDateTime
    assert type(call("datetime", "2015-07-21T21:40")) is DateTime


@pytest.mark.parametrize("expression, expected", [
    # Neo4j prints seconds always and a fraction as long as it needs (Java's ISO formatters)
    ("toString(time('08:40'))", "08:40:00Z"),
    ("toString(localtime('08:40'))", "08:40:00"),
    ("toString(localtime('12:31:14.645876123'))", "12:31:14.645876123"),
    ("toString(time('08:40:05.5+01:00'))", "08:40:05.5+01:00"),
    ("toString(datetime('2024-01-01T10:00Z'))", "2024-01-01T10:00:00Z"),
    ("toString(localdatetime('2024-01-01T10:00'))", "2024-01-01T10:00:00"),
    ("toString(datetime({year: 1984, month: 10, day: 11, hour: 12, minute: 31, second: 14, millisecond: 341, "
     "timezone: 'Europe/Stockholm'}))", "1984-10-11T12:31:14.341+01:00[Europe/Stockholm]"),
    ("toString(date('2024-01-02'))", "2024-01-02"),
    ("time('08:40') + '-' + time('09:34')", "08:40:00Z-09:34:00Z"),
    ("toStringList([localtime('08:40')])[0]", "08:40:00"),
    ("apoc.convert.toString(localtime('08:40'))", "08:40"),        # APOC prints Java's toString()
])
def test_temporal_values_as_strings_are_neo4js(expression, expected):
    import relate
    with relate.connect(":memory:") as db:
        assert db.execute(f"RETURN {expression} AS s").fetchone()[0] == expected


def test_a_space_in_a_zone_name_stands_for_an_underscore():
    import relate
    with relate.connect(":memory:") as db:
        value = db.execute("RETURN datetime({year: 2022, month: 6, day: 14, hour: 3, "
                           "timezone: 'America/Los Angeles'}) AS d").fetchone()[0]
    assert str(value) == "2022-06-14T03:00-07:00[America/Los_Angeles]"
