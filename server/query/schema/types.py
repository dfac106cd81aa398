"""Property type constraints (``REQUIRE n.p IS :: INTEGER``): parsing type names and checking values."""
from __future__ import annotations

import re
from typing import Any, Callable

from relate.protocol import temporal
from relate.protocol.values import Duration, Point, Vector

_ALIASES = {
    "BOOL": "BOOLEAN", "INT": "INTEGER", "INT64": "INTEGER", "INTEGER64": "INTEGER", "SIGNED INTEGER": "INTEGER",
    "FLOAT64": "FLOAT", "VARCHAR": "STRING", "TIMESTAMP WITHOUT TIME ZONE": "LOCAL DATETIME",
    "TIMESTAMP WITH TIME ZONE": "ZONED DATETIME", "TIME WITHOUT TIME ZONE": "LOCAL TIME",
    "TIME WITH TIME ZONE": "ZONED TIME", "LIST": "LIST<ANY>", "ARRAY": "LIST<ANY>",
}

_SCALARS: dict[str, Callable[[Any], bool]] = {
    "BOOLEAN": lambda v: type(v) is bool,
    "STRING": lambda v: type(v) is str,
    "INTEGER": lambda v: type(v) is int,
    "FLOAT": lambda v: type(v) is float,
    "DATE": lambda v: type(v) is temporal.Date,
    "LOCAL TIME": lambda v: type(v) is temporal.LocalTime,
    "ZONED TIME": lambda v: type(v) is temporal.Time,
    "LOCAL DATETIME": lambda v: type(v) is temporal.LocalDateTime,
    "ZONED DATETIME": lambda v: type(v) is temporal.DateTime,
    "DURATION": lambda v: type(v) is Duration,
    "VECTOR": lambda v: type(v) is Vector,
    "POINT": lambda v: type(v) is Point,
    "ANY": lambda v: True,
}


def normalize(type_name: str) -> str:
    """Canonical spelling: upper case, single spaces, aliases resolved, ``NOT NULL`` kept."""
    text = re.sub(r"\s+", " ", type_name.strip().upper())
    text = re.sub(r"\s*<\s*", "<", text)
    text = re.sub(r"\s*>", ">", text)
    parts = [p.strip() for p in _split_union(text)]
    return " | ".join(_normalize_one(p) for p in parts)


def _normalize_one(text: str) -> str:
    not_null = text.endswith(" NOT NULL")
    if not_null:
        text = text[: -len(" NOT NULL")]
    if text.startswith(("LIST<", "ARRAY<")) and text.endswith(">"):
        inner = text[text.index("<") + 1:-1]
        text = f"LIST<{normalize(inner)}>"
    elif text.startswith("VECTOR"):
        text = "VECTOR"
    else:
        text = _ALIASES.get(text, text)
    return text + (" NOT NULL" if not_null else "")


def _split_union(text: str) -> list[str]:
    depth, start, out = 0, 0, []
    for i, ch in enumerate(text):
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        elif ch == "|" and depth == 0:
            out.append(text[start:i])
            start = i + 1
    out.append(text[start:])
    return out


def matches(type_name: str, value: Any) -> bool:
    """Whether a non-null ``value`` fits the normalized ``type_name``."""
    return any(_matches_one(part.strip(), value) for part in _split_union(type_name))


def _matches_one(text: str, value: Any) -> bool:
    not_null = text.endswith(" NOT NULL")
    if not_null:
        text = text[: -len(" NOT NULL")]
    if value is None:
        return not not_null
    if text.startswith("LIST<"):
        if type(value) is not list:
            return False
        inner = text[5:-1]
        return all(matches(inner, item) if item is not None else "NOT NULL" not in inner for item in value)
    check = _SCALARS.get(text)
    if check is None:
        raise ValueError(f"unknown property type {text}")
    return check(value)


def check_known(type_name: str) -> None:
    """Raise ValueError for a type a property type constraint cannot name."""
    for part in _split_union(type_name):
        part = part.strip()
        if part.endswith(" NOT NULL"):
            part = part[: -len(" NOT NULL")]
        if part.startswith("LIST<"):
            check_known(part[5:-1])
        elif part not in _SCALARS:
            raise ValueError(part)
