"""Planner choices: anchors and index seeks, filter placement, top-k, eager barriers, rules on and off."""
import random

import pytest

from relate.server.query import ast
from relate.server.query.parser import parse
from relate.server.query.planner import logical as L
from relate.server.query.planner import plan_query
from tests.helpers import with_rules_and_without


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


def test_prefixes_and_two_sided_ranges_seek_through_the_index(db):
    session = db.session()
    session.run("CREATE INDEX ts FOR (n:Note) ON (n.ts)").consume()
    session.run("CREATE INDEX topic_name FOR (t:Topic) ON (t.name)").consume()
    plan = logical(db, "MATCH (t:Topic) WHERE t.name STARTS WITH $p RETURN t.name")
    seek = next(o for o in ops(plan) if isinstance(o, L.NodeIndexRange))
    assert (seek.key, seek.compare) == ("name", "STARTS WITH")
    assert session.run("MATCH (t:Topic) WHERE t.name STARTS WITH 't' RETURN count(*)").fetch(9) == [(5,)]
    assert session.run("MATCH (t:Topic) WHERE t.name STARTS WITH 't3' RETURN t.name").fetch(9) == [("t3",)]
    # both bounds of one key make one range (the upper bound is not left to the filter alone)
    plan = logical(db, "MATCH (n:Note) WHERE n.ts >= $lo AND n.ts < $hi RETURN n.id")
    seek = next(o for o in ops(plan) if isinstance(o, L.NodeIndexRange))
    assert (seek.compare, seek.upper[0]) == (">=", "<")
    rows = session.run("MATCH (n:Note) WHERE n.ts < 40 AND n.ts >= 20 RETURN n.id ORDER BY n.id").fetch(9)
    assert rows == [(2,), (3,)]
    text = str(session.run("EXPLAIN MATCH (n:Note) WHERE n.ts >= 20 AND n.ts < 40 RETURN n").consume().plan)
    assert "NodeIndexSeekByRange  n:Note(ts) >= 20 AND < 40" in text


def test_order_by_the_sought_key_takes_the_index_order(db):
    session = db.session()
    session.run("CREATE INDEX ts FOR (n:Note) ON (n.ts)").consume()
    plan = logical(db, "MATCH (n:Note) WHERE n.ts >= $since RETURN n.id ORDER BY n.ts DESC LIMIT 3")
    assert "Top" not in chain(plan) and "Limit" in chain(plan)
    seek = next(o for o in ops(plan) if isinstance(o, L.NodeIndexRange))
    assert seek.descending is True
    rows = session.run("MATCH (n:Note) WHERE n.ts >= 100 RETURN n.id ORDER BY n.ts DESC SKIP 1 LIMIT 3").fetch(9)
    assert rows == [(49,), (48,), (47,)]
    rows = session.run("MATCH (n:Note) WHERE n.ts > 100 WITH n.ts AS t ORDER BY t LIMIT 2 RETURN t").fetch(9)
    assert rows == [(110,), (120,)]
    # another key, or a computed one, still needs the Top
    for text in ("MATCH (n:Note) WHERE n.ts >= $since RETURN n.id ORDER BY n.id LIMIT 3",
                 "MATCH (n:Note) WHERE n.ts >= $since RETURN n.id ORDER BY -n.ts LIMIT 3",
                 "MATCH (n:Note) WHERE n.ts >= $since RETURN n.id ORDER BY n.ts, n.id LIMIT 3"):
        assert "Top" in chain(logical(db, text)), text
    text = str(session.run("EXPLAIN MATCH (n:Note) WHERE n.ts > 5 RETURN n ORDER BY n.ts DESC LIMIT 1").consume().plan)
    assert "NodeIndexSeekByRange  n:Note(ts) > 5 ORDER BY ts DESC" in text


def test_a_range_over_lists_through_an_index_finds_what_the_scan_finds(db):
    """Lists compare in Cypher but the index keeps no order for them: the seek scans the label then."""
    session = db.session()
    session.run("UNWIND [[1, 2], [1, 3], [2]] AS l CREATE (:L {l: l})").consume()
    session.run("CREATE INDEX l_l FOR (n:L) ON (n.l)").consume()
    assert session.run("MATCH (n:L) WHERE n.l < [1, 3] RETURN n.l").fetch(9) == [([1, 2],)]


