"""Type names and value checks: property type constraints (``REQUIRE n.p IS :: INTEGER``) and type predicate
expressions (``x IS :: INTEGER | STRING``, ``x IS NOT TYPED LIST<FLOAT NOT NULL>``)."""
from __future__ import annotations

import re
from typing import Any, Callable

from relate.protocol import temporal
from relate.protocol.values import VECTOR_TYPES, Duration, Point, Vector

_ALIASES = {
    "BOOL": "BOOLEAN", "INT": "INTEGER", "INT64": "INTEGER", "INTEGER64": "INTEGER", "SIGNED INTEGER": "INTEGER",
    "FLOAT64": "FLOAT", "VARCHAR": "STRING", "TIMESTAMP WITHOUT TIME ZONE": "LOCAL DATETIME",
    "TIMESTAMP WITH TIME ZONE": "ZONED DATETIME", "TIME WITHOUT TIME ZONE": "LOCAL TIME",
    "TIME WITH TIME ZONE": "ZONED TIME", "LIST": "LIST<ANY>", "ARRAY": "LIST<ANY>",
    "TIMESTAMP WITHOUT TIMEZONE": "LOCAL DATETIME", "TIME WITHOUT TIMEZONE": "LOCAL TIME",
    "TIMESTAMP WITH TIMEZONE": "ZONED DATETIME", "TIME WITH TIMEZONE": "ZONED TIME",
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


# VECTOR, VECTOR<INT8>, VECTOR<FLOAT32>(384), VECTOR(3): any vector, or one of that coordinate type and/or
# dimension. The coordinate type is kept in its canonical spelling (INT8 and INTEGER8 are one type).
_VECTOR_FORM = re.compile(r"VECTOR\s*(?:<\s*(\w+)\s*>)?\s*(?:\(\s*(\d+)\s*\))?")
_CANONICAL_COORDINATES = {"FLOAT": "FLOAT64", "INTEGER": "INTEGER64", "INT64": "INTEGER64", "INT32": "INTEGER32",
                          "INT16": "INTEGER16", "INT8": "INTEGER8"}


def _vector_type(text: str) -> str | None:
    """The canonical spelling of a VECTOR type, None when ``text`` is not one; ValueError for an unknown
    coordinate type or a zero dimension."""
    match = _VECTOR_FORM.fullmatch(text)
    if match is None:
        return None
    coordinates, dimension = match.groups()
    out = "VECTOR"
    if coordinates is not None:
        if coordinates not in VECTOR_TYPES:
            raise ValueError(text)
        out += f"<{_CANONICAL_COORDINATES.get(coordinates, coordinates)}>"
    if dimension is not None:
        if int(dimension) <= 0:
            raise ValueError(text)
        out += f"({int(dimension)})"
    return out


def _vector_matches(text: str, value: Any) -> bool:
    """Whether ``value`` is a vector of the (canonical) VECTOR type ``text``."""
    if type(value) is not Vector:
        return False
    coordinates, dimension = _VECTOR_FORM.fullmatch(text).groups()      # type: ignore[union-attr]
    return ((coordinates is None or VECTOR_TYPES[coordinates] == VECTOR_TYPES[value.coordinate_type])
            and (dimension is None or int(dimension) == value.dimension))


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
        text = _vector_type(text) or text
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
    if text.startswith("VECTOR"):
        return _vector_matches(text, value)
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
        elif part not in _SCALARS and not (part.startswith("VECTOR") and _vector_type(part) == part):
            raise ValueError(part)


# -- type predicate expressions ----------------------------------------------------------------------
# Besides the property types: graph values, maps, NULL, NOTHING, ANY and PROPERTY VALUE.
_EXPRESSION_ALIASES = {
    "ANY NODE": "NODE", "VERTEX": "NODE", "ANY VERTEX": "NODE", "ANY RELATIONSHIP": "RELATIONSHIP",
    "EDGE": "RELATIONSHIP", "ANY EDGE": "RELATIONSHIP", "ANY MAP": "MAP", "ANY VALUE": "ANY",
    "ANY PROPERTY VALUE": "PROPERTY VALUE",
}


_EXPRESSION_SCALARS: dict[str, Callable[[Any], bool]] = {}


def _expression_scalars() -> dict[str, Callable[[Any], bool]]:
    """The property types' checks and the expression-only ones, built on first use."""
    if not _EXPRESSION_SCALARS:
        from relate.server.query.refs import NodeRef, PathRef, RelRef     # the engine's entity references
        _EXPRESSION_SCALARS.update(_SCALARS)
        _EXPRESSION_SCALARS.update({
            "NODE": lambda v: type(v) is NodeRef, "RELATIONSHIP": lambda v: type(v) is RelRef,
            "PATH": lambda v: type(v) is PathRef, "MAP": lambda v: type(v) is dict, "NULL": lambda v: False,
            "NOTHING": lambda v: False, "PROPERTY VALUE": _property_value})
    return _EXPRESSION_SCALARS


def _property_value(value: Any) -> bool:
    """Whether ``value`` can be stored as a property: a scalar, or a list of scalars of one type."""
    if type(value) is list:
        kinds = {_scalar_kind(item) for item in value}
        return None not in kinds and len(kinds) <= 1
    return _scalar_kind(value) is not None


def _scalar_kind(value: Any) -> str | None:
    if value is None:
        return None
    return next((name for name, check in _SCALARS.items() if name != "ANY" and check(value)), None)


_POSTFIX_LIST = re.compile(r"(.+?)((?: NOT NULL)?) (?:LIST|ARRAY)((?: NOT NULL)?)")


def _postfix_list(part: str) -> str:
    """``INTEGER NOT NULL LIST`` (GQL's postfix form) as ``LIST<INTEGER NOT NULL>``; other text as it is."""
    match = _POSTFIX_LIST.fullmatch(part)
    if match is None:
        return part
    inner, inner_not_null, not_null = match.groups()
    return f"LIST<{_postfix_list(inner)}{inner_not_null}>{not_null}"


class MixedNullability(ValueError):
    """A union whose members are not all nullable nor all NOT NULL (``INTEGER NOT NULL | FLOAT``)."""


def normalize_expression_type(type_name: str) -> str:
    """The canonical text of a type predicate's type; ValueError for a type no value can be checked against
    (MixedNullability for a union mixing NOT NULL and nullable members, which Neo4j refuses)."""
    parts = []
    for part in _split_union(" ".join(type_name.replace("!", " NOT NULL ").split()).upper()):
        part = _postfix_list(part.strip())
        not_null = part.endswith(" NOT NULL")
        if not_null:
            part = part[: -len(" NOT NULL")].strip()
        part = re.sub(r"\s*<\s*", "<", re.sub(r"\s*>", ">", part))
        if part.startswith("ANY<") and part.endswith(">"):            # ANY<A | B> is the union A | B
            inner = normalize_expression_type(part[4:-1])
            parts.append(inner if not not_null else " | ".join(f"{p.strip()} NOT NULL" for p in _split_union(inner)))
            continue
        if part.startswith(("LIST<", "ARRAY<")) and part.endswith(">"):
            part = f"LIST<{normalize_expression_type(part[part.index('<') + 1:-1])}>"
        elif part.startswith("VECTOR") and _vector_type(part) is not None:
            part = _vector_type(part)       # type: ignore[assignment]
        else:
            part = _EXPRESSION_ALIASES.get(part, _ALIASES.get(part, part))
            if part != "LIST<ANY>" and part not in _expression_scalars():       # LIST alone is LIST<ANY>
                raise ValueError(part)
        parts.append(part + (" NOT NULL" if not_null else ""))
    if len({p.strip().endswith(" NOT NULL") for p in parts}) > 1:
        raise MixedNullability(type_name)
    return " | ".join(p.strip() for p in parts)


def expression_matches(type_name: str, value: Any) -> bool:
    """``value IS :: type_name`` for a normalized type (null fits every type not marked NOT NULL, and NULL)."""
    scalars = _expression_scalars()
    return any(_expression_matches_one(part.strip(), value, scalars) for part in _split_union(type_name))


def _expression_matches_one(text: str, value: Any, scalars: dict) -> bool:
    not_null = text.endswith(" NOT NULL")
    if not_null:
        text = text[: -len(" NOT NULL")]
    if value is None:
        return not not_null and text != "NOTHING"
    if text.startswith("LIST<"):
        if type(value) is not list:
            return False
        inner = text[5:-1]
        return all(any(_expression_matches_one(p.strip(), item, scalars) for p in _split_union(inner))
                   for item in value)
    if text.startswith("VECTOR"):
        return _vector_matches(text, value)
    return scalars[text](value)
