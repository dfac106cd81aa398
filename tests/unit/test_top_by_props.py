"""``ORDER BY n.key [DESC] [SKIP s] LIMIT l`` over a label: the Top runs before the projection it does not
need (planner rule top_first) and ranks the label's nodes from their properties (PR.Top by_props, numbers
by a stable numpy sort). Rows, their order and ties must equal the plan without the optimizer rules,
over nulls, NaN, mixed types, equal keys, SKIP, several keys and a transaction's own writes."""
import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from relate.server.query.context import ExecContext
from relate.server.query.parser import parse
from relate.server.query.planner import plan_query
from tests.helpers import plan_operators, rows, run

VALUES = {
    "ints": st.integers(-5, 5),
    "big ints": st.sampled_from([-2**63, 2**63 - 1, 2**53 + 1, 2**53, 0]),
    "floats": st.floats(-3, 3, allow_nan=False).map(lambda f: round(f, 1)),
    "nan and zeros": st.sampled_from([math.nan, 0.0, -0.0, 1.5, -math.inf, math.inf]),
    "ints and floats": st.one_of(st.integers(-3, 3), st.sampled_from([1.0, 2.5, -0.5])),
    "mixed": st.one_of(st.integers(-2, 2), st.sampled_from(["a", "b", "", True, False, 1.5, [1], [0, 2]])),
    "strings": st.sampled_from(["a", "b", "ab", "B", ""]),
}


def ordered(db, tx, text: str, params: dict, optimize: bool) -> list:
    """Every row of ``text`` in order, planned with the optimizer rules or without (or the error class)."""
    plan = plan_query(parse(text).body, tx, db.procedures, optimize_plans=optimize)
    try:
        got = [tuple("NaN" if v != v else v for v in row) for row in plan.root.rows(ExecContext(tx, params, db), {})]
    except Exception as exc:
        return [type(exc).__name__]
    return got


def fill(db, values: list) -> None:
    run(db, "MATCH (n) DETACH DELETE n")
    run(db, "UNWIND range(0, size($values) - 1) AS i CREATE (:M {i: i})", {"values": values})
    for i, value in enumerate(values):
        if value is not None:
            run(db, "MATCH (m:M {i: $i}) SET m.k = $v, m.j = $i % 3", {"i": i, "v": value})


STATEMENTS = [
    "MATCH (m:M) RETURN m.i AS i ORDER BY m.k LIMIT $n",
    "MATCH (m:M) RETURN m.i AS i ORDER BY m.k DESC LIMIT $n",
    "MATCH (m:M) RETURN m.i AS i, m.k AS k ORDER BY k DESC SKIP $s LIMIT $n",
    "MATCH (m:M) RETURN m.i AS i ORDER BY m.k ASC SKIP $s LIMIT $n",
    "MATCH (m:M) WITH m ORDER BY m.k DESC LIMIT $n RETURN m.i AS i",
    "MATCH (m:M) RETURN m.i AS i ORDER BY m.j DESC, m.k LIMIT $n",
    "MATCH (m:M) RETURN m.i AS i ORDER BY m.j, m.k DESC, m.i LIMIT $n",
    "MATCH (m:M) RETURN m.i AS i, m.k * 2 AS twice ORDER BY twice DESC LIMIT $n",
    "MATCH (m:M) WHERE m.k IS NOT NULL RETURN m.i AS i ORDER BY m.k DESC SKIP $s LIMIT $n",
    "MATCH (m:M) WHERE m.j IS NOT NULL RETURN m.i AS i ORDER BY m.k LIMIT $n",
    "MATCH (m:M) WHERE m.k IS NOT NULL AND m.j IS NOT NULL RETURN m.i AS i ORDER BY m.j, m.k DESC LIMIT $n",
]


