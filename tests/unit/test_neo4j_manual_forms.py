"""Forms from Neo4j's Cypher manual: a value that is not a list walked as a list of itself (list
predicates, comprehensions, reduce over a property that may hold one value or many), ``count(ALL x)``."""
from __future__ import annotations

import pytest

import relate
from relate.errors import CypherSyntaxError


@pytest.fixture
def db():
    conn = relate.connect(":memory:")
    conn.execute("CREATE (:P {name: 'Carrie', nat: 'American'}), (:P {name: 'Keanu', nat: 'Canadian'}), "
                 "(:P {name: 'Kathryn', nat: ['American', 'Irish']})")
    yield conn
    conn.close()


def rows(db, statement):
    return [tuple(row) for row in db.execute(statement)]


def test_a_single_value_is_walked_as_a_list_of_itself(db):
    assert rows(db, "MATCH (p:P) WHERE any(n IN p.nat WHERE n = 'American') RETURN p.name ORDER BY p.name") == [
        ("Carrie",), ("Kathryn",)]
    assert rows(db, "MATCH (p:P {name: 'Keanu'}) RETURN [n IN p.nat | toUpper(n)], "
                    "reduce(s = '', n IN p.nat | s + n), all(n IN p.nat WHERE n STARTS WITH 'C')") == [
        (["CANADIAN"], "Canadian", True)]
    assert rows(db, "MATCH (p:P {name: 'Keanu'}) RETURN [n IN p.missing | n], any(n IN p.missing WHERE true)") == [
        (None, None)]


@pytest.mark.parametrize("statement", ["RETURN any(x IN 5 WHERE x > 1)", "RETURN [x IN 'abc' | x]",
                                       "RETURN reduce(a = 0, x IN {k: 1} | a)"])
def test_a_literal_that_is_not_a_list_is_refused_when_compiling(db, statement):
    with pytest.raises(CypherSyntaxError, match="expected List<T>"):
        rows(db, statement)


def test_count_all_is_count(db):
    db.execute("CREATE (:Q {x: 1}), (:Q {x: 1}), (:Q {x: 2})")
    assert rows(db, "MATCH (q:Q) RETURN count(ALL q.x), count(DISTINCT q.x), count(q.x), collect(ALL q.x)") == [
        (3, 2, 3, [1, 1, 2])]
    assert rows(db, "RETURN all(x IN [1, 2] WHERE x > 0) AS a, count(all(x IN [1] WHERE true)) AS c") == [(True, 1)]


def test_simple_case_lists_values_and_compares_its_subject(db):
    db.execute("CREATE (:E {name: 'a', eyes: 'brown', age: 38}), (:E {name: 'b', eyes: 'blue', age: 25}), "
               "(:E {name: 'c', eyes: 'hazel', age: 10}), (:E {name: 'd', eyes: 'green'}), "
               "(:E {name: 'e', eyes: 'x', age: '12'})")
    assert rows(db, "MATCH (n:E) RETURN n.name, CASE n.eyes WHEN 'brown', 'hazel' THEN 2 WHEN 'blue' THEN 1 "
                    "ELSE 3 END ORDER BY n.name") == [("a", 2), ("b", 1), ("c", 2), ("d", 3), ("e", 3)]
    assert rows(db, "MATCH (n:E) RETURN n.name, CASE n.age WHEN IS NULL, IS NOT TYPED INTEGER | FLOAT THEN 'Unknown' "
                    "WHEN = 0, = 1, = 2 THEN 'Baby' WHEN <= 13 THEN 'Child' WHEN < 30 THEN 'Young Adult' "
                    "ELSE 'Adult' END ORDER BY n.name") == [
        ("a", "Adult"), ("b", "Young Adult"), ("c", "Child"), ("d", "Unknown"), ("e", "Unknown")]
    assert rows(db, "MATCH (n:E) WHERE n.name IN ['a', 'b'] RETURN CASE n.eyes WHEN STARTS WITH 'br' THEN 'br' "
                    "WHEN IN ['blue'] THEN 'bl' END ORDER BY n.name") == [("br",), ("bl",)]
    with pytest.raises(CypherSyntaxError, match="one condition per WHEN"):
        rows(db, "RETURN CASE WHEN true, false THEN 1 END")


def test_insert_and_union_distinct(db):
    assert rows(db, "INSERT (t:Person&Actor {name: 'Tom'}) RETURN labels(t)") == [(["Person", "Actor"],)]
    assert rows(db, "MATCH (n:Person) RETURN n.name AS x UNION DISTINCT MATCH (n:Actor) RETURN n.name AS x") == [
        ("Tom",)]
    assert rows(db, "WITH 1 AS insert RETURN insert") == [(1,)]


