"""ISO 8601 parsing of temporal strings and durations."""
from __future__ import annotations

import pytest

from relate.errors import ArgumentError
from relate.temporal import Date, DateTime, LocalDateTime, LocalTime, Time
from relate.temporal_parse import (parse_date, parse_datetime, parse_duration, parse_local_datetime,
                                   parse_local_time, parse_time)


@pytest.mark.parametrize("text, expected", [
    ("2015-07-21", "2015-07-21"), ("20150721", "2015-07-21"), ("2015-07", "2015-07-01"),
    ("201507", "2015-07-01"), ("2015-W30-2", "2015-07-21"), ("2015W302", "2015-07-21"),
    ("2015-W30", "2015-07-20"), ("2015W30", "2015-07-20"), ("2015-202", "2015-07-21"),
    ("2015202", "2015-07-21"), ("2015", "2015-01-01"),
])
def test_dates(text, expected):
    assert str(parse_date(text)) == expected
    assert Date.parse(text) == parse_date(text)


@pytest.mark.parametrize("text, expected", [
    ("21:40:32.142", "21:40:32.142"), ("214032.142", "21:40:32.142"), ("21:40:32", "21:40:32"),
    ("214032", "21:40:32"), ("21:40", "21:40"), ("2140", "21:40"), ("21", "21:00"),
    ("21:40:32,5", "21:40:32.500"), ("00:00:00.000000001", "00:00:00.000000001"),
])
def test_local_times(text, expected):
    assert str(parse_local_time(text)) == expected


@pytest.mark.parametrize("text, expected", [
    ("21:40:32.142+0100", "21:40:32.142+01:00"), ("214032.142Z", "21:40:32.142Z"),
    ("21:40:32+01:00", "21:40:32+01:00"), ("214032-0100", "21:40:32-01:00"), ("21:40-01:30", "21:40-01:30"),
    ("2140-00:00", "21:40Z"), ("2140-02", "21:40-02:00"), ("22+18:00", "22:00+18:00"), ("12:00", "12:00Z"),
])
def test_times(text, expected):
    assert str(parse_time(text)) == expected


@pytest.mark.parametrize("text, expected", [
    ("2015-07-21T21:40:32.142", "2015-07-21T21:40:32.142"), ("2015-W30-2T214032.142", "2015-07-21T21:40:32.142"),
    ("2015-202T21:40:32", "2015-07-21T21:40:32"), ("2015T214032", "2015-01-01T21:40:32"),
    ("20150721T21:40", "2015-07-21T21:40"), ("2015-W30T2140", "2015-07-20T21:40"), ("2015202T21", "2015-07-21T21:00"),
    ("2015-07-21", "2015-07-21T00:00"),
])
def test_local_datetimes(text, expected):
    assert str(parse_local_datetime(text)) == expected


@pytest.mark.parametrize("text, expected", [
    ("2015-07-21T21:40:32.142+0100", "2015-07-21T21:40:32.142+01:00"),
    ("2015-W30-2T214032.142Z", "2015-07-21T21:40:32.142Z"),
    ("2015T214032-0100", "2015-01-01T21:40:32-01:00"),
    ("2015-W30T2140-00:00", "2015-07-20T21:40Z"),
    ("2015202T21+18:00", "2015-07-21T21:00+18:00"),
    ("2015-07-21T21:40:32.142+02:00[Europe/Stockholm]", "2015-07-21T21:40:32.142+02:00[Europe/Stockholm]"),
    ("2015-07-21T21:40:32.142+0845[Australia/Eucla]", "2015-07-21T21:40:32.142+08:45[Australia/Eucla]"),
    ("2015-07-21T21:40:32.142-04[America/New_York]", "2015-07-21T21:40:32.142-04:00[America/New_York]"),
    ("2015-07-21T21:40:32.142[Europe/London]", "2015-07-21T21:40:32.142+01:00[Europe/London]"),
    ("1818-07-21T21:40:32.142[Europe/Stockholm]", "1818-07-21T21:40:32.142+00:53:28[Europe/Stockholm]"),
    ("2017-10-29T02:30+01:00[Europe/Stockholm]", "2017-10-29T02:30+01:00[Europe/Stockholm]"),
    ("2017-10-29T02:30[Europe/Stockholm]", "2017-10-29T02:30+02:00[Europe/Stockholm]"),
    ("2015-07-21T21:40", "2015-07-21T21:40Z"),
])
def test_datetimes(text, expected):
    value = parse_datetime(text)
    assert type(value) is DateTime and str(value) == expected


@pytest.mark.parametrize("text, expected", [
    ("P14DT16H12M", "P14DT16H12M"), ("P5M1.5D", "P5M1DT12H"), ("P0.75M", "P22DT19H51M49.5S"),
    ("PT0.75M", "PT45S"), ("P2.5W", "P17DT12H"), ("P12Y5M14DT16H12M70S", "P12Y5M14DT16H13M10S"),
    ("P2012-02-02T14:37:21.545", "P2012Y2M2DT14H37M21.545S"), ("PT-0.5S", "PT-0.5S"),
    ("-P1D", "P-1D"), ("P1Y-2M", "P10M"), ("PT0S", "PT0S"), ("pt1,5s", "PT1.5S"),
])
def test_durations(text, expected):
    assert str(parse_duration(text)) == expected


@pytest.mark.parametrize("parse, text", [
    (parse_date, "2015-13-01"), (parse_date, "2015-02-30"), (parse_date, "15-07-21"), (parse_date, "2015-W54"),
    (parse_date, "2015-07-21T10:00"), (parse_date, "-1000000000-01-01"),
    (parse_local_time, "24:00"), (parse_local_time, "12:60"), (parse_local_time, "12:00+01:00"),
    (parse_time, "12:00[Europe/Stockholm]"), (parse_local_datetime, "2015-07-21T10:00Z"),
    (parse_datetime, "2015-07-21T10:00[Not/AZone]"), (parse_datetime, "2015-07-21T10:00+19:00"),
    (parse_duration, "P"), (parse_duration, "PT"), (parse_duration, "1D"), (parse_duration, "P1H"),
])
def test_invalid_strings_raise_argument_error(parse, text):
    with pytest.raises(ArgumentError):
        parse(text)


def test_class_parse_methods():
    assert LocalTime.parse("12:00") == LocalTime(12)
    assert Time.parse("12:00+01:00").offset_seconds == 3600
    assert LocalDateTime.parse("2015-07-21T21:40") == LocalDateTime(2015, 7, 21, 21, 40)
    assert DateTime.parse("2015-07-21T21:40Z").epoch_seconds == 1437514800


@pytest.mark.parametrize("fields, expected", [
    ({"years": 12, "months": 5, "days": -14, "hours": 16}, "P12Y5M-14DT16H"),
    ({"minutes": 12, "seconds": -60}, "PT11M"),
    ({"seconds": 2, "milliseconds": -1}, "PT1.999S"),
    ({"seconds": -2, "milliseconds": 1}, "PT-1.999S"),
    ({"seconds": -2, "milliseconds": -1}, "PT-2.001S"),
    ({"days": 1, "milliseconds": -1}, "P1DT-0.001S"),
    ({"seconds": -60, "milliseconds": -1}, "PT-1M-0.001S"),
])
def test_duration_strings_parse_back_to_equal_durations(fields, expected):
    from relate.temporal_parse import duration_from_components
    value = duration_from_components(**fields)
    assert str(value) == expected and parse_duration(expected) == value
