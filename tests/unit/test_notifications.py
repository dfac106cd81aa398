"""Neo4j's statement notifications: a label, relationship type or property key a statement reads but the
database does not hold (with its position), and cartesian products between disconnected patterns."""
from __future__ import annotations

import pytest

import relate

UNKNOWN_LABEL = "Neo.ClientNotification.Statement.UnknownLabelWarning"
UNKNOWN_TYPE = "Neo.ClientNotification.Statement.UnknownRelationshipTypeWarning"
UNKNOWN_KEY = "Neo.ClientNotification.Statement.UnknownPropertyKeyWarning"
CARTESIAN = "Neo.ClientNotification.Statement.CartesianProduct"


@pytest.fixture
def graph():
    conn = relate.connect(":memory:")
    conn.execute("CREATE (:P {name: 'a'})-[:KNOWS]->(:P {name: 'b'})")
    yield conn
    conn.close()


def notes(conn, statement):
    result = conn.execute(statement)
    result.fetchall()
    return [(n["code"], n["description"].rsplit(": ", 1)[-1].rstrip(")"), n.get("position"))
            for n in result.summary.notifications]


def test_unknown_names_read_are_warned_with_their_position(graph):
    # Positions point at the name itself, as Neo4j's do (its own tests: `EXPLAIN MATCH (n:Preson) RETURN *`
    # at offset 17, `MATCH (a) WHERE a.prop = 42` at 18, `MATCH (a {prop: 42})` at 10).
    assert notes(graph, "MATCH (n:Pesron) RETURN n") == [(UNKNOWN_LABEL, "Pesron", {"offset": 9, "line": 1, "column": 10})]
    assert notes(graph, "EXPLAIN MATCH (n:Preson) RETURN *") == [
        (UNKNOWN_LABEL, "Preson", {"offset": 17, "line": 1, "column": 18})]
    assert notes(graph, "MATCH (:P)-[:LIKES]->(m) RETURN m") == [
        (UNKNOWN_TYPE, "LIKES", {"offset": 13, "line": 1, "column": 14})]
    assert notes(graph, "MATCH (:P)-[r:KNOWS|LIKES]->(m) RETURN m") == [
        (UNKNOWN_TYPE, "LIKES", {"offset": 20, "line": 1, "column": 21})]
    assert notes(graph, "MATCH (n:P)\nWHERE n.nmae = 'a' RETURN n") == [
        (UNKNOWN_KEY, "nmae", {"offset": 20, "line": 2, "column": 9})]
    assert notes(graph, "MATCH (a) WHERE a.prop = 42 RETURN a") == [
        (UNKNOWN_KEY, "prop", {"offset": 18, "line": 1, "column": 19})]
    assert notes(graph, "MATCH (a {prop: 42}) RETURN a") == [(UNKNOWN_KEY, "prop", {"offset": 10, "line": 1, "column": 11})]
    assert notes(graph, "MATCH (n:P) WHERE n:P|Ghost RETURN n") == [
        (UNKNOWN_LABEL, "Ghost", {"offset": 22, "line": 1, "column": 23})]
    assert notes(graph, "MATCH (n:P) WHERE n:Ghost RETURN n")[0][:2] == (UNKNOWN_LABEL, "Ghost")
    assert notes(graph, "EXPLAIN MATCH (n:Nope) RETURN n")[0][:2] == (UNKNOWN_LABEL, "Nope")


def test_known_or_written_names_are_not_warned(graph):
    for statement in ("MATCH (n:P)-[:KNOWS]->(m) RETURN n.name, m.name", "CREATE (n:Fresh {k: 1}) RETURN n",
                      "MATCH (n:P) SET n.added = 1", "MERGE (:Merged {id: 1})", "MATCH (n:!Ghost) RETURN count(n)",
                      "WITH {a: 1} AS m RETURN m.a", "MATCH (a:P) MATCH (a)-[:KNOWS]->(b) RETURN b"):
        assert notes(graph, statement) == [], statement
    graph.execute("CREATE INDEX later FOR (n:Later) ON (n.x)")     # a label the schema names exists
    assert notes(graph, "MATCH (n:Later) RETURN n") == []


def test_the_warning_goes_once_the_name_exists(graph):
    assert notes(graph, "MATCH (n:Soon) RETURN n")[0][:2] == (UNKNOWN_LABEL, "Soon")
    graph.execute("CREATE (:Soon)")
    assert notes(graph, "MATCH (n:Soon) RETURN n") == []


def test_a_name_stays_known_after_its_data_is_deleted_and_within_its_own_transaction(graph):
    # Neo4j keeps a token once created: "wipe, then run again" must not warn about the names just wiped
    graph.execute("CREATE (:Gone)-[:GONE_REL]->(:Gone)").consume()
    graph.execute("MATCH (n:Gone) DETACH DELETE n").consume()
    assert notes(graph, "MATCH (n:Gone)-[:GONE_REL]->() RETURN n") == []
    with graph.transaction() as tx:                     # written earlier in the same transaction
        tx.execute("CREATE (:SameTx)-[:SAME_REL]->(:SameTx)").consume()
        assert notes(tx, "MATCH (n:SameTx)-[:SAME_REL]->() RETURN count(n)") == []
    assert [code for code, _, _ in notes(graph, "MATCH (n:Never) RETURN n")] == [UNKNOWN_LABEL]


def test_disconnected_patterns_are_a_cartesian_product(graph):
    assert notes(graph, "MATCH (a:P), (b:P) RETURN a, b") == [(CARTESIAN, "(b", {"offset": 13, "line": 1, "column": 14})]
    assert notes(graph, "MATCH (a:P) MATCH (a)-->(b), (c:P) RETURN c")[0][:2] == (CARTESIAN, "(c")
    assert notes(graph, "MATCH (a:P), (a)-->(b) RETURN b") == []


def test_a_statement_nested_as_deep_as_the_parser_allows_is_walked(graph):
    """The walk that finds the names is iterative: no recursion limit is reachable from a statement."""
    deep = "MATCH (n:P) RETURN " + " + ".join(["size(n.ghostly)"] * 900)
    assert notes(graph, deep)[0][:2] == (UNKNOWN_KEY, "ghostly")
    nested = "RETURN " + "[" * 250 + "1" + "]" * 250
    assert notes(graph, nested) == []