def test_dynamic_property_keys_in_set_and_remove(db):
    db.execute("CREATE (:D {name: 'Peter', age: 34})")
    assert rows(db, "MATCH (n:D) FOREACH (k IN keys(n) | SET n[k + 'Copy'] = n[k]) "
                    "RETURN n.nameCopy, n.ageCopy") == [("Peter", 34)]
    assert rows(db, "MATCH (n:D) FOREACH (k IN ['nameCopy', 'ageCopy'] | REMOVE n[k]) RETURN keys(n)") == [
        (["name", "age"],)]
    assert db.execute("MATCH (n:D) SET n[$key] = 1 RETURN n.dyn", {"key": "dyn"}).fetchone()[0] == 1
    with pytest.raises(relate.errors.CypherTypeError, match="must be a String"):
        rows(db, "MATCH (n:D) SET n[1] = 5")


def test_exists_over_a_pattern_is_a_predicate_and_over_a_property_is_refused(db):
    db.execute("CREATE (:Actor {name: 'K'})-[:ACTED_IN]->(:Movie), (:Actor {name: 'L'})")
    assert rows(db, "MATCH (p:Actor) RETURN p.name, exists((p)-[:ACTED_IN]->()) ORDER BY p.name") == [
        ("K", True), ("L", False)]
    with pytest.raises(CypherSyntaxError, match="IS NOT NULL"):
        rows(db, "MATCH (p:Actor) RETURN exists(p.name)")


@pytest.mark.parametrize("written, value, expected", [
    ("INTEGER NOT NULL | FLOAT NOT NULL", "1", True),
    ("INTEGER | FLOAT", "null", True),
    ("ANY<INTEGER | FLOAT> NOT NULL", "null", False),
    ("LIST<INTEGER NOT NULL> | NULL", "[1]", True),
])
def test_type_unions_are_all_nullable_or_all_not_null(db, written, value, expected):
    assert rows(db, f"RETURN {value} IS :: {written}") == [(expected,)]


@pytest.mark.parametrize("written", ["INTEGER NOT NULL | FLOAT", "LIST<STRING | INTEGER NOT NULL>",
                                     "BOOLEAN | NULL | DATE NOT NULL"])
def test_a_union_mixing_not_null_and_nullable_types_is_refused(db, written):
    with pytest.raises(CypherSyntaxError, match="Closed Dynamic Union must be nullable") as caught:
        rows(db, f"RETURN 1 IS :: {written}")
    assert caught.value.code == "Neo.ClientError.Statement.SyntaxError"


def test_an_unaliased_map_projection_is_named_after_its_variable(db):
    rows(db, "CREATE (:Person {name: 'Keanu', nationality: 'Canadian'})")
    result = db.execute("MATCH (keanu:Person) RETURN keanu{.*, .age}")
    assert result.keys() == ["keanu"]
    assert result.fetchone()["keanu"] == {"name": "Keanu", "nationality": "Canadian", "age": None}
    with pytest.raises(CypherSyntaxError, match="Multiple result columns with the same name"):
        rows(db, "MATCH (n:Person) RETURN n, n{.name}")


@pytest.mark.parametrize("hints", [
    "USING INDEX p:Person(name)", "USING INDEX SEEK p:Person(name)", "USING TEXT INDEX p:Person(name)",
    "USING RANGE INDEX p:Person(name, age)", "USING SCAN p:Person", "USING JOIN ON p",
    "USING SCAN q:Person USING INDEX r:KNOWS(since) USING JOIN ON p, q",
])
def test_planner_hints_are_accepted_and_change_no_result(db, hints):
    rows(db, "CREATE (:Person {name: 'A'})-[:KNOWS {since: 1}]->(:Person {name: 'B'})")
    rows(db, "CREATE INDEX FOR (p:Person) ON (p.name)")
    assert rows(db, f"MATCH (p:Person {{name: 'A'}})-[r:KNOWS]->(q:Person) {hints} WHERE r.since = 1 "
                    "RETURN q.name") == [("B",)]


def test_a_hint_on_a_variable_outside_the_pattern_is_refused(db):
    with pytest.raises(CypherSyntaxError, match="Variable `x` not defined") as caught:
        rows(db, "MATCH (p:Person) USING INDEX x:Person(name) RETURN p")
    assert caught.value.code == "Neo.ClientError.Statement.SyntaxError"


def test_constraint_names_can_be_parameters(db):
    db.execute("CREATE CONSTRAINT $name FOR (b:Book) REQUIRE b.isbn IS UNIQUE", {"name": "book_isbn"}).consume()
    db.execute("CREATE CONSTRAINT $name IF NOT EXISTS FOR ()-[r:R]-() REQUIRE r.p IS NOT NULL",
               {"name": "r_p"}).consume()
    assert rows(db, "SHOW CONSTRAINTS YIELD name RETURN name ORDER BY name") == [("book_isbn",), ("r_p",)]
    assert db.execute("DROP CONSTRAINT $name", {"name": "book_isbn"}).consume().counters.constraints_removed == 1
    assert rows(db, "SHOW CONSTRAINTS YIELD name") == [("r_p",)]