@pytest.mark.parametrize("statement", STATEMENTS)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data(), kind=st.sampled_from(sorted(VALUES)), n=st.integers(0, 12), s=st.integers(0, 4))
def test_top_by_properties_equals_the_plain_plan(db, data, kind, statement, n, s):
    values = data.draw(st.lists(st.one_of(st.none(), VALUES[kind]), max_size=24))
    fill(db, values)
    tx = db.store.begin_read()
    try:
        fast = ordered(db, tx, statement, {"n": n, "s": s}, True)
        plain = ordered(db, tx, statement, {"n": n, "s": s}, False)
    finally:
        tx.close()
    assert fast == plain


def test_the_plan_puts_the_top_under_the_projection(db):
    fill(db, [3, 1, 2])
    operators = plan_operators(db, "MATCH (m:M) RETURN m.i AS i ORDER BY m.k DESC LIMIT 2")
    assert operators[operators.index("Projection"):] == ["Projection", "Top", "NodeByLabelScan", "Argument"]


def test_newest_first_with_nulls_first_as_cypher_orders_them(db):
    fill(db, [5, None, 7, 6, None, 7])
    assert rows(db, "MATCH (m:M) RETURN m.i ORDER BY m.k DESC LIMIT 4") == [(1,), (4,), (2,), (5,)]
    assert rows(db, "MATCH (m:M) RETURN m.i ORDER BY m.k LIMIT 4") == [(0,), (3,), (2,), (5,)]
    assert rows(db, "MATCH (m:M) RETURN m.i ORDER BY m.k SKIP 3 LIMIT 3") == [(5,), (1,), (4,)]


def test_a_transaction_ranks_its_own_writes(db):
    fill(db, [1, 2, 3])
    session = db.session()
    session.begin()
    try:
        session.run("CREATE (:M {i: 10, k: 99}), (:M {i: 11, k: 0})").consume()
        session.run("MATCH (m:M {i: 2}) SET m.k = 100").consume()
        session.run("MATCH (m:M {i: 0}) DETACH DELETE m").consume()
        got = session.run("MATCH (m:M) RETURN m.i ORDER BY m.k DESC LIMIT 3").fetch(10)
        assert [r[0] for r in got] == [2, 10, 1]
    finally:
        session.rollback()
    assert rows(db, "MATCH (m:M) RETURN m.i ORDER BY m.k DESC LIMIT 3") == [(2,), (1,), (0,)]


def test_a_label_removed_or_a_node_deleted_is_not_ranked(db):
    fill(db, [1, 2, 3, 4])
    run(db, "MATCH (m:M {i: 3}) REMOVE m:M")
    run(db, "MATCH (m:M {i: 2}) DETACH DELETE m")
    assert rows(db, "MATCH (m:M) RETURN m.i ORDER BY m.k DESC LIMIT 5") == [(1,), (0,)]


def test_profile_counts_the_scan_rows(db):
    fill(db, [1, 2, 3, 4])
    summary = db.session().run("PROFILE MATCH (m:M) RETURN m.i ORDER BY m.k DESC LIMIT 2")
    assert summary.fetch(10) == [(3,), (2,)]


def test_is_not_null_filters_before_the_ranking(db):
    fill(db, [5, None, 7, 6, None, 7, math.nan])
    for text in ("MATCH (m:M) WHERE m.k IS NOT NULL RETURN m.i ORDER BY m.k DESC LIMIT 4",
                 "MATCH (m:M) WHERE m.k IS NOT NULL AND m.j IS NOT NULL RETURN m.i ORDER BY m.k SKIP 1 LIMIT 9",
                 "MATCH (m:M) WHERE m.j IS NOT NULL RETURN m.i ORDER BY m.k DESC LIMIT 9"):
        tx = db.store.begin_read()
        try:
            fast, plain = (ordered(db, tx, text, {}, o) for o in (True, False))
        finally:
            tx.close()
        assert fast == plain, text
    assert rows(db, "MATCH (m:M) WHERE m.k IS NOT NULL RETURN m.i ORDER BY m.k DESC LIMIT 4") == \
        [(6,), (2,), (5,), (3,)]
