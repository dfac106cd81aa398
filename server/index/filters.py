"""Column arrays of a vector index's WITH [...] properties, so in-search filters become numpy masks.

Each property keeps three columns per row: numbers in a float64 array (NaN = not a number), strings
and booleans as integer codes, and any other value (temporal, lists, huge integers) in a dict that is
compared with Cypher's own rules. Comparisons follow Cypher: a missing value or a type mismatch never
matches, 1 = 1.0, false < true.
"""
from __future__ import annotations

import operator

import numpy as np

from relate.protocol.errors import ArgumentError

OPERATORS = {"=": operator.eq, "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge}
_EXACT_FLOAT_INT = 2 ** 53
_ABSENT = object()


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

    def mask(self, op: str, value, n: int, rows: np.ndarray | None = None) -> np.ndarray:
        """Rows [0, n) where ``column op value`` is true; with ``rows``, the answer for those rows only."""
        size = n if rows is None else len(rows)
        if value is None:
            return np.zeros(size, dtype=bool)
        if op == "IN":
            if not isinstance(value, (list, tuple)):
                raise ArgumentError(f"IN needs a list, got {type(value).__name__}")
            out = np.zeros(size, dtype=bool)
            for item in value:
                out |= self.mask("=", item, n, rows)
            return out
        compare = OPERATORS.get(op)
        if compare is None:
            raise ArgumentError(f"Unsupported operator {op!r} in a vector search filter")
        if _is_number(value):
            with np.errstate(invalid="ignore"):
                out = compare(self.num[:n] if rows is None else self.num[rows], value)
        else:
            out = np.zeros(size, dtype=bool)
            if type(value) in (str, bool):
                codes = self.code[:n] if rows is None else self.code[rows]
                if op == "=":
                    code = self.codes.get(_code_key(value))
                    if code is not None:
                        out |= codes == code
                elif self.values:
                    table = np.array([type(v) is type(value) and compare(v, value) for v in self.values] + [False])
                    out |= table[codes]            # code -1 picks the trailing False
        if self.other:
            if rows is None:
                for row, stored in self.other.items():
                    if row < n and _cypher_compare(op, stored, value):
                        out[row] = True
            else:
                for i, row in enumerate(rows.tolist()):
                    stored = self.other.get(row, _ABSENT)
                    if stored is not _ABSENT and _cypher_compare(op, stored, value):
                        out[i] = True
        return out

    def sorted_rows(self, alive: np.ndarray, n: int):
        """(values, rows): the live rows [0, n) holding a number, ordered by that number (for range scopes)."""
        rows = np.flatnonzero(alive[:n] & ~np.isnan(self.num[:n]))
        values = self.num[rows]
        order = np.argsort(values, kind="stable")
        return values[order], rows[order]

    def range_rows(self, op: str, value, index) -> np.ndarray | None:
        """The rows matching ``column op number`` from ``sorted_rows``' index; None where that does not
        apply (not a number, not a comparison, or values only Cypher's own rules can compare)."""
        if self.other or not _is_number(value) or op not in OPERATORS:
            return None
        values, rows = index
        if value != value:                  # NaN matches nothing
            return rows[:0]
        if op == "=":
            lo, hi = np.searchsorted(values, value, "left"), np.searchsorted(values, value, "right")
        elif op in (">", ">="):
            lo, hi = np.searchsorted(values, value, "right" if op == ">" else "left"), len(values)
        else:
            lo, hi = 0, np.searchsorted(values, value, "left" if op == "<" else "right")
        return rows[lo:hi]


def _cypher_compare(op: str, a, b) -> bool:
    from relate.server.query.exec.values import ops as values_ops
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

    def column(self, prop) -> Column:
        column = self.columns.get(prop)
        if column is None:
            raise ArgumentError(
                f"Property {prop!r} is not declared in the index's WITH [...] list; "
                f"filterable properties are {self.props}")
        return column

    def mask(self, filters, n: int, rows: np.ndarray | None = None) -> np.ndarray:
        """Rows [0, n) passing every (prop, op, value) filter (ANDed); with ``rows``, those rows' answers."""
        out = None
        for prop, op, value in filters:
            part = self.column(prop).mask(op.upper() if isinstance(op, str) else op, value, n, rows)
            out = part if out is None else out & part
        if out is None:
            return np.ones(n if rows is None else len(rows), dtype=bool)
        return out
