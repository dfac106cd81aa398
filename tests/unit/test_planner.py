"""Planner choices: anchors and index seeks, filter placement, top-k, eager barriers, rules on and off."""
import random

import pytest

from relate.server.query.parser import parse
from relate.server.query.planner import logical as L
from relate.server.query.planner import plan_query


@pytest.fixture
def db(db):
    session = db.session()
    session.run("UNWIND range(1, 50) AS i CREATE (:Note {id: i, ts: i * 10})").consume()
    session.run("UNWIND range(1, 5) AS i CREATE (:Topic {name: 't' + toString(i)})").consume()
    session.run("MATCH (n:Note), (t:Topic) WHERE n.id % 5 = toInteger(substring(t.name, 1)) - 1 "
                "CREATE (n)-[:ABOUT]->(t)").consume()
    return db


def logical(db, text, optimize=True):
    tx = db.store.begin_read()
    try:
        return plan_query(parse(text).body, tx, db.procedures, optimize_plans=optimize).logical
    finally:
        tx.close()


def ops(plan):
    return list(L.walk(plan))


def chain(plan):
    """Operator class names from the root down the first-input chain."""
    out = []
    while plan is not None:
        out.append(type(plan).__name__)
        inputs = plan.inputs()
        plan = inputs[0] if inputs else None
    return out


def test_point_lookup_uses_the_unique_constraint_index(db):
    db.session().run("CREATE CONSTRAINT note_id FOR (n:Note) REQUIRE n.id IS UNIQUE").consume()
    plan = logical(db, "MATCH (n:Note {id: $id}) RETURN n.ts")
    assert chain(plan) == ["ProduceResults", "Project", "NodeIndexSeek", "Argument"]
    plan = logical(db, "MATCH (n:Note) WHERE n.id = $id RETURN n.ts")
    assert any(isinstance(o, L.NodeIndexSeek) for o in ops(plan))


def test_without_an_index_a_label_scan_is_filtered(db):
    plan = logical(db, "MATCH (n:Note {id: $id}) RETURN n.ts")
    assert chain(plan) == ["ProduceResults", "Project", "Filter", "NodeByLabelScan", "Argument"]


def test_range_predicates_use_the_index_and_keep_the_filter(db):
    db.session().run("CREATE INDEX ts FOR (n:Note) ON (n.ts)").consume()
    plan = logical(db, "MATCH (n:Note) WHERE n.ts >= $lo RETURN n.id")
    assert chain(plan)[-3:] == ["Filter", "NodeIndexRange", "Argument"]
    result = db.session().run("MATCH (n:Note) WHERE n.ts >= 480 RETURN n.id ORDER BY n.id").fetch(100)
    assert result == [(48,), (49,), (50,)]


def test_the_most_selective_node_anchors_the_pattern(db):
    db.session().run("CREATE CONSTRAINT topic FOR (t:Topic) REQUIRE t.name IS UNIQUE").consume()
    plan = logical(db, "MATCH (n:Note)-[:ABOUT]->(t:Topic {name: 't1'}) RETURN n.id")
    names = chain(plan)
    assert names[-2] == "NodeIndexSeek" and "Expand" in names
    expand = next(o for o in ops(plan) if isinstance(o, L.Expand))
    assert (expand.start, expand.end, expand.direction) == ("t", "n", "in")


def test_filters_sit_right_above_the_operator_binding_their_variables(db):
    plan = logical(db, "MATCH (n:Note)-[:ABOUT]->(t:Topic) WHERE n.ts > 100 AND t.name = 't2' RETURN n.id")
    names = chain(plan)
    # Each filter is placed below the expansion that binds the other variable.
    scan_filter = names.index("Filter", names.index("Expand"))
    assert names[scan_filter + 1] in ("NodeByLabelScan",)
    assert names.count("Filter") == 2


def test_filters_stay_in_place_without_the_rules(db):
    plan = logical(db, "MATCH (n:Note)-[:ABOUT]->(t:Topic) WHERE n.ts > 100 RETURN n.id", optimize=False)
    names = chain(plan)
    assert names.index("Filter") < names.index("Expand")      # above the expansion


