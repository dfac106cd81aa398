"""Aggregate functions: one small accumulator class per function, created per group.

``make_aggregator(name, distinct)`` returns an object with ``add(*args)`` (arguments already
evaluated) and ``result()``. ``count(*)`` is the name ``"count(*)"``: its ``add()`` takes no
argument and counts every row. Nulls are ignored by every other aggregate; DISTINCT drops repeats
(by ``group_key``) of the first argument before they reach the accumulator.
"""
from __future__ import annotations

import math
from fractions import Fraction

from relate.protocol.errors import ArgumentError, CypherTypeError
from relate.protocol.values import Duration
from relate.server.query.exec.functions.registry import AGGREGATES, ARITY, aggregate
from relate.server.query.exec.values.ops import arithmetic_error, group_key, order_key, type_name

__all__ = ["is_aggregate", "make_aggregator", "aggregator_factory", "AGGREGATES"]


class CountStar:
    __slots__ = ("n",)

    def __init__(self):
        self.n = 0

    def add(self, *args):
        self.n += 1

    def result(self):
        return self.n


class Count:
    __slots__ = ("n",)

    def __init__(self):
        self.n = 0

    def add(self, value):
        if value is not None:
            self.n += 1

    def result(self):
        return self.n


def _number_or_duration(value, name):
    t = type(value)
    if t is int or t is float or t is Duration:
        return value
    raise CypherTypeError(f"{name}() can only handle numerical values, durations, and null. Got {type_name(value)}",
                          detail="InvalidArgumentType", phase="runtime")


class Sum:
    __slots__ = ("total", "duration")

    def __init__(self):
        self.total = 0              # int stays int; a float makes it a float
        self.duration = None

    def add(self, value):
        t = type(value)
        if (t is float or t is int) and self.duration is None:
            self.total += value             # the usual case, checked inline
            return
        if value is None:
            return
        _number_or_duration(value, "sum")
        if type(value) is Duration:
            self.duration = value if self.duration is None else _add_durations(self.duration, value)
        else:
            if self.duration is not None:
                raise CypherTypeError("sum() cannot mix numbers and durations",
                                      detail="InvalidArgumentType", phase="runtime")
            self.total += value

    def result(self):
        if self.duration is not None:
            if self.total:
                raise CypherTypeError("sum() cannot mix numbers and durations",
                                      detail="InvalidArgumentType", phase="runtime")
            return self.duration
        _check_int64(self.total)
        return self.total


def _add_durations(a: Duration, b: Duration) -> Duration:
    return Duration(a.months + b.months, a.days + b.days, a.seconds + b.seconds,
                    a.nanoseconds + b.nanoseconds)   # component-wise, as Neo4j sums durations


def _check_int64(n):
    if type(n) is int and not -2 ** 63 <= n < 2 ** 63:
        raise arithmetic_error("long overflow")


class Avg:
    __slots__ = ("total", "n", "durations")

    def __init__(self):
        self.total = 0
        self.n = 0
        self.durations = None

    def add(self, value):
        if value is None:
            return
        _number_or_duration(value, "avg")
        if (type(value) is Duration) != (self.durations is not None) and self.n:
            raise CypherTypeError("avg() cannot mix numbers and durations",
                                  detail="InvalidArgumentType", phase="runtime")
        if type(value) is Duration:
            self.durations = value if self.durations is None else _add_durations(self.durations, value)
        else:
            self.total += value
        self.n += 1

    def result(self):
        if self.n == 0:
            return None
        if self.durations is not None:
            d, n = self.durations, Fraction(self.n)
            return Duration.approximate(d.months / n, d.days / n, d.seconds / n, d.nanoseconds / n)
        return self.total / self.n


class _Extreme:
    __slots__ = ("best", "best_key")

    def __init__(self):
        self.best = None
        self.best_key = None

    def result(self):
        return self.best


class Min(_Extreme):
    __slots__ = ()

    def add(self, value):
        if value is None:
            return
        key = order_key(value)
        if self.best_key is None or key < self.best_key:
            self.best, self.best_key = value, key


class Max(_Extreme):
    __slots__ = ()

    def add(self, value):
        if value is None:
            return
        key = order_key(value)
        if self.best_key is None or key > self.best_key:
            self.best, self.best_key = value, key


class Collect:
    __slots__ = ("items",)

    def __init__(self):
        self.items = []

    def add(self, value):
        if value is not None:
            self.items.append(value)

    def result(self):
        return self.items


def _number(value, name):
    t = type(value)
    if t is int or t is float:
        return value
    raise CypherTypeError(f"{name}() can only handle numerical values and null. Got {type_name(value)}",
                          detail="InvalidArgumentType", phase="runtime")


