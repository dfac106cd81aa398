"""order_key_desc orders every pair of values exactly as the reversed ascending key does, and ORDER BY
with mixed directions sorts as Cypher says (nulls first when descending, numbers across int/float)."""
from __future__ import annotations

import itertools
import math

from relate.protocol.temporal import Date
from relate.protocol.values import Duration
from relate.server.query.exec.values.ops import order_key, order_key_desc
from relate.server.query.refs import NodeRef, RelRef
from tests.helpers import rows

VALUES = [None, 0, -0.0, 1, 1.0, -7, 2 ** 70, -(2 ** 70), 3.5, math.inf, -math.inf, math.nan, "", "a", "ab", "B",
          True, False, [], [1, "x"], [1, None], {"a": 1}, {"a": 2, "b": None}, NodeRef(3), NodeRef(10), RelRef(2),
          Date(2024, 1, 2), Date(2023, 5, 6), Duration(months=1), Duration(days=3)]


def sign(a, b) -> int:
    return (a > b) - (a < b)


def test_every_pair_compares_as_the_reversed_ascending_key():
    for a, b in itertools.product(VALUES, repeat=2):
        expected = -sign(order_key(a), order_key(b))
        assert sign(order_key_desc(a), order_key_desc(b)) == expected, (a, b)
        assert (order_key_desc(a) == order_key_desc(b)) == (expected == 0), (a, b)


def test_mixed_directions_sort_like_cypher(db):
    got = rows(db, "UNWIND [[1, 'b'], [null, 'a'], [2.5, 'c'], [1.0, 'a'], ['x', 'z'], [2, null], [2, 'a'], "
                   "[-1, 'q']] AS p RETURN p[0] AS s, p[1] AS t ORDER BY s DESC, t")
    assert got == [(None, "a"), (2.5, "c"), (2, "a"), (2, None), (1.0, "a"), (1, "b"), (-1, "q"), ("x", "z")]
    top = rows(db, "UNWIND range(1, 40) AS i WITH i % 7 AS s, toString(i) AS t "
                   "RETURN s, t ORDER BY s DESC, t LIMIT 5")
    assert top == [(6, "13"), (6, "20"), (6, "27"), (6, "34"), (6, "6")]
    three = rows(db, "UNWIND [[1, 'a', 2], [1, 'a', 1], [1, 'b', 0], [0, 'z', 9]] AS p "
                     "RETURN p[0] AS x, p[1] AS y, p[2] AS z ORDER BY x, y DESC, z")
    assert three == [(0, "z", 9), (1, "b", 0), (1, "a", 1), (1, "a", 2)]
