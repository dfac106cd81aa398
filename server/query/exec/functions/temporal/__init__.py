"""Cypher's temporal functions, registered like every other function (``TEMPORAL_FUNCTIONS`` lists them).

``date``, ``localtime``, ``time``, ``localdatetime``, ``datetime`` (from nothing = now, a string, a map
or another temporal), their ``.transaction/.statement/.realtime`` clocks and ``.truncate``,
``datetime.fromEpoch/fromEpochMillis``, ``duration`` and ``duration.between/inMonths/inDays/inSeconds``.
Operators and accessors used by the expression compiler are re-exported from here.
"""
from __future__ import annotations

import datetime as _dt
import math
from typing import Any, Callable

from relate.protocol.errors import ArgumentError, CypherTypeError
from relate.protocol.temporal import Date, DateTime, LocalDateTime, LocalTime, Time
from relate.protocol.temporal.parse import (duration_from_components, parse_date, parse_datetime,
                                   parse_duration, parse_local_datetime, parse_local_time, parse_time)
from relate.protocol.temporal.zones import UTC, offset_seconds_of, parse_zone
from relate.protocol.values import Duration

from relate.server.query.exec.functions.registry import function
from relate.server.query.exec.functions.temporal.access import temporal_property
from relate.server.query.exec.functions.temporal.arith import (duration_between, temporal_add, temporal_compare,
                                                     temporal_divide, temporal_equals, temporal_multiply,
                                                     temporal_subtract)
from relate.server.query.exec.functions.temporal.build import KINDS, build_from_map, convert, current, truncate

__all__ = ["TEMPORAL_FUNCTIONS", "temporal_property", "temporal_add", "temporal_subtract",
           "temporal_multiply", "temporal_divide", "temporal_compare", "temporal_equals"]

_TEMPORALS = (Date, LocalTime, Time, LocalDateTime, DateTime)
_DURATION_UNITS = {name.lower(): name for name in (
    "years", "months", "weeks", "days", "hours", "minutes", "seconds", "milliseconds",
    "microseconds", "nanoseconds")}


def _default_zone(ctx) -> _dt.tzinfo:
    """The session's default zone (``ctx.default_timezone`` when set), else UTC as in Neo4j."""
    name = getattr(ctx, "default_timezone", None)
    return parse_zone(name) if name else UTC


def _clock(ctx, which: str) -> _dt.datetime:
    """Now: the statement's clock, the transaction's (``ctx.tx_now`` if kept) or the real one."""
    if which != "realtime":
        now = getattr(ctx, "tx_now", None) if which == "transaction" else None
        now = now or getattr(ctx, "now", None)
        if now is not None:
            return now
    return _dt.datetime.now(UTC)


def _parse(kind: str, text: str, zone: _dt.tzinfo):
    if kind == "date":
        return parse_date(text)
    if kind == "localtime":
        return parse_local_time(text)
    if kind == "time":
        return parse_time(text, default_offset=offset_seconds_of(zone, _dt.datetime.now()))
    if kind == "localdatetime":
        return parse_local_datetime(text)
    return parse_datetime(text, default_zone=zone)


def _is_zone_only(value: dict) -> bool:
    return bool(value) and all(str(key).lower() == "timezone" for key in value)


def _constructor(kind: str) -> Callable:
    def construct(ctx, *args):
        if len(args) > 1:
            raise ArgumentError(f"{kind}() takes at most one argument", detail="InvalidNumberOfArguments")
        zone = _default_zone(ctx)
        if not args:
            return current(kind, _clock(ctx, "statement"), zone)
        value = args[0]
        if value is None:
            return None
        if isinstance(value, str):
            return _parse(kind, value, zone)
        if isinstance(value, dict):
            if _is_zone_only(value):
                return current(kind, _clock(ctx, "statement"), parse_zone(next(iter(value.values()))))
            return build_from_map(kind, value, zone)
        if isinstance(value, _TEMPORALS):
            return convert(kind, value, zone)
        raise CypherTypeError(f"Invalid input for {kind}(): expected a String, Map or temporal value, "
                              f"got {value!r}", detail="InvalidArgumentType")
    construct.__name__ = kind
    return construct


def _clock_function(kind: str, which: str) -> Callable:
    def now(ctx, *args):
        if len(args) > 1:
            raise ArgumentError(f"{kind}.{which}() takes at most one argument",
                                detail="InvalidNumberOfArguments")
        zone = _default_zone(ctx)
        if args:
            if args[0] is None:
                return None
            arg = args[0]
            if isinstance(arg, dict) and _is_zone_only(arg):
                arg = next(iter(arg.values()))
            zone = parse_zone(arg)
        return current(kind, _clock(ctx, which), zone)
    now.__name__ = f"{kind}_{which}"
    return now


_NOW = object()      # truncate's input when the call leaves it out: the statement clock's now


