"""Cypher temporal values as Python ``datetime`` types with nanosecond precision.

``Date`` is a ``datetime.date``; ``LocalTime``/``Time`` are ``datetime.time`` (naive / fixed UTC offset);
``LocalDateTime``/``DateTime`` are ``datetime.datetime`` (naive / offset or IANA zone). Each time-bearing
value also carries ``nanosecond`` (0..999_999_999; ``microsecond == nanosecond // 1000``). ``str()`` gives
the Cypher form (``2015-07-21T21:40:32.142+01:00[Europe/London]``); equality and ordering follow Cypher.
Years are limited to 1..9999 (Python's range), narrower than Neo4j's.
"""
from __future__ import annotations

import datetime as _dt
from typing import TYPE_CHECKING, Any, Callable, Self, SupportsIndex, cast

from ..errors import ArgumentError
from .zones import (UTC, format_offset, is_named_zone, named_zone, offset_seconds_of,
                                   offset_zone, zone_id)

__all__ = ["Date", "LocalTime", "Time", "LocalDateTime", "DateTime", "TEMPORAL_TYPES",
           "NANOS_PER_SECOND", "NANOS_PER_DAY", "format_year", "format_time_of_day", "iso_text"]

NANOS_PER_SECOND = 1_000_000_000
NANOS_PER_DAY = 86_400 * NANOS_PER_SECOND
UNIX_EPOCH_ORDINAL = 719_163          # date(1970, 1, 1).toordinal()


def _invalid(message: str) -> ArgumentError:
    return ArgumentError(message, detail="InvalidArgumentValue")


def _resolve_nanos(microsecond: int, nanosecond: int | None) -> int:
    """The nanosecond of second: ``nanosecond`` when given, else ``microsecond * 1000``."""
    if nanosecond is None:
        if not 0 <= microsecond < 1_000_000:
            raise _invalid(f"Invalid value for microsecond: {microsecond}")
        return microsecond * 1000
    if not 0 <= nanosecond < NANOS_PER_SECOND:
        raise _invalid(f"Invalid value for nanosecond: {nanosecond} (valid values 0 - 999999999)")
    return nanosecond


def format_year(year: int) -> str:
    """Four digits, or a sign and more digits outside 0..9999 (as ISO 8601 expanded years)."""
    if 0 <= year <= 9999:
        return f"{year:04d}"
    return f"{'-' if year < 0 else '+'}{abs(year):04d}"


def format_time_of_day(hour: int, minute: int, second: int, nanosecond: int) -> str:
    """``HH:MM``, with ``:SS`` and a 3, 6 or 9 digit fraction only when needed (Java's style)."""
    text = f"{hour:02d}:{minute:02d}"
    if second or nanosecond:
        text += f":{second:02d}"
        if nanosecond % 1_000_000 == 0 and nanosecond:
            text += f".{nanosecond // 1_000_000:03d}"
        elif nanosecond % 1000 == 0 and nanosecond:
            text += f".{nanosecond // 1000:06d}"
        elif nanosecond:
            text += f".{nanosecond:09d}"
    return text


def _split_nanos_of_day(nanos: int) -> tuple[int, int, int, int]:
    seconds, nanosecond = divmod(nanos, NANOS_PER_SECOND)
    hour, seconds = divmod(seconds, 3600)
    minute, second = divmod(seconds, 60)
    return hour, minute, second, nanosecond


