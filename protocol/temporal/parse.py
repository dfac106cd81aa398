"""ISO 8601 parsing for Cypher temporal strings and durations, in every form the TCK uses.

Dates: ``2015-07-21``/``20150721``, ``2015-07``, ``2015-W30-2``/``2015W302``, ``2015-Q2-60``/``2015Q260``,
``2015-Q2``, ``2015-202``, ``2015``.
Times: ``21:40:32.142``/``214032.142``, ``21:40``, ``21``, with ``Z``/``+01``/``+0100``/``+01:00`` and
``[Europe/Stockholm]``. Durations: ``P1Y2M3W4DT5H6M7.5S`` (any component fractional, signs per
component) and the alternative ``P2012-02-02T14:37:21.545``.
"""
from __future__ import annotations

import datetime as _dt
import re
from fractions import Fraction
from typing import cast

from ..errors import ArgumentError
from . import Date, DateTime, LocalDateTime, LocalTime, Time
from .far import FarDate, FarLocalDateTime
from .zones import UTC, named_zone, offset_seconds_of, offset_zone, parse_offset
from ..values import Duration

__all__ = ["parse_date", "parse_local_time", "parse_time", "parse_local_datetime", "parse_datetime",
           "parse_duration", "duration_from_components"]

_YEAR = r"(?P<year>[0-9]{4}|[+-][0-9]{4,9})"
_DATE = re.compile(
    _YEAR + r"(?:"
    r"-(?P<month>[0-9]{2})(?:-(?P<day>[0-9]{2}))?"
    r"|(?P<month_b>[0-9]{2})(?P<day_b>[0-9]{2})?"
    r"|-W(?P<week>[0-9]{2})(?:-(?P<dow>[0-9]))?"
    r"|W(?P<week_b>[0-9]{2})(?P<dow_b>[0-9])?"
    r"|-Q(?P<quarter>[0-9])(?:-(?P<doq>[0-9]{2}))?"
    r"|Q(?P<quarter_b>[0-9])(?P<doq_b>[0-9]{2})?"
    r"|-(?P<ordinal>[0-9]{3})"
    r"|(?P<ordinal_b>[0-9]{3})"
    r")?")
_TIME = re.compile(
    r"(?P<hour>[0-9]{2})(?:"
    r":(?P<minute>[0-9]{2})(?::(?P<second>[0-9]{2})(?:[.,](?P<fraction>[0-9]{1,9}))?)?"
    r"|(?P<minute_b>[0-9]{2})(?:(?P<second_b>[0-9]{2})(?:[.,](?P<fraction_b>[0-9]{1,9}))?)?"
    r")?")
_ZONE_SUFFIX = re.compile(r"(?P<offset>[Zz]|[+-][0-9]{2}(?::?[0-9]{2}(?::?[0-9]{2})?)?)?"
                          r"(?:\[(?P<zone>[^\]]+)\])?")
_NUMBER = r"[-+]?[0-9]+(?:[.,][0-9]+)?"
_DURATION = re.compile(
    rf"(?P<sign>[-+]?)P(?:(?P<years>{_NUMBER})Y)?(?:(?P<months>{_NUMBER})M)?(?:(?P<weeks>{_NUMBER})W)?"
    rf"(?:(?P<days>{_NUMBER})D)?(?:T(?:(?P<hours>{_NUMBER})H)?(?:(?P<minutes>{_NUMBER})M)?"
    rf"(?:(?P<seconds>{_NUMBER})S)?)?", re.IGNORECASE)
_DURATION_ALT = re.compile(
    r"(?P<sign>[-+]?)P(?P<years>[0-9]{4})-?(?P<months>[0-9]{2})-?(?P<days>[0-9]{2})"
    r"(?:T(?P<hours>[0-9]{2}):?(?P<minutes>[0-9]{2}):?(?P<seconds>[0-9]{2}(?:[.,][0-9]{1,9})?))?")


def _invalid(kind: str, text: str) -> ArgumentError:
    return ArgumentError(f"Text cannot be parsed to a {kind}: {text!r}", detail="InvalidArgumentValue")


