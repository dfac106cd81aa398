"""APOC date functions (apoc.date.*) over epoch numbers in a unit (ms by default): format and parse with
Java date patterns, ISO 8601, unit conversion and arithmetic, fields of an instant."""
from __future__ import annotations

import datetime as _dt
import math
import time

from relate.protocol.errors import ArgumentError
from relate.server.query.exec.functions.apoc.args import as_int, as_number, as_str
from relate.server.query.exec.functions.apoc.java_time import (fields_to_datetime, format_datetime, parse_fields,
                                                               parse_zone)
from relate.server.query.exec.functions.registry import function

_NANOS = {"ns": 1, "us": 1_000, "ms": 1_000_000, "s": 10 ** 9, "m": 60 * 10 ** 9, "h": 3600 * 10 ** 9,
          "d": 86400 * 10 ** 9}
_UNIT_NAMES = {"ns": "ns", "nano": "ns", "nanos": "ns", "nanoseconds": "ns",
               "us": "us", "micro": "us", "micros": "us", "microseconds": "us",
               "ms": "ms", "milli": "ms", "millis": "ms", "milliseconds": "ms",
               "s": "s", "second": "s", "seconds": "s", "m": "m", "minute": "m", "minutes": "m",
               "h": "h", "hour": "h", "hours": "h", "d": "d", "day": "d", "days": "d"}
_DEFAULT_PATTERN = "yyyy-MM-dd HH:mm:ss"
_EPOCH = _dt.datetime(1970, 1, 1, tzinfo=_dt.timezone.utc)


def _unit(name: str, unit) -> int:
    """Nanoseconds per ``unit`` (ms, s, m, h, d, us, ns and their long names)."""
    key = _UNIT_NAMES.get(as_str(name, unit).lower()) if unit is not None else "ms"
    if key is None:
        raise ArgumentError(f"{name}(): unknown time unit {unit!r} (ms, s, m, h, d, us or ns)",
                            detail="InvalidArgumentValue", phase="runtime")
    return _NANOS[key]


def _truncate(numerator: int, denominator: int) -> int:
    """Integer division rounding toward zero, as Java's TimeUnit conversions do."""
    q = abs(numerator) // denominator
    return q if numerator >= 0 else -q


def _to_nanos(name: str, value, unit) -> int:
    number = as_number(name, value)
    if type(number) is float:
        if not math.isfinite(number):
            raise ArgumentError(f"{name}(): the time must be a finite number, not {number}",
                                detail="NumberOutOfRange", phase="runtime")
        number *= _unit(name, unit)
        if not math.isfinite(number):
            raise ArgumentError(f"{name}(): the time is out of range", detail="NumberOutOfRange", phase="runtime")
        return int(number)
    return number * _unit(name, unit)


def _zone(name: str, timezone) -> _dt.tzinfo:
    if timezone is None or timezone == "":
        return _dt.timezone.utc
    return parse_zone(as_str(name, timezone))


def _instant(name: str, nanos: int, zone: _dt.tzinfo) -> tuple[_dt.datetime, int]:
    """The aware datetime of an epoch in nanoseconds, and its nanosecond of second."""
    seconds, nano = divmod(nanos, 10 ** 9)
    try:
        return (_EPOCH + _dt.timedelta(seconds=seconds)).astimezone(zone), nano
    except (OverflowError, ValueError):
        raise ArgumentError(f"{name}(): the time is outside the years 1 to 9999", detail="NumberOutOfRange",
                            phase="runtime") from None


def _epoch_nanos(value: _dt.datetime, nanos: int) -> int:
    delta = value - _EPOCH
    return (delta.days * 86400 + delta.seconds) * 10 ** 9 + nanos


@function("apoc.date.format", 1, 4, description="An epoch time in a unit (ms) as text in a Java date pattern "
                                                "('yyyy-MM-dd HH:mm:ss') and time zone (UTC) (APOC).")
def format_(ctx, value, unit="ms", pattern=_DEFAULT_PATTERN, timezone=None):
    if value is None:
        return None
    pattern = _DEFAULT_PATTERN if pattern is None else as_str("apoc.date.format", pattern)
    moment, nano = _instant("apoc.date.format", _to_nanos("apoc.date.format", value, unit),
                            _zone("apoc.date.format", timezone))
    return format_datetime(moment, nano, pattern)


@function("apoc.date.parse", 1, 4, description="Text in a Java date pattern ('yyyy-MM-dd HH:mm:ss') as an epoch time "
                                               "in a unit (ms); time zone UTC unless the text or argument names one (APOC).")
def parse(ctx, text, unit="ms", pattern=_DEFAULT_PATTERN, timezone=None):
    if text is None or text == "":
        return None
    pattern = _DEFAULT_PATTERN if pattern is None else as_str("apoc.date.parse", pattern)
    fields = parse_fields(as_str("apoc.date.parse", text), pattern)
    moment = fields_to_datetime(fields, _zone("apoc.date.parse", timezone))
    nanos = _epoch_nanos(moment, fields.get("nanos", 0))
    return _truncate(nanos, _unit("apoc.date.parse", unit))