class _NanosecondValue:
    """Shared behaviour of the time-bearing classes: the nanosecond, immutability, Cypher equality."""

    __slots__ = ()

    if TYPE_CHECKING:   # what the subclasses (time or datetime, and the Cypher hooks) provide
        _nanosecond: int
        hour: int
        minute: int
        second: int

        def _coerce(self, other: object) -> Any: ...
        def _eq_key(self) -> Any: ...
        def _order_key(self) -> Any: ...
        def to_state(self) -> tuple[Any, ...]: ...
        @classmethod
        def from_state(cls, state: Any) -> Any: ...

    @property
    def nanosecond(self) -> int:
        return self._nanosecond

    @property
    def nanos_of_day(self) -> int:
        return ((self.hour * 60 + self.minute) * 60 + self.second) * NANOS_PER_SECOND + self._nanosecond

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} values are immutable")

    def _set_nanosecond(self, nanosecond: int) -> None:
        object.__setattr__(self, "_nanosecond", nanosecond)

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self).from_state, (self.to_state(),))

    def __reduce_ex__(self, protocol: SupportsIndex) -> tuple[Any, ...]:
        return self.__reduce__()

    def __copy__(self) -> Self:
        return self

    def __deepcopy__(self, memo: Any) -> Self:
        return self

    # Cypher equality and ordering; subclasses define _coerce, _eq_key and _order_key.
    def __eq__(self, other: Any) -> bool:
        other = self._coerce(other)
        return NotImplemented if other is None else self._eq_key() == other._eq_key()

    def __ne__(self, other: Any) -> bool:
        result = self.__eq__(other)
        return result if result is NotImplemented else not result

    def __lt__(self, other: Any) -> bool:
        other = self._coerce(other)
        return NotImplemented if other is None else self._order_key() < other._order_key()

    def __le__(self, other: Any) -> bool:
        other = self._coerce(other)
        return NotImplemented if other is None else self._order_key() <= other._order_key()

    def __gt__(self, other: Any) -> bool:
        other = self._coerce(other)
        return NotImplemented if other is None else self._order_key() > other._order_key()

    def __ge__(self, other: Any) -> bool:
        other = self._coerce(other)
        return NotImplemented if other is None else self._order_key() >= other._order_key()

    def __hash__(self) -> int:
        # Equal to the plain Python value's hash when there are no sub-microsecond digits.
        base = super().__hash__()
        extra = self._nanosecond % 1000
        return base if not extra else hash((base, extra))

    def __repr__(self) -> str:
        return f"{type(self).__name__}('{self}')"

    def __format__(self, spec: str) -> str:
        return str(self) if not spec else super().__format__(spec)