def test_a_relationship_property_index_is_sought(db):
    session = db.session()
    session.run("UNWIND range(1, 200) AS i CREATE (:A {id: i})-[:R {k: i}]->(:B {id: i})").consume()
    session.run("CREATE INDEX r_k FOR ()-[r:R]-() ON (r.k)").consume()
    for text in ("MATCH (a)-[r:R {k: $k}]->(b) RETURN a.id", "MATCH (a:A)-[r:R]->(b:B) WHERE r.k = $k RETURN a.id",
                 "MATCH (a)<-[r:R]-(b) WHERE r.k IN [$k] RETURN b.id"):
        scan = next(o for o in ops(logical(db, text)) if isinstance(o, L.RelTypeScan))
        assert scan.indexed and scan.key == "k", text
        assert db.session().run(text, {"k": 7}).fetch(9) == [(7,)]
    # an equality on an indexed node still anchors: the index on r.k is no better than one on a.id
    session.run("CREATE INDEX a_id FOR (n:A) ON (n.id)").consume()
    plan = logical(db, "MATCH (a:A {id: 3})-[r:R {k: 3}]->(b) RETURN b.id")
    assert any(isinstance(o, L.NodeIndexSeek) for o in ops(plan))
    assert not any(isinstance(o, L.RelTypeScan) for o in ops(plan))
    rows = session.run("MATCH ()-[r:R]->() WHERE r.k > 195 AND r.k <= 197 RETURN r.k ORDER BY r.k").fetch(9)
    assert rows == [(196,), (197,)]
    text = str(session.run("EXPLAIN MATCH (a)-[r:R]-(b) WHERE r.k = 5 RETURN a").consume().plan)
    assert "UndirectedRelationshipIndexSeek  (a)-[r:R]-(b) WHERE r.k = 5" in text
    text = str(session.run("EXPLAIN MATCH (a)-[r:R]->(b) RETURN a").consume().plan)
    assert "DirectedRelationshipTypeScan  (a)-[r:R]->(b)" in text


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


# ---------------------------------------------------------------- label scans that compare a property
def test_an_unindexed_equality_is_compared_by_the_scan_and_the_filter_stays(db):
    plan = logical(db, "MATCH (n:Note) WHERE n.ts > 0 AND n.id = $id RETURN n.ts")
    scan = next(o for o in ops(plan) if isinstance(o, L.NodeByLabelScan))
    assert scan.key == "id" and isinstance(scan.value, ast.Parameter) and scan.compare == "="
    assert chain(plan).count("Filter") == 2                     # both filters still decide
    ranged = logical(db, "MATCH (n:Note) WHERE $lo < n.ts AND n.id STARTS WITH $p RETURN n")
    assert [(o.key, o.compare) for o in ops(ranged) if isinstance(o, L.NodeByLabelScan)] == [("id", "STARTS WITH")]
    cased = logical(db, "MATCH (n:Note) WHERE toLower(n.name) CONTAINS toLower($q) RETURN n")
    assert [(o.key, o.compare, o.transform) for o in ops(cased) if isinstance(o, L.NodeByLabelScan)] == [
        ("name", "CONTAINS", "lower")]
    flipped = logical(db, "MATCH (n:Note) WHERE $lo < n.ts RETURN n")
    assert [(o.key, o.compare) for o in ops(flipped) if isinstance(o, L.NodeByLabelScan)] == [("ts", ">")]
    unlabelled = logical(db, "MATCH (n) WHERE n.id = $id RETURN n")
    assert any(isinstance(o, L.AllNodesScan) and o.key == "id" for o in ops(unlabelled))
    listed = logical(db, "MATCH (n:Note) WHERE n.id IN $ids RETURN n")
    assert any(isinstance(o, L.NodeByLabelScan) and o.key == "id" and o.compare == "IN" for o in ops(listed))
    merge = logical(db, "UNWIND $ids AS i MERGE (n:Note {id: i}) RETURN n")
    assert any(isinstance(o, L.NodeByLabelScan) and o.key == "id" for o in ops(merge))
    for text in ("MATCH (n:Note) WHERE n.id = n.ts RETURN n",          # the value depends on the node
                 "MATCH (n:Note) WHERE n.id = toInteger(rand() * 50) RETURN n",  # a new value per node
                 "MATCH (n:Note) WHERE $ids IN n.id RETURN n"):                 # the list is the node's
        assert all(o.key is None for o in ops(logical(db, text)) if isinstance(o, L.NodeByLabelScan)), text


