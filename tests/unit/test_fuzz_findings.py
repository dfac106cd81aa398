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


# ... a list of unhashable values (apoc.map.clean(m, [[1]], ...) once built a Python set of them),
# a list of non-finite floats (apoc.coll.sumLongs([NaN]) once called int(NaN)) and a string with a lone
# surrogate (apoc.util.md5 once raised UnicodeEncodeError on it)
EDGE_VALUES = [float("inf"), float("-inf"), float("nan"), 1e308, 2 ** 63 - 1, -2 ** 63, "", [], {}, None, -1,
               [[1], {"a": 1}], [float("nan"), float("-inf"), 1e308], "a\ud800"]


def test_every_function_answers_edge_values_with_a_value_or_a_typed_error(session):
    """datetime.fromEpoch(inf) raised OverflowError (NaN: ValueError): every registered function, at
    each of its arities, with every pair of edge values as arguments."""
    from tests.fuzz.cypher_gen import function_table
    untyped = []
    for name, low, high, aggregating in function_table():
        if aggregating:
            continue
        for count in sorted({low, min(high if high is not None else low + 1, 3)}):
            query = f"RETURN {name}({', '.join(f'$a{i}' for i in range(count))}) AS x"
            for first in EDGE_VALUES:
                for second in EDGE_VALUES if count > 1 else [None]:
                    params = {f"a{i}": (first if i == 0 else second) for i in range(count)}
                    try:
                        session.run(query, params, timeout=0.5).fetch(3)   # range(-2^63, 2^63): the deadline
                    except RelateError:
                        pass
                    except Exception as exc:        # noqa: BLE001 - the finding
                        untyped.append(f"{query} {params}: {type(exc).__name__}: {exc}")
    assert not untyped, "\n".join(untyped[:20])


@pytest.mark.parametrize("query", [
    "WITH $m AS c MATCH p = (c) RETURN p",                           # found: 'str' object has no attribute 'id'
    "WITH $m AS c OPTIONAL MATCH p = (c) RETURN p",
    "WITH $m AS c MATCH p = (c) DETACH DELETE p",
])
@pytest.mark.parametrize("value", ["x", 1, [1], {"a": 1}])
def test_a_path_over_a_variable_bound_to_a_non_node_is_a_type_error(session, query, value):
    with pytest.raises(RelateError) as caught:
        session.run(query, {"m": value}).fetch(10)
    assert caught.value.code == "Neo.ClientError.Statement.TypeError"


@pytest.mark.parametrize("query, expected", [
    # found: KeyError from the grouping-key table (Python's 1 == true made them one key)
    ("UNWIND [1, 2] AS x WITH true AS t, count(x) AS c WHERE reduce(a = t, y IN [1] | a) RETURN t, c",
     [(True, 2)]),
    ("UNWIND [1, 2] AS x WITH true AS t, count(x) AS c WHERE 1 = 1 RETURN t, c", [(True, 2)]),
    ("UNWIND [1, 2] AS x WITH 1.0 AS t, count(x) AS c ORDER BY 1 RETURN t, c", [(1.0, 2)]),
])
def test_grouping_keys_tell_true_1_and_1_0_apart(session, query, expected):
    assert session.run(query).fetch(10) == expected