def _split_datetime(text: str, kind: str) -> tuple[str, str | None]:
    if not isinstance(text, str):
        raise ArgumentError(f"Expected a string to parse as a {kind}, got {text!r}",
                            detail="InvalidArgumentType")
    date_text, sep, time_text = text.strip().partition("T")
    if not sep:
        date_text, sep, time_text = text.strip().partition("t")
    return date_text, (time_text if sep else None)


def _date_from_match(match: re.Match[str]) -> Date | FarDate:
    year = int(match["year"])
    month, day = match["month"] or match["month_b"], match["day"] or match["day_b"]
    week, dow = match["week"] or match["week_b"], match["dow"] or match["dow_b"]
    ordinal = match["ordinal"] or match["ordinal_b"]
    quarter, day_of_quarter = match["quarter"] or match["quarter_b"], match["doq"] or match["doq_b"]
    if year < 1 or year > 9999:
        if not week and not ordinal and not quarter:     # a calendar date: Cypher's full range (far.py)
            return FarDate(year, int(month or 1), int(day or 1))
        raise ArgumentError(f"Year {year} is outside the supported range 1..9999",
                            detail="InvalidArgumentValue")
    if week:
        return Date.of_week(year, int(week), int(dow or 1))
    if ordinal:
        return Date.of_ordinal_day(year, int(ordinal))
    if quarter:
        return Date.of_quarter(year, int(quarter), int(day_of_quarter or 1))
    return Date(year, int(month or 1), int(day or 1))


def parse_date(text: str) -> Date | FarDate:
    date_text, time_text = _split_datetime(text, "date")
    match = _DATE.fullmatch(date_text)
    if not match or time_text is not None:
        raise _invalid("date", text)
    return _date_from_match(match)


def _split_time(text: str, kind: str, original: str) -> tuple[int, re.Match[str]]:
    """Nanoseconds of day of the leading time in ``text`` and the match of what follows it."""
    match = _TIME.match(text)
    if not match:
        raise _invalid(kind, original)
    hour = int(match["hour"])
    minute = int(match["minute"] or match["minute_b"] or 0)
    second = int(match["second"] or match["second_b"] or 0)
    fraction = match["fraction"] or match["fraction_b"] or ""
    nanosecond = int(fraction.ljust(9, "0")) if fraction else 0
    if hour > 23 or minute > 59 or second > 59:
        raise _invalid(kind, original)
    suffix = _ZONE_SUFFIX.fullmatch(text, match.end())
    if not suffix:
        raise _invalid(kind, original)
    return ((hour * 60 + minute) * 60 + second) * 1_000_000_000 + nanosecond, suffix


def parse_local_time(text: str) -> LocalTime:
    if not isinstance(text, str):
        raise ArgumentError(f"Expected a string to parse as a local time, got {text!r}",
                            detail="InvalidArgumentType")
    nanos, suffix = _split_time(text.strip(), "local time", text)
    if suffix["offset"] or suffix["zone"]:
        raise _invalid("local time", text)
    return LocalTime.of_nanos_of_day(nanos)


def parse_time(text: str, default_offset: int = 0) -> Time:
    if not isinstance(text, str):
        raise ArgumentError(f"Expected a string to parse as a time, got {text!r}",
                            detail="InvalidArgumentType")
    nanos, suffix = _split_time(text.strip(), "time", text)
    if suffix["zone"]:
        raise _invalid("time", text)
    offset = parse_offset(suffix["offset"]) if suffix["offset"] else default_offset
    return Time.of_nanos_of_day(nanos, cast(int, offset))


def _parse_local_parts(text: str, kind: str) -> tuple[Date | FarDate, int, re.Match[str] | None]:
    date_text, time_text = _split_datetime(text, kind)
    match = _DATE.fullmatch(date_text)
    if not match:
        raise _invalid(kind, text)
    date = _date_from_match(match)
    if time_text is None:
        return date, 0, None
    nanos, suffix = _split_time(time_text, kind, text)
    return date, nanos, suffix


