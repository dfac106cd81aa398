"""Building temporal values from Cypher maps, other temporals and the clock; ``*.truncate``.

Map keys (case-insensitive): year, quarter, month, week, dayOfWeek, day, ordinalDay, dayOfQuarter,
hour, minute, second, millisecond, microsecond, nanosecond, timezone, epochSeconds, epochMillis, and
the selection keys ``date``, ``time`` and ``datetime`` whose fields are taken unless overridden.
"""
from __future__ import annotations

import calendar
import datetime as _dt
from typing import Any

from relate.protocol.errors import ArgumentError, CypherTypeError
from relate.protocol.temporal import (NANOS_PER_SECOND, Date, DateTime, LocalDateTime, LocalTime,
                             Time)
from relate.protocol.temporal.zones import UTC, is_named_zone, offset_zone, parse_zone

__all__ = ["KINDS", "build_from_map", "convert", "current", "truncate", "make"]

KINDS = ("date", "localtime", "time", "localdatetime", "datetime")
_HAS_DATE = {"date", "localdatetime", "datetime"}
_HAS_TIME = {"localtime", "time", "localdatetime", "datetime"}
_HAS_ZONE = {"time", "datetime"}

_DATE_FIELDS = ("year", "quarter", "month", "week", "dayOfWeek", "day", "ordinalDay", "dayOfQuarter")
_TIME_FIELDS = ("hour", "minute", "second", "millisecond", "microsecond", "nanosecond")
_OTHER_KEYS = ("timezone", "date", "time", "datetime", "epochSeconds", "epochMillis")
_CANONICAL = {name.lower(): name for name in _DATE_FIELDS + _TIME_FIELDS + _OTHER_KEYS}


def _invalid(message: str) -> ArgumentError:
    return ArgumentError(message, detail="InvalidArgumentValue")


# --------------------------------------------------------------------------------------------
# Parts of a temporal value: (date or None, nanos of day or None, zone or None)
# --------------------------------------------------------------------------------------------
def date_of(value: Any) -> Date | None:
    if isinstance(value, Date):
        return value
    if isinstance(value, (LocalDateTime, DateTime)):
        return value.date_part
    return None


def nanos_of(value: Any) -> int | None:
    if isinstance(value, (LocalTime, Time, LocalDateTime, DateTime)):
        return value.nanos_of_day
    return None


def zone_of(value: Any) -> _dt.tzinfo | None:
    if isinstance(value, Time):
        return offset_zone(value.offset_seconds)
    if isinstance(value, DateTime):
        return value.tzinfo
    return None


def _offset_at(tz: _dt.tzinfo, date: _dt.date | None, nanos: int) -> int:
    """The offset of ``tz`` at wall time ``date`` + ``nanos`` (today when there is no date)."""
    if not is_named_zone(tz):
        return int(tz.utcoffset(None).total_seconds())
    date = date or _dt.datetime.now(UTC).date()
    return DateTime.of_local(LocalDateTime.of(date, nanos), tz).offset_seconds


def make(kind: str, date: _dt.date | None, nanos: int | None, tz: _dt.tzinfo | None,
         prefer_offset: int | None = None):
    """The ``kind`` value for a wall date/time in ``tz`` (zone ignored by the local kinds)."""
    if kind == "date":
        return Date.from_python(date)
    if kind == "localtime":
        return LocalTime.of_nanos_of_day(nanos)
    if kind == "time":
        return Time.of_nanos_of_day(nanos, _offset_at(tz, date, nanos))
    local = LocalDateTime.of(date, nanos)
    if kind == "localdatetime":
        return local
    return DateTime.of_local(local, tz, prefer_offset=prefer_offset)