# Every value kind the scan may meet on either side of `=`: Cypher's equality, not Python's (1 = 1.0, true <> 1,
# NaN equal to nothing, null to nothing, lists element by element).
SCAN_VALUES = [1, 1.0, 2, True, False, 0, "1", "a", "", None, float("nan"), [1], [1.0], 2 ** 60, 2 ** 60 + 1,
               float(2 ** 60), -0.0, "ab", "ba", "Ab", "é", float("inf"), -5]


def test_a_prefiltered_scan_finds_what_the_plain_filter_finds(db):
    session = db.session()
    session.run("UNWIND range(0, size($values) - 1) AS i CREATE (:V {i: i, v: $values[i]})",
                {"values": SCAN_VALUES}).consume()
    session.run("CREATE (:V {i: 100}), (:V:Gone {i: 101, v: 1})").consume()
    session.run("MATCH (n:Gone) REMOVE n:V").consume()                 # label index keeps it until vacuum
    queries = ["MATCH (n:V) WHERE n.v = $x RETURN n.i ORDER BY n.i",
               "MATCH (n:V {v: $x}) RETURN n.i ORDER BY n.i",
               "MATCH (n:V) WHERE $x = n.v RETURN n.i ORDER BY n.i",
               "UNWIND [$x, $x] AS x MATCH (n:V {v: x}) RETURN n.i ORDER BY n.i",
               "MATCH (n:V) WHERE n.v IN [$x] RETURN n.i ORDER BY n.i",
               "MATCH (n:V) WHERE n.v IN [$x, 'a', null] RETURN n.i ORDER BY n.i",
               "MATCH (n:V) WHERE n.v IN $x RETURN n.i ORDER BY n.i",
               "MATCH (n {v: $x}) RETURN n.i ORDER BY n.i",                  # no label: every node
               "MATCH (n) WHERE n.v IN [$x, 'a', null] RETURN n.i ORDER BY n.i",
               "MATCH (n:V) WHERE n.v < $x RETURN n.i ORDER BY n.i",
               "MATCH (n:V) WHERE n.v >= $x RETURN n.i ORDER BY n.i",
               "MATCH (n:V) WHERE $x > n.v RETURN n.i ORDER BY n.i",
               "MATCH (n) WHERE n.v <= $x RETURN n.i ORDER BY n.i",
               "MATCH (n:V) WHERE n.v STARTS WITH $x RETURN n.i ORDER BY n.i",
               "MATCH (n:V) WHERE n.v ENDS WITH $x RETURN n.i ORDER BY n.i",
               "MATCH (n:V) WHERE n.v CONTAINS $x RETURN n.i ORDER BY n.i",
               "MATCH (n:V) WHERE toLower(n.v) = $x RETURN n.i ORDER BY n.i",     # raises for a non-string v
               "MATCH (n:V) WHERE toLower(n.v) CONTAINS toLower($x) RETURN n.i ORDER BY n.i",
               "MATCH (n:V) WHERE toUpper(n.v) STARTS WITH $x RETURN n.i ORDER BY n.i"]
    tx = db.store.begin_read()
    try:
        for x in SCAN_VALUES + [1.5, "zzz", "b", [], [1, "a"], [[1]], [None]]:
            for query in queries:
                got = with_rules_and_without(db, tx, query, {"x": x})
                assert got[0] == got[1], (x, query, got)
    finally:
        tx.close()