@function("apoc.date.currentTimestamp", 0, pure=False, description="The current time in milliseconds since the epoch, "
                                                                   "from the real-time clock (APOC).")
def current_timestamp(ctx):
    return time.time_ns() // 1_000_000


@function("apoc.date.toISO8601", 1, 2, description="An epoch time in a unit (ms) as ISO 8601 UTC text with "
                                                   "milliseconds: 2020-01-01T00:00:00.000Z (APOC).")
def to_iso8601(ctx, value, unit="ms"):
    if value is None:
        return None
    moment, nano = _instant("apoc.date.toISO8601", _to_nanos("apoc.date.toISO8601", value, unit), _dt.timezone.utc)
    return format_datetime(moment, nano, "yyyy-MM-dd'T'HH:mm:ss.SSS'Z'")


@function("apoc.date.fromISO8601", 1, description="ISO 8601 text (with a Z or an offset) as milliseconds since the "
                                                  "epoch (APOC).")
def from_iso8601(ctx, text):
    if text is None:
        return None
    text = as_str("apoc.date.fromISO8601", text)
    try:
        moment = _dt.datetime.fromisoformat(text.strip())
    except ValueError:
        raise ArgumentError(f"apoc.date.fromISO8601(): '{text}' is not an ISO 8601 instant",
                            detail="InvalidArgumentValue", phase="runtime") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=_dt.timezone.utc)
    return _truncate(_epoch_nanos(moment, moment.microsecond * 1000), 1_000_000)


@function("apoc.date.convert", 3, description="A time converted from one unit to another, truncated: "
                                              "convert(1500, 'ms', 's') = 1 (APOC).")
def convert(ctx, value, unit, to_unit):
    if value is None:
        return None
    return _truncate(_to_nanos("apoc.date.convert", value, unit), _unit("apoc.date.convert", to_unit))


@function("apoc.date.add", 4, description="A time in a unit plus an amount in another unit, in the first unit (APOC).")
def add(ctx, value, unit, amount, amount_unit):
    if value is None or amount is None:
        return None
    total = _to_nanos("apoc.date.add", value, unit) + _to_nanos("apoc.date.add", amount, amount_unit)
    return _truncate(total, _unit("apoc.date.add", unit))


_FIELDS = {"ms": "millis", "milli": "millis", "millis": "millis", "milliseconds": "millis",
           "s": "second", "second": "second", "seconds": "second", "m": "minute", "minute": "minute",
           "minutes": "minute", "h": "hour", "hour": "hour", "hours": "hour", "d": "day", "day": "day",
           "days": "day", "w": "weekday", "weekday": "weekday", "weekdays": "weekday", "month": "month",
           "months": "month", "year": "year", "years": "year"}


@function("apoc.date.field", 1, 3, description="One field (d: day of month by default; ms, s, m, h, weekday, month, "
                                               "year) of an epoch time in milliseconds, in a time zone (UTC) (APOC).")
def field(ctx, value, unit="d", timezone=None):
    if value is None:
        return None
    which = _FIELDS.get(as_str("apoc.date.field", "d" if unit is None else unit).lower())
    if which is None:
        raise ArgumentError(f"apoc.date.field(): unknown field {unit!r}", detail="InvalidArgumentValue",
                            phase="runtime")
    moment, nano = _instant("apoc.date.field", as_int("apoc.date.field", value) * 1_000_000,
                            _zone("apoc.date.field", timezone))
    if which == "millis":
        return nano // 1_000_000
    if which == "weekday":
        return moment.isoweekday()
    return getattr(moment, which)


@function("apoc.date.fields", 1, 2, description="The fields of a date text read with a Java pattern: years, months, "
                                                "days, weekdays, hours, minutes, seconds, zoneid (APOC).")
def fields(ctx, text, pattern=_DEFAULT_PATTERN):
    if text is None:
        return None
    pattern = _DEFAULT_PATTERN if pattern is None else as_str("apoc.date.fields", pattern)
    parsed = parse_fields(as_str("apoc.date.fields", text), pattern)
    out: dict = {}
    for name, key in (("years", "year"), ("months", "month"), ("days", "day"), ("hours", "hour"),
                      ("minutes", "minute"), ("seconds", "second")):
        if key in parsed:
            out[name] = parsed[key]
    if "nanos" in parsed:
        out["millis"] = parsed["nanos"] // 1_000_000
    if {"year", "month", "day"} <= parsed.keys():
        try:
            out["weekdays"] = _dt.date(parsed["year"], parsed["month"], parsed["day"]).isoweekday()
        except ValueError:
            pass
    if "zone_text" in parsed:
        out["zoneid"] = parsed["zone_text"]
    return out


@function("apoc.date.systemTimezone", 0, pure=False, description="The time zone the server runs in (APOC).")
def system_timezone(ctx):
    zone = _dt.datetime.now().astimezone().tzinfo
    return getattr(zone, "key", None) or _dt.datetime.now().astimezone().tzname() or "UTC"
