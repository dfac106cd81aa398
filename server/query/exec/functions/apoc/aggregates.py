"""APOC aggregate functions (apoc.agg.*): first, last, nth, slice, median, percentiles, product,
statistics, maxItems and minItems. Nulls are skipped, as by Cypher's own aggregates."""
from __future__ import annotations

import math

from relate.server.query.exec.functions import aggregates as _core_aggregates
from relate.server.query.exec.functions.apoc.args import as_int, as_list, as_number, out_of_range, total
from relate.server.query.exec.functions.registry import AGGREGATES, ARITY, aggregate, type_error
from relate.server.query.exec.values.ops import arithmetic_error, compare, order_key

DEFAULT_PERCENTILES = [0.5, 0.75, 0.9, 0.95, 0.99]


class _Values:
    """Keeps the non-null values in order."""
    __slots__ = ("values", "extra")

    def __init__(self):
        self.values: list = []
        self.extra: tuple = ()

    def add(self, value, *extra):
        if extra:
            self.extra = extra
        if value is not None:
            self.values.append(value)


@aggregate("apoc.agg.first", 1, description="The first non-null value of the group (APOC).")
class First:
    __slots__ = ("value",)

    def __init__(self):
        self.value = None

    def add(self, value):
        if self.value is None:
            self.value = value

    def result(self):
        return self.value


@aggregate("apoc.agg.last", 1, description="The last non-null value of the group (APOC).")
class Last:
    __slots__ = ("value",)

    def __init__(self):
        self.value = None

    def add(self, value):
        if value is not None:
            self.value = value

    def result(self):
        return self.value


@aggregate("apoc.agg.nth", 2, description="The non-null value at an offset of the group (-1: the last) (APOC).")
class Nth(_Values):
    __slots__ = ()

    def result(self):
        offset = as_int("apoc.agg.nth", self.extra[0]) if self.extra and self.extra[0] is not None else 0
        values = self.values
        if offset == -1:
            return values[-1] if values else None
        return values[offset] if 0 <= offset < len(values) else None


@aggregate("apoc.agg.slice", 1, 3, description="The group's non-null values from an offset (0), length of them "
                                               "(-1: all) (APOC).")
class Slice(_Values):
    __slots__ = ()

    def result(self):
        start = self.extra[0] if len(self.extra) > 0 and self.extra[0] is not None else 0
        length = self.extra[1] if len(self.extra) > 1 and self.extra[1] is not None else -1
        start, length = as_int("apoc.agg.slice", start), as_int("apoc.agg.slice", length)
        values = self.values[max(start, 0):]
        return values if length < 0 else values[:length]


def _numbers(name: str, values: list) -> list:
    for v in values:
        as_number(name, v)
    return values


@aggregate("apoc.agg.median", 1, description="The median of the group's numbers (mean of the middle two for an even "
                                             "count) (APOC).")
class Median(_Values):
    __slots__ = ()

    def result(self):
        values = sorted(_numbers("apoc.agg.median", self.values))
        n = len(values)
        if n == 0:
            return None
        if n % 2:
            return float(values[n // 2])
        return (values[n // 2 - 1] + values[n // 2]) / 2.0


def _percentile(values: list, p: float):
    """The nearest-rank percentile of sorted ``values``."""
    if p <= 0:
        return values[0]
    index = min(len(values) - 1, max(0, math.ceil(p * len(values)) - 1))
    return values[index]


def _percentile_list(name: str, spec) -> list[float]:
    out = []
    for p in as_list(name, DEFAULT_PERCENTILES if spec is None else spec):
        p = as_number(name, p)
        if not 0.0 <= p <= 1.0:
            raise out_of_range(name, f"a percentile must be between 0.0 and 1.0, not {p}")
        out.append(float(p))
    return out


@aggregate("apoc.agg.percentiles", 1, 2, description="The group's numbers at percentiles (default [0.5, 0.75, 0.9, "
                                                     "0.95, 0.99]), nearest rank (APOC).")
class Percentiles(_Values):
    __slots__ = ()

    def result(self):
        wanted = _percentile_list("apoc.agg.percentiles", self.extra[0] if self.extra else None)
        values = sorted(_numbers("apoc.agg.percentiles", self.values))
        if not values:
            return [None for _ in wanted]
        return [_percentile(values, p) for p in wanted]


@aggregate("apoc.agg.statistics", 1, 2, description="The group's numbers summarized: {total, min, minNonZero, max, "
                                                     "mean, stdev, and a key per percentile} (APOC).")
class Statistics(_Values):
    __slots__ = ()

    def result(self):
        wanted = _percentile_list("apoc.agg.statistics", self.extra[0] if self.extra else None)
        values = sorted(_numbers("apoc.agg.statistics", self.values))
        n = len(values)
        out: dict = {"total": n}
        if n == 0:
            out.update({"min": None, "minNonZero": None, "max": None, "mean": 0.0, "stdev": 0.0})
            out.update({str(p): None for p in wanted})
            return out
        mean = total(values) / n
        out.update({"min": values[0], "minNonZero": next((v for v in values if v != 0), None), "max": values[-1],
                    "mean": mean, "stdev": math.sqrt(total((v - mean) * (v - mean) for v in values) / n)})
        out.update({str(p): _percentile(values, p) for p in wanted})
        return out


@aggregate("apoc.agg.product", 1, description="The product of the group's numbers (an integer while all are "
                                              "integers) (APOC).")
class Product:
    __slots__ = ("value",)

    def __init__(self):
        self.value: int | float = 1

    def add(self, value):
        if value is None:
            return
        if type(value) is not int and type(value) is not float:
            raise type_error("apoc.agg.product", value, "a Number")
        self.value *= value

    def result(self):
        if type(self.value) is int and not -2 ** 63 <= self.value < 2 ** 63:
            raise arithmetic_error("long overflow")
        return self.value


class _Items:
    """maxItems / minItems: the items that share the best value, up to a limit."""
    __slots__ = ("best", "items", "limit", "sign")

    def __init__(self, sign: int):
        self.best = None
        self.items: list = []
        self.limit = -1
        self.sign = sign

    def add(self, item, value, limit=None):
        if limit is not None:
            self.limit = as_int("apoc.agg.maxItems" if self.sign > 0 else "apoc.agg.minItems", limit)
        if value is None:
            return
        if self.best is None:
            self.best, self.items = value, [item]
            return
        order = compare(value, self.best)
        if order is None:
            order = -1 if order_key(value) < order_key(self.best) else (1 if order_key(value) > order_key(self.best) else 0)
        if order * self.sign > 0:
            self.best, self.items = value, [item]
        elif order == 0 and (self.limit < 0 or len(self.items) < self.limit):
            self.items.append(item)

    def result(self):
        return {"items": self.items, "value": self.best}


aggregate("apoc.agg.maxItems", 2, 3, description="The items with the largest value, up to a limit: {items, value} "
                                                 "(APOC).")(lambda: _Items(1))
aggregate("apoc.agg.minItems", 2, 3, description="The items with the smallest value, up to a limit: {items, value} "
                                                 "(APOC).")(lambda: _Items(-1))

# The semantic check of aggregate argument counts reads this table, made when the core aggregates loaded.
_core_aggregates.AGGREGATE_ARITY.update({name: ARITY[name] for name in AGGREGATES if name.startswith("apoc.agg.")})
