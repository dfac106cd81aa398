"""Temporal arithmetic, comparison and ``duration.between`` with java.time's semantics.

Adding a duration applies months, then days, then seconds and nanoseconds (a date takes whole days
of the seconds; times ignore months and days and wrap around midnight). A zoned date time moves its
wall clock for months and days and its instant for seconds.
"""
from __future__ import annotations

import calendar
import datetime as _dt
from typing import Any

from relate.protocol.errors import ArgumentError, CypherArithmeticError, CypherTypeError
from relate.protocol.temporal import (NANOS_PER_SECOND, Date, DateTime, LocalDateTime, LocalTime,
                             Time)
from relate.protocol.temporal.far import FAR_TYPES, far_between
from relate.protocol.temporal.zones import offset_zone
from relate.protocol.values import Duration

from relate.server.query.exec.functions.temporal.access import truncating_div
from relate.server.query.exec.functions.temporal.build import date_of, nanos_of, zone_of

__all__ = ["temporal_add", "temporal_subtract", "temporal_multiply", "temporal_divide",
           "temporal_compare", "temporal_equals", "duration_between"]

_TEMPORALS = (Date, LocalTime, Time, LocalDateTime, DateTime)


def _type_error(op: str, a: Any, b: Any) -> CypherTypeError:
    return CypherTypeError(f"Cannot apply `{op}` to {type(a).__name__} and {type(b).__name__}",
                           detail="InvalidArgumentType", phase="runtime")


def _arithmetic_error(message: str) -> CypherArithmeticError:
    return CypherArithmeticError(message, phase="runtime")


# --------------------------------------------------------------------------------------------
# Calendar steps
# --------------------------------------------------------------------------------------------
def plus_months(date: _dt.date, months: int) -> Date:
    """``date`` moved by ``months``, the day clamped to the target month's length."""
    if not months:
        return Date.from_python(date)
    total = date.year * 12 + (date.month - 1) + months
    year, month = divmod(total, 12)
    if not 1 <= year <= 9999:
        raise _arithmetic_error(f"Year {year} is out of the supported range")
    return Date(year, month + 1, min(date.day, calendar.monthrange(year, month + 1)[1]))


def plus_days(date: _dt.date, days: int) -> Date:
    return Date.of_epoch_day(Date.from_python(date).epoch_day + days)


def _add_to_local(local: LocalDateTime, d: Duration, sign: int) -> LocalDateTime:
    date = plus_days(plus_months(local.date_part, sign * d.months), sign * d.days)
    return LocalDateTime.of(date, local.nanos_of_day + sign * d.total_nanoseconds)


def _add_to_zoned(value: DateTime, d: Duration, sign: int) -> DateTime:
    if d.months or d.days:
        date = plus_days(plus_months(value.date_part, sign * d.months), sign * d.days)
        wall = LocalDateTime.of(date, value.nanos_of_day)
        value = DateTime.of_local(wall, value.tzinfo, prefer_offset=value.offset_seconds)
    nanos = sign * d.total_nanoseconds
    if nanos:
        seconds, nanosecond = divmod(value.epoch_nanos + nanos, NANOS_PER_SECOND)
        value = DateTime.of_instant(seconds, nanosecond, value.tzinfo)
    return value


def add_duration(value: Any, d: Duration, sign: int = 1):
    """``value + d`` (``sign`` -1 for ``value - d``)."""
    try:
        if isinstance(value, Date):
            return plus_days(plus_months(value, sign * d.months),
                             sign * (d.days + truncating_div(d.seconds, 86_400)))
        if isinstance(value, LocalTime):
            return LocalTime.of_nanos_of_day(value.nanos_of_day + sign * d.total_nanoseconds)
        if isinstance(value, Time):
            return Time.of_nanos_of_day(value.nanos_of_day + sign * d.total_nanoseconds, value.offset_seconds)
        if isinstance(value, LocalDateTime):
            return _add_to_local(value, d, sign)
        if isinstance(value, DateTime):
            return _add_to_zoned(value, d, sign)
    except ArgumentError as exc:
        raise _arithmetic_error(f"Temporal arithmetic out of range: {exc.message}") from None
    raise _type_error("+" if sign > 0 else "-", value, d)


