"""``x IN list`` with a long list met again looks scalars up in a set (expressions.py, ``_in_members``):
random values and lists (numbers of both kinds, NaN, booleans, strings, null, nested lists and maps)
give what comparing item by item gives, null included."""
from __future__ import annotations

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from relate.server.query.exec.expressions import MEMBERS_AT, in_list
from tests.helpers import rows

NAN = float("nan")
SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.sampled_from([0.0, -0.0, 1.0, 2.5, NAN,
                    float("inf"), 2 ** 53 + 1, float(2 ** 53)]), st.sampled_from(["", "a", "1", "true"]))
VALUES = st.one_of(SCALARS, st.lists(SCALARS, max_size=2), st.dictionaries(st.sampled_from(["k"]), SCALARS))


def _same(a, b) -> bool:
    return a is b or a == b


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(items=st.lists(VALUES, max_size=12), xs=st.lists(VALUES, min_size=1, max_size=10), pad=st.integers(0, 40))
@example(items=[NAN, True, 2.0, None], xs=[NAN, 1, 2, 7, True, None], pad=40)
@example(items=[NAN, False, "a", [1]], xs=[NAN, 0, "a", [1], 0.0, False], pad=40)
def test_set_lookup_agrees_with_item_by_item(db, items, xs, pad):
    items = items + list(range(100, 100 + pad))        # long enough, sometimes, to take the set
    got = rows(db, "UNWIND range(0, size($xs) - 1) AS i RETURN i, $xs[i] IN $items, NOT $xs[i] IN $items",
               {"xs": xs, "items": items})
    for i, within, outside in got:
        expected = in_list(xs[i], items)
        assert _same(within, expected), (xs[i], items, within, expected)
        assert _same(outside, None if expected is None else not expected)


def test_a_long_parameter_list_is_a_set_lookup(db, monkeypatch):
    """The point: 5,000 rows against 5,000 ids compare each row with one set, not 5,000 items."""
    from relate.server.query.exec import expressions
    compared = []
    original = expressions.equals

    def counted(a, b):
        compared.append(1)
        return original(a, b)

    monkeypatch.setattr(expressions, "equals", counted)
    ids = list(range(0, 10_000, 2))
    assert rows(db, "UNWIND range(1, 5000) AS x WITH x WHERE NOT x IN $ids RETURN count(x)", {"ids": ids}) == [(2500,)]
    assert len(compared) <= 2 * len(ids) and len(ids) >= MEMBERS_AT      # the first row's walk at most
