"""``relate import --schema``: constraints and range indexes built by the import itself (checked per
row, stored in the new snapshot's catalog, their indexes filled on open), equal to what CREATE
CONSTRAINT on the opened database makes; a broken constraint stops the import and leaves no directory."""
import os

import pytest

import relate
from relate.errors import ConstraintValidationFailed
from relate.server.importer.run import run_import

PEOPLE = """id:ID(P),email,age:int
p1,a@x,31
p2,b@x,
p3,c@x,40
"""
KNOWS = """:START_ID(P),:END_ID(P),since:int
p1,p2,2001
p2,p3,2002
"""
SCHEMA = ["CREATE CONSTRAINT FOR (p:P) REQUIRE p.email IS UNIQUE",
          "CREATE CONSTRAINT pid IF NOT EXISTS FOR (p:P) REQUIRE p.id IS UNIQUE",
          "CREATE CONSTRAINT pid IF NOT EXISTS FOR (p:P) REQUIRE p.id IS UNIQUE",      # a repeat: skipped
          "CREATE CONSTRAINT since_int FOR ()-[k:KNOWS]-() REQUIRE k.since IS :: INTEGER",
          "CREATE INDEX p_age FOR (p:P) ON (p.age)"]


def _files(tmp_path, people=PEOPLE, knows=KNOWS):
    (tmp_path / "p.csv").write_text(people)
    (tmp_path / "k.csv").write_text(knows)
    return [(["P"], [str(tmp_path / "p.csv")])], [(["KNOWS"], [str(tmp_path / "k.csv")])]


def _values(path, text, **params):
    with relate.connect(str(path)) as c:
        return c.execute(text, params).values()


def test_schema_built_by_the_import_equals_create_constraint(tmp_path):
    nodes, rels = _files(tmp_path)
    run_import(str(tmp_path / "db"), nodes, rels, schema=SCHEMA)
    run_import(str(tmp_path / "plain"), nodes, rels)
    with relate.connect(str(tmp_path / "plain")) as c:          # the same statements on the opened database
        for statement in SCHEMA:
            c.execute(statement).consume()
    show = ("SHOW CONSTRAINTS YIELD name, type, entityType, labelsOrTypes, properties, propertyType "
            "RETURN * ORDER BY name")
    indexes = "SHOW INDEXES YIELD name, type, labelsOrTypes, properties, state RETURN * ORDER BY name"
    assert _values(tmp_path / "db", show) == _values(tmp_path / "plain", show)
    assert len(_values(tmp_path / "db", show)) == 3
    assert _values(tmp_path / "db", indexes) == _values(tmp_path / "plain", indexes)
    for _ in range(2):                                  # enforced after every open (indexes rebuilt on open)
        with pytest.raises(ConstraintValidationFailed):
            _values(tmp_path / "db", "CREATE (:P {email: 'b@x'})")
        with pytest.raises(ConstraintValidationFailed):
            _values(tmp_path / "db", "MATCH (a:P {id: 'p1'}), (b:P {id: 'p3'}) CREATE (a)-[:KNOWS {since: 'x'}]->(b)")
    assert _values(tmp_path / "db", "MATCH (p:P) WHERE p.age > 35 RETURN p.id") == [["p3"]]


@pytest.mark.parametrize("schema, people, knows, needle", [
    ("CREATE CONSTRAINT em FOR (p:P) REQUIRE p.email IS UNIQUE", PEOPLE + "p4,a@x,5\n", KNOWS, "email = 'a@x'"),
    ("CREATE CONSTRAINT ag FOR (p:P) REQUIRE p.age IS NOT NULL", PEOPLE, KNOWS, "must have the property `age`"),
    ("CREATE CONSTRAINT ky FOR (p:P) REQUIRE (p.email, p.age) IS NODE KEY", PEOPLE, KNOWS, "`age`"),
    ("CREATE CONSTRAINT sn FOR ()-[k:KNOWS]-() REQUIRE k.since IS :: STRING", PEOPLE, KNOWS,
     "of a type other than STRING"),
    ("CREATE CONSTRAINT ku FOR ()-[k:KNOWS]-() REQUIRE k.since IS UNIQUE", PEOPLE, KNOWS + "p3,p1,2001\n",
     "since = 2001"),
])
def test_a_broken_constraint_stops_the_import_and_leaves_nothing(tmp_path, schema, people, knows, needle):
    nodes, rels = _files(tmp_path, people, knows)
    with pytest.raises(ConstraintValidationFailed) as failure:
        run_import(str(tmp_path / "db"), nodes, rels, schema=[schema])
    assert failure.value.code == "Neo.ClientError.Schema.ConstraintCreationFailed"
    assert needle in failure.value.message and "Unable to create constraint" in failure.value.message
    assert not os.path.exists(tmp_path / "db")
