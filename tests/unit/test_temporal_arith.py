"""Temporal arithmetic, comparison and duration.between."""
from __future__ import annotations

import pytest

from relate.errors import ClientError, CypherTypeError
from relate.values import Duration
from relate.server.query.exec.functions.temporal import (TEMPORAL_FUNCTIONS, temporal_add, temporal_compare,
                                                         temporal_divide, temporal_equals, temporal_multiply,
                                                         temporal_subtract)


def fn(name, *args):
    return TEMPORAL_FUNCTIONS[name](None, *args)


def dur(value):
    return fn("duration", value)


BIG = {"years": 12, "months": 5, "days": 14, "hours": 16, "minutes": 12, "seconds": 70, "nanoseconds": 1}


def test_date_plus_and_minus_duration():
    x = fn("date", "1984-10-11")
    assert str(temporal_add(x, dur(BIG))) == "1997-03-25"
    assert str(temporal_subtract(x, dur(BIG))) == "1972-04-27"
    fractional = dur({"years": 12.5, "months": 5.5, "days": 14.5, "hours": 16.5, "minutes": 12.5,
                      "seconds": 70.5, "nanoseconds": 3})
    assert str(temporal_add(x, fractional)) == "1997-10-11"
    assert str(temporal_subtract(x, fractional)) == "1971-10-12"
    assert str(temporal_add(dur({"hours": 47}), x)) == "1984-10-12"       # duration + date too


def test_month_arithmetic_clamps_the_day():
    assert str(temporal_add(fn("date", "2015-01-31"), dur("P1M"))) == "2015-02-28"
    assert str(temporal_add(fn("localdatetime", "2016-01-31T10:00"), dur("P1M"))) == "2016-02-29T10:00"


def test_times_wrap_and_keep_their_offset():
    assert str(temporal_add(fn("localtime", "12:31:14.000000001"), dur(BIG))) == "04:44:24.000000002"
    assert str(temporal_subtract(fn("time", "00:30+01:00"), dur("PT1H"))) == "23:30+01:00"
    assert str(temporal_add(fn("localtime", "23:00"), dur("P1DT2H"))) == "01:00"


def test_local_datetime_carries_time_into_days():
    value = fn("localdatetime", "1984-10-11T12:31:14.000000001")
    assert str(temporal_add(value, dur(BIG))) == "1997-03-26T04:44:24.000000002"
    assert str(temporal_subtract(value, dur(BIG))) == "1972-04-26T20:18:04"


def test_zoned_datetime_days_move_the_wall_clock_seconds_move_the_instant():
    before_dst_end = fn("datetime", "2017-10-28T12:00[Europe/Stockholm]")
    assert str(temporal_add(before_dst_end, dur("P1D"))) == "2017-10-29T12:00+01:00[Europe/Stockholm]"
    assert str(temporal_add(before_dst_end, dur("PT24H"))) == "2017-10-29T11:00+01:00[Europe/Stockholm]"
    gap = fn("datetime", "2017-03-25T02:30[Europe/Stockholm]")
    assert str(temporal_add(gap, dur("P1D"))) == "2017-03-26T03:30+02:00[Europe/Stockholm]"
    assert str(temporal_add(fn("datetime", "1984-10-11T12:00+01:00"), dur(BIG))) == \
        "1997-03-26T04:13:10.000000001+01:00"


def test_duration_arithmetic():
    a, b = dur(BIG), dur({"months": 1, "seconds": 10})
    assert str(temporal_add(a, b)) == "P12Y6M14DT16H13M20.000000001S"
    assert str(temporal_subtract(a, b)) == "P12Y4M14DT16H13M0.000000001S"
    assert str(temporal_multiply(a, 2)) == "P24Y10M28DT32H26M20.000000002S"
    assert str(temporal_multiply(2, a)) == "P24Y10M28DT32H26M20.000000002S"
    assert str(temporal_multiply(a, 0.5)) == "P6Y2M22DT13H21M8S"
    assert str(temporal_divide(a, 2)) == "P6Y2M22DT13H21M8S"
    assert str(temporal_divide(a, 0.5)) == "P24Y10M28DT32H26M20.000000002S"
    assert str(temporal_divide(dur("PT1S"), 3)) == "PT0.333333333S"
    with pytest.raises(ClientError) as info:
        temporal_divide(a, 0)
    assert info.value.code == "Neo.ClientError.Statement.ArithmeticError"


