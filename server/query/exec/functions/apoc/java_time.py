"""Java date-time patterns (DateTimeFormatter / SimpleDateFormat letters) for apoc.date.*: format an
aware datetime with a pattern, and parse text with one into its fields.

Letters: y u (year), M L (month: 1-2 digits, MMM 'Jan', MMMM 'January'), d, D (day of year), E (EEE
'Mon', EEEE 'Monday'), a (AM/PM), H k h K (hours), m, s, S (fraction), n (nanos), z (zone name),
Z, X, x (offsets), VV (zone id), G (era), Q (quarter), w (ISO week); 'quoted' text, '' for a quote,
[optional] sections; predefined names such as ISO_LOCAL_DATE_TIME."""
from __future__ import annotations

import datetime as _dt
import zoneinfo

import regex

from relate.protocol.errors import ArgumentError

_MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
           "November", "December"]
_DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
_LETTERS = frozenset("GuyYDMLdQqwWEecFaHkKhmsSAnNVvzOXxZ")
_NAMED = {
    "iso_local_date": "yyyy-MM-dd", "iso_date": "yyyy-MM-dd[XXX]", "basic_iso_date": "yyyyMMdd",
    "iso_local_time": "HH:mm:ss[.SSS]", "iso_time": "HH:mm:ss[.SSS][XXX]",
    "iso_local_date_time": "yyyy-MM-dd'T'HH:mm:ss[.SSS]", "iso_offset_date_time": "yyyy-MM-dd'T'HH:mm:ss[.SSS]XXX",
    "iso_zoned_date_time": "yyyy-MM-dd'T'HH:mm:ss[.SSS]XXX['['VV']']",
    "iso_date_time": "yyyy-MM-dd'T'HH:mm:ss[.SSS][XXX]['['VV']']", "iso_instant": "yyyy-MM-dd'T'HH:mm:ss[.SSS]X",
    "iso_ordinal_date": "yyyy-DDD", "rfc_1123_date_time": "EEE, d MMM yyyy HH:mm:ss Z",
}
_ZONE_ABBREVIATIONS = {"PST": "America/Los_Angeles", "PDT": "America/Los_Angeles", "CST": "America/Chicago",
                       "CDT": "America/Chicago", "BST": "Europe/London", "IST": "Asia/Kolkata",
                       "JST": "Asia/Tokyo", "CEST": "CET", "EEST": "EET", "AEST": "Australia/Sydney"}


def bad_pattern(message: str) -> ArgumentError:
    return ArgumentError(message, detail="InvalidArgumentValue", phase="runtime")


def tokens(pattern: str) -> list:
    """The pattern as ('letter', count), ('text', s), ('[',) and (']',) tokens."""
    named = _NAMED.get(pattern.lower())
    if named is not None:
        pattern = named
    out: list = []
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if c == "'":
            end = pattern.find("'", i + 1)
            if end == i + 1:
                out.append(("text", "'"))
                i += 2
                continue
            if end < 0:
                raise bad_pattern(f"unterminated quote in the date pattern {pattern!r}")
            out.append(("text", pattern[i + 1:end].replace("''", "'")))
            i = end + 1
        elif c in "[]":
            out.append((c,))
            i += 1
        elif c.isascii() and c.isalpha():
            if c not in _LETTERS:
                raise bad_pattern(f"unknown pattern letter '{c}' in {pattern!r}")
            j = i
            while j < len(pattern) and pattern[j] == c:
                j += 1
            out.append((c, j - i))
            i = j
        else:
            out.append(("text", c))
            i += 1
    return out


# -- formatting --------------------------------------------------------------------------------------

def _offset(seconds: int, colon: bool, z_for_zero: bool, minutes: str = "optional") -> str:
    if seconds == 0 and z_for_zero:
        return "Z"
    sign = "-" if seconds < 0 else "+"
    hours, rest = divmod(abs(seconds), 3600)
    mins = rest // 60
    if minutes == "optional" and mins == 0:
        return f"{sign}{hours:02d}"
    return f"{sign}{hours:02d}{':' if colon else ''}{mins:02d}"


def _offset_text(letter: str, count: int, seconds: int) -> str:
    if letter == "Z":
        if count <= 3:
            return _offset(seconds, False, False, "always")
        if count == 4:
            return "GMT" if seconds == 0 else "GMT" + _offset(seconds, True, False, "always")
        return _offset(seconds, True, True, "always")
    z_for_zero = letter == "X"
    if count == 1:
        return _offset(seconds, False, z_for_zero)
    return _offset(seconds, count >= 3, z_for_zero, "always")


