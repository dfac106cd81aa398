"""A pattern predicate, EXISTS and COUNT over one hop to an anonymous node (``WHERE NOT (c)-[:M]->()``,
``COUNT { (e)<-[:M]-() }``) ask the plan for existence or a count, and a bare hop answers from the node's
relationships of the types (ReadTx.degree) without building rows. They must equal the row-by-row forms
(a pattern comprehension's size) over directions, several types or none, self-loops, nulls, and what a
transaction wrote, deleted and rolled back to."""
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.helpers import plan_operators, rows, run

HOPS = ["(n)-[:R]->()", "(n)<-[:R]-()", "(n)-[:R]-()", "(n)-[:R|S]->()", "(n)-->()", "(n)--()", "(n)<-[:S|R]-()"]

graphs = st.tuples(st.integers(1, 8),
                   st.lists(st.tuples(st.integers(0, 7), st.integers(0, 7), st.sampled_from("RST")), max_size=14))


def fill(db, graph) -> None:
    size, rels = graph
    run(db, "MATCH (n) DETACH DELETE n")
    run(db, "UNWIND range(0, $k - 1) AS i CREATE (:N {i: i})", {"k": size})
    for a, b, t in rels:
        run(db, "MATCH (a:N {i: $a}), (b:N {i: $b}) CREATE (a)-[:$($t)]->(b)", {"a": a % size, "b": b % size, "t": t})


def per_node(target, hop: str) -> list:
    """(i, fast count, slow count, fast exists, NOT pattern, slow exists) for every node, and a null."""
    text = (f"MATCH (n:N) RETURN n.i, COUNT {{ {hop} }}, size([{hop} | 1]), EXISTS {{ {hop} }}, "
            f"NOT {hop}, size([{hop} | 1]) > 0 ORDER BY n.i")
    session = target.session() if hasattr(target, "session") else target
    found = session.run(text).fetch(1000)
    for row in found:
        assert row[1] == row[2] and row[3] == row[5] and row[4] is (not row[5]), (hop, row)
    nulls = session.run(f"OPTIONAL MATCH (n:Missing) RETURN COUNT {{ {hop} }}, EXISTS {{ {hop} }}").fetch(10)
    assert nulls == [(0, False)], nulls
    return found


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(graph=graphs, hop=st.sampled_from(HOPS))
def test_counts_and_existence_equal_the_rows(db, graph, hop):
    fill(db, graph)
    per_node(db, hop)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(graph=graphs, hop=st.sampled_from(HOPS), writes=st.lists(st.sampled_from([
    "MATCH (a:N)-[r]->() WITH r LIMIT 1 DELETE r",
    "MATCH (a:N {i: 0}), (b:N {i: 1}) CREATE (a)-[:R]->(b), (b)-[:S]->(b)",
    "MATCH (a:N {i: 1}) DETACH DELETE a",
    "MATCH (a:N {i: 2}) CREATE (a)<-[:R]-(:N {i: 9})"]), max_size=3))
def test_a_transaction_counts_what_it_wrote(db, graph, hop, writes):
    fill(db, graph)
    before = per_node(db, hop)
    session = db.session()
    session.begin()
    try:
        for text in writes:
            session.run(text).consume()
        per_node(session, hop)
        held = db.session()                      # another snapshot: the old counts
        assert per_node(held, hop) == before
    finally:
        session.rollback()
    assert per_node(db, hop) == before


def test_degree_counts_a_self_loop_once_both_ways(db):
    run(db, "CREATE (a:N {i: 0})-[:R]->(a), (a)-[:R]->(:N {i: 1})")
    assert rows(db, "MATCH (n:N {i: 0}) RETURN COUNT { (n)-[:R]-() }, COUNT { (n)-[:R]->() }, "
                    "COUNT { (n)<-[:R]-() }") == [(2, 2, 1)]
    assert rows(db, "MATCH (n:N) WHERE NOT (n)-[:R]->() RETURN n.i") == [(1,)]


def test_a_value_that_is_not_a_node_is_refused(db):
    from relate.errors import CypherTypeError
    with pytest.raises(CypherTypeError):
        rows(db, "UNWIND [1] AS n RETURN COUNT { (n)-[:R]->() }")
    with pytest.raises(CypherTypeError):
        rows(db, "UNWIND [1] AS n RETURN EXISTS { (n)-[:R]->() }")


AGGREGATES = [
    "MATCH (n:N)-[:R]->(m) RETURN n.i, count(m)",
    "MATCH (n:N)<-[r:R|S]-(m) RETURN n.i % 2 AS parity, count(r), count(*)",
    "MATCH (n:N)-[r]-(m) RETURN n, count(*) AS c ORDER BY c DESC, n.i LIMIT 3",
    "MATCH (n:N)-[r:S]-() RETURN count(r)",
    "MATCH (n:N)-[:R]->(m) RETURN n.i, count(DISTINCT m)",
    "MATCH (n:N)-[:R]->(m:N) RETURN n.i, count(m)",
    "MATCH (n:N)-[:R]->(m) RETURN m.i, count(n)",
    "MATCH (n:N)-[r:R]->(m) RETURN m.i, r.w, count(m)",
    "MATCH (n:N)-[r:R]->(m) RETURN n.i, count(m), collect(r.w)",
    "MATCH (a:N)-[:S]->(n)-[:R]->(m) RETURN n.i, count(m)",
    "MATCH (n:N) OPTIONAL MATCH (n)-[:R]->(m) RETURN n.i, count(m)",
]


def plain_and_optimized(db, text: str) -> list:
    """The statement's rows (sorted) planned with the optimizer rules and without."""
    from relate.server.query.context import ExecContext
    from relate.server.query.parser import parse
    from relate.server.query.planner import plan_query
    tx = db.store.begin_read()
    try:
        return [sorted((tuple(r) for r in plan_query(parse(text).body, tx, db.procedures, optimize_plans=o)
                        .root.rows(ExecContext(tx, {}, db), {})), key=repr) for o in (True, False)]
    finally:
        tx.close()


@pytest.mark.parametrize("statement", AGGREGATES)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(graph=graphs)
def test_counting_expansions_by_degree_equals_counting_rows(db, graph, statement):
    fill(db, graph)
    run(db, "MATCH ()-[r]->() SET r.w = id(r) % 3")
    optimized, plain = plain_and_optimized(db, statement)
    assert optimized == plain


def test_the_count_of_mentions_per_entity_reads_degrees(db):
    fill(db, (4, [(0, 1, "R"), (2, 1, "R"), (3, 1, "R"), (0, 3, "R"), (1, 1, "R")]))
    text = "MATCH (e:N)<-[:R]-(c) RETURN e.i AS e, count(c) AS n ORDER BY n DESC, e"
    assert rows(db, text) == [(1, 4), (3, 1)]
    operators = plan_operators(db, text)
    assert "Expand(Degree)" in operators, operators