def parse_local_datetime(text: str) -> LocalDateTime | FarLocalDateTime:
    date, nanos, suffix = _parse_local_parts(text, "local date time")
    if suffix is not None and (suffix["offset"] or suffix["zone"]):
        raise _invalid("local date time", text)
    if isinstance(date, FarDate):
        return FarLocalDateTime(date, nanos)
    return LocalDateTime.of(date, nanos)


def _valid_offsets(local: LocalDateTime, tz: _dt.tzinfo) -> tuple[int, ...]:
    """The offsets ``tz`` may have at the wall time ``local``: both in an overlap, else the one
    (in a gap, the offset before it, as java.time's ``ZoneRules.getOffset(LocalDateTime)``)."""
    naive = _dt.datetime(local.year, local.month, local.day, local.hour, local.minute, local.second)
    before, after = (offset_seconds_of(tz, naive.replace(fold=fold)) for fold in (0, 1))
    return (before, after) if before > after else (before,)


def parse_datetime(text: str, default_zone: _dt.tzinfo = UTC) -> DateTime:
    """A zoned date time; without offset or zone it lies in ``default_zone``."""
    date, nanos, suffix = _parse_local_parts(text, "date time")
    if isinstance(date, FarDate):
        raise ArgumentError(f"Year {date.year} is outside the supported range 1..9999 for zoned date times",
                            detail="InvalidArgumentValue")
    local = LocalDateTime.of(date, nanos)
    offset = parse_offset(suffix["offset"]) if suffix is not None and suffix["offset"] else None
    zone = suffix["zone"] if suffix is not None else None
    if zone:
        tz = named_zone(zone)
        if offset is not None and offset not in _valid_offsets(local, tz):
            raise ArgumentError(f"Timezone and offset do not match: {text.strip()}",
                                detail="InvalidArgumentValue")
        return DateTime.of_local(local, tz, prefer_offset=offset)
    if offset is not None:
        return DateTime.of_local(local, offset_zone(offset))
    return DateTime.of_local(local, default_zone)


def _number(text: str | None) -> Fraction | int:
    if not text:
        return 0
    text = text.replace(",", ".")
    return Fraction(text) if "." in text else int(text)


_Amount = int | float | Fraction


def duration_from_components(years: _Amount = 0, months: _Amount = 0, weeks: _Amount = 0, days: _Amount = 0,
                             hours: _Amount = 0, minutes: _Amount = 0, seconds: _Amount = 0,
                             milliseconds: _Amount = 0, microseconds: _Amount = 0,
                             nanoseconds: _Amount = 0) -> Duration:
    """A Duration from unit amounts (ints, floats or Fractions); fractions cascade to smaller units."""
    years, months, weeks, days, hours, minutes, seconds, milliseconds, microseconds, nanoseconds = (
        Fraction(repr(v)) if isinstance(v, float) else v
        for v in (years, months, weeks, days, hours, minutes, seconds, milliseconds, microseconds,
                  nanoseconds))
    return Duration.approximate(
        months=years * 12 + months, days=weeks * 7 + days,
        seconds=hours * 3600 + minutes * 60 + seconds,
        nanoseconds=milliseconds * 1_000_000 + microseconds * 1000 + nanoseconds)


def parse_duration(text: str) -> Duration:
    if not isinstance(text, str):
        raise ArgumentError(f"Expected a string to parse as a duration, got {text!r}",
                            detail="InvalidArgumentType")
    stripped = text.strip()
    match = _DURATION.fullmatch(stripped)
    units = ("years", "months", "weeks", "days", "hours", "minutes", "seconds")
    if match:
        if not any(match[unit] for unit in units) or stripped.upper().endswith("T"):
            raise _invalid("duration", text)
    else:
        match = _DURATION_ALT.fullmatch(stripped)
        if not match:
            raise _invalid("duration", text)
        units = ("years", "months", "days", "hours", "minutes", "seconds")  # type: ignore[assignment]
    duration = duration_from_components(**{unit: _number(match[unit]) for unit in units})
    return -duration if match["sign"] == "-" else duration
