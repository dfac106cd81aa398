"""relate.temporal classes: construction, Cypher strings, equality, ordering, state and Python interop."""
from __future__ import annotations

import copy
import datetime as dt
import pickle

import pytest

from relate.errors import ArgumentError
from relate.temporal import Date, DateTime, LocalDateTime, LocalTime, Time
from relate.temporal_zones import format_offset, named_zone, offset_zone, parse_zone, zone_id
from relate.values import Duration

STOCKHOLM = named_zone("Europe/Stockholm")
PLUS_ONE = offset_zone(3600)


def test_types_are_python_datetime_types():
    assert isinstance(Date(1984, 10, 11), dt.date)
    assert isinstance(LocalTime(12), dt.time) and isinstance(Time(12), dt.time)
    assert isinstance(LocalDateTime(1984, 1, 1), dt.datetime)
    assert isinstance(DateTime(1984, 1, 1), dt.datetime)


def test_nanosecond_and_microsecond_agree():
    t = LocalTime(12, 31, 14, nanosecond=645876123)
    assert (t.microsecond, t.nanosecond) == (645876, 645876123)
    assert LocalTime(1, 2, 3, 5).nanosecond == 5000


@pytest.mark.parametrize("value, text", [
    (Date(1984, 10, 11), "1984-10-11"),
    (Date(28, 11, 11), "0028-11-11"),
    (LocalTime(12), "12:00"),
    (LocalTime(12, 31, 14), "12:31:14"),
    (LocalTime(12, 31, 14, nanosecond=645_000_000), "12:31:14.645"),
    (LocalTime(12, 31, 14, nanosecond=645_876_000), "12:31:14.645876"),
    (LocalTime(12, 31, 14, nanosecond=3), "12:31:14.000000003"),
    (LocalTime(0, 0, 0, nanosecond=100_000_000), "00:00:00.100"),
    (Time(12, 31), "12:31Z"),
    (Time(12, 34, 56, tzinfo=offset_zone(2 * 3600 + 5 * 60 + 59)), "12:34:56+02:05:59"),
    (Time(12, tzinfo=offset_zone(-3600)), "12:00-01:00"),
    (LocalDateTime(1984, 10, 11, 12, 31, 14, nanosecond=645876123), "1984-10-11T12:31:14.645876123"),
    (DateTime(1984, 10, 11, 12, 31, tzinfo=PLUS_ONE), "1984-10-11T12:31+01:00"),
    (DateTime(1984, 10, 11, 12, tzinfo=STOCKHOLM), "1984-10-11T12:00+01:00[Europe/Stockholm]"),
    (DateTime(1984, 7, 20, tzinfo=STOCKHOLM), "1984-07-20T00:00+02:00[Europe/Stockholm]"),
    (DateTime(1818, 7, 21, tzinfo=STOCKHOLM), "1818-07-21T00:00+00:53:28[Europe/Stockholm]"),
])
def test_cypher_strings(value, text):
    assert str(value) == text
    assert repr(value) == f"{type(value).__name__}('{text}')"


def test_invalid_values_raise_argument_error():
    with pytest.raises(ArgumentError):
        Date(1984, 13, 1)
    with pytest.raises(ArgumentError):
        LocalTime(24)
    with pytest.raises(ArgumentError):
        LocalTime(1, nanosecond=1_000_000_000)
    with pytest.raises(ArgumentError):
        LocalTime(1, tzinfo=PLUS_ONE)
    with pytest.raises(ArgumentError):
        Time(1, tzinfo=STOCKHOLM)
    with pytest.raises(ArgumentError):
        LocalDateTime(2020, 2, 30)


def test_values_are_immutable():
    t = LocalTime(1, nanosecond=5)
    with pytest.raises(AttributeError):
        t._nanosecond = 6


