"""Time zones for Cypher temporals: fixed UTC offsets and IANA zones, their ids and formatting."""
from __future__ import annotations

import datetime as _dt
import functools
import importlib.resources
import re
import zoneinfo
from typing import cast

from ..errors import ArgumentError

__all__ = ["UTC", "offset_zone", "named_zone", "parse_zone", "parse_offset", "zone_id",
           "is_named_zone", "format_offset", "offset_seconds_of"]

MAX_OFFSET_SECONDS = 18 * 3600
UTC = _dt.timezone.utc

_ZONE_NAME = re.compile(r"[A-Za-z0-9_+\-]+(?:/[A-Za-z0-9_+\-]+)*")
_OFFSET = re.compile(r"([+-])(\d{2})(?::?(\d{2})(?::?(\d{2}))?)?")


@functools.lru_cache(maxsize=None)
def offset_zone(seconds: int) -> _dt.timezone:
    """The fixed-offset zone for ``seconds`` east of UTC (one shared instance per offset)."""
    if abs(seconds) > MAX_OFFSET_SECONDS:
        raise ArgumentError(f"UTC offset {format_offset(seconds)} is outside -18:00..+18:00",
                            detail="InvalidArgumentValue")
    return UTC if seconds == 0 else _dt.timezone(_dt.timedelta(seconds=seconds))


@functools.lru_cache(maxsize=None)
def named_zone(name: str) -> zoneinfo.ZoneInfo:
    """The IANA zone ``name``, read from the pinned ``tzdata`` package so every host agrees. A space
    stands for an underscore, as in Neo4j (``'America/Los Angeles'``)."""
    name = name.replace(" ", "_")
    if not _ZONE_NAME.fullmatch(name):
        raise ArgumentError(f"Invalid time zone name: {name!r}", detail="InvalidArgumentValue")
    try:
        # The system zoneinfo may be built with other options (Europe/Stockholm's 1818 offset
        # differs), so prefer the tzdata package the project pins.
        resource = importlib.resources.files("tzdata.zoneinfo").joinpath(name)
        with resource.open("rb") as handle:
            return zoneinfo.ZoneInfo.from_file(handle, key=name)
    except (ModuleNotFoundError, FileNotFoundError, IsADirectoryError, ValueError, OSError):
        pass
    try:
        return zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError, OSError):
        raise ArgumentError(f"Invalid time zone: {name!r}", detail="InvalidArgumentValue") from None


def parse_offset(text: str) -> int | None:
    """Seconds east of UTC for ``Z``, ``+01``, ``+0100``, ``+01:00`` or ``+02:05:59``.

    None when ``text`` is not an offset at all (it may be a zone name)."""
    if text in ("Z", "z"):
        return 0
    match = _OFFSET.fullmatch(text)
    if not match:
        return None
    sign, hours, minutes, seconds = match.groups()
    total = int(hours) * 3600 + int(minutes or 0) * 60 + int(seconds or 0)
    if int(minutes or 0) > 59 or int(seconds or 0) > 59:
        raise ArgumentError(f"Invalid UTC offset: {text!r}", detail="InvalidArgumentValue")
    return -total if sign == "-" else total


def parse_zone(text: str) -> _dt.tzinfo:
    """A zone from its Cypher spelling: an offset (``+01:00``, ``Z``) or an IANA name."""
    if not isinstance(text, str):
        raise ArgumentError(f"A time zone must be a string, not {text!r}", detail="InvalidArgumentType")
    offset = parse_offset(text)
    if offset is not None:
        return offset_zone(offset)
    return named_zone(text)


def is_named_zone(tz: _dt.tzinfo) -> bool:
    """True for region zones (IANA names), False for fixed offsets."""
    return not isinstance(tz, _dt.timezone)


def zone_id(tz: _dt.tzinfo) -> str:
    """The zone's Cypher id: ``Europe/Stockholm`` for named zones, ``+01:00`` or ``Z`` for offsets."""
    if is_named_zone(tz):
        return str(getattr(tz, "key", None) or tz)
    return format_offset(int(cast(_dt.timedelta, tz.utcoffset(None)).total_seconds()))


def format_offset(seconds: int) -> str:
    """``Z``, ``+01:00`` or ``-02:05:07`` (seconds only when present), as Java prints offsets."""
    if seconds == 0:
        return "Z"
    sign = "-" if seconds < 0 else "+"
    hours, rest = divmod(abs(seconds), 3600)
    minutes, secs = divmod(rest, 60)
    text = f"{sign}{hours:02d}:{minutes:02d}"
    return f"{text}:{secs:02d}" if secs else text


def offset_seconds_of(tz: _dt.tzinfo, local: _dt.datetime | None = None) -> int:
    """The zone's UTC offset in seconds at the naive wall time ``local`` (its fold respected)."""
    delta = tz.utcoffset(local)
    return int(cast(_dt.timedelta, delta).total_seconds())
