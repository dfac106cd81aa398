"""A pattern with labelled ends starts from its relationship type when the type has fewer relationships
than the cheaper end has nodes (``MATCH (m:Memory)-[:ABOUT]->() RETURN count(*)`` read every Memory):
the relationship type scan tests both ends' labels. Rows must equal the plan that starts from a node,
over directions, label expressions, self-loops, several types and a transaction's own writes."""
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from relate.server.query.planner import patterns
from tests.helpers import plan_operators, rows, run

STATEMENTS = [
    "MATCH (a:A)-[r:R]->(b) RETURN id(a), id(r), id(b)",
    "MATCH (a:A)<-[r:R]-(b:B) RETURN id(a), id(r), id(b)",
    "MATCH (a:A)-[r:R|S]-(b) RETURN id(a), id(r), id(b)",
    "MATCH (a:A:B)-[:R]->(b:C) RETURN count(*)",
    "MATCH (a:A)-[r:R]->(a) RETURN id(a), id(r)",
    "MATCH (a)-[r:S]->(b:B) WHERE b.x > 1 RETURN id(a), id(r)",
    "MATCH (a:A|B)-[r:R]->(b) RETURN id(a), id(r)",
    "MATCH (a:!A)-[r:R]->(b:B) RETURN id(a), id(r)",
    "MATCH (a:A)-[r:R]->(b:A) RETURN id(a), id(r), id(b)",
    "MATCH (a:C)-[:R]->(b)-[:S]->(c:A) RETURN id(a), id(b), id(c)",
    "MATCH (a:A) OPTIONAL MATCH (a)-[r:S]->(b:B) RETURN id(a), id(r)",
]

graphs = st.tuples(
    st.lists(st.tuples(st.sets(st.sampled_from("ABC")), st.integers(0, 3)), min_size=1, max_size=14),
    st.lists(st.tuples(st.integers(0, 13), st.integers(0, 13), st.sampled_from("RS")), max_size=10))


def fill(db, graph) -> None:
    nodes, rels = graph
    run(db, "MATCH (n) DETACH DELETE n")
    ids = [rows(db, "CREATE (n:$($labels) {x: $x}) RETURN id(n)", {"labels": sorted(labels), "x": x})[0][0]
           for labels, x in nodes]
    for a, b, t in rels:
        run(db, "MATCH (a), (b) WHERE id(a) = $a AND id(b) = $b CREATE (a)-[:$($t)]->(b)",
            {"a": ids[a % len(ids)], "b": ids[b % len(ids)], "t": t})


def both_ways(session_rows, monkeypatch, statement):
    with monkeypatch.context() as m:
        m.setattr(patterns, "REL_SCAN_COST", 0.0)              # from the type whenever it has one
        fast = sorted(session_rows(statement), key=repr)
    with monkeypatch.context() as m:
        m.setattr(patterns, "REL_SCAN_COST", float("inf"))     # never from the type when an end has a label
        plain = sorted(session_rows(statement), key=repr)
    return fast, plain


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(graph=graphs, statement=st.sampled_from(STATEMENTS))
def test_starting_from_the_type_equals_starting_from_a_node(db, monkeypatch, graph, statement):
    fill(db, graph)
    db.plan_cache.invalidate()
    fast, plain = both_ways(lambda text: (db.plan_cache.invalidate(), rows(db, text))[1], monkeypatch, statement)
    assert fast == plain


def test_a_transaction_sees_its_own_relationships(db, monkeypatch):
    fill(db, ([({"A"}, 1), ({"B"}, 2), ({"A", "B"}, 3)], [(0, 1, "R")]))
    session = db.session()
    session.begin()
    try:
        session.run("MATCH (a:A), (b:B) CREATE (a)-[:R]->(b)").consume()
        session.run("MATCH (n {x: 1}) REMOVE n:A").consume()
        got = both_ways(lambda text: (db.plan_cache.invalidate(), session.run(text).fetch(100))[1], monkeypatch,
                        "MATCH (a:A)-[r:R]->(b:B) RETURN a.x, b.x")
        assert got[0] == got[1] == [(3, 2), (3, 3)]
    finally:
        session.rollback()


def test_a_rare_type_between_common_labels_is_scanned_from_the_type(db):
    run(db, "UNWIND range(1, 300) AS i CREATE (:Memory {i: i})")
    run(db, "MATCH (m:Memory) WHERE m.i <= 3 CREATE (m)-[:ABOUT]->(:Topic)")
    operators = plan_operators(db, "MATCH (m:Memory)-[:ABOUT]->() RETURN count(*)")
    assert "NodeByLabelScan" not in operators and any("RelationshipTypeScan" in o for o in operators), operators
    assert rows(db, "MATCH (m:Memory)-[:ABOUT]->() RETURN count(*)") == [(3,)]
    assert rows(db, "MATCH (m:Memory)-[:ABOUT]->(t:Topic) RETURN count(*)") == [(3,)]
    assert rows(db, "MATCH (:Memory)-[r:ABOUT]->() RETURN count(r)") == [(3,)]