# --------------------------------------------------------------------------------------------
# From a map
# --------------------------------------------------------------------------------------------
def _normalize(kind: str, raw: dict) -> dict:
    fields = {}
    for key, value in raw.items():
        name = _CANONICAL.get(str(key).lower())
        if name is None:
            raise _invalid(f"No such field for {kind}(): {key}")
        if value is None:
            raise _invalid(f"{kind}(): field {key} must not be null")
        if name in _DATE_FIELDS + _TIME_FIELDS + ("epochSeconds", "epochMillis"):
            if isinstance(value, bool) or not isinstance(value, int):
                raise CypherTypeError(f"{kind}(): field {key} must be an Integer, got {value!r}",
                                      detail="InvalidArgumentType")
        fields[name] = value
    if kind not in _HAS_DATE and any(f in fields for f in _DATE_FIELDS):
        raise _invalid(f"{kind}() cannot take date fields: {sorted(f for f in fields if f in _DATE_FIELDS)}")
    if kind not in _HAS_TIME and any(f in fields for f in _TIME_FIELDS):
        raise _invalid(f"{kind}() cannot take time fields: {sorted(f for f in fields if f in _TIME_FIELDS)}")
    if kind not in _HAS_ZONE and "timezone" in fields and len(fields) > 1:
        raise _invalid(f"{kind}() cannot take a timezone")
    return fields


def _clamped(year: int, month: int, day: int) -> Date:
    """``year-month-day`` with the day clamped to the month's length (as java.time's ``with``)."""
    if not 1 <= month <= 12:
        raise _invalid(f"Invalid value for month: {month} (valid values 1 - 12)")
    return Date(year, month, min(day, calendar.monthrange(year, month)[1]))


def _build_date(fields: dict, base: Date | None) -> Date:
    get = fields.get
    if base is None:
        if "year" not in fields:
            raise _invalid("year must be specified")
        for field, needs in (("day", "month"), ("dayOfWeek", "week"), ("dayOfQuarter", "quarter")):
            if field in fields and needs not in fields:
                raise _invalid(f"{field} cannot be specified without {needs}")
    if "week" in fields or "dayOfWeek" in fields:
        week_year = get("year", base.week_year if base else None)
        return Date.of_week(week_year, get("week", base.week if base else 1),
                            get("dayOfWeek", base.day_of_week if base else 1))
    if "ordinalDay" in fields:
        return Date.of_ordinal_day(get("year", base.year if base else None), fields["ordinalDay"])
    if "quarter" in fields or "dayOfQuarter" in fields:
        year = get("year", base.year if base else None)
        quarter = get("quarter", base.quarter if base else 1)
        if "dayOfQuarter" not in fields and base is not None:
            # java.time moves by whole months, keeping the day of month.
            if not 1 <= quarter <= 4:
                raise _invalid(f"Invalid value for quarter: {quarter} (valid values 1 - 4)")
            return _clamped(year, base.month + (quarter - base.quarter) * 3, base.day)
        return Date.of_quarter(year, quarter, get("dayOfQuarter", base.day_of_quarter if base else 1))
    if base is None:
        month, day = get("month", 1), get("day", 1)
        if not 1 <= month <= 12:
            raise _invalid(f"Invalid value for month: {month} (valid values 1 - 12)")
        return Date(fields["year"], month, day)
    if "day" in fields:
        return Date(get("year", base.year), get("month", base.month), fields["day"])
    return _clamped(get("year", base.year), get("month", base.month), base.day)