def temporal_add(a: Any, b: Any):
    """Cypher ``a + b`` for temporal + duration, duration + temporal and duration + duration."""
    if a is None or b is None:
        return None
    if isinstance(a, Duration) and isinstance(b, Duration):
        return a + b
    if isinstance(b, Duration) and isinstance(a, _TEMPORALS):
        return add_duration(a, b)
    if isinstance(a, Duration) and isinstance(b, _TEMPORALS):
        return add_duration(b, a)
    raise _type_error("+", a, b)


def temporal_subtract(a: Any, b: Any):
    """Cypher ``a - b`` for temporal - duration and duration - duration."""
    if a is None or b is None:
        return None
    if isinstance(a, Duration) and isinstance(b, Duration):
        return a - b
    if isinstance(b, Duration) and isinstance(a, _TEMPORALS):
        return add_duration(a, b, -1)
    raise _type_error("-", a, b)


def _is_number(n: Any) -> bool:
    return isinstance(n, (int, float)) and not isinstance(n, bool)


def temporal_multiply(d: Any, n: Any) -> Duration | None:
    """``duration * number`` (either order); fractions cascade to smaller units."""
    if d is None or n is None:
        return None
    if _is_number(d) and isinstance(n, Duration):
        d, n = n, d
    if not isinstance(d, Duration) or not _is_number(n):
        raise _type_error("*", d, n)
    if isinstance(n, int):
        return Duration(d.months * n, d.days * n, d.seconds * n, d.nanoseconds * n)
    if n != n or n in (float("inf"), float("-inf")):
        raise _arithmetic_error(f"Cannot multiply a duration by {n}")
    return Duration.approximate(d.months * n, d.days * n, d.seconds * n, d.nanoseconds * n)


def temporal_divide(d: Any, n: Any) -> Duration | None:
    """``duration / number``; dividing by zero is an arithmetic error."""
    if d is None or n is None:
        return None
    if not isinstance(d, Duration) or not _is_number(n):
        raise _type_error("/", d, n)
    if n == 0 or n != n:
        raise _arithmetic_error("/ by zero")
    from fractions import Fraction
    divisor = Fraction(n) if isinstance(n, int) else Fraction(repr(n))
    return Duration.approximate(Fraction(d.months) / divisor, Fraction(d.days) / divisor,
                                Fraction(d.seconds) / divisor, Fraction(d.nanoseconds) / divisor)


# --------------------------------------------------------------------------------------------
# Comparison
# --------------------------------------------------------------------------------------------
def temporal_equals(a: Any, b: Any) -> bool | None:
    """Cypher ``=``: null with a null side; values of different types are simply unequal."""
    if a is None or b is None:
        return None
    if type(a) is not type(b):
        return False
    return a == b


# (value, its _order_key()) last computed on each side of temporal_compare; one tuple each, replaced
# whole, so a thread reads a value with its own key. Temporal values are immutable.
_LEFT: tuple[Any, Any] = (None, None)
_RIGHT: tuple[Any, Any] = (None, None)


def temporal_compare(a: Any, b: Any) -> int | None:
    """-1/0/1 for two values of one temporal type; None for durations, nulls and mixed types."""
    if a is None or b is None or type(a) is not type(b) or not isinstance(a, _TEMPORALS):
        return None
    if hasattr(a, "_order_key"):    # equal keys exactly when the values are equal: each side's key read once
        global _LEFT, _RIGHT
        left, right = _LEFT, _RIGHT     # the last key of each side: a constant side (WHERE m.ts > $since) hits
        if left[0] is a:
            ka = left[1]
        else:
            ka = a._order_key()
            _LEFT = (a, ka)
        if right[0] is b:
            kb = right[1]
        else:
            kb = b._order_key()
            _RIGHT = (b, kb)
        return (ka > kb) - (ka < kb)
    if a == b:
        return 0
    return -1 if a < b else 1