def test_number_literals_may_separate_digits_with_underscores(db):
    assert rows(db, "RETURN 1_000_000, 0x_13af, 0o13_72, 1_000.5, 6.022_1E23") == [
        (1_000_000, 0x13AF, 0o1372, 1000.5, 6.0221e23)]
    for bad in ("1_000_", "1__0"):
        with pytest.raises(CypherSyntaxError, match="Invalid input"):
            rows(db, f"RETURN {bad}")


def test_inf_infinity_and_nan_are_float_literals(db):
    (inf, infinity, nan, negative), = rows(db, "RETURN Inf, infinity, NaN, -INF")
    assert inf == infinity == float("inf") and negative == float("-inf") and nan != nan
    assert rows(db, "WITH {nan: 1} AS m RETURN m.nan") == [(1,)]          # still a key name


def test_is_normalized_of_a_value_that_is_not_a_string_is_null(db):
    assert rows(db, "RETURN 1 IS NORMALIZED, [1] IS NOT NORMALIZED, 'a' IS NFC NORMALIZED") == [(None, None, True)]


def test_property_value_type_wants_a_list_of_one_type(db):
    assert rows(db, "RETURN [1, 'a'] IS :: PROPERTY VALUE, [1, 2.0] IS :: PROPERTY VALUE, [1, 2] IS :: "
                    "PROPERTY VALUE, [] IS :: PROPERTY VALUE, [1, null] IS :: PROPERTY VALUE, [[1]] IS :: "
                    "PROPERTY VALUE") == [(False, False, True, True, False, False)]


def test_durations_order_by_average_length_then_fields(db):
    got = rows(db, "UNWIND [duration('P1D'), duration('PT23H'), duration('PT25H'), duration('P1M'), "
                   "duration('P30D'), duration('P31D'), duration('PT24H')] AS d RETURN toString(d) ORDER BY d")
    assert [r[0] for r in got] == ["PT23H", "PT24H", "P1D", "PT25H", "P30D", "P1M", "P31D"]


def test_relationship_types_take_label_expressions(db):
    rows(db, "CREATE (t:Person {name: 'Tom'})-[:ACTED_IN]->(:Movie {title: 'A'}), (t)-[:DIRECTED]->(:Movie "
             "{title: 'B'}), (t)-[:PRODUCED]->(:Movie {title: 'C'})")
    assert rows(db, "MATCH (:Person {name: 'Tom'})-[r:!ACTED_IN]->(m:Movie) RETURN type(r), m.title "
                    "ORDER BY m.title") == [("DIRECTED", "B"), ("PRODUCED", "C")]
    assert rows(db, "MATCH ()-[r:%]->() RETURN count(r)") == [(3,)]
    assert rows(db, "MATCH ()-[:(ACTED_IN|DIRECTED)&!DIRECTED]->(m) RETURN m.title") == [("A",)]
    assert rows(db, "MATCH ()-[:!ACTED_IN&!PRODUCED]->(m) RETURN m.title") == [("B",)]
    assert rows(db, "MATCH ()-[r:ACTED_IN&DIRECTED]->() RETURN count(r)") == [(0,)]
    assert rows(db, "MATCH p = ()-[:!ACTED_IN*1..2]->() RETURN count(p)") == [(2,)]
    with pytest.raises(CypherSyntaxError, match="single relationship type"):
        rows(db, "CREATE ()-[:!A]->()")


@pytest.mark.parametrize("written, ints, nested, null", [
    ("INTEGER!", False, False, False), ("INT LIST", True, False, True), ("INTEGER ARRAY", True, False, True),
    ("INTEGER NOT NULL LIST", True, False, True), ("INT! LIST NOT NULL", True, False, False),
    ("INT LIST LIST", False, True, True), ("LIST<INT LIST>", False, True, True),
])
def test_type_synonyms_bang_and_postfix_lists(db, written, ints, nested, null):
    assert rows(db, f"RETURN [1, 2] IS :: {written}, [[1]] IS :: {written}, null IS :: {written}") == [
        (ints, nested, null)]
    assert rows(db, "RETURN localdatetime() IS :: TIMESTAMP WITHOUT TIMEZONE, localtime() IS :: "
                    "TIME WITHOUT TIMEZONE") == [(True, True)]


def test_escaped_names_read_unicode_escapes(db):
    assert db.execute("RETURN 1 AS `x\\u0041`").keys() == ["xA"]
    assert rows(db, "CREATE (n:`L\\u00e4`) RETURN labels(n)") == [(["Lä"],)]
    assert rows(db, "WITH 1 AS `\\u0041` RETURN A") == [(1,)]
    assert db.execute("RETURN 1 AS `\\uD83D\\uDE00`, 2 AS `a\\b`").keys() == ["\U0001F600", "a\\b"]