def test_equality_includes_nanoseconds_and_matches_plain_python():
    assert LocalTime(1, nanosecond=5) != LocalTime(1)
    assert LocalTime(1, 2, 3) == dt.time(1, 2, 3)
    assert hash(LocalTime(1, 2, 3)) == hash(dt.time(1, 2, 3))
    assert LocalDateTime(2020, 1, 1) == dt.datetime(2020, 1, 1)
    assert Date(2020, 1, 1) == dt.date(2020, 1, 1)
    assert Date(2020, 1, 1) != LocalDateTime(2020, 1, 1)
    assert LocalTime(12) != Time(12)


def test_datetime_equality_needs_same_zone_not_just_same_instant():
    a = DateTime(2020, 1, 1, 13, tzinfo=PLUS_ONE)
    b = DateTime(2020, 1, 1, 12, tzinfo=offset_zone(0))
    c = DateTime(2020, 1, 1, 13, tzinfo=STOCKHOLM)
    assert a.epoch_seconds == b.epoch_seconds == c.epoch_seconds
    assert a != b and a != c
    assert a == DateTime(2020, 1, 1, 13, tzinfo=offset_zone(3600))
    # Same instant, different zones: still a total order (ties broken by wall time, as Neo4j does).
    assert (a < b) != (b < a)
    assert DateTime(2020, 1, 1, 14, tzinfo=PLUS_ONE) > b


def test_ordering():
    assert Time(10, tzinfo=PLUS_ONE) < Time(9, 35)          # 09:00Z before 09:35Z
    assert sorted([LocalTime(3), LocalTime(1, nanosecond=5), LocalTime(1)])[1] == LocalTime(1, nanosecond=5)
    assert DateTime(1980, 12, 11, tzinfo=offset_zone(0)) < DateTime(1984, 10, 11, tzinfo=offset_zone(5 * 3600))
    with pytest.raises(TypeError):
        LocalDateTime(2020, 1, 1) < DateTime(2020, 1, 1)  # noqa: B015 - the comparison itself raises


@pytest.mark.parametrize("value", [
    Date(1984, 10, 11), LocalTime(12, 31, 14, nanosecond=645876123),
    Time(12, 31, 14, tzinfo=offset_zone(-7200), nanosecond=7),
    LocalDateTime(1984, 10, 11, 12, 31, nanosecond=1),
    DateTime(1984, 10, 11, 12, 31, tzinfo=STOCKHOLM, nanosecond=999999999),
    DateTime(2017, 10, 29, 2, 30, tzinfo=STOCKHOLM, fold=1),
    DateTime(1984, 10, 11, tzinfo=offset_zone(5 * 3600 + 45 * 60)),
])
def test_state_pickle_and_copy_round_trips(value):
    state = value.to_state()
    assert all(isinstance(part, (int, str)) for part in state)
    again = type(value).from_state(state)
    assert again == value and str(again) == str(value)
    assert pickle.loads(pickle.dumps(value)) == value
    assert copy.deepcopy(value) == value


def test_python_arithmetic_keeps_the_types():
    assert type(Date(2020, 1, 31) + dt.timedelta(days=1)) is Date
    moved = DateTime(2020, 1, 1, tzinfo=PLUS_ONE, nanosecond=123456789) + dt.timedelta(days=1)
    assert type(moved) is DateTime and str(moved) == "2020-01-02T00:00:00.123456+01:00"
    assert type(DateTime.now()) is DateTime and DateTime.now().tzinfo is not None


def test_replace_and_to_python():
    t = LocalTime(12, nanosecond=645876123)
    assert t.replace(hour=1) == LocalTime(1, nanosecond=645876123)
    assert t.to_python() == dt.time(12, 0, 0, 645876) and type(t.to_python()) is dt.time
    d = DateTime(2020, 1, 1, tzinfo=STOCKHOLM)
    assert type(d.to_python()) is dt.datetime and d.to_python().tzinfo is STOCKHOLM


