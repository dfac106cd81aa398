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
    assert rows(db, "INSERT (t:Person&Actor {name: 'Tom'}) RETURN labels(t)") == [(["Actor", "Person"],)]
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
