"""Scans that compare a property themselves (rule ``prefilter_scans``) against the plain plan, on random
graphs and random comparisons: both must give the same rows, or the same error."""
from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.helpers import with_rules_and_without

SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.sampled_from([2 ** 62, -2 ** 62]),
                    st.floats(-3, 3, allow_nan=False, width=16), st.sampled_from([float("nan"), float("inf"), -0.0]),
                    st.sampled_from(["", "a", "ab", "b", "ba", "A", "é"]))
# Stored lists hold one type and no null (what properties may hold); parameters may hold anything.
STORED = st.one_of(SCALARS, st.lists(st.integers(-3, 3), max_size=3), st.lists(st.sampled_from(["a", "b"]), max_size=3),
                   st.lists(st.floats(-3, 3, allow_nan=False, width=16), max_size=2))
VALUES = st.one_of(SCALARS, st.lists(SCALARS, max_size=3))
FORMS = ["n.v = $x", "$x = n.v", "n.v IN $x", "n.v IN [$x, 1]", "n.v < $x", "$x < n.v", "n.v >= $x",
         "n.v STARTS WITH $x", "n.v ENDS WITH $x", "n.v CONTAINS $x", "n.v > $x AND n.v <> $x",
         "toLower(n.v) = $x", "toUpper(n.v) CONTAINS $x", "$x < lower(n.v)", "toLower(n.v) IN $x"]
PATTERNS = ["MATCH (n:P) WHERE {} RETURN n.i", "MATCH (n) WHERE {} RETURN n.i",
            "MATCH ()-[n:R]->() WHERE {} RETURN n.i", "UNWIND [1, 2] AS k MATCH (n:P) WHERE {} RETURN n.i"]


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(stored=st.lists(STORED, min_size=1, max_size=12), xs=st.lists(VALUES, min_size=1, max_size=4))
def test_rules_on_and_off_agree(db, stored, xs):
    session = db.session()
    session.run("MATCH (n) DETACH DELETE n").consume()
    session.run("UNWIND range(0, size($vs) - 1) AS i CREATE (:P {i: i, v: $vs[i]})-[:R {i: i, v: $vs[i]}]->(:Q)",
                {"vs": stored}).consume()
    tx = db.store.begin_read()
    try:
        for x in xs + stored[:2]:                  # stored values too: comparisons that find something
            for pattern in PATTERNS:
                for form in FORMS:
                    prefiltered, plain = with_rules_and_without(db, tx, pattern.format(form), {"x": x})
                    assert prefiltered == plain, (pattern.format(form), stored, x)
    finally:
        tx.close()


RANGES = ["n.v >= $x AND n.v < $y", "n.v > $x AND $y >= n.v", "n.v < $y AND n.v > $x"]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(stored=st.lists(STORED, min_size=1, max_size=12), xs=st.lists(VALUES, min_size=1, max_size=3),
       y=VALUES)
def test_index_seeks_agree_with_scans(db, stored, xs, y):
    """With a property index on P.v and on R.v the rules seek through it (equality, IN, ranges on one
    side or both, STARTS WITH, for nodes and relationships); the plain plan scans: the same rows."""
    session = db.session()
    session.run("CREATE INDEX p_v IF NOT EXISTS FOR (n:P) ON (n.v)").consume()
    session.run("CREATE INDEX r_v IF NOT EXISTS FOR ()-[r:R]-() ON (r.v)").consume()
    session.run("MATCH (n) DETACH DELETE n").consume()
    session.run("UNWIND range(0, size($vs) - 1) AS i CREATE (:P {i: i, v: $vs[i]})-[:R {i: i, v: $vs[i]}]->(:Q)",
                {"vs": stored}).consume()
    tx = db.store.begin_read()
    try:
        for x in xs + stored[:2]:
            for pattern in PATTERNS[:1] + PATTERNS[2:]:
                for form in FORMS + RANGES:
                    seeking, plain = with_rules_and_without(db, tx, pattern.format(form), {"x": x, "y": y})
                    assert seeking == plain, (pattern.format(form), stored, x, y)
    finally:
        tx.close()


ORDERED = ["MATCH (n:P) WHERE n.v > $x RETURN n.v ORDER BY n.v LIMIT 3",
           "MATCH (n:P) WHERE n.v >= $x RETURN n.v AS v ORDER BY v DESC LIMIT 4",
           "MATCH (n:P) WHERE $x < n.v RETURN n.v, n.i ORDER BY n.v DESC SKIP 1 LIMIT 2",
           "MATCH (n:P) WHERE n.v <= $x WITH n ORDER BY n.v LIMIT 3 RETURN n.v",
           "MATCH (n:P) WHERE n.v STARTS WITH $x RETURN n.v ORDER BY n.v DESC LIMIT 2",
           "MATCH (n:P) WHERE n.v > $x AND n.v < $y RETURN n.v ORDER BY n.v LIMIT 5",
           "MATCH (n:P) WHERE n.v > $x WITH n.v AS w ORDER BY w DESC LIMIT 3 RETURN w"]
TEMPORAL = st.sampled_from(["date('2020-01-01')", "date('2021-06-30')", "datetime('2020-01-01T00:00Z')"])


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(stored=st.lists(STORED, min_size=1, max_size=12), xs=st.lists(VALUES, min_size=1, max_size=3),
       y=VALUES, dates=st.lists(TEMPORAL, max_size=3))
def test_order_from_the_index_is_order_by(db, stored, xs, y, dates):
    """ORDER BY the sought key with LIMIT: the seek's order (rule order_from_index) against a Top over a
    plain scan; the ordered values must be equal (rows that tie may come in either order)."""
    from relate.server.query.context import ExecContext
    from relate.server.query.parser import parse
    from relate.server.query.planner import plan_query
    session = db.session()
    session.run("CREATE INDEX p_v IF NOT EXISTS FOR (n:P) ON (n.v)").consume()
    session.run("MATCH (n) DETACH DELETE n").consume()
    session.run("UNWIND range(0, size($vs) - 1) AS i CREATE (:P {i: i, v: $vs[i]})", {"vs": stored}).consume()
    for i, date in enumerate(dates):
        session.run(f"CREATE (:P {{i: {100 + i}, v: {date}}})").consume()
    if dates:                        # a temporal bound too: the index's order of dates is ORDER BY's
        xs = xs + [session.run("RETURN date('2020-06-01')").fetch(1)[0][0]]
    tx = db.store.begin_read()
    try:
        for x in xs + stored[:2]:
            for text in ORDERED:
                got = []
                for optimize in (True, False):
                    plan = plan_query(parse(text).body, tx, db.procedures, optimize_plans=optimize)
                    try:
                        got.append([row[0] for row in plan.root.rows(ExecContext(tx, {"x": x, "y": y}, db), {})])
                    except Exception as exc:
                        got.append(type(exc).__name__)
                assert got[0] == got[1], (text, stored, dates, x, y)
    finally:
        tx.close()