def test_of_local_resolves_gaps_and_overlaps_as_java_does():
    gap = DateTime.of_local(LocalDateTime(2017, 3, 26, 2, 30), STOCKHOLM)
    assert str(gap) == "2017-03-26T03:30+02:00[Europe/Stockholm]"
    overlap = DateTime.of_local(LocalDateTime(2017, 10, 29, 2, 30), STOCKHOLM)
    assert str(overlap) == "2017-10-29T02:30+02:00[Europe/Stockholm]"
    later = DateTime.of_local(LocalDateTime(2017, 10, 29, 2, 30), STOCKHOLM, prefer_offset=3600)
    assert str(later) == "2017-10-29T02:30+01:00[Europe/Stockholm]"
    assert later.epoch_seconds - overlap.epoch_seconds == 3600


def test_of_instant_and_epoch_seconds():
    value = DateTime.of_instant(416779, 999999999)
    assert str(value) == "1970-01-05T19:46:19.999999999Z"
    assert value.epoch_seconds == 416779
    assert DateTime.of_instant(0, 0, STOCKHOLM).hour == 1


def test_date_helpers():
    d = Date(1984, 10, 11)
    assert (d.quarter, d.week, d.week_year, d.ordinal_day, d.day_of_week, d.day_of_quarter) == \
        (4, 41, 1984, 285, 4, 11)
    assert str(Date.of_week(1817, 1)) == "1816-12-30"
    assert str(Date.of_ordinal_day(1984, 202)) == "1984-07-20"
    assert str(Date.of_quarter(1984, 3, 45)) == "1984-08-14"
    with pytest.raises(ArgumentError):
        Date.of_ordinal_day(1983, 366)


def test_zones():
    assert parse_zone("+01:00") is PLUS_ONE and parse_zone("+0100") is PLUS_ONE
    assert zone_id(parse_zone("Z")) == "Z" and zone_id(parse_zone("-00:00")) == "Z"
    assert zone_id(parse_zone("Europe/Stockholm")) == "Europe/Stockholm"
    assert format_offset(-(2 * 3600 + 5 * 60 + 7)) == "-02:05:07"
    for bad in ("Mars/Olympus", "../etc/passwd", "+19:00"):
        with pytest.raises(ArgumentError):
            parse_zone(bad)


def test_duration_string_and_approximation():
    assert str(Duration(seconds=-1, nanoseconds=500_000_000)) == "PT-0.5S"
    assert str(Duration(months=-20)) == "P-1Y-8M"
    assert str(Duration.approximate(months=0.75)) == "P22DT19H51M49.5S"
    assert str(Duration.approximate(seconds=0.3)) == "PT0.3S"
    assert Duration(1, 2, 3, 4) + Duration(1, 1, 1, 1) == Duration(2, 3, 4, 5)
    assert -Duration(0, 0, 1, 5) == Duration(0, 0, -2, 999_999_995)


# Property checks: the Cypher string parses back to the same value, and state round-trips.
from hypothesis import given, settings, strategies as st  # noqa: E402

from relate.temporal import NANOS_PER_DAY  # noqa: E402

_dates = st.dates(min_value=dt.date(1, 1, 2), max_value=dt.date(9999, 12, 30)).map(Date.from_python)
_nanos = st.integers(0, NANOS_PER_DAY - 1)
_offsets = st.integers(-18 * 4, 18 * 4).map(lambda quarter_hours: quarter_hours * 900)
_zones = st.sampled_from(["Europe/Stockholm", "America/New_York", "Australia/Eucla", "Asia/Kolkata"])
_values = st.one_of(
    _dates,
    st.builds(LocalTime.of_nanos_of_day, _nanos),
    st.builds(Time.of_nanos_of_day, _nanos, _offsets),
    st.builds(LocalDateTime.of, _dates, _nanos),
    st.builds(lambda d, n, o: DateTime.of_local(LocalDateTime.of(d, n), offset_zone(o)), _dates, _nanos, _offsets),
    st.builds(lambda d, n, z: DateTime.of_local(LocalDateTime.of(d, n), named_zone(z)), _dates, _nanos, _zones),
)


@settings(max_examples=300, deadline=None)
@given(_values)
def test_cypher_string_parses_back(value):
    again = type(value).parse(str(value))
    assert again == value and str(again) == str(value)
    assert type(value).from_state(value.to_state()) == value
    assert hash(type(value).from_state(value.to_state())) == hash(value)