def _truncate_function(kind: str) -> Callable:
    def truncate_value(ctx, unit, value=_NOW, fields=None):
        """``kind.truncate(unit [, input [, fields]])``; without input, ``kind.truncate(unit, kind())``."""
        if value is _NOW:
            value = current(kind, _clock(ctx, "statement"), _default_zone(ctx))
        if unit is None or value is None:
            return None
        if not isinstance(value, _TEMPORALS):
            raise CypherTypeError(f"{kind}.truncate() expects a temporal value, got {value!r}",
                                  detail="InvalidArgumentType")
        if fields is not None and not isinstance(fields, dict):
            raise CypherTypeError(f"{kind}.truncate() expects a Map of fields, got {fields!r}",
                                  detail="InvalidArgumentType")
        return truncate(kind, unit, value, fields, _default_zone(ctx))
    truncate_value.__name__ = f"{kind}_truncate"
    return truncate_value


def _integer(name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise CypherTypeError(f"{name} expects a number, got {value!r}", detail="InvalidArgumentType")
    if isinstance(value, float) and not math.isfinite(value):
        raise ArgumentError(f"{name} expects a finite number, got {value}", detail="InvalidArgumentValue")
    return int(value)


def datetime_from_epoch(ctx, seconds, nanoseconds=0):
    """``datetime.fromEpoch(seconds, nanoseconds)`` in UTC."""
    if seconds is None or nanoseconds is None:
        return None
    seconds = _integer("datetime.fromEpoch", seconds)
    nanoseconds = _integer("datetime.fromEpoch", nanoseconds)
    return DateTime.of_instant(seconds, nanoseconds, UTC)


def datetime_from_epoch_millis(ctx, millis):
    """``datetime.fromEpochMillis(ms)`` in UTC."""
    if millis is None:
        return None
    seconds, rest = divmod(_integer("datetime.fromEpochMillis", millis), 1000)
    return DateTime.of_instant(seconds, rest * 1_000_000, UTC)


def duration_from_map(value: dict) -> Duration:
    """``duration({days: 14, hours: 16})``: any unit may be fractional."""
    parts = {}
    for key, amount in value.items():
        unit = _DURATION_UNITS.get(str(key).lower())
        if unit is None:
            raise ArgumentError(f"No such field for duration(): {key}", detail="InvalidArgumentValue")
        if amount is None:
            raise ArgumentError(f"duration(): field {key} must not be null", detail="InvalidArgumentValue")
        if isinstance(amount, bool) or not isinstance(amount, (int, float)):
            raise CypherTypeError(f"duration(): field {key} must be a number, got {amount!r}",
                                  detail="InvalidArgumentType")
        if isinstance(amount, float) and not math.isfinite(amount):
            raise ArgumentError(f"duration(): field {key} must be a finite number, got {amount!r}",
                                detail="InvalidArgumentValue")
        parts[unit] = amount
    return duration_from_components(**parts)


def duration(ctx, value=None):
    """``duration(string | map)``."""
    if value is None:
        return None
    if isinstance(value, str):
        return parse_duration(value)
    if isinstance(value, dict):
        return duration_from_map(value)
    if isinstance(value, Duration):
        return value
    raise CypherTypeError(f"Invalid input for duration(): expected a String or Map, got {value!r}",
                          detail="InvalidArgumentType")


def _between(unit: str | None) -> Callable:
    def between(ctx, a, b):
        return duration_between(unit, a, b)
    between.__name__ = f"duration_{unit or 'between'}"
    return between


def _register() -> dict[str, Callable]:
    """Register every temporal function with the one function registry; returns them by lower-case name.
    Constructors and clocks read the statement's clock or the session's zone: never folded (pure=False)."""
    registered: dict[str, Callable] = {}

    def add(name: str, fn: Callable, low: int, high: int | None, description: str, pure: bool = False) -> None:
        function(name, low, high, pure=pure, description=description)(fn)
        registered[name.lower()] = fn

    for kind in KINDS:
        add(kind, _constructor(kind), 0, 1, f"A {kind} from a string, a map, another temporal value or the clock.")
        for which in ("transaction", "statement", "realtime"):
            add(f"{kind}.{which}", _clock_function(kind, which), 0, 1,
                f"The current {kind} by the {which} clock, in the given or the session's zone.")
        add(f"{kind}.truncate", _truncate_function(kind), 1, 3,
            f"A {kind} (by default the current one) truncated to a unit, with fields overridden by an "
            "optional map.")
    # These read neither clock nor zone: pure (a constant input is computed once, at compile time)
    add("datetime.fromEpoch", datetime_from_epoch, 1, 2, "The UTC datetime of epoch seconds and nanoseconds.",
        pure=True)
    add("datetime.fromEpochMillis", datetime_from_epoch_millis, 1, 1, "The UTC datetime of epoch milliseconds.",
        pure=True)
    add("duration", duration, 1, 1, "A duration from an ISO 8601 string or a map of units.", pure=True)
    add("duration.between", _between(None), 2, 2, "The duration between two temporal values.", pure=True)
    add("duration.inMonths", _between("months"), 2, 2, "The duration between two values in whole months.",
        pure=True)
    add("duration.inDays", _between("days"), 2, 2, "The duration between two values in whole days.", pure=True)
    add("duration.inSeconds", _between("seconds"), 2, 2, "The duration between two values in seconds.",
        pure=True)
    return registered


TEMPORAL_FUNCTIONS = _register()
