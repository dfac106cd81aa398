"""Component accessors of temporal values and durations (``d.year``, ``dur.minutesOfHour``, ...)."""
from __future__ import annotations

from typing import Any

from relate.protocol.errors import ArgumentError
from relate.protocol.temporal import Date, DateTime, LocalDateTime, LocalTime, Time
from relate.protocol.temporal.zones import format_offset
from relate.protocol.values import Duration

__all__ = ["temporal_property", "TEMPORAL_FIELDS", "DURATION_FIELDS", "truncating_div"]


def truncating_div(a: int, b: int) -> int:
    """Integer division rounding toward zero (Java's ``/``), exact for any size."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def _truncating_mod(a: int, b: int) -> int:
    """Java's ``%``: the remainder takes the dividend's sign."""
    return a - b * truncating_div(a, b)


def _date(value):
    return value if isinstance(value, Date) else value.date_part


_DATE_FIELDS = {
    "year": lambda v: _date(v).year,
    "quarter": lambda v: _date(v).quarter,
    "month": lambda v: _date(v).month,
    "week": lambda v: _date(v).week,
    "weekyear": lambda v: _date(v).week_year,
    "day": lambda v: _date(v).day,
    "ordinalday": lambda v: _date(v).ordinal_day,
    "weekday": lambda v: _date(v).day_of_week,
    "dayofweek": lambda v: _date(v).day_of_week,
    "dayofquarter": lambda v: _date(v).day_of_quarter,
    "quarterday": lambda v: _date(v).day_of_quarter,        # Neo4j's alias of dayOfQuarter
}
_TIME_FIELDS = {
    "hour": lambda v: v.hour,
    "minute": lambda v: v.minute,
    "second": lambda v: v.second,
    "millisecond": lambda v: v.nanosecond // 1_000_000,
    "microsecond": lambda v: v.nanosecond // 1000,
    "nanosecond": lambda v: v.nanosecond,
}
_ZONE_FIELDS = {
    "timezone": lambda v: v.zone_id,
    "offset": lambda v: format_offset(v.offset_seconds),
    "offsetminutes": lambda v: truncating_div(v.offset_seconds, 60),
    "offsetseconds": lambda v: v.offset_seconds,
}
_INSTANT_FIELDS = {
    "epochseconds": lambda v: v.epoch_seconds,
    "epochmillis": lambda v: v.epoch_seconds * 1000 + v.nanosecond // 1_000_000,
}

TEMPORAL_FIELDS = {
    Date: _DATE_FIELDS,
    LocalTime: _TIME_FIELDS,
    Time: {**_TIME_FIELDS, **_ZONE_FIELDS},
    LocalDateTime: {**_DATE_FIELDS, **_TIME_FIELDS},
    DateTime: {**_DATE_FIELDS, **_TIME_FIELDS, **_ZONE_FIELDS, **_INSTANT_FIELDS},
}

DURATION_FIELDS = {
    "years": lambda d: truncating_div(d.months, 12),
    "quarters": lambda d: truncating_div(d.months, 3),
    "months": lambda d: d.months,
    "weeks": lambda d: truncating_div(d.days, 7),
    "days": lambda d: d.days,
    "hours": lambda d: truncating_div(d.seconds, 3600),
    "minutes": lambda d: truncating_div(d.seconds, 60),
    "seconds": lambda d: d.seconds,
    "milliseconds": lambda d: d.seconds * 1000 + d.nanoseconds // 1_000_000,
    "microseconds": lambda d: d.seconds * 1_000_000 + d.nanoseconds // 1000,
    "nanoseconds": lambda d: d.seconds * 1_000_000_000 + d.nanoseconds,
    "quartersofyear": lambda d: truncating_div(_truncating_mod(d.months, 12), 3),
    "monthsofquarter": lambda d: _truncating_mod(d.months, 3),
    "monthsofyear": lambda d: _truncating_mod(d.months, 12),
    "daysofweek": lambda d: _truncating_mod(d.days, 7),
    "minutesofhour": lambda d: _truncating_mod(truncating_div(d.seconds, 60), 60),
    "secondsofminute": lambda d: _truncating_mod(d.seconds, 60),
    "millisecondsofsecond": lambda d: d.nanoseconds // 1_000_000,
    "microsecondsofsecond": lambda d: d.nanoseconds // 1000,
    "nanosecondsofsecond": lambda d: d.nanoseconds,
}


def temporal_property(value: Any, key: str) -> Any:
    """``value.key`` for a temporal value or duration; null on null; an unknown key is an error."""
    if value is None:
        return None
    fields = DURATION_FIELDS if isinstance(value, Duration) else TEMPORAL_FIELDS.get(type(value))
    if fields is None:
        raise ArgumentError(f"{type(value).__name__} has no temporal fields (accessing `{key}`)",
                            detail="InvalidArgumentType")
    getter = fields.get(key.lower())
    if getter is None:
        raise ArgumentError(f"No such field on {type(value).__name__}: {key}", detail="InvalidArgumentValue")
    return getter(value)