class Date(_dt.date):
    """A calendar date (Cypher ``DATE``), e.g. ``1984-10-11``."""

    __slots__ = ()

    def __new__(cls, year: int, month: int = 1, day: int = 1) -> Self:
        try:
            return super().__new__(cls, year, month, day)
        except (ValueError, OverflowError, TypeError) as exc:
            raise _invalid(f"Invalid date {year}-{month}-{day}: {exc}") from None

    @classmethod
    def from_python(cls, value: _dt.date) -> "Date":
        return value if type(value) is cls else cls(value.year, value.month, value.day)

    @classmethod
    def of_epoch_day(cls, days: int) -> "Date":
        try:
            return cls.fromordinal(days + UNIX_EPOCH_ORDINAL)
        except (ValueError, OverflowError):
            raise _invalid(f"Epoch day {days} is out of the supported range") from None

    @classmethod
    def of_week(cls, week_year: int, week: int, day_of_week: int = 1) -> "Date":
        """The date of ISO ``week_year``-W``week``-``day_of_week`` (weeks start on Monday)."""
        if not 1 <= week <= 53 or not 1 <= day_of_week <= 7:
            raise _invalid(f"Invalid week date {week_year}-W{week}-{day_of_week}")
        try:
            value = cls.fromisocalendar(week_year, week, day_of_week)
        except ValueError as exc:
            raise _invalid(f"Invalid week date {week_year}-W{week}-{day_of_week}: {exc}") from None
        return cls.from_python(value)

    @classmethod
    def of_ordinal_day(cls, year: int, ordinal_day: int) -> "Date":
        last = 366 if cls(year, 12, 31).timetuple().tm_yday == 366 else 365
        if not 1 <= ordinal_day <= last:
            raise _invalid(f"Invalid ordinal day {ordinal_day} for year {year}")
        return cls.of_epoch_day(cls(year, 1, 1).epoch_day + ordinal_day - 1)

    @classmethod
    def of_quarter(cls, year: int, quarter: int, day_of_quarter: int = 1) -> "Date":
        if not 1 <= quarter <= 4:
            raise _invalid(f"Invalid value for quarter: {quarter} (valid values 1 - 4)")
        start = cls(year, quarter * 3 - 2, 1)
        end = cls(year + 1, 1, 1) if quarter == 4 else cls(year, quarter * 3 + 1, 1)
        if not 1 <= day_of_quarter <= end.epoch_day - start.epoch_day:
            raise _invalid(f"Invalid day of quarter {day_of_quarter} for {year}-Q{quarter}")
        return cls.of_epoch_day(start.epoch_day + day_of_quarter - 1)

    @classmethod
    def parse(cls, text: str) -> "Date":
        from .parse import parse_date
        value = parse_date(text)
        if not isinstance(value, Date):      # a year beyond 1..9999 (a FarDate): not a Python date
            raise _invalid(f"Year {value.year} is outside the supported range 1..9999")
        return value

    @property
    def epoch_day(self) -> int:
        return self.toordinal() - UNIX_EPOCH_ORDINAL

    @property
    def quarter(self) -> int:
        return (self.month - 1) // 3 + 1

    @property
    def day_of_quarter(self) -> int:
        return self.epoch_day - Date(self.year, self.quarter * 3 - 2, 1).epoch_day + 1

    @property
    def ordinal_day(self) -> int:
        return self.timetuple().tm_yday

    @property
    def week_year(self) -> int:
        return self.isocalendar()[0]

    @property
    def week(self) -> int:
        return self.isocalendar()[1]

    @property
    def day_of_week(self) -> int:
        return self.isoweekday()

    def to_python(self) -> _dt.date:
        return _dt.date(self.year, self.month, self.day)

    def to_state(self) -> tuple[Any, ...]:
        return (self.year, self.month, self.day)

    @classmethod
    def from_state(cls, state: Any) -> "Date":
        return cls(*state)

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.year, self.month, self.day))

    def __reduce_ex__(self, protocol: SupportsIndex) -> tuple[Any, ...]:
        return self.__reduce__()

    def __str__(self) -> str:
        return f"{format_year(self.year)}-{self.month:02d}-{self.day:02d}"

    def __repr__(self) -> str:
        return f"Date('{self}')"

    def __format__(self, spec: str) -> str:
        return str(self) if not spec else super().__format__(spec)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, _dt.datetime) or not isinstance(other, _dt.date):
            return NotImplemented
        return self.toordinal() == other.toordinal()

    def __ne__(self, other: object) -> bool:
        result = self.__eq__(other)
        return result if result is NotImplemented else not result

    __hash__ = _dt.date.__hash__