def test_a_prefiltered_relationship_scan_finds_what_the_plain_filter_finds(db):
    session = db.session()
    session.run("UNWIND range(0, size($values) - 1) AS i CREATE (:S)-[:W {i: i, v: $values[i]}]->(:T)",
                {"values": SCAN_VALUES}).consume()
    session.run("CREATE (:S)-[:W {i: 100}]->(:T), (:S)-[:W {i: 101, v: 1}]->(:S)").consume()
    session.run("MATCH ()-[r:W {i: 101}]->() DELETE r").consume()
    plan = logical(db, "MATCH (a)-[r:W]->(b) WHERE r.v = $x RETURN r.i")
    assert any(isinstance(o, L.RelTypeScan) and o.key == "v" for o in ops(plan))
    queries = ["MATCH (a)-[r:W]->(b) WHERE r.v = $x RETURN r.i",
               "MATCH ()-[r:W {v: $x}]-() RETURN r.i",
               "MATCH (a:S)<-[r:W]-(b) WHERE $x = r.v RETURN r.i",
               "MATCH ()-[r:W]->() WHERE r.v IN [$x, 'a', null] RETURN r.i",
               "MATCH ()-[r:W]->() WHERE r.v IN $x RETURN r.i",
               "MATCH ()-[r:W]->() WHERE r.v > $x RETURN r.i",
               "MATCH ()-[r:W]->() WHERE r.v STARTS WITH $x RETURN r.i"]
    tx = db.store.begin_read()
    try:
        for x in SCAN_VALUES + [1.5, "b", [], [1, "a"], [[1]]]:
            for query in queries:
                got = with_rules_and_without(db, tx, query, {"x": x})
                assert got[0] == got[1], (x, query, got)
    finally:
        tx.close()


def test_merge_without_an_index_sees_its_own_nodes_and_snapshots_stay_apart(db):
    session = db.session()
    rows = session.run("UNWIND [1, 1, 2, 2.0, true, 'x', 'x', 3] AS i MERGE (n:Key {k: i}) RETURN n.k").fetch(100)
    assert [r[0] for r in rows] == [1, 1, 2, 2, True, "x", "x", 3]
    assert session.run("MATCH (n:Key) RETURN count(n)").fetch(1)[0][0] == 5
    reader = db.store.begin_read()                               # before the change below
    try:
        writer = db.session()
        writer.begin()
        writer.run("MATCH (n:Key {k: 3}) SET n.k = 4").consume()
        assert writer.run("MATCH (n:Key {k: 4}) RETURN count(n)").fetch(1)[0][0] == 1   # its own write
        assert writer.run("MATCH (n:Key {k: 3}) RETURN count(n)").fetch(1)[0][0] == 0
        assert session.run("MATCH (n:Key {k: 3}) RETURN count(n)").fetch(1)[0][0] == 1  # not committed yet
        writer.commit()
        from relate.server.query.context import ExecContext
        plan = plan_query(parse("MATCH (n:Key {k: 3}) RETURN n.k").body, reader, db.procedures)
        assert [r[0] for r in plan.root.rows(ExecContext(reader, {}, db), {})] == [3]   # its snapshot
    finally:
        reader.close()
    assert session.run("MATCH (n:Key {k: 4}) RETURN count(n)").fetch(1)[0][0] == 1


def test_a_value_that_fails_still_fails_per_node_as_before(db):
    from relate.errors import CypherArithmeticError
    session = db.session()
    assert session.run("MATCH (n:Nothing) WHERE n.id = 1 / 0 RETURN n").fetch(10) == []
    with pytest.raises(CypherArithmeticError):
        session.run("MATCH (n:Note) WHERE n.id = 1 / 0 RETURN n").fetch(10)


def test_a_node_compared_by_property_anchors_over_an_equal_sized_label(db):
    """Without indexes, ``(a:Note)-[:ABOUT]->(t:Topic {name: $n})`` used to start from the label with fewer
    nodes whatever the filters; an equality cuts a label's rows (Neo4j's default selectivity, 0.1)."""
    session = db.session()
    session.run("UNWIND range(1, 40) AS i CREATE (:Left {id: i})-[:TO]->(:Right {id: i})").consume()
    plan = logical(db, "MATCH (a:Left)-[:TO]->(b:Right {id: $id}) RETURN a.id")
    scans = [o for o in ops(plan) if isinstance(o, L.NodeByLabelScan)]
    assert [(s.var, s.key) for s in scans] == [("b", "id")]
    assert session.run("MATCH (a:Left)-[:TO]->(b:Right {id: 7}) RETURN a.id").fetch(10) == [(7,)]


def test_profile_counts_every_node_a_scan_reads_as_neo4j_does(db):
    """PROFILE shows a scan's rows as every entity it reads and the filter's as those that pass, so a
    missing index shows (the prefiltered scan of a normal run yields only the candidates)."""
    plan = db.session().run("PROFILE MATCH (n:Note {id: 3}) RETURN n.ts").consume().plan
    found = {}

    def walk(node):
        found.setdefault(node["operator"], node["rows"])
        for child in node["children"]:
            walk(child)
    walk(plan)
    assert found["NodeByLabelScan"] == 50 and found["Filter"] == 1
