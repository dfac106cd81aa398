"""values_ops: Cypher equality, comparison, ORDER BY order, grouping keys and arithmetic."""
import math

import pytest

from relate.errors import ClientError, CypherTypeError
from relate.values import Duration
from relate.server.query.exec.values import ops
from relate.server.query.refs import NodeRef, PathRef, RelRef

NAN = float("nan")


@pytest.mark.parametrize("a, b, expected", [
    (1, 1.0, True), (1, 2, False), (None, 1, None), (1, None, None), (None, None, None),
    ("a", "a", True), ("1", 1, False), (True, 1, False), (True, True, True),
    (NAN, NAN, False), ([1, 2], [1, 2.0], True), ([1, None], [1, 2], None),
    ([1, None], [2, 2], False), ([1], [1, 2], False), ({"a": 1}, {"a": 1.0}, True),
    ({"a": 1}, {"b": 1}, False), ({"a": None}, {"a": 1}, None),
    (NodeRef(1), NodeRef(1), True), (NodeRef(1), RelRef(1), False), (NodeRef(1), NodeRef(2), False),
    (Duration(1, 2, 3), Duration(1, 2, 3), True), ([], [], True), ({}, [], False),
])
def test_equals(a, b, expected):
    assert ops.equals(a, b) is expected


@pytest.mark.parametrize("a, b, expected", [
    (1, 2.5, -1), (3, 3.0, 0), ("b", "a", 1), (False, True, -1), (1, "1", None),
    (None, 1, None), ([1, 0], [1], 1), ([1, None], [1], 1), ([1, 2], [1, None], None),
    ([1, 2], [3, None], -1), ([1, "a"], [1, None], None), (NAN, 1, None), ({"a": 1}, {"a": 1}, None),
    (NodeRef(1), NodeRef(2), None),
])
def test_compare(a, b, expected):
    assert ops.compare(a, b) == expected if expected is not None else ops.compare(a, b) is None


def test_nan_ordering_predicates_are_false_but_null_across_types():
    for fn in (ops.less, ops.less_equal, ops.greater, ops.greater_equal):
        assert fn(NAN, 1) is False
        assert fn(NAN, NAN) is False
        assert fn(NAN, "a") is None


def test_order_key_cross_type_order():
    path = PathRef((NodeRef(1),), ())
    values = [None, 1, "s", True, Duration(1), path, [1], RelRef(3), NodeRef(2), {"k": 1}, NAN, 2.5]
    ordered = sorted(values, key=ops.order_key)
    assert ordered[:5] == [{"k": 1}, NodeRef(2), RelRef(3), [1], path]
    assert ordered[5] == Duration(1)
    assert ordered[6:9] == ["s", True, 1]
    assert ordered[9] == 2.5 and math.isnan(ordered[10]) and ordered[11] is None


def test_order_key_numbers_and_lists():
    assert sorted([3, 1.5, -2, 10], key=ops.order_key) == [-2, 1.5, 3, 10]
    assert sorted([[2, 1], [1], [2], []], key=ops.order_key) == [[], [1], [2], [2, 1]]
    assert sorted([False, True, False], key=ops.order_key) == [False, False, True]


def test_group_key_equivalences():
    assert ops.group_key(1) == ops.group_key(1.0)
    assert ops.group_key(True) != ops.group_key(1)
    assert ops.group_key(NAN) == ops.group_key(float("nan"))
    assert ops.group_key([1, [2.0]]) == ops.group_key([1.0, [2]])
    assert ops.group_key({"a": 1, "b": 2}) == ops.group_key({"b": 2.0, "a": 1})
    assert ops.group_key("1") != ops.group_key(1)
    assert len({ops.group_key(v) for v in [1, 1.0, "1", True, None, [1], [1.0]]}) == 5


def test_arithmetic_integers():
    assert ops.add(1, 2) == 3 and type(ops.add(1, 2)) is int
    assert ops.divide(7, 2) == 3 and ops.divide(-7, 2) == -3 and ops.divide(7, -2) == -3
    assert ops.modulo(-7, 2) == -1 and ops.modulo(7, -2) == 1
    assert ops.power(2, 3) == 8.0 and type(ops.power(2, 3)) is float
    with pytest.raises(ClientError) as err:
        ops.divide(1, 0)
    assert err.value.code == "Neo.ClientError.Statement.ArithmeticError"
    with pytest.raises(ClientError):
        ops.modulo(1, 0)
    with pytest.raises(ClientError):
        ops.add(2 ** 63 - 1, 1)
    with pytest.raises(ClientError):
        ops.multiply(2 ** 62, 4)
    with pytest.raises(ClientError):
        ops.negate(-2 ** 63)


def test_arithmetic_floats():
    assert ops.divide(1.0, 0) == math.inf and ops.divide(-1, 0.0) == -math.inf
    assert math.isnan(ops.divide(0.0, 0.0))
    assert math.isnan(ops.modulo(1.5, 0.0))
    assert ops.modulo(-7.5, 2) == -1.5
    assert math.isnan(ops.power(-8, 1 / 3))
    assert ops.power(0, -1) == math.inf


def test_addition_of_strings_and_lists():
    assert ops.add("a", "b") == "ab"
    assert ops.add("a", 1) == "a1" and ops.add(1.0, "a") == "1.0a" and ops.add("x", True) == "xtrue"
    assert ops.add([1], [2, 3]) == [1, 2, 3]
    assert ops.add([1], 2) == [1, 2] and ops.add(0, [1]) == [0, 1]
    assert ops.add([1], None) is None and ops.add(None, 1) is None
    with pytest.raises(CypherTypeError):
        ops.add(True, 1)
    with pytest.raises(CypherTypeError):
        ops.subtract("a", 1)