def _build_nanos(fields: dict, base: int | None) -> int:
    get = fields.get
    if base is None:
        order = ("hour", "minute", "second")
        for smaller, larger in zip(order[1:], order):
            if smaller in fields and larger not in fields:
                raise _invalid(f"{smaller} cannot be specified without {larger}")
        if any(f in fields for f in ("millisecond", "microsecond", "nanosecond")) and "second" not in fields:
            raise _invalid("sub-second fields cannot be specified without second")
    base = base or 0
    base_seconds, base_fraction = divmod(base, NANOS_PER_SECOND)
    hour = get("hour", base_seconds // 3600)
    minute = get("minute", base_seconds // 60 % 60)
    second = get("second", base_seconds % 60)
    if not 0 <= hour <= 23:
        raise _invalid(f"Invalid value for hour: {hour} (valid values 0 - 23)")
    if not 0 <= minute <= 59:
        raise _invalid(f"Invalid value for minute: {minute} (valid values 0 - 59)")
    if not 0 <= second <= 59:
        raise _invalid(f"Invalid value for second: {second} (valid values 0 - 59)")
    fraction = base_fraction
    if any(f in fields for f in ("millisecond", "microsecond", "nanosecond")):
        ms = get("millisecond", base_fraction // 1_000_000)
        us = get("microsecond", base_fraction // 1000 % 1000)
        ns = get("nanosecond", base_fraction % 1000)
        limits = {"millisecond": 999,
                  "microsecond": 999 if "millisecond" in fields else 999_999,
                  "nanosecond": 999 if "millisecond" in fields or "microsecond" in fields else 999_999_999}
        for name, value in (("millisecond", ms), ("microsecond", us), ("nanosecond", ns)):
            if name in fields and not 0 <= value <= limits[name]:
                raise _invalid(f"Invalid value for {name}: {value} (valid values 0 - {limits[name]})")
        fraction = ms * 1_000_000 + us * 1000 + ns
        if fraction >= NANOS_PER_SECOND:
            raise _invalid(f"Invalid sub-second value: {fraction} nanoseconds")
    return (hour * 3600 + minute * 60 + second) * NANOS_PER_SECOND + fraction


def _from_epoch(kind: str, fields: dict, default_tz: _dt.tzinfo):
    sub = (fields.get("millisecond", 0) * 1_000_000 + fields.get("microsecond", 0) * 1000
           + fields.get("nanosecond", 0))
    if "epochSeconds" in fields:
        nanos = fields["epochSeconds"] * NANOS_PER_SECOND + sub
    else:
        nanos = fields["epochMillis"] * 1_000_000 + sub
    tz = parse_zone(fields["timezone"]) if "timezone" in fields else default_tz
    seconds, nanosecond = divmod(nanos, NANOS_PER_SECOND)
    value = DateTime.of_instant(seconds, nanosecond, tz)
    return convert(kind, value, default_tz)


def build_from_map(kind: str, raw: dict, default_tz: _dt.tzinfo = UTC, zone: _dt.tzinfo | None = None):
    """``kind(map)``: fields, selections (``{date: d, time: t}``) and ``timezone``.

    ``zone`` (used by truncate) sets the zone of the wall time outright instead of converting.
    """
    fields = _normalize(kind, raw)
    if "epochSeconds" in fields or "epochMillis" in fields:
        return _from_epoch(kind, fields, default_tz)
    source_date = source_nanos = source_zone = source_offset = None
    if "datetime" in fields:
        source = _temporal_arg(kind, "datetime", fields["datetime"])
        source_date, source_nanos, source_zone = date_of(source), nanos_of(source), zone_of(source)
        source_offset = getattr(source, "offset_seconds", None)
    if "date" in fields:
        source_date = date_of(_temporal_arg(kind, "date", fields["date"]))
        if source_date is None:
            raise _invalid(f"{kind}(): the date field needs a value with a date")
    if "time" in fields:
        source = _temporal_arg(kind, "time", fields["time"])
        source_nanos, source_zone = nanos_of(source), zone_of(source)
        source_offset = getattr(source, "offset_seconds", None)
        if source_nanos is None:
            raise _invalid(f"{kind}(): the time field needs a value with a time")
    date = _build_date(fields, source_date) if kind in _HAS_DATE else None
    nanos = _build_nanos(fields, source_nanos) if kind in _HAS_TIME else None
    if kind not in _HAS_ZONE:
        return make(kind, date, nanos, None)
    if date is None:
        date = source_date      # a time's offset in a named zone depends on the date
    target = parse_zone(fields["timezone"]) if "timezone" in fields else None
    if zone is not None:
        return make(kind, date, nanos, target or zone)
    if source_zone is None:
        return make(kind, date, nanos, target or default_tz)
    if kind == "time":
        if target is None:
            return Time.of_nanos_of_day(nanos, source_offset)
        offset = _offset_at(target, source_date, nanos)
        return Time.of_nanos_of_day(nanos - source_offset * NANOS_PER_SECOND + offset * NANOS_PER_SECOND,
                                    offset)
    value = make(kind, date, nanos, source_zone)
    return value if target is None else value.in_zone(target)


def _temporal_arg(kind: str, key: str, value: Any):
    if not isinstance(value, (Date, LocalTime, Time, LocalDateTime, DateTime)):
        raise CypherTypeError(f"{kind}(): field {key} must be a temporal value, got {value!r}",
                              detail="InvalidArgumentType")
    return value


# --------------------------------------------------------------------------------------------
# From another temporal value, and from the clock
# --------------------------------------------------------------------------------------------
def convert(kind: str, value: Any, default_tz: _dt.tzinfo = UTC):
    """``kind(value)`` for a temporal ``value``: keep what the kind has, fill the rest."""
    date, nanos, tz = date_of(value), nanos_of(value), zone_of(value)
    if kind in _HAS_DATE and date is None:
        raise CypherTypeError(f"Cannot build a {kind} from {type(value).__name__} {value}: it has no date",
                              detail="InvalidArgumentType")
    if kind in ("localtime", "time") and nanos is None:
        raise CypherTypeError(f"Cannot build a {kind} from {type(value).__name__} {value}: it has no time",
                              detail="InvalidArgumentType")
    if kind == "time" and isinstance(value, DateTime):
        return value.offset_time
    if kind == "datetime" and isinstance(value, DateTime):
        return value
    return make(kind, date, nanos if nanos is not None else 0, tz or default_tz,
                prefer_offset=value.offset_seconds if isinstance(value, (Time, DateTime)) else None)


def current(kind: str, now: _dt.datetime, tz: _dt.tzinfo):
    """The ``kind`` value for the instant ``now`` (an aware datetime) seen in ``tz``."""
    if now.tzinfo is None:
        now = now.replace(tzinfo=UTC)
    nanosecond = getattr(now, "nanosecond", now.microsecond * 1000)
    epoch = int((now.replace(microsecond=0) - _dt.datetime(1970, 1, 1, tzinfo=UTC)).total_seconds())
    value = DateTime.of_instant(epoch, nanosecond, tz)
    return value if kind == "datetime" else convert(kind, value, tz)


# --------------------------------------------------------------------------------------------
# Truncation
# --------------------------------------------------------------------------------------------
_DATE_UNITS = ("millennium", "century", "decade", "year", "weekyear", "quarter", "month", "week", "day")
_YEAR_UNITS = {"millennium": 1000, "century": 100, "decade": 10}
_TIME_UNITS = {"hour": 3600 * NANOS_PER_SECOND, "minute": 60 * NANOS_PER_SECOND,
               "second": NANOS_PER_SECOND, "millisecond": 1_000_000, "microsecond": 1000,
               "nanosecond": 1}


def _truncate_date(unit: str, date: Date) -> Date:
    # Years before 1 do not exist here, so truncating into year 0 stops at year 1.
    if unit in _YEAR_UNITS:
        return Date(max(1, date.year // _YEAR_UNITS[unit] * _YEAR_UNITS[unit]), 1, 1)
    if unit == "year":
        return Date(date.year, 1, 1)
    if unit == "weekyear":
        return Date.of_week(date.week_year, 1, 1)
    if unit == "quarter":
        return Date(date.year, date.quarter * 3 - 2, 1)
    if unit == "month":
        return Date(date.year, date.month, 1)
    if unit == "week":
        return Date.of_epoch_day(date.epoch_day - date.day_of_week + 1)
    return date


def truncate(kind: str, unit: Any, value: Any, fields: dict | None, default_tz: _dt.tzinfo = UTC):
    """``kind.truncate(unit, value, fields)``: cut ``value`` down to ``unit``, then apply ``fields``.

    A ``timezone`` in ``fields`` replaces the zone of the truncated wall time (no conversion).
    """
    if not isinstance(unit, str):
        raise CypherTypeError(f"{kind}.truncate(): the unit must be a String, got {unit!r}",
                              detail="InvalidArgumentType")
    key = unit.lower()
    if key not in _DATE_UNITS and key not in _TIME_UNITS:
        raise _invalid(f"{kind}.truncate(): unsupported unit {unit!r}")
    date, nanos, tz = date_of(value), nanos_of(value), zone_of(value)
    if kind in _HAS_DATE:
        if date is None:
            raise _invalid(f"{kind}.truncate(): cannot truncate {type(value).__name__} {value} to a date")
        if key in _DATE_UNITS:
            date, nanos = _truncate_date(key, date), 0
        elif kind == "date":
            raise _invalid(f"date.truncate(): unit {unit!r} is smaller than a day")
    elif key in _DATE_UNITS and key != "day":
        raise _invalid(f"{kind}.truncate(): unit {unit!r} is larger than a day")
    if nanos is None:
        nanos = 0
    if key == "day":
        nanos = 0
    elif key in _TIME_UNITS:
        step = _TIME_UNITS[key]
        nanos -= nanos % step
    selection = dict(fields or {})
    if date is not None:
        selection["date"] = Date.from_python(date)
    selection["time"] = LocalTime.of_nanos_of_day(nanos)
    return build_from_map(kind, selection, default_tz, zone=tz or default_tz)
