"""Dates and local date times beyond Python's years 1..9999: Cypher's range is ±999,999,999.

Parsing a ``date`` or ``localdatetime`` string with such a year gives a ``FarDate`` or
``FarLocalDateTime``: plain values (not ``datetime`` subclasses) that print, compare and take part in
``duration.between`` / ``inMonths`` / ``inDays`` / ``inSeconds`` (the proleptic Gregorian calendar in
integer arithmetic). Everything else refuses them with a typed error, as it does any value it does not
take, so years 1..9999 keep their fast ``datetime`` path untouched.
"""
from __future__ import annotations

from typing import Any

from ..errors import ArgumentError

MIN_YEAR, MAX_YEAR = -999_999_999, 999_999_999
NANOS_PER_DAY = 86_400 * 1_000_000_000
_UNIX_EPOCH_SHIFT = 719_468          # days from 0000-03-01 to 1970-01-01


def is_leap(year: int) -> bool:
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


def month_length(year: int, month: int) -> int:
    if month == 2:
        return 29 if is_leap(year) else 28
    return 30 if month in (4, 6, 9, 11) else 31


def epoch_day(year: int, month: int, day: int) -> int:
    """Days since 1970-01-01 of a proleptic Gregorian date (any year)."""
    year -= month <= 2
    era = year // 400
    year_of_era = year - era * 400
    day_of_year = (153 * (month + (-3 if month > 2 else 9)) + 2) // 5 + day - 1
    day_of_era = year_of_era * 365 + year_of_era // 4 - year_of_era // 100 + day_of_year
    return era * 146_097 + day_of_era - _UNIX_EPOCH_SHIFT


def civil(days: int) -> tuple[int, int, int]:
    """(year, month, day) of an epoch day (the inverse of ``epoch_day``)."""
    days += _UNIX_EPOCH_SHIFT
    era = days // 146_097
    day_of_era = days - era * 146_097
    year_of_era = (day_of_era - day_of_era // 1460 + day_of_era // 36_524 - day_of_era // 146_096) // 365
    day_of_year = day_of_era - (365 * year_of_era + year_of_era // 4 - year_of_era // 100)
    mp = (5 * day_of_year + 2) // 153
    day = day_of_year - (153 * mp + 2) // 5 + 1
    month = mp + (3 if mp < 10 else -9)
    return year_of_era + era * 400 + (month <= 2), month, day


def _format_year(year: int) -> str:
    return f"{year:04d}" if 0 <= year <= 9999 else f"{'-' if year < 0 else '+'}{abs(year):04d}"


class FarDate:
    """A date whose year Python's ``datetime`` cannot hold."""

    __slots__ = ("year", "month", "day")

    def __init__(self, year: int, month: int, day: int):
        if not MIN_YEAR <= year <= MAX_YEAR:
            raise ArgumentError(f"Year {year} is outside the supported range {MIN_YEAR}..{MAX_YEAR}",
                                detail="InvalidArgumentValue")
        if not 1 <= month <= 12 or not 1 <= day <= month_length(year, month):
            raise ArgumentError(f"Invalid date {_format_year(year)}-{month:02d}-{day:02d}",
                                detail="InvalidArgumentValue")
        self.year, self.month, self.day = year, month, day

    @property
    def epoch_day(self) -> int:
        return epoch_day(self.year, self.month, self.day)

    def _key(self) -> tuple[int, int, int]:
        return self.year, self.month, self.day

    def __eq__(self, other: object) -> bool:
        return isinstance(other, FarDate) and self._key() == other._key()

    def __lt__(self, other: Any) -> bool:
        if not isinstance(other, FarDate):
            return NotImplemented
        return self._key() < other._key()

    def __hash__(self) -> int:
        return hash(("FarDate", *self._key()))

    def __str__(self) -> str:
        return f"{_format_year(self.year)}-{self.month:02d}-{self.day:02d}"

    def __repr__(self) -> str:
        return f"FarDate({self})"


class FarLocalDateTime:
    """A local date time on a ``FarDate``."""

    __slots__ = ("date", "nanos_of_day")

    def __init__(self, date: FarDate, nanos_of_day: int):
        self.date, self.nanos_of_day = date, nanos_of_day

    def _key(self) -> tuple[int, int, int, int]:
        return (*self.date._key(), self.nanos_of_day)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, FarLocalDateTime) and self._key() == other._key()

    def __lt__(self, other: Any) -> bool:
        if not isinstance(other, FarLocalDateTime):
            return NotImplemented
        return self._key() < other._key()

    def __hash__(self) -> int:
        return hash(("FarLocalDateTime", *self._key()))

    def __str__(self) -> str:
        seconds, nanos = divmod(self.nanos_of_day, 1_000_000_000)
        minutes, second = divmod(seconds, 60)
        hour, minute = divmod(minutes, 60)
        text = f"{self.date}T{hour:02d}:{minute:02d}"
        if second or nanos:
            text += f":{second:02d}" + (f".{nanos:09d}".rstrip("0") if nanos else "")
        return text

    def __repr__(self) -> str:
        return f"FarLocalDateTime({self})"


FAR_TYPES = (FarDate, FarLocalDateTime)


def _parts(value: Any) -> tuple[int, int, int, int, bool]:
    """(year, month, day, nanos of day, has a time) of a far or an ordinary date-bearing local value."""
    if isinstance(value, FarDate):
        return value.year, value.month, value.day, 0, False
    if isinstance(value, FarLocalDateTime):
        return value.date.year, value.date.month, value.date.day, value.nanos_of_day, True
    nanos = getattr(value, "nanos_of_day", None)
    if getattr(value, "tzinfo", None) is not None or not hasattr(value, "year"):
        raise ArgumentError("duration functions take years beyond 1..9999 only with dates and local date "
                            "times", detail="InvalidArgumentType")
    return value.year, value.month, value.day, nanos or 0, nanos is not None


def _until(start_day: int, start_nanos: int, end_day: int, end_nanos: int) -> int:
    """``end_day`` moved one day towards the start when its time of day has not reached the start's."""
    if end_day > start_day and end_nanos < start_nanos:
        return end_day - 1
    if end_day < start_day and end_nanos > start_nanos:
        return end_day + 1
    return end_day


def _truncating_div(a: int, b: int) -> int:
    q = abs(a) // b
    return q if a >= 0 else -q


def far_between(unit: str | None, a: Any, b: Any) -> tuple[int, int, int]:
    """(months, days, nanoseconds) of ``duration.between`` (unit None), ``inMonths``, ``inDays`` or
    ``inSeconds`` between two date-bearing local values, one of them far."""
    y1, m1, d1, n1, _ = _parts(a)
    y2, m2, d2, n2, _ = _parts(b)
    start_day, end_day = epoch_day(y1, m1, d1), epoch_day(y2, m2, d2)
    if unit == "seconds":
        return 0, 0, (end_day - start_day) * NANOS_PER_DAY + n2 - n1
    adjusted = _until(start_day, n1, end_day, n2)
    if unit == "days":
        return 0, adjusted - start_day, 0
    ey, em, ed = civil(adjusted)
    months = _truncating_div(((ey * 12 + em - 1) * 32 + ed) - ((y1 * 12 + m1 - 1) * 32 + d1), 32)
    if unit == "months":
        return months, 0, 0
    year, month = divmod(y1 * 12 + m1 - 1 + months, 12)
    moved = epoch_day(year, month + 1, min(d1, month_length(year, month + 1)))
    days = _until(moved, n1, end_day, n2) - moved
    nanos = (end_day - moved - days) * NANOS_PER_DAY + n2 - n1
    return months, days, nanos
