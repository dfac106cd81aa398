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
    columns = []
    for i, raw in enumerate(names):
        match = _COLUMN.match(raw.strip())
        if match is None:
            raise HeaderError(f"column {i + 1}: cannot read header {raw!r}")
        name, kind, space = match.group("name"), match.group("kind"), match.group("space")
        if kind is None:
            columns.append(Column(i, name, None, "string"))
            continue
        upper = kind.upper()
        if upper in ROLES:
            if space is not None and upper not in ("ID", "START_ID", "END_ID"):
                raise HeaderError(f"column {raw!r}: only ID columns take an id space")
            columns.append(Column(i, name, upper, "string", space))
            continue
        lower = kind.lower()
        value_kind = SCALARS.get(lower) or ARRAYS.get(lower)
        if value_kind is None:
            raise HeaderError(f"column {raw!r}: unknown type {kind!r}")
        if not name:
            raise HeaderError(f"column {i + 1}: a property column needs a name")
        columns.append(Column(i, name, None, value_kind))
    return columns