# --------------------------------------------------------------------------------------------
# duration.between and friends
# --------------------------------------------------------------------------------------------
def _months_until(start: LocalDateTime, end: LocalDateTime) -> int:
    """Whole months from ``start`` to ``end`` (java.time's ``LocalDateTime.until(MONTHS)``)."""
    end_date = end.date_part
    if end_date > start.date_part and end.nanos_of_day < start.nanos_of_day:
        end_date = plus_days(end_date, -1)
    elif end_date < start.date_part and end.nanos_of_day > start.nanos_of_day:
        end_date = plus_days(end_date, 1)
    packed_start = (start.year * 12 + start.month - 1) * 32 + start.day
    packed_end = (end_date.year * 12 + end_date.month - 1) * 32 + end_date.day
    return truncating_div(packed_end - packed_start, 32)


def _days_until(start: LocalDateTime, end: LocalDateTime) -> int:
    end_date = end.date_part
    if end_date > start.date_part and end.nanos_of_day < start.nanos_of_day:
        end_date = plus_days(end_date, -1)
    elif end_date < start.date_part and end.nanos_of_day > start.nanos_of_day:
        end_date = plus_days(end_date, 1)
    return end_date.epoch_day - start.date_part.epoch_day


def _aligned(a: Any, b: Any):
    """Both values as full date times on a common footing, and whether both really have dates.

    A value without a date takes the other's date; without a time, midnight. A value without a
    zone takes the other's zone; with both zoned, ``b`` is seen in ``a``'s zone.
    """
    date_a, date_b = date_of(a), date_of(b)
    both_dated = date_a is not None and date_b is not None
    fallback = date_a or date_b or Date(1970, 1, 1)
    date_a, date_b = date_a or fallback, date_b or fallback
    local_a = LocalDateTime.of(date_a, nanos_of(a) or 0)
    local_b = LocalDateTime.of(date_b, nanos_of(b) or 0)
    zone_a, zone_b = _zone_for(a), _zone_for(b)
    if zone_a is None and zone_b is None:
        return local_a, local_b, both_dated
    zoned_a = DateTime.of_local(local_a, zone_a or zone_b, prefer_offset=_offset(a))
    zoned_b = DateTime.of_local(local_b, zone_b or zone_a, prefer_offset=_offset(b))
    if zone_a is not None and zone_b is not None:
        zoned_b = zoned_b.in_zone(zone_a)
    return zoned_a, zoned_b, both_dated


def _zone_for(value: Any):
    if isinstance(value, Time):
        return offset_zone(value.offset_seconds)
    return zone_of(value)


def _offset(value: Any) -> int | None:
    return value.offset_seconds if isinstance(value, (Time, DateTime)) else None


def _local(value) -> LocalDateTime:
    return value.local_datetime if isinstance(value, DateTime) else value


def _nanos_between(a, b) -> int:
    # Instants for zoned values, wall clocks for local ones: epoch_nanos is each one's own measure.
    return b.epoch_nanos - a.epoch_nanos


def _plus_calendar(value, months: int, days: int):
    if isinstance(value, DateTime):
        return _add_to_zoned(value, Duration(months, days), 1)
    return _add_to_local(value, Duration(months, days), 1)


def duration_between(unit: str | None, a: Any, b: Any) -> Duration | None:
    """``duration.between`` (unit None), ``inMonths``, ``inDays`` or ``inSeconds`` from ``a`` to ``b``."""
    if a is None or b is None:
        return None
    if type(a) in FAR_TYPES or type(b) in FAR_TYPES:     # years beyond 1..9999 (protocol/temporal/far.py)
        months, days, nanos = far_between(unit, a, b)
        return Duration(months, days, 0, nanos)
    for value in (a, b):
        if not isinstance(value, _TEMPORALS):
            raise CypherTypeError(f"duration.between expects temporal values, got {value!r}",
                                  detail="InvalidArgumentType")
    start, end, both_dated = _aligned(a, b)
    if unit == "seconds":
        return Duration(0, 0, 0, _nanos_between(start, end))
    months = _months_until(_local(start), _local(end)) if both_dated and unit != "days" else 0
    if unit == "months":
        return Duration(months)
    if unit == "days":
        return Duration(0, _days_until(_local(start), _local(end)) if both_dated else 0)
    start = _plus_calendar(start, months, 0)
    days = _days_until(_local(start), _local(end)) if both_dated else 0
    start = _plus_calendar(start, 0, days)
    return Duration(months, days, 0, _nanos_between(start, end))
