"""Aggregates: null skipping, DISTINCT, numeric types, durations, mixed-type min/max, percentiles."""
import math

import pytest

from relate.errors import ArgumentError, ClientError, CypherTypeError
from relate.values import Duration
from relate.server.query.exec.values.ops import is_aggregate, make_aggregator


def run(name, values, distinct=False):
    agg = make_aggregator(name, distinct)
    for v in values:
        agg.add(*v) if isinstance(v, tuple) else agg.add(v)
    return agg.result()


def test_is_aggregate():
    assert is_aggregate("count") and is_aggregate("COLLECT") and is_aggregate("percentileDisc")
    assert not is_aggregate("size") and not is_aggregate("toUpper")


def test_count_and_count_star():
    assert run("count", [1, None, "a"]) == 2
    star = make_aggregator("count(*)")
    for _ in range(3):
        star.add()
    assert star.result() == 3
    assert run("count", [1, 1.0, 2, None], distinct=True) == 2
    assert run("count", []) == 0


def test_sum_and_avg():
    assert run("sum", [1, 2, None]) == 3 and type(run("sum", [1, 2])) is int
    assert run("sum", [1, 2.5]) == 3.5
    assert run("sum", []) == 0
    assert run("sum", [1, 1, 2], distinct=True) == 3
    assert run("avg", [1, 2]) == 1.5 and run("avg", []) is None and run("avg", [None]) is None
    assert run("sum", [Duration(days=1), Duration(seconds=5)]) == Duration(days=1, seconds=5)
    assert run("avg", [Duration(days=1), Duration(days=2)]) == Duration(days=1, seconds=43200)
    with pytest.raises(CypherTypeError):
        run("sum", ["a"])
    with pytest.raises(ClientError):
        run("sum", [2 ** 63 - 1, 1])


def test_min_max_over_mixed_types():
    assert run("max", [1, 2, 0, None, -1]) == 2 and run("min", [1, 2, 0, None, -1]) == -1
    assert run("max", [1, 2.0, 5, None, 3.2, 0.1]) == 5 and run("min", [1, 2.0, 5, 0.1]) == 0.1
    assert run("max", ["a", "b", "B", "abc"]) == "b" and run("min", ["a", "b", "B"]) == "B"
    assert run("max", [[1], [2], [2, 1]]) == [2, 1] and run("min", [[1], [2], [2, 1]]) == [1]
    mixed = [1, "a", None, [1, 2], 0.2, "b"]
    assert run("max", mixed) == 1 and run("min", mixed) == [1, 2]
    assert run("min", []) is None and run("max", [None]) is None


def test_collect():
    assert run("collect", [1, None, 2]) == [1, 2]
    assert run("collect", [None, None], distinct=True) == []
    assert run("collect", [1, 1.0, [1], [1], 2], distinct=True) == [1, [1], 2]


def test_standard_deviation():
    assert run("stDev", [2, 4, 4, 4, 5, 5, 7, 9]) == pytest.approx(2.138089935299395)
    assert run("stDevP", [2, 4, 4, 4, 5, 5, 7, 9]) == pytest.approx(2.0)
    assert run("stDev", [1]) == 0.0 and run("stDevP", []) == 0.0


def test_percentiles():
    values = [(v, 0.5) for v in (10, 20, 30, 40)]
    assert run("percentileCont", values) == 25.0
    assert run("percentileDisc", values) == 20
    assert run("percentileDisc", [(v, 0.0) for v in (3, 1, 2)]) == 1
    assert run("percentileCont", [(v, 1.0) for v in (3, 1, 2)]) == 3.0
    assert run("percentileDisc", [(None, 0.5)]) is None
    with pytest.raises(ArgumentError) as err:
        run("percentileCont", [(1, 1.5)])
    assert err.value.detail == "NumberOutOfRange"


def test_stdev_of_nan_inputs_propagates():
    assert math.isnan(run("avg", [float("nan"), 1.0]))