class LocalTime(_NanosecondValue, _dt.time):
    """A time of day without a zone (Cypher ``LOCAL TIME``), e.g. ``12:31:14.645876123``."""

    __slots__ = ("_nanosecond",)

    def __new__(cls, hour: int = 0, minute: int = 0, second: int = 0, microsecond: int = 0,
                tzinfo: None = None, *, fold: int = 0, nanosecond: int | None = None) -> Self:
        if tzinfo is not None:
            raise _invalid("A LocalTime has no time zone; use Time for a time with an offset")
        nanos = _resolve_nanos(microsecond, nanosecond)
        try:
            self = _dt.time.__new__(cls, hour, minute, second, nanos // 1000, None, fold=fold)
        except (ValueError, TypeError) as exc:
            raise _invalid(f"Invalid time {hour}:{minute}:{second}: {exc}") from None
        self._set_nanosecond(nanos)
        return self

    @classmethod
    def of_nanos_of_day(cls, nanos: int) -> "LocalTime":
        hour, minute, second, nanosecond = _split_nanos_of_day(nanos % NANOS_PER_DAY)
        return cls(hour, minute, second, nanosecond=nanosecond)

    @classmethod
    def from_python(cls, value: _dt.time) -> "LocalTime":
        if type(value) is cls:
            return value
        return cls(value.hour, value.minute, value.second,
                   nanosecond=getattr(value, "nanosecond", value.microsecond * 1000))

    @classmethod
    def parse(cls, text: str) -> "LocalTime":
        from .parse import parse_local_time
        return parse_local_time(text)

    def replace(self, hour: Any = None, minute: Any = None, second: Any = None,
                microsecond: Any = None, tzinfo: Any = True, *, fold: Any = None, nanosecond: Any = None) -> "LocalTime":
        if nanosecond is None:
            nanosecond = self._nanosecond if microsecond is None else microsecond * 1000
        return type(self)(self.hour if hour is None else hour, self.minute if minute is None else minute,
                          self.second if second is None else second, nanosecond=nanosecond,
                          fold=self.fold if fold is None else fold)

    def to_python(self) -> _dt.time:
        return _dt.time(self.hour, self.minute, self.second, self.microsecond)

    def to_state(self) -> tuple[Any, ...]:
        return (self.nanos_of_day,)

    @classmethod
    def from_state(cls, state: Any) -> "LocalTime":
        return cls.of_nanos_of_day(state[0])

    def _coerce(self, other: object) -> Any:
        if isinstance(other, LocalTime):
            return other
        if isinstance(other, _dt.time) and not isinstance(other, Time) and other.tzinfo is None:
            return LocalTime.from_python(other)
        return None

    def _eq_key(self) -> Any:
        return self.nanos_of_day

    _order_key = _eq_key

    def __str__(self) -> str:
        return format_time_of_day(self.hour, self.minute, self.second, self._nanosecond)


class Time(_NanosecondValue, _dt.time):
    """A time of day with a fixed UTC offset (Cypher ``ZONED TIME``), e.g. ``12:31:14.645+01:00``."""

    __slots__ = ("_nanosecond",)

    def __new__(cls, hour: int = 0, minute: int = 0, second: int = 0, microsecond: int = 0,
                tzinfo: _dt.tzinfo | None = None, *, fold: int = 0, nanosecond: int | None = None) -> Self:
        tzinfo = UTC if tzinfo is None else tzinfo
        if is_named_zone(tzinfo):
            raise _invalid("A Time carries a fixed UTC offset, not a named time zone")
        nanos = _resolve_nanos(microsecond, nanosecond)
        try:
            self = _dt.time.__new__(cls, hour, minute, second, nanos // 1000, tzinfo, fold=fold)
        except (ValueError, TypeError) as exc:
            raise _invalid(f"Invalid time {hour}:{minute}:{second}: {exc}") from None
        self._set_nanosecond(nanos)
        return self

    @classmethod
    def of_nanos_of_day(cls, nanos: int, offset_seconds: int = 0) -> "Time":
        hour, minute, second, nanosecond = _split_nanos_of_day(nanos % NANOS_PER_DAY)
        return cls(hour, minute, second, tzinfo=offset_zone(offset_seconds), nanosecond=nanosecond)

    @classmethod
    def from_python(cls, value: _dt.time) -> "Time":
        if type(value) is cls:
            return value
        offset = int(cast(_dt.timedelta, value.utcoffset()).total_seconds()) if value.tzinfo is not None else 0
        return cls(value.hour, value.minute, value.second, tzinfo=offset_zone(offset),
                   nanosecond=getattr(value, "nanosecond", value.microsecond * 1000))

    @classmethod
    def parse(cls, text: str) -> "Time":
        from .parse import parse_time
        return parse_time(text)

    @property
    def offset_seconds(self) -> int:
        return int(cast(_dt.timedelta, self.utcoffset()).total_seconds())

    @property
    def zone_id(self) -> str:
        return format_offset(self.offset_seconds)

    @property
    def local_time(self) -> LocalTime:
        return LocalTime.of_nanos_of_day(self.nanos_of_day)

    def replace(self, hour: Any = None, minute: Any = None, second: Any = None,
                microsecond: Any = None, tzinfo: Any = True, *, fold: Any = None, nanosecond: Any = None) -> "Time":
        if nanosecond is None:
            nanosecond = self._nanosecond if microsecond is None else microsecond * 1000
        return type(self)(self.hour if hour is None else hour, self.minute if minute is None else minute,
                          self.second if second is None else second,
                          tzinfo=self.tzinfo if tzinfo is True else tzinfo, nanosecond=nanosecond,
                          fold=self.fold if fold is None else fold)

    def to_python(self) -> _dt.time:
        return _dt.time(self.hour, self.minute, self.second, self.microsecond, self.tzinfo)

    def to_state(self) -> tuple[Any, ...]:
        return (self.nanos_of_day, self.offset_seconds)

    @classmethod
    def from_state(cls, state: Any) -> "Time":
        return cls.of_nanos_of_day(state[0], state[1])

    def _coerce(self, other: object) -> Any:
        if isinstance(other, Time):
            return other
        if isinstance(other, _dt.time) and not isinstance(other, LocalTime) and other.tzinfo is not None:
            return Time.from_python(other)
        return None

    def _eq_key(self) -> Any:
        return (self.nanos_of_day, self.offset_seconds)

    def _order_key(self) -> Any:
        return (self.nanos_of_day - self.offset_seconds * NANOS_PER_SECOND, self.nanos_of_day)

    def __str__(self) -> str:
        return format_time_of_day(self.hour, self.minute, self.second, self._nanosecond) + self.zone_id


class LocalDateTime(_NanosecondValue, _dt.datetime):
    """A date and time without a zone (Cypher ``LOCAL DATETIME``), e.g. ``1984-10-11T12:31:14.645``."""

    __slots__ = ("_nanosecond",)

    def __new__(cls, year: int, month: int = 1, day: int = 1, hour: int = 0, minute: int = 0,
                second: int = 0, microsecond: int = 0, tzinfo: None = None, *, fold: int = 0,
                nanosecond: int | None = None) -> Self:
        if tzinfo is not None:
            raise _invalid("A LocalDateTime has no time zone; use DateTime")
        nanos = _resolve_nanos(microsecond, nanosecond)
        try:
            self = _dt.datetime.__new__(cls, year, month, day, hour, minute, second, nanos // 1000,
                                        None, fold=fold)
        except (ValueError, TypeError, OverflowError) as exc:
            raise _invalid(f"Invalid local date time {year}-{month}-{day}T{hour}:{minute}:{second}: "
                           f"{exc}") from None
        self._set_nanosecond(nanos)
        return self

    @classmethod
    def of(cls, date: _dt.date, nanos_of_day: int = 0) -> "LocalDateTime":
        """``date`` at ``nanos_of_day``; whole days beyond one roll into the date."""
        days, nanos = divmod(nanos_of_day, NANOS_PER_DAY)
        if days:
            date = Date.of_epoch_day(Date.from_python(date).epoch_day + days)
        hour, minute, second, nanosecond = _split_nanos_of_day(nanos)
        return cls(date.year, date.month, date.day, hour, minute, second, nanosecond=nanosecond)

    @classmethod
    def of_epoch_nanos(cls, nanos: int) -> "LocalDateTime":
        """The wall time that is ``nanos`` after 1970-01-01T00:00."""
        days, rest = divmod(nanos, NANOS_PER_DAY)
        return cls.of(Date.of_epoch_day(days), rest)

    @classmethod
    def from_python(cls, value: _dt.datetime) -> "LocalDateTime":
        if type(value) is cls:
            return value
        return cls(value.year, value.month, value.day, value.hour, value.minute, value.second,
                   nanosecond=getattr(value, "nanosecond", value.microsecond * 1000))

    @classmethod
    def parse(cls, text: str) -> "LocalDateTime":
        from .parse import parse_local_datetime
        value = parse_local_datetime(text)
        if not isinstance(value, LocalDateTime):     # a year beyond 1..9999 (a FarLocalDateTime)
            raise _invalid(f"Year {value.date.year} is outside the supported range 1..9999")
        return value

    @property
    def date_part(self) -> Date:
        return Date(self.year, self.month, self.day)

    @property
    def local_time(self) -> LocalTime:
        return LocalTime(self.hour, self.minute, self.second, nanosecond=self._nanosecond)

    @property
    def epoch_nanos(self) -> int:
        """Nanoseconds since 1970-01-01T00:00 on the same wall clock."""
        return self.date_part.epoch_day * NANOS_PER_DAY + self.nanos_of_day

    def replace(self, year: Any = None, month: Any = None, day: Any = None,
                hour: Any = None, minute: Any = None, second: Any = None, microsecond: Any = None,
                tzinfo: Any = True, *, fold: Any = None, nanosecond: Any = None) -> "LocalDateTime":
        if nanosecond is None:
            nanosecond = self._nanosecond if microsecond is None else microsecond * 1000
        pick: Callable[[Any, Any], Any] = lambda new, old: old if new is None else new  # noqa: E731
        return type(self)(pick(year, self.year), pick(month, self.month), pick(day, self.day),
                          pick(hour, self.hour), pick(minute, self.minute), pick(second, self.second),
                          nanosecond=nanosecond, fold=pick(fold, self.fold))

    def to_python(self) -> _dt.datetime:
        return _dt.datetime(self.year, self.month, self.day, self.hour, self.minute, self.second,
                            self.microsecond)

    def to_state(self) -> tuple[Any, ...]:
        return (self.year, self.month, self.day, self.nanos_of_day)

    @classmethod
    def from_state(cls, state: Any) -> "LocalDateTime":
        return cls.of(Date(state[0], state[1], state[2]), state[3])

    def _coerce(self, other: object) -> Any:
        if isinstance(other, LocalDateTime):
            return other
        if isinstance(other, _dt.datetime) and not isinstance(other, DateTime) and other.tzinfo is None:
            return LocalDateTime.from_python(other)
        return None

    def _eq_key(self) -> Any:
        return (self.toordinal(), self.nanos_of_day)

    _order_key = _eq_key

    def __str__(self) -> str:
        return (f"{format_year(self.year)}-{self.month:02d}-{self.day:02d}T"
                + format_time_of_day(self.hour, self.minute, self.second, self._nanosecond))


class DateTime(_NanosecondValue, _dt.datetime):
    """A date and time in a zone (Cypher ``ZONED DATETIME``): a fixed offset or an IANA zone.

    Equality is Neo4j's: the same wall time and the same zone (``+01:00`` differs from
    ``Europe/Paris`` even at the same instant); ordering is by instant first.
    """

    __slots__ = ("_nanosecond",)

    if TYPE_CHECKING:   # a DateTime always has a zone
        @property
        def tzinfo(self) -> _dt.tzinfo: ...

    def __new__(cls, year: int, month: int = 1, day: int = 1, hour: int = 0, minute: int = 0,
                second: int = 0, microsecond: int = 0, tzinfo: _dt.tzinfo | None = None, *,
                fold: int = 0, nanosecond: int | None = None) -> Self:
        nanos = _resolve_nanos(microsecond, nanosecond)
        try:
            self = _dt.datetime.__new__(cls, year, month, day, hour, minute, second, nanos // 1000,
                                        UTC if tzinfo is None else tzinfo, fold=fold)
        except (ValueError, TypeError, OverflowError) as exc:
            raise _invalid(f"Invalid date time {year}-{month}-{day}T{hour}:{minute}:{second}: "
                           f"{exc}") from None
        self._set_nanosecond(nanos)
        return self

    @classmethod
    def of_instant(cls, epoch_seconds: int, nanosecond: int, tz: _dt.tzinfo = UTC) -> "DateTime":
        """The value at ``epoch_seconds`` + ``nanosecond`` after 1970-01-01T00:00Z, seen in ``tz``."""
        extra, nanosecond = divmod(nanosecond, NANOS_PER_SECOND)
        try:
            utc = _dt.datetime(1970, 1, 1, tzinfo=UTC) + _dt.timedelta(seconds=epoch_seconds + extra)
            local = utc.astimezone(tz)
        except (OverflowError, ValueError):
            raise _invalid(f"Epoch second {epoch_seconds} is out of the supported range") from None
        return cls(local.year, local.month, local.day, local.hour, local.minute, local.second,
                   tzinfo=tz, fold=local.fold, nanosecond=nanosecond)

    @classmethod
    def of_local(cls, local: _dt.datetime, tz: _dt.tzinfo, prefer_offset: int | None = None) -> "DateTime":
        """The wall time ``local`` (naive; ``nanosecond`` kept) in ``tz``, resolved as java.time does.

        In an overlap the earlier offset wins unless ``prefer_offset`` names the other; a wall time
        in a gap moves later by the gap's length.
        """
        nanosecond = getattr(local, "nanosecond", local.microsecond * 1000)
        fields = (local.year, local.month, local.day, local.hour, local.minute, local.second)
        if not is_named_zone(tz):
            return cls(*fields, tzinfo=tz, nanosecond=nanosecond)
        naive = _dt.datetime(*fields)
        offsets = [offset_seconds_of(tz, naive.replace(fold=fold)) for fold in (0, 1)]
        fold = 1 if prefer_offset is not None and offsets[1] == prefer_offset != offsets[0] else 0
        epoch = int((naive - _dt.datetime(1970, 1, 1)).total_seconds()) - offsets[fold]
        if offsets[0] != offsets[1]:
            back = (_dt.datetime(1970, 1, 1, tzinfo=UTC) + _dt.timedelta(seconds=epoch)).astimezone(tz)
            if back.replace(tzinfo=None, fold=0) != naive:      # in a gap
                return cls.of_instant(epoch, nanosecond, tz)
        return cls(*fields, tzinfo=tz, fold=fold, nanosecond=nanosecond)

    @classmethod
    def now(cls, tz: _dt.tzinfo | None = None) -> "DateTime":
        """The current instant in ``tz`` (UTC when omitted: a DateTime always has a zone)."""
        return cls.from_python(_dt.datetime.now(tz or UTC))

    @classmethod
    def fromtimestamp(cls, t: float, tz: _dt.tzinfo | None = None) -> "DateTime":
        return cls.from_python(_dt.datetime.fromtimestamp(t, tz or UTC))

    @classmethod
    def from_python(cls, value: _dt.datetime) -> "DateTime":
        if type(value) is cls:
            return value
        tz = value.tzinfo or UTC
        if not is_named_zone(tz):
            tz = offset_zone(int(cast(_dt.timedelta, value.utcoffset()).total_seconds()))
        return cls(value.year, value.month, value.day, value.hour, value.minute, value.second,
                   tzinfo=tz, fold=value.fold,
                   nanosecond=getattr(value, "nanosecond", value.microsecond * 1000))

    @classmethod
    def parse(cls, text: str) -> "DateTime":
        from .parse import parse_datetime
        return parse_datetime(text)

    @property
    def offset_seconds(self) -> int:
        return int(cast(_dt.timedelta, self.utcoffset()).total_seconds())

    @property
    def zone_id(self) -> str:
        """``Europe/Stockholm`` for named zones, else the offset (``+01:00``, ``Z``)."""
        return zone_id(self.tzinfo) if is_named_zone(self.tzinfo) else format_offset(self.offset_seconds)

    @property
    def has_named_zone(self) -> bool:
        return is_named_zone(self.tzinfo)

    @property
    def epoch_seconds(self) -> int:
        days = self.toordinal() - UNIX_EPOCH_ORDINAL
        local_seconds = days * 86_400 + self.nanos_of_day // NANOS_PER_SECOND
        return local_seconds - self.offset_seconds

    @property
    def epoch_nanos(self) -> int:
        return self.epoch_seconds * NANOS_PER_SECOND + self._nanosecond

    @property
    def date_part(self) -> Date:
        return Date(self.year, self.month, self.day)

    @property
    def local_time(self) -> LocalTime:
        return LocalTime(self.hour, self.minute, self.second, nanosecond=self._nanosecond)

    @property
    def local_datetime(self) -> LocalDateTime:
        return LocalDateTime(self.year, self.month, self.day, self.hour, self.minute, self.second,
                             nanosecond=self._nanosecond)

    @property
    def offset_time(self) -> Time:
        return Time.of_nanos_of_day(self.nanos_of_day, self.offset_seconds)

    def in_zone(self, tz: _dt.tzinfo) -> "DateTime":
        """The same instant seen in ``tz``."""
        return DateTime.of_instant(self.epoch_seconds, self._nanosecond, tz)

    def replace(self, year: Any = None, month: Any = None, day: Any = None,
                hour: Any = None, minute: Any = None, second: Any = None, microsecond: Any = None,
                tzinfo: Any = True, *, fold: Any = None, nanosecond: Any = None) -> "DateTime":
        if nanosecond is None:
            nanosecond = self._nanosecond if microsecond is None else microsecond * 1000
        pick: Callable[[Any, Any], Any] = lambda new, old: old if new is None else new  # noqa: E731
        return type(self)(pick(year, self.year), pick(month, self.month), pick(day, self.day),
                          pick(hour, self.hour), pick(minute, self.minute), pick(second, self.second),
                          tzinfo=self.tzinfo if tzinfo is True else tzinfo, nanosecond=nanosecond,
                          fold=pick(fold, self.fold))

    def to_python(self) -> _dt.datetime:
        return _dt.datetime(self.year, self.month, self.day, self.hour, self.minute, self.second,
                            self.microsecond, self.tzinfo, fold=self.fold)

    def to_state(self) -> tuple[Any, ...]:
        """``(epoch_seconds, nanosecond, zone)``: zone is an IANA name or an offset in seconds."""
        zone = zone_id(self.tzinfo) if self.has_named_zone else self.offset_seconds
        return (self.epoch_seconds, self._nanosecond, zone)

    @classmethod
    def from_state(cls, state: Any) -> "DateTime":
        epoch_seconds, nanosecond, zone = state
        tz = named_zone(zone) if isinstance(zone, str) else offset_zone(zone)
        return cls.of_instant(epoch_seconds, nanosecond, tz)

    def _coerce(self, other: object) -> Any:
        if isinstance(other, DateTime):
            return other
        if isinstance(other, _dt.datetime) and not isinstance(other, LocalDateTime) and other.tzinfo:
            return DateTime.from_python(other)
        return None

    def _eq_key(self) -> Any:
        return (self.toordinal(), self.nanos_of_day, self.offset_seconds, self.zone_id)

    def _order_key(self) -> Any:
        # (epoch_nanos, toordinal(), nanos_of_day, zone_id), the zone's offset read once (ORDER BY and
        # comparisons compute this per value)
        offset, ordinal, nanos = self.offset_seconds, self.toordinal(), self.nanos_of_day
        epoch_seconds = (ordinal - UNIX_EPOCH_ORDINAL) * 86_400 + nanos // NANOS_PER_SECOND - offset
        tz = self.tzinfo
        return (epoch_seconds * NANOS_PER_SECOND + self._nanosecond, ordinal, nanos,
                zone_id(tz) if is_named_zone(tz) else format_offset(offset))

    def __str__(self) -> str:
        text = (f"{format_year(self.year)}-{self.month:02d}-{self.day:02d}T"
                + format_time_of_day(self.hour, self.minute, self.second, self._nanosecond)
                + format_offset(self.offset_seconds))
        return f"{text}[{zone_id(self.tzinfo)}]" if self.has_named_zone else text


TEMPORAL_TYPES = (Date, LocalTime, Time, LocalDateTime, DateTime)


def iso_text(value: Any) -> str:
    """Neo4j's string of a temporal value, as ``toString()`` and ``+ ''`` give it: Java's ISO formatters,
    seconds always and a fraction only as long as it needs (``08:40:00Z``, ``12:31:14.5``), where ``str``
    is Java's ``toString`` (``08:40Z``)."""
    kind = type(value)
    if kind is LocalTime or kind is Time:
        text = _iso_time_of_day(value.hour, value.minute, value.second, value._nanosecond)
        return text + value.zone_id if kind is Time else text
    if kind is LocalDateTime or kind is DateTime:
        text = (f"{format_year(value.year)}-{value.month:02d}-{value.day:02d}T"
                + _iso_time_of_day(value.hour, value.minute, value.second, value._nanosecond))
        if kind is LocalDateTime:
            return text
        text += format_offset(value.offset_seconds)
        return f"{text}[{zone_id(value.tzinfo)}]" if value.has_named_zone else text
    nanos_of_day = getattr(value, "nanos_of_day", None)
    if nanos_of_day is not None and hasattr(value, "date"):     # a local date time beyond Python's years
        seconds, nanos = divmod(nanos_of_day, NANOS_PER_SECOND)
        minutes, second = divmod(seconds, 60)
        hour, minute = divmod(minutes, 60)
        return f"{value.date}T" + _iso_time_of_day(hour, minute, second, nanos)
    return str(value)


def _iso_time_of_day(hour: int, minute: int, second: int, nanosecond: int) -> str:
    text = f"{hour:02d}:{minute:02d}:{second:02d}"
    return text + "." + f"{nanosecond:09d}".rstrip("0") if nanosecond else text
