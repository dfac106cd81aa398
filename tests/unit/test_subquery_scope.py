"""Subqueries as Neo4j's manual shows them: the outer variables a CALL (x) / CALL (*) / EXISTS / COUNT /
COLLECT subquery sees stay in scope past its WITHs and cannot be declared again inside it; a CALL that
writes finishes all its runs before the clauses after it read."""
from __future__ import annotations

import pytest

import relate
from relate.errors import CypherSyntaxError

DOGS = """
CREATE (andy:Swedish:Person {name: 'Andy', age: 36}), (timothy:Person {name: 'Timothy', age: 25}),
  (peter:Person {name: 'Peter', age: 35}),
  (andy)-[:HAS_DOG {since: 2016}]->(:Dog {name: 'Andy'}),
  (timothy)-[:HAS_DOG {since: 2019}]->(:Dog {name: 'Mittens'}),
  (peter)-[:HAS_DOG {since: 2018}]->(:Dog {name: 'Ozzy'}),
  (peter)-[:HAS_DOG {since: 2019}]->(:Dog {name: 'Fido'})
"""


@pytest.fixture
def db():
    conn = relate.connect(":memory:")
    conn.execute(DOGS)
    yield conn
    conn.close()


def rows(db, statement):
    return [tuple(row) for row in db.execute(statement)]


def test_outer_variables_outlive_a_leading_with(db):
    assert rows(db, "MATCH (person:Person) RETURN person.name AS name, COLLECT { WITH 2018 AS yearOfTheDog "
                    "MATCH (person)-[r:HAS_DOG]->(d:Dog) WHERE r.since = yearOfTheDog RETURN d.name } AS dogs "
                    "ORDER BY name") == [("Andy", []), ("Peter", ["Ozzy"]), ("Timothy", [])]
    assert rows(db, "MATCH (person:Person) WHERE COUNT { WITH 'Ozzy' AS dogName MATCH (person)-[:HAS_DOG]->(d:Dog) "
                    "WHERE d.name = dogName } = 1 RETURN person.name") == [("Peter",)]
    assert rows(db, "MATCH (person:Person) WHERE EXISTS { WITH 'Ozzy' AS dogName MATCH (person)-[:HAS_DOG]->(d:Dog) "
                    "WHERE d.name = dogName } RETURN person.name") == [("Peter",)]
    assert rows(db, "MATCH (p:Person) CALL (p) { WITH 1 AS one RETURN p.age + one AS a } RETURN a ORDER BY a") == [
        (26,), (36,), (37,)]
    assert rows(db, "MATCH (p:Person) CALL (*) { WITH p.name AS n WITH n, 2 AS two RETURN p.age + two AS a } "
                    "RETURN a ORDER BY a") == [(27,), (37,), (38,)]


def test_an_aggregating_with_keeps_the_outer_variables_and_its_single_row(db):
    db.execute("CREATE (:Person {name: 'Zed', age: 1})")          # no dog: count 0, still one row
    assert rows(db, "MATCH (p:Person) CALL (p) { OPTIONAL MATCH (p)-[:HAS_DOG]->(d) WITH count(d) AS c "
                    "RETURN p.name AS n, c } RETURN n, c ORDER BY n") == [
        ("Andy", 1), ("Peter", 2), ("Timothy", 1), ("Zed", 0)]


@pytest.mark.parametrize("statement", [
    "WITH 'Peter' AS name MATCH (person:Person {name: name}) RETURN COLLECT { WITH 'Ozzy' AS name "
    "MATCH (person)-[:HAS_DOG]->(d:Dog {name: name}) RETURN d.name } AS dogs",
    "WITH 'Peter' AS name MATCH (person:Person {name: name}) WHERE COUNT { WITH 'Ozzy' AS name "
    "MATCH (person)-[:HAS_DOG]->(d:Dog {name: name}) } = 1 RETURN person.name",
    "WITH 'Peter' AS name MATCH (person:Person {name: name}) WHERE EXISTS { WITH 'Ozzy' AS name "
    "MATCH (person)-[:HAS_DOG]->(d:Dog {name: name}) } RETURN person.name",
    "MATCH (p:Person) CALL (p) { WITH 1 AS p RETURN p AS x } RETURN x",
])
def test_declaring_an_outer_variable_again_inside_is_an_error(db, statement):
    with pytest.raises(CypherSyntaxError, match="shadowing a variable with the same name from the outer scope"):
        rows(db, statement)


def test_a_writing_call_finishes_every_run_before_later_reads(db):
    db.execute("CREATE (:Player {name: 'Player A', age: 21})")
    assert rows(db, "UNWIND [1, 2, 3] AS x CALL () { MATCH (p:Player {name: 'Player A'}) SET p.age = p.age + 1 "
                    "RETURN p.age AS newAge } MATCH (p:Player {name: 'Player A'}) "
                    "RETURN x AS iteration, newAge, p.age AS totalAge") == [(1, 22, 24), (2, 23, 24), (3, 24, 24)]
    assert rows(db, "UNWIND [1, 2] AS x CALL () { CREATE (:T) } MATCH (t:T) RETURN x, count(t)") == [(1, 2), (2, 2)]
