"""Column arrays of a vector index's WITH [...] properties, so in-search filters become numpy masks.

Each property keeps three columns per row: numbers in a float64 array (NaN = not a number), strings
and booleans as integer codes, and any other value (temporal, lists, huge integers) in a dict that is
compared with Cypher's own rules. Comparisons follow Cypher: a missing value or a type mismatch never
matches, 1 = 1.0, false < true.
"""
from __future__ import annotations

import operator

import numpy as np

from relate.errors import ArgumentError

OPERATORS = {"=": operator.eq, "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge}
_EXACT_FLOAT_INT = 2 ** 53


def _is_number(value) -> bool:
    return type(value) in (int, float) and not (type(value) is int and abs(value) > _EXACT_FLOAT_INT)


def _code_key(value):
    return (type(value) is bool, value)


class Column:
    """One filter property over the index rows."""

    def __init__(self, capacity: int):
        self.num = np.full(capacity, np.nan)
        self.code = np.full(capacity, -1, dtype=np.int32)
        self.codes: dict = {}
        self.values: list = []
        self.other: dict[int, object] = {}

    def grow(self, capacity: int) -> None:
        old = len(self.num)
        self.num = np.concatenate([self.num, np.full(capacity - old, np.nan)])
        self.code = np.concatenate([self.code, np.full(capacity - old, -1, dtype=np.int32)])

    def set(self, row: int, value) -> None:
        self.num[row] = np.nan
        self.code[row] = -1
        self.other.pop(row, None)
        if value is None:
            return
        if _is_number(value):
            self.num[row] = value
        elif type(value) in (str, bool):
            key = _code_key(value)
            code = self.codes.get(key)
            if code is None:
                code = self.codes[key] = len(self.values)
                self.values.append(value)
            self.code[row] = code
        else:
            self.other[row] = value

    def take(self, rows: np.ndarray, capacity: int) -> "Column":
        """A compacted copy holding ``rows`` (in that order) as rows 0..len-1."""
        out = Column(capacity)
        out.num[:len(rows)] = self.num[rows]
        out.code[:len(rows)] = self.code[rows]
        out.codes, out.values = dict(self.codes), list(self.values)
        new_row = {int(old): new for new, old in enumerate(rows)}
        out.other = {new_row[r]: v for r, v in self.other.items() if r in new_row}
        return out

    def mask(self, op: str, value, n: int) -> np.ndarray:
        """Rows [0, n) where ``column op value`` is true."""
        if value is None:
            return np.zeros(n, dtype=bool)
        if op == "IN":
            if not isinstance(value, (list, tuple)):
                raise ArgumentError(f"IN needs a list, got {type(value).__name__}")
            out = np.zeros(n, dtype=bool)
            for item in value:
                out |= self.mask("=", item, n)
            return out
        compare = OPERATORS.get(op)
        if compare is None:
            raise ArgumentError(f"Unsupported operator {op!r} in a vector search filter")
        out = np.zeros(n, dtype=bool)
        if _is_number(value):
            with np.errstate(invalid="ignore"):
                out |= compare(self.num[:n], value)
        elif type(value) in (str, bool):
            if op == "=":
                code = self.codes.get(_code_key(value))
                if code is not None:
                    out |= self.code[:n] == code
            elif self.values:
                table = np.array([type(v) is type(value) and compare(v, value) for v in self.values] + [False])
                out |= table[self.code[:n]]        # code -1 picks the trailing False
        for row, stored in self.other.items():
            if row < n and _cypher_compare(op, stored, value):
                out[row] = True
        return out


def _cypher_compare(op: str, a, b) -> bool:
    from relate.server.query.exec import values_ops
    if op == "=":
        return values_ops.equals(a, b) is True
    result = values_ops.compare(a, b)
    if result is None:
        return False
    return {"<": result < 0, "<=": result <= 0, ">": result > 0, ">=": result >= 0}[op]


class FilterColumns:
    """The filter columns of one vector index (one Column per WITH property)."""

    def __init__(self, props: list[str], capacity: int = 0):
        self.props = list(props)
        self.columns = {p: Column(capacity) for p in props}

    def grow(self, capacity: int) -> None:
        for column in self.columns.values():
            column.grow(capacity)

    def set_row(self, row: int, props: dict) -> None:
        for p, column in self.columns.items():
            column.set(row, props.get(p))

    def take(self, rows: np.ndarray, capacity: int) -> "FilterColumns":
        out = FilterColumns([], 0)
        out.props = list(self.props)
        out.columns = {p: c.take(rows, capacity) for p, c in self.columns.items()}
        return out

    def mask(self, filters, n: int) -> np.ndarray:
        """Rows [0, n) passing every (prop, op, value) filter (ANDed)."""
        out = np.ones(n, dtype=bool)
        for prop, op, value in filters:
            column = self.columns.get(prop)
            if column is None:
                raise ArgumentError(
                    f"Property {prop!r} is not declared in the index's WITH [...] list; "
                    f"filterable properties are {self.props}")
            out &= column.mask(op.upper() if isinstance(op, str) else op, value, n)
        return out
