"""Statements the Cypher fuzzer (make fuzz) found raising raw Python exceptions; each class now
answers a typed error."""
import pytest

from relate.errors import RelateError
from relate.server.engine import Database


@pytest.fixture(scope="module")
def session():
    db = Database.open(None)
    session = db.session()
    session.run("CREATE (:A {i: 1})-[:R]->(:B)").consume()
    yield session
    db.close()


@pytest.mark.parametrize("query", [
    "UNWIND range(1, 3) AS u CREATE (n:C)-[:R]->(u) RETURN 1",           # an end bound to an integer
    "CALL { RETURN $m AS c } CREATE (c)-[:R]->(n) RETURN 1",              # ... to a list (a parameter)
    "UNWIND ['x'] AS u CREATE (u)-[:R]->(:C)-[:S]->(u) RETURN 1",        # ... a longer pattern
    "WITH $m AS u CREATE p = (u)-[:R]->(:C) RETURN p",                    # ... with a path
])
def test_create_with_a_bound_end_that_is_not_a_node_is_a_type_error(session, query):
    with pytest.raises(RelateError) as caught:
        session.run(query, {"m": [1]}).fetch(10)
    assert caught.value.code == "Neo.ClientError.Statement.TypeError"
    session.rollback() if session.in_transaction else None
    assert session.run("MATCH (n:C) RETURN count(n)").fetch(1) == [(0,)]     # nothing was left behind