def test_order_by_with_limit_is_a_top(db):
    plan = logical(db, "MATCH (n:Note) RETURN n.id ORDER BY n.ts DESC LIMIT 3")
    assert any(isinstance(o, L.Top) for o in ops(plan))
    assert not any(isinstance(o, (L.Sort, L.Limit)) for o in ops(plan))


def test_writes_after_reads_are_behind_an_eager_barrier(db):
    plan = logical(db, "MATCH (n:Note) CREATE (:Copy {id: n.id})")
    names = chain(plan)
    assert names.index("Create") < names.index("Eager") < names.index("NodeByLabelScan")
    assert not any(isinstance(o, L.Eager) for o in ops(logical(db, "UNWIND [1, 2] AS x CREATE ({x: x})")))


def test_top_k_is_stable_and_orders_mixed_directions(db):
    session = db.session()
    rng = random.Random(3)
    values = [{"a": rng.randrange(4), "b": rng.choice(["x", "y", None]), "i": i} for i in range(300)]
    session.run("UNWIND $rows AS r CREATE (:R {a: r.a, b: r.b, i: r.i})", {"rows": values}).consume()
    full = session.run("MATCH (r:R) RETURN r.i ORDER BY r.a DESC, r.b, r.i").fetch(1000)
    for skip, limit in ((0, 1), (0, 17), (5, 40), (290, 20)):
        top = session.run(f"MATCH (r:R) RETURN r.i ORDER BY r.a DESC, r.b, r.i SKIP {skip} LIMIT {limit}").fetch(1000)
        assert top == full[skip:skip + limit]
    expected = sorted(values, key=lambda v: -v["a"])           # ties keep input (creation) order
    got = session.run("MATCH (r:R) WITH r ORDER BY r.a DESC LIMIT 50 RETURN r.i").fetch(100)
    assert [g[0] for g in got] == [v["i"] for v in expected[:50]]


QUERIES = [
    "MATCH (n:Note)-[:ABOUT]->(t:Topic) WHERE n.ts > 200 AND t.name <> 't3' RETURN n.id, t.name ORDER BY n.id, t.name",
    "MATCH (t:Topic)<-[:ABOUT]-(n) WHERE n.id IN [1, 2, 3, 7] RETURN t.name, count(n) ORDER BY t.name",
    "MATCH (a:Note)-[:ABOUT]->(t)<-[:ABOUT]-(b:Note) WHERE a.id = 3 AND b.id < a.id + 20 RETURN b.id ORDER BY b.id",
    "MATCH (n:Note) WHERE id(n) = 4 OR n.id = 9 RETURN n.id ORDER BY n.id",
    "MATCH (n:Note) OPTIONAL MATCH (n)-[:ABOUT]->(t:Topic {name: 't2'}) RETURN n.id, t.name ORDER BY n.id",
]


@pytest.mark.parametrize("query", QUERIES)
def test_rules_never_change_results(db, query):
    db.session().run("CREATE INDEX FOR (n:Note) ON (n.id)").consume()
    tx = db.store.begin_read()
    try:
        from relate.server.query.context import ExecContext
        results = []
        for optimize in (True, False):
            plan = plan_query(parse(query).body, tx, db.procedures, optimize_plans=optimize)
            results.append(list(plan.root.rows(ExecContext(tx, {}, db), {})))
    finally:
        tx.close()
    assert results[0] == results[1] and results[0]


def test_volatile_predicates_stay_per_row(db):
    plan = logical(db, "MATCH (n:Note)-[:ABOUT]->(t) WHERE rand() < 0.5 RETURN n.id")
    assert chain(plan)[:3] == ["ProduceResults", "Project", "Filter"]
    counts = {db.session().run("MATCH (n:Note) WHERE rand() < 0.5 RETURN count(n)").fetch(1)[0][0]
              for _ in range(5)}
    assert counts - {0, 50}                         # not all-or-nothing