class StDev:
    """Sample (stDev) or population (stDevP) standard deviation, Welford's streaming form."""
    __slots__ = ("n", "mean", "m2", "population")

    def __init__(self, population: bool):
        self.n = 0
        self.mean = 0.0
        self.m2 = 0.0
        self.population = population

    def add(self, value):
        if value is None:
            return
        x = float(_number(value, "stDev"))
        self.n += 1
        delta = x - self.mean
        self.mean += delta / self.n
        self.m2 += delta * (x - self.mean)

    def result(self):
        if self.population:
            return math.sqrt(self.m2 / self.n) if self.n > 0 else 0.0
        return math.sqrt(self.m2 / (self.n - 1)) if self.n > 1 else 0.0


class Percentile:
    """percentileCont (interpolated) / percentileDisc (nearest rank); the percentile is in 0..1."""
    __slots__ = ("values", "percentile", "continuous")

    def __init__(self, continuous: bool):
        self.values = []
        self.percentile = None
        self.continuous = continuous

    def add(self, value, percentile=None):
        if percentile is None:
            # Neo4j requires the percentile on every row; a null one makes the whole call fail.
            raise ArgumentError("percentile must be a number in the range 0.0 to 1.0",
                                detail="NumberOutOfRange", phase="runtime")
        if type(percentile) not in (int, float):
            raise CypherTypeError(f"percentile must be a number, got {type_name(percentile)}",
                                  detail="InvalidArgumentType", phase="runtime")
        if not 0.0 <= percentile <= 1.0:
            raise ArgumentError(f"Invalid input '{percentile}' is not a valid argument, "
                                f"must be a number in the range 0.0 to 1.0",
                                detail="NumberOutOfRange", phase="runtime")
        self.percentile = float(percentile)
        if value is not None:
            self.values.append(_number(value, "percentile"))

    def result(self):
        values = self.values
        if not values:
            return None
        values.sort()
        p = self.percentile
        n = len(values)
        if self.continuous:
            pos = p * (n - 1)
            lower = int(math.floor(pos))
            upper = min(lower + 1, n - 1)
            frac = pos - lower
            return float(values[lower]) + (float(values[upper]) - float(values[lower])) * frac
        if p == 0.0:
            return values[0]
        index = int(math.ceil(p * n)) - 1
        return values[max(0, min(index, n - 1))]


class Distinct:
    """Wraps an accumulator so repeated (equal) first arguments are added once."""
    __slots__ = ("inner", "seen")

    def __init__(self, inner):
        self.inner = inner
        self.seen = set()

    def add(self, value, *rest):
        if value is None:
            return
        key = group_key(value)
        if key in self.seen:
            return
        self.seen.add(key)
        self.inner.add(value, *rest)

    def result(self):
        return self.inner.result()


for _name, _low, _high, _factory, _text in (
        ("count", 1, 1, Count, "The number of non-null values."),
        ("count(*)", 0, 0, CountStar, "The number of rows."),
        ("sum", 1, 1, Sum, "The sum of numbers or durations."),
        ("avg", 1, 1, Avg, "The average of numbers or durations."),
        ("min", 1, 1, Min, "The smallest value."),
        ("max", 1, 1, Max, "The largest value."),
        ("collect", 1, 1, Collect, "A list of the non-null values."),
        ("stDev", 1, 1, lambda: StDev(False), "The sample standard deviation."),
        ("stDevP", 1, 1, lambda: StDev(True), "The population standard deviation."),
        ("percentileCont", 2, 2, lambda: Percentile(True), "The percentile, interpolated between values."),
        ("percentileDisc", 2, 2, lambda: Percentile(False), "The percentile, the nearest value.")):
    aggregate(_name, _low, _high, description=_text)(_factory)

# Number of arguments each aggregate takes (count(*) takes none).
AGGREGATE_ARITY = {name: ARITY[name] for name in AGGREGATES}


def is_aggregate(name: str) -> bool:
    """True for aggregate function names (case-insensitive)."""
    return name.lower() in AGGREGATES


def make_aggregator(name: str, distinct: bool = False):
    """A fresh accumulator for ``name`` (``"count(*)"`` for count(*)); DISTINCT when asked."""
    return aggregator_factory(name, distinct)()


def aggregator_factory(name: str, distinct: bool = False):
    """What makes ``make_aggregator(name, distinct)``'s accumulators, looked up once (per group,
    an aggregation then only calls it)."""
    try:
        factory = AGGREGATES[name.lower()]
    except KeyError:
        raise ArgumentError(f"Unknown aggregate function '{name}'", phase="compile time") from None
    if distinct and name.lower() != "count(*)":
        return lambda: Distinct(factory())
    return factory
