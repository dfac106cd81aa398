"""Everyday queries whose answers or errors must match Neo4j 5 / Cypher 25 beyond the openCypher TCK."""
import pytest

import relate
from relate.errors import CypherSyntaxError, CypherTypeError


@pytest.fixture()
def db():
    return relate.connect(":memory:")


def values(db, query, params=None):
    """The rows of ``query`` as tuples."""
    return [tuple(row) for row in db.execute(query, params or {}).fetchall()]


# ---------------------------------------------------------------- CALL { } scoping
def test_a_call_subquery_without_importing_with_sees_no_outer_variable(db):
    with pytest.raises(CypherSyntaxError, match="Variable `x` not defined"):
        values(db, "WITH 1 AS x CALL { RETURN x AS y } RETURN y")


def test_a_name_bound_inside_an_unimported_call_subquery_is_a_new_variable(db):
    db.execute("CREATE (:C {k: 1}), (:C {k: 2})")
    query = "MATCH (n:C) CALL { MATCH (n:C) RETURN n.k AS k } RETURN n.k AS outer, k ORDER BY outer, k"
    assert values(db, query) == [(1, 1), (1, 2), (2, 1), (2, 2)]        # not correlated: a product
    assert values(db, "WITH 1 AS x CALL { UNWIND [2] AS x RETURN x AS y } RETURN x, y") == [(1, 2)]


def test_the_importing_with_imports_what_it_names(db):
    assert values(db, "WITH 1 AS x, 2 AS z CALL { WITH x RETURN x * 10 AS y } RETURN y, z") == [(10, 2)]
    assert values(db, "WITH 1 AS x CALL { WITH * RETURN x AS y } RETURN y") == [(1,)]
    assert values(db, "WITH 1 AS x CALL { WITH 5 AS c RETURN c AS y } RETURN x, y") == [(1, 5)]
    with pytest.raises(CypherSyntaxError, match="Variable `z` not defined"):
        values(db, "WITH 1 AS x, 2 AS z CALL { WITH x RETURN x + z AS y } RETURN y")


@pytest.mark.parametrize("query, reason", [
    ("WITH 1 AS n CALL { WITH n AS x RETURN x } RETURN x", "Aliasing or expressions are not supported."),
    ("WITH 1 AS n CALL { WITH n, 2 AS m RETURN n AS x } RETURN x", "Aliasing or expressions are not supported."),
    ("WITH 1 AS n CALL { WITH DISTINCT n RETURN n AS x } RETURN x", "DISTINCT is not allowed."),
    ("WITH 1 AS n CALL { WITH n WHERE n > 0 RETURN n AS x } RETURN x", "WHERE is not allowed."),
    ("WITH 1 AS n CALL { WITH n ORDER BY n RETURN n AS x } RETURN x", "ORDER BY is not allowed."),
    ("WITH 1 AS n CALL { WITH n LIMIT 1 RETURN n AS x } RETURN x", "LIMIT is not allowed."),
])
def test_an_importing_with_only_passes_variables_through(db, query, reason):
    with pytest.raises(CypherSyntaxError) as info:
        values(db, query)
    assert str(info.value).startswith(
        f"Importing WITH should consist only of simple references to outside variables. {reason}")
    assert info.value.column == 20


# ---------------------------------------------------------------- list properties are Neo4j arrays
@pytest.mark.parametrize("query, message", [
    ("CREATE (n {l: [1, null]})", "Collections containing null values can not be stored in properties."),
    ("CREATE (n) SET n.l = [[1], [2]]", "Collections containing collections can not be stored in properties."),
    ("CREATE (n) SET n += {l: [1, 'a']}", "Neo4j only supports a subset of Cypher types for storage"),
    ("CREATE ()-[:R {l: [true, 1]}]->()", "Neo4j only supports a subset of Cypher types for storage"),
    ("CREATE (n) SET n.l = [date('2024-01-01'), localtime('12:00')]",
     "Neo4j only supports a subset of Cypher types for storage"),
])
def test_a_list_property_must_be_homogeneous_and_hold_no_null(db, query, message):
    with pytest.raises(CypherTypeError, match=message) as info:
        db.execute(query)
    assert info.value.code == "Neo.ClientError.Statement.TypeError"


