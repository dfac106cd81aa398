"""Statements that used to raise raw Python exceptions (TypeError, IndexError, ValueError,
RecursionError) now raise typed errors; flat chains of a few hundred terms or clauses just work."""
import pytest

import relate
from relate.errors import CypherSyntaxError, RelateError


@pytest.fixture(scope="module")
def conn():
    with relate.connect(":memory:") as connection:
        yield connection


@pytest.mark.parametrize("query", ["RETURN min()", "RETURN count(1, 2)", "RETURN sum()", "RETURN collect(1, 2)",
                                   "RETURN percentileCont(1)", "RETURN duration.between(date())",
                                   "RETURN date.truncate()", "RETURN datetime.fromEpoch(1, 2, 3)",
                                   "WITH 1 AS x RETURN avg(x, x)"])
def test_wrong_argument_counts_are_compile_time_errors(conn, query):
    with pytest.raises(CypherSyntaxError) as caught:
        conn.execute(query).fetchall()
    assert caught.value.detail == "InvalidNumberOfArguments"
    assert caught.value.phase == "compile time"


def test_an_index_without_a_label_is_a_syntax_error(conn):
    for query in ["CREATE INDEX c_n FOR (c) ON (c.n)", "CREATE VECTOR INDEX v FOR (c) ON (c.e)",
                  "CREATE INDEX FOR ()-[r]-() ON (r.x)"]:
        with pytest.raises(CypherSyntaxError) as caught:
            conn.execute(query)
        assert caught.value.line == 1 and caught.value.column is not None


def test_a_nan_duration_component_is_an_argument_error(conn):
    with pytest.raises(relate.errors.ArgumentError):
        conn.execute("RETURN duration({seconds: 0.0/0.0})").fetchall()


@pytest.mark.parametrize("name,query,expected", [
    ("200 parentheses", "RETURN " + "(" * 200 + "1" + ")" * 200, 1),
    ("500 + terms", "RETURN " + " + ".join(["1"] * 500), 500),
    ("400 OR terms", "RETURN " + " OR ".join(["false"] * 399 + ["true"]), True),
    ("1000 AND terms", "RETURN " + " AND ".join(["true"] * 1000), True),
    ("500 unary minus", "RETURN " + "-" * 500 + "1", 1),
    ("400 chained WITH", "WITH 1 AS x " + " ".join(["WITH x"] * 400) + " RETURN x", 1),
])
def test_flat_chains_and_modest_nesting_evaluate(conn, name, query, expected):
    assert conn.execute(query).fetchall()[0][0] == expected


def test_many_create_clauses(conn):
    conn.execute(" ".join(f"CREATE (:Many {{i: {i}}})" for i in range(600)))
    assert conn.execute("MATCH (n:Many) RETURN count(n)").fetchall()[0][0] == 600


@pytest.mark.parametrize("query", ["RETURN " + "[" * 300 + "1" + "]" * 300, "RETURN " + "{a: " * 300 + "1" + "}" * 300,
                                   "RETURN " + "(" * 5000 + "1" + ")" * 5000])
def test_deep_nesting_is_a_syntax_error_with_a_position(conn, query):
    with pytest.raises(CypherSyntaxError) as caught:
        conn.execute(query)
    assert caught.value.detail == "NestingTooDeep"
    assert caught.value.line == 1 and caught.value.column > 1


@pytest.mark.parametrize("query", ["RETURN " + " + ".join(["1"] * 30000), "RETURN " + "- " * 30000 + "1",
                                   "RETURN " + " OR ".join(["true"] * 30000)])
def test_chains_past_the_recursion_headroom_are_typed(conn, query):
    with pytest.raises(RelateError) as caught:
        conn.execute(query).fetchall()
    assert caught.value.detail == "StatementTooComplex"