def test_unsupported_operand_combinations_are_type_errors():
    with pytest.raises(CypherTypeError):
        temporal_add(fn("date", "2015-01-01"), fn("date", "2015-01-02"))
    with pytest.raises(CypherTypeError):
        temporal_subtract(dur("P1D"), fn("date", "2015-01-01"))
    with pytest.raises(CypherTypeError):
        temporal_multiply(fn("date", "2015-01-01"), 2)
    assert temporal_add(None, dur("P1D")) is None


def test_compare_and_equals():
    assert temporal_compare(fn("date", "1980-12-24"), fn("date", "1984-10-11")) == -1
    assert temporal_compare(fn("time", "10:00+01:00"), fn("time", "09:35:14.645876123+00:00")) == -1
    assert temporal_compare(fn("localtime", "12:00"), fn("localtime", "12:00")) == 0
    assert temporal_compare(fn("date", "1980-12-24"), fn("localdatetime", "1980-12-24T00:00")) is None
    assert temporal_compare(dur("P1D"), dur("P2D")) is None
    assert temporal_equals(dur({"hours": 16, "minutes": 12, "seconds": 70}), dur("PT16H13M10S")) is True
    assert temporal_equals(dur("P1D"), dur("PT24H")) is False
    assert temporal_equals(dur("P1D"), fn("date", "1984-10-11")) is False
    assert temporal_equals(None, dur("P1D")) is None


@pytest.mark.parametrize("a, b, between, months, days, seconds", [
    ("date('1984-10-11')", "date('2015-06-24')", "P30Y8M13D", "P30Y8M", "P11213D", "PT269112H"),
    ("date('1984-10-11')", "localtime('16:30')", "PT16H30M", "PT0S", "PT0S", "PT16H30M"),
    ("localtime('14:30')", "date('2015-06-24')", "PT-14H-30M", "PT0S", "PT0S", "PT-14H-30M"),
    ("time('14:30')", "time('16:30+0100')", "PT1H", "PT0S", "PT0S", "PT1H"),
    ("localdatetime('2015-07-21T21:40:32.142')", "date('2015-06-24')", "P-27DT-21H-40M-32.142S", "PT0S",
     "P-27D", "PT-669H-40M-32.142S"),
    ("datetime('2014-07-21T21:40:36.143+0200')", "datetime('2015-07-21T21:40:32.142+0100')",
     "P1YT59M55.999S", "P1Y", "P365D", "PT8760H59M55.999S"),
    ("datetime('2014-07-21T21:40:36.143+0200')", "time('16:30+0100')", "PT-4H-10M-36.143S", "PT0S", "PT0S",
     "PT-4H-10M-36.143S"),
    ("datetime('2018-07-21T21:40:36.143+0500')", "datetime('1984-07-21T22:40:36.143+0200')",
     "P-33Y-11M-30DT-20H", "P-33Y-11M", "P-12417D", "PT-298028H"),
])
def test_duration_between(a, b, between, months, days, seconds):
    def value(expr):
        kind, _, literal = expr.partition("(")
        return fn(kind, literal.strip(")'"))
    start, end = value(a), value(b)
    assert str(fn("duration.between", start, end)) == between
    assert str(fn("duration.inmonths", start, end)) == months
    assert str(fn("duration.indays", start, end)) == days
    assert str(fn("duration.inseconds", start, end)) == seconds


def test_between_across_daylight_saving():
    start = fn("datetime", "2017-10-28T23:00+02:00[Europe/Stockholm]")
    end = fn("datetime", "2017-10-29T04:00+01:00[Europe/Stockholm]")
    assert str(fn("duration.between", start, end)) == "PT6H"
    midnight = fn("datetime", {"year": 2017, "month": 10, "day": 29, "timezone": "Europe/Stockholm"})
    assert str(fn("duration.inseconds", midnight, fn("date", "2017-10-30"))) == "PT25H"
    assert str(fn("duration.inseconds", midnight, fn("localtime", "04:00"))) == "PT5H"


def test_between_keeps_sub_second_signs_consistent():
    result = fn("duration.between", fn("localdatetime", "2018-01-02T10:00:00.1"),
                fn("localdatetime", "2018-01-01T10:00:00.2"))
    assert str(result) == "PT-23H-59M-59.9S" and (result.seconds, result.nanoseconds) == (-86400, 100000000)
    assert str(fn("duration.inseconds", fn("localtime", "12:44:56"), fn("localtime", "12:34:55.7"))) == \
        "PT-10M-0.3S"
    assert isinstance(fn("duration.between", fn("date", "2015-01-01"), fn("date", "2015-01-01")), Duration)
