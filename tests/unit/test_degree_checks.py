"""A pattern predicate, EXISTS and COUNT over one hop to an anonymous node (``WHERE NOT (c)-[:M]->()``,
``COUNT { (e)<-[:M]-() }``) ask the plan for existence or a count, and a bare hop answers from the node's
relationships of the types (ReadTx.degree) without building rows. They must equal the row-by-row forms
(a pattern comprehension's size) over directions, several types or none, self-loops, nulls, and what a
transaction wrote, deleted and rolled back to."""
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.helpers import rows, run

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
    import pytest

    from relate.errors import CypherTypeError
    with pytest.raises(CypherTypeError):
        rows(db, "UNWIND [1] AS n RETURN COUNT { (n)-[:R]->() }")
    with pytest.raises(CypherTypeError):
        rows(db, "UNWIND [1] AS n RETURN EXISTS { (n)-[:R]->() }")
