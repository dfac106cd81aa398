"""Years beyond Python's 1..9999 (Cypher's range is ±999,999,999): dates and local date times parse to
far values that duration.between / inMonths / inDays / inSeconds take; other uses are typed errors."""
import datetime as dt
import random

import pytest

from relate.errors import RelateError
from relate.protocol.temporal import Date, LocalDateTime
from relate.protocol.temporal.far import civil, epoch_day
from relate.server.engine import Database


@pytest.fixture(scope="module")
def session():
    db = Database.open(None)
    yield db.session()
    db.close()


def one(session, query):
    return str(session.run(query).fetch(1)[0][0])


def test_the_calendar_arithmetic_matches_python_within_its_range_and_round_trips_beyond():
    for day in (dt.date(1, 1, 1), dt.date(1970, 1, 1), dt.date(2000, 2, 29), dt.date(9999, 12, 31)):
        assert epoch_day(day.year, day.month, day.day) == day.toordinal() - dt.date(1970, 1, 1).toordinal()
    rng = random.Random(7)
    for _ in range(2000):
        n = rng.randint(-400_000_000_000, 400_000_000_000)
        assert epoch_day(*civil(n)) == n


@pytest.mark.parametrize("query, expected", [
    ("RETURN duration.between(date('-999999999-01-01'), date('+999999999-12-31'))", "P1999999998Y11M30D"),
    ("RETURN duration.inSeconds(localdatetime('-999999999-01-01'), localdatetime('+999999999-12-31T23:59:59'))",
     "PT17531639991215H59M59S"),
    ("RETURN duration.inDays(date('2020-01-01'), date('+12020-01-01'))", "P3652425D"),
    ("RETURN duration.inMonths(date('+12020-03-31'), date('2020-02-29'))", "P-10000Y-1M"),
    ("RETURN duration.between(localdatetime('+10000-01-01T12:00'), localdatetime('9999-12-31T13:00'))",
     "PT-23H"),
])
def test_durations_between_far_dates(session, query, expected):
    assert one(session, query + " AS d") == expected


@pytest.mark.parametrize("query", [
    "RETURN date('+12345-06-07').year", "RETURN date('+12345-06-07') + duration('P1D')",
    "CREATE ({d: date('+12345-06-07')})", "RETURN datetime('+12345-06-07T00:00Z')", "RETURN date('+12345-02-30')",
    "RETURN duration.between(date('+12345-06-07'), datetime('2020-01-01T00:00Z'))",
])
def test_other_uses_of_far_dates_are_typed_errors(session, query):
    with pytest.raises(RelateError):
        session.run(query).fetch(1)


def test_the_python_types_still_refuse_far_years():
    with pytest.raises(RelateError):
        Date.parse("+12345-06-07")
    with pytest.raises(RelateError):
        LocalDateTime.parse("-12345-06-07T00:00")
    assert Date.parse("2020-02-29") == Date(2020, 2, 29)
