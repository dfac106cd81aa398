"""Column headers in neo4j-admin's form: ``name:type``, ``id:ID(Space)``, ``:LABEL``, ``:START_ID(Space)``,
``:END_ID(Space)``, ``:TYPE``, ``:IGNORE``; no type means string."""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

ROLES = {"ID", "LABEL", "START_ID", "END_ID", "TYPE", "IGNORE"}
SCALARS = {"string": "string", "int": "int", "long": "int", "short": "int", "byte": "int",
           "float": "float", "double": "float", "boolean": "boolean", "vector": "vector"}
ARRAYS = {"string[]": "string[]", "int[]": "int[]", "long[]": "int[]", "short[]": "int[]",
          "double[]": "float[]", "boolean[]": "boolean[]",
          "float[]": "vector"}      # float32 arrays are stored as FLOAT32 vectors (what vector indexes read)
_COLUMN = re.compile(r"^(?P<name>.*?)(?::(?P<kind>[A-Za-z_]+(?:\[\])?)(?:\((?P<space>[^()]*)\))?)?$")


class HeaderError(ValueError):
    """A header the importer cannot read."""


@dataclass(frozen=True)
class Column:
    index: int
    name: str                 # property name ('' for role columns without one)
    role: Optional[str]       # ID | LABEL | START_ID | END_ID | TYPE | IGNORE | None (a property)
    kind: str                 # value type: string, int, float, boolean, vector, string[], ...
    space: Optional[str] = None   # id space of ID / START_ID / END_ID columns


def parse_header(names: list[str]) -> list[Column]:
    columns = [_column(i, raw) for i, raw in enumerate(names)]
    _check_columns(columns, names)
    return columns


def _check_columns(columns: list[Column], names: list[str]) -> None:
    """One :ID column at most, and no property written twice (the second would silently win)."""
    if sum(1 for c in columns if c.role == "ID") > 1:
        raise HeaderError("a header has one :ID column at most")
    seen: dict[str, int] = {}
    for c in columns:
        if c.role is None or (c.role == "ID" and c.name):
            if c.name in seen:
                raise HeaderError(f"columns {seen[c.name] + 1} and {c.index + 1} ({names[c.index]!r}) both "
                                  f"write the property {c.name!r}")
            seen[c.name] = c.index


def _column(i: int, raw: str) -> Column:
    if "\x00" in raw:
        raise HeaderError(f"column {i + 1}: the header holds a NUL character")
    match = _COLUMN.match(raw.strip())
    if match is None:
        raise HeaderError(f"column {i + 1}: cannot read header {raw!r}")
    name, kind, space = match.group("name"), match.group("kind"), match.group("space")
    if kind is None:
        if not name:
            raise HeaderError(f"column {i + 1} has no name: name it, or mark it :IGNORE")
        if ":" in name:        # a type or role that did not parse, e.g. id:ID(a(b)): not a property name
            raise HeaderError(f"column {i + 1}: cannot read header {raw!r}")
        return Column(i, name, None, "string")
    upper = kind.upper()
    if upper in ROLES:
        if space is not None and upper not in ("ID", "START_ID", "END_ID"):
            raise HeaderError(f"column {raw!r}: only ID columns take an id space")
        return Column(i, name, upper, "string", space)
    lower = kind.lower()
    value_kind = SCALARS.get(lower) or ARRAYS.get(lower)
    if value_kind is None:
        raise HeaderError(f"column {raw!r}: unknown type {kind!r}")
    if not name:
        raise HeaderError(f"column {i + 1}: a property column needs a name")
    return Column(i, name, None, value_kind)
