"""``MATCH (n:L) WHERE n.key IS NOT NULL ... ORDER BY n.key [DESC] LIMIT k`` with an index on the key walks
the index in order (NodeIndexScan) and stops after k. Rows and order must equal the plan without the
optimizer rules whatever the values: numbers, strings, booleans, mixed kinds, lists, NaN (left out of
the index: then the label is scanned and sorted), values changed and deleted inside a transaction,
another snapshot, and the index built after the data or before it."""
import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.helpers import plan_operators, rows, run
from tests.unit.test_top_by_props import ordered

VALUES = st.one_of(st.none(), st.integers(-4, 4), st.sampled_from([0.5, -1.5, 2.0, math.nan]),
                   st.sampled_from(["a", "b", "", "ab"]), st.booleans(), st.sampled_from([[1], [0, 2], []]))
KINDS = {"numbers": st.one_of(st.none(), st.integers(-4, 4), st.sampled_from([0.5, -1.5, 2.0])),
         "strings": st.one_of(st.none(), st.sampled_from(["a", "b", "", "ab", "B"])),
         "scalars": st.one_of(st.none(), st.integers(-2, 2), st.sampled_from(["a", "b", 0.5]), st.booleans()),
         "anything": VALUES}
STATEMENTS = [
    "MATCH (m:M) WHERE m.k IS NOT NULL RETURN m.i AS i ORDER BY m.k DESC LIMIT $n",
    "MATCH (m:M) WHERE m.k IS NOT NULL RETURN m.i AS i, m.k AS k ORDER BY m.k SKIP $s LIMIT $n",
    "MATCH (m:M) WHERE m.k IS NOT NULL WITH m ORDER BY m.k DESC SKIP $s LIMIT $n RETURN m.i AS i",
]


def fill(db, values: list, index_first: bool) -> None:
    run(db, "MATCH (n) DETACH DELETE n")
    run(db, "DROP INDEX m_k IF EXISTS")
    if index_first:
        run(db, "CREATE INDEX m_k FOR (m:M) ON (m.k)")
    for i, value in enumerate(values):
        run(db, "CREATE (m:M {i: $i}) SET m.k = $v", {"i": i, "v": value})
    if not index_first:
        run(db, "CREATE INDEX m_k FOR (m:M) ON (m.k)")


def both(db, statement: str, params: dict, session=None) -> tuple[list, list]:
    tx = session._tx if session is not None else db.store.begin_read()
    try:
        return ordered(db, tx, statement, params, True), ordered(db, tx, statement, params, False)
    finally:
        if session is None:
            tx.close()


@pytest.mark.parametrize("statement", STATEMENTS)
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data(), kind=st.sampled_from(sorted(KINDS)), index_first=st.booleans(),
       n=st.integers(0, 10), s=st.integers(0, 3))
def test_the_index_order_equals_the_sorted_label(db, data, kind, index_first, statement, n, s):
    fill(db, data.draw(st.lists(KINDS[kind], max_size=16)), index_first)
    fast, plain = both(db, statement, {"n": n, "s": s})
    assert fast == plain


def test_the_plan_walks_the_index_and_stops(db):
    fill(db, list(range(50)), True)
    text = "MATCH (m:M) WHERE m.k IS NOT NULL RETURN m.i ORDER BY m.k DESC LIMIT 3"
    operators = plan_operators(db, text)
    assert "NodeIndexScan" in operators and "Top" not in operators, operators
    assert rows(db, text) == [(49,), (48,), (47,)]


def test_a_nan_written_later_is_still_found(db):
    fill(db, [1, 2, 3], True)
    text = "MATCH (m:M) WHERE m.k IS NOT NULL RETURN m.i ORDER BY m.k DESC LIMIT 2"
    run(db, "MATCH (m:M {i: 0}) SET m.k = 0.0 / 0.0")
    assert rows(db, text) == [(0,), (2,)]          # NaN sorts above every number
    run(db, "CREATE (:M {i: 7, k: [1.0, 0.0 / 0.0]})")
    assert rows(db, "MATCH (m:M) WHERE m.k IS NOT NULL RETURN m.i ORDER BY m.k LIMIT 9") == [(7,), (1,), (2,), (0,)]


def test_a_transaction_walks_its_own_values_and_others_keep_theirs(db):
    fill(db, [5, 1, 9, 3], True)
    text = "MATCH (m:M) WHERE m.k IS NOT NULL RETURN m.i AS i ORDER BY m.k DESC LIMIT 3"
    session = db.session()
    session.begin()
    try:
        session.run("MATCH (m:M {i: 2}) SET m.k = 0").consume()
        session.run("MATCH (m:M {i: 1}) SET m.k = 100").consume()
        session.run("MATCH (m:M {i: 0}) DETACH DELETE m").consume()
        session.run("CREATE (:M {i: 8, k: 4})").consume()
        assert [r[0] for r in session.run(text).fetch(10)] == [1, 8, 3]
        assert rows(db, text) == [(2,), (0,), (3,)]
    finally:
        session.rollback()
    assert rows(db, text) == [(2,), (0,), (3,)]


@pytest.mark.parametrize("index_first", [True, False])
def test_a_nan_before_or_after_the_index_is_found(db, index_first):
    fill(db, [2, math.nan, 1, None, 3], index_first)
    assert rows(db, "MATCH (m:M) WHERE m.k IS NOT NULL RETURN m.i ORDER BY m.k DESC LIMIT 2") == [(1,), (4,)]
    assert rows(db, "MATCH (m:M) WHERE m.k IS NOT NULL RETURN m.i ORDER BY m.k LIMIT 9") == [(2,), (0,), (4,), (1,)]