def test_integers_mixed_with_floats_are_stored_as_floats(db):
    assert values(db, "CREATE (n {l: [1, 2.5]}) SET n.m = [3, 4.0] RETURN n.l, n.m") == [([1.0, 2.5], [3.0, 4.0])]
    assert values(db, "MERGE (n:Q {l: [1, 2.0]}) WITH n MERGE (m:Q {l: [1, 2.0]}) RETURN m.l") == [([1.0, 2.0],)]
    assert values(db, "CREATE (n {l: [], s: ['a', 'b']}) RETURN n.l, n.s") == [([], ['a', 'b'])]


# ---------------------------------------------------------------- toInteger of a string (Long.parseLong, then BigDecimal)
def test_to_integer_reads_a_string_as_neo4j_does(db):
    query = ("RETURN toInteger('1.9'), toInteger('-1.9'), toInteger('1e3'), toInteger('+7'), toInteger(' 42 '), "
             "toInteger('1.5d'), toInteger('1_000'), toInteger('NaN'), toInteger('-9223372036854775808')")
    assert values(db, query) == [(1, -1, 1000, 7, None, None, None, None, -9223372036854775808)]


def test_to_integer_of_a_float_is_javas_long_cast(db):
    # Neo4j's toInteger(Float) is Java's (long) cast: truncated, clamped to 64 bits, NaN is 0
    assert values(db, "RETURN toInteger(1e20), toInteger(-1e20), toInteger(0.0 / 0.0), toInteger(1.0 / 0.0), "
                      "toInteger(-2.9), toIntegerOrNull(1e30), toIntegerList([-1e30, 2.5])") == [
        (2 ** 63 - 1, -2 ** 63, 0, 2 ** 63 - 1, -2, 2 ** 63 - 1, [-2 ** 63, 2])]


def test_to_integer_of_a_string_beyond_64_bits_is_a_type_error(db):
    with pytest.raises(CypherTypeError, match="integer, 99999999999999999999, is too large") as info:
        values(db, "RETURN toInteger('99999999999999999999')")
    assert info.value.code == "Neo.ClientError.Statement.TypeError"
    assert values(db, "RETURN toIntegerOrNull('99999999999999999999'), toIntegerList(['1e30', '2'])") == [
        (None, [None, 2])]


# ---------------------------------------------------------------- ORDER BY after DISTINCT / aggregation
@pytest.mark.parametrize("query, column", [
    ("MATCH (a) RETURN a.name AS name, count(*) AS c ORDER BY a.rank", 57),
    ("MATCH (a) RETURN DISTINCT a.name AS name ORDER BY a.rank", 51),
    ("MATCH (a) WITH a.name AS name, count(*) AS c WHERE a.rank > 1 RETURN name", 52),
])
def test_a_variable_hidden_by_distinct_or_aggregation_gets_neo4j_message(db, query, column):
    with pytest.raises(CypherSyntaxError) as info:
        values(db, query)
    assert str(info.value).startswith("In a WITH/RETURN with DISTINCT or an aggregation, it is not possible to "
                                      "access variables declared before the WITH/RETURN: a")
    assert (info.value.detail, info.value.column) == ("UndefinedVariable", column)
    with pytest.raises(CypherSyntaxError, match="Variable `a` not defined"):
        values(db, "MATCH (a) WITH a.name AS name RETURN name ORDER BY a.rank")


def test_substring_with_a_null_length_is_an_error_as_documented(db):
    """Neo4j's manual: if either start or length is null, an error is raised."""
    with pytest.raises(CypherTypeError):
        values(db, "RETURN substring('abc', 1, null)")
    assert values(db, "RETURN substring('abc', 1), substring('abc', 1, 1), substring(null, 1, null)") == [
        ('bc', 'b', None)]


# ---------------------------------------------------------------- deleted entities
def test_type_of_a_deleted_relationship_is_still_answered(db):
    db.execute("CREATE (:A)-[:KNOWS]->(:B), (:A)-[:LIKES]->(:B)")
    query = "MATCH (:A)-[r]->() DELETE r RETURN type(r) AS t ORDER BY t"
    assert values(db, query) == [("KNOWS",), ("LIKES",)]
    db.execute("CREATE (:C)-[:OWNS]->(:D)")
    assert values(db, "MATCH (c:C)-[r]->() DETACH DELETE c RETURN type(r)") == [("OWNS",)]
    with pytest.raises(relate.errors.EntityNotFound):
        values(db, "CREATE ()-[r:R {w: 1}]->() DELETE r RETURN r.w")