def _field(letter: str, count: int, value: _dt.datetime, nanos: int) -> str:
    if letter in "yuY":
        year = value.year
        return f"{year % 100:02d}" if count == 2 else str(year).zfill(count)
    if letter in "ML":
        if count >= 4:
            return _MONTHS[value.month - 1]
        if count == 3:
            return _MONTHS[value.month - 1][:3]
        return str(value.month).zfill(count)
    if letter == "E":
        name = _DAYS[value.weekday()]
        return name if count == 4 else name[:3]
    if letter in "ec":
        return str(value.isoweekday())
    numbers = {"d": value.day, "D": value.timetuple().tm_yday, "H": value.hour, "k": value.hour or 24,
               "K": value.hour % 12, "h": value.hour % 12 or 12, "m": value.minute, "s": value.second,
               "Q": (value.month - 1) // 3 + 1, "q": (value.month - 1) // 3 + 1, "w": value.isocalendar()[1],
               "F": (value.day - 1) // 7 + 1, "n": nanos}
    if letter in numbers:
        return str(numbers[letter]).zfill(count)
    if letter == "S":
        return str(nanos).zfill(9)[:count] if count <= 9 else str(nanos).zfill(9) + "0" * (count - 9)
    if letter == "a":
        return "AM" if value.hour < 12 else "PM"
    if letter == "G":
        return "AD" if count < 4 else "Anno Domini"
    offset = int(value.utcoffset().total_seconds()) if value.utcoffset() is not None else 0
    if letter in "ZXx":
        return _offset_text(letter, count, offset)
    if letter in "VvN" or (letter == "z" and count >= 4):
        return _zone_id(value)
    if letter == "z":
        return value.tzname() or _zone_id(value)
    if letter == "O":
        return "GMT" if offset == 0 else "GMT" + _offset(offset, True, False).replace("+0", "+").replace("-0", "-")
    raise bad_pattern(f"the pattern letter '{letter}' cannot be formatted")


def _zone_id(value: _dt.datetime) -> str:
    tz = value.tzinfo
    key = getattr(tz, "key", None)
    if key:
        return key
    offset = int(value.utcoffset().total_seconds()) if value.utcoffset() is not None else 0
    return "UTC" if offset == 0 else _offset(offset, True, False, "always")


def format_datetime(value: _dt.datetime, nanos: int, pattern: str) -> str:
    """``value`` (aware; ``nanos`` its nanosecond of second) written with a Java pattern."""
    out = []
    for token in tokens(pattern):
        if token[0] == "text":
            out.append(token[1])
        elif len(token) == 2:
            out.append(_field(token[0], token[1], value, nanos))
    return "".join(out)


# -- parsing -----------------------------------------------------------------------------------------

def _names(names: list[str], count: int) -> str:
    spelled = names if count >= 4 else [n[:3] for n in names]
    return "(" + "|".join(spelled) + ")"


def _digits(count: int, widest: int) -> str:
    return rf"(\d{{{count}}})" if count > 1 else rf"(\d{{1,{widest}}})"


def _token_regex(letter: str, count: int) -> str:
    if letter in "yuY":
        return r"(\d{2})" if count == 2 else (r"([+-]?\d{4,9})" if count == 4 else _digits(count, 9))
    if letter in "ML":
        return _names(_MONTHS, count) if count >= 3 else _digits(count, 2)
    if letter == "E":
        return _names(_DAYS, count)
    if letter in "dHkKhmswF":
        return _digits(count, 2)
    if letter == "D":
        return _digits(count, 3)
    if letter == "S":
        return rf"(\d{{{count}}})"
    if letter == "n":
        return r"(\d{1,9})"
    if letter == "a":
        return r"(AM|PM)"
    if letter == "G":
        return r"(AD|BC|Anno Domini)"
    if letter in "ZXx":
        return r"(Z|GMT|UTC|[+-]\d{2}(?::?\d{2})?(?::?\d{2})?|GMT[+-]\d{1,2}(?::\d{2})?)"
    if letter in "zVvO":
        return r"([A-Za-z][A-Za-z0-9_/+\-]*(?:[+-]\d{1,2}(?::\d{2})?)?)"
    if letter in "Qqec":
        return r"(\d)"
    raise bad_pattern(f"the pattern letter '{letter}' cannot be parsed")


def compile_parser(pattern: str):
    """(regex, [(letter, count)]) that parses text written with ``pattern``."""
    parts, fields = [], []
    for token in tokens(pattern):
        if token[0] == "text":
            parts.append(regex.escape(token[1]))
        elif token[0] == "[":
            parts.append("(?:")
        elif token[0] == "]":
            parts.append(")?")
        else:
            parts.append(_token_regex(*token))
            fields.append(token)
    try:
        return regex.compile("".join(parts), regex.IGNORECASE), fields
    except regex.error:
        raise bad_pattern(f"unbalanced [ ] in the date pattern {pattern!r}") from None


def parse_zone(text: str) -> _dt.tzinfo:
    """A zone from an offset (+01:00, Z), an id (Europe/Paris) or a common abbreviation (CET, PST)."""
    upper = text.upper()
    if upper in ("Z", "UTC", "GMT", "UT"):
        return _dt.timezone.utc
    m = regex.fullmatch(r"(?:GMT|UTC)?([+-])(\d{1,2})(?::?(\d{2}))?(?::?(\d{2}))?", text)
    if m:
        seconds = int(m.group(2)) * 3600 + int(m.group(3) or 0) * 60 + int(m.group(4) or 0)
        return _dt.timezone(_dt.timedelta(seconds=-seconds if m.group(1) == "-" else seconds))
    try:
        return zoneinfo.ZoneInfo(_ZONE_ABBREVIATIONS.get(upper, text))
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        raise ArgumentError(f"Unknown time zone: {text!r}", detail="InvalidArgumentValue", phase="runtime") from None


def parse_fields(text: str, pattern: str) -> dict:
    """The fields ``text`` holds, read with ``pattern``: year, month, day, hour, minute, second, nanos,
    zone (what the pattern names); an ArgumentError when the text does not fit."""
    compiled, fields = compile_parser(pattern)
    m = compiled.fullmatch(text.strip())
    if m is None:
        raise ArgumentError(f"Can't parse '{text}' with the pattern '{pattern}'", detail="InvalidArgumentValue",
                            phase="runtime")
    out: dict = {}
    pm = None
    for (letter, count), value in zip(fields, m.groups()):
        if value is None:
            continue
        if letter in "yuY":
            out["year"] = 2000 + int(value) if count == 2 else int(value)
        elif letter in "ML":
            out["month"] = (_month_number(value) if count >= 3 else int(value))
        elif letter == "d":
            out["day"] = int(value)
        elif letter == "D":
            out["day_of_year"] = int(value)
        elif letter in "Hk":
            out["hour"] = int(value) % 24
        elif letter in "hK":
            out["hour12"] = int(value) % 12
        elif letter == "a":
            pm = value.upper() == "PM"
        elif letter == "m":
            out["minute"] = int(value)
        elif letter == "s":
            out["second"] = int(value)
        elif letter == "S":
            out["nanos"] = int(value.ljust(9, "0")[:9])
        elif letter == "n":
            out["nanos"] = int(value)
        elif letter in "ZXxzVvO":
            out["zone"] = parse_zone(value)
            out["zone_text"] = value
    if "hour12" in out:
        out["hour"] = out.pop("hour12") + (12 if pm else 0)
    return out


def _month_number(name: str) -> int:
    lowered = name.lower()
    return next(i + 1 for i, month in enumerate(_MONTHS) if month.lower().startswith(lowered[:3]))


def fields_to_datetime(fields: dict, default_zone: _dt.tzinfo) -> _dt.datetime:
    """The instant the parsed fields name (missing ones: 1970-01-01, midnight, the default zone)."""
    zone = fields.get("zone", default_zone)
    try:
        if "day_of_year" in fields and "month" not in fields:
            day = _dt.date(fields.get("year", 1970), 1, 1) + _dt.timedelta(days=fields["day_of_year"] - 1)
            year, month, mday = day.year, day.month, day.day
        else:
            year, month, mday = fields.get("year", 1970), fields.get("month", 1), fields.get("day", 1)
        nanos = fields.get("nanos", 0)
        return _dt.datetime(year, month, mday, fields.get("hour", 0), fields.get("minute", 0),
                            fields.get("second", 0), nanos // 1000, tzinfo=zone)
    except (ValueError, OverflowError) as exc:
        raise ArgumentError(f"Invalid date: {exc}", detail="InvalidArgumentValue", phase="runtime") from None
