"""Creating a uniqueness constraint on a populated graph: duplicates are found from the index's shared
keys (stale entries re-checked against the snapshot), a failure names the value and leaves no trace,
and a built constraint survives a reopen and kill -9."""
import signal
import subprocess
import sys

import pytest

from relate.errors import ConstraintValidationFailed
from relate.server.engine import Database
from tests.helpers import rows


def run(session, text):
    return rows(session, text)


@pytest.fixture
def db(tmp_path):
    database = Database.open(str(tmp_path / "db"))
    yield database
    database.close()


def test_duplicate_value_fails_with_the_value_and_leaves_nothing(db):
    s = db.session()
    run(s, "UNWIND range(1, 2000) AS i CREATE (:P {id: 'p' + i})")
    run(s, "CREATE (:P {id: 'p77'})")
    with pytest.raises(ConstraintValidationFailed) as failure:
        run(s, "CREATE CONSTRAINT pid FOR (n:P) REQUIRE n.id IS UNIQUE")
    assert failure.value.code == "Neo.ClientError.Schema.ConstraintCreationFailed"
    assert "'p77'" in failure.value.message
    assert run(s, "SHOW CONSTRAINTS") == [] and run(s, "SHOW INDEXES YIELD type WHERE type = 'RANGE'") == []
    read = db.store.begin_read()
    assert not read.has_property_index("node", "P", "id") and read.schema() == {}
    read.close()
    run(s, "CREATE (:P {id: 'p77'})")          # no constraint was left behind


def test_stale_and_other_label_entries_are_not_duplicates(db):
    s = db.session()
    run(s, "UNWIND range(1, 100) AS i CREATE (:P {id: i})")
    run(s, "MATCH (n:P {id: 5}) SET n.id = 500")              # 5 is free again
    run(s, "CREATE (:P {id: 5})")
    run(s, "MATCH (n:P {id: 7}) DETACH DELETE n")
    run(s, "CREATE (:P {id: 7})")
    run(s, "MATCH (n:P {id: 9}) REMOVE n:P")                 # a 9 without the label
    run(s, "CREATE (:P {id: 9})")
    run(s, "CREATE CONSTRAINT pid FOR (n:P) REQUIRE n.id IS UNIQUE")
    with pytest.raises(ConstraintValidationFailed):
        run(s, "CREATE (:P {id: 5.0})")                        # 5 = 5.0 in Cypher
    assert run(s, "MATCH (n:P {id: 9}) RETURN count(n) AS c") == [(1,)]


def test_relationship_and_composite_duplicates(db):
    s = db.session()
    run(s, "CREATE (a)-[:R {k: 1, j: 'x'}]->(b), (a)-[:R {k: 1, j: 'y'}]->(b)")
    with pytest.raises(ConstraintValidationFailed) as failure:
        run(s, "CREATE CONSTRAINT rk FOR ()-[r:R]-() REQUIRE r.k IS UNIQUE")
    assert "`k` = 1" in failure.value.message
    run(s, "CREATE CONSTRAINT rkj FOR ()-[r:R]-() REQUIRE (r.k, r.j) IS UNIQUE")   # pairs differ


def test_constraint_survives_reopen(tmp_path):
    path = str(tmp_path / "db")
    db = Database.open(path)
    s = db.session()
    run(s, "UNWIND range(1, 500) AS i CREATE (:P {id: i})")
    run(s, "CREATE CONSTRAINT pid FOR (n:P) REQUIRE n.id IS UNIQUE")
    db.close()
    db = Database.open(path)
    try:
        s = db.session()
        assert run(s, "SHOW CONSTRAINTS YIELD name") == [("pid",)]
        with pytest.raises(ConstraintValidationFailed):
            run(s, "CREATE (:P {id: 250})")
        assert run(s, "MATCH (n:P {id: 250}) RETURN count(n) AS c") == [(1,)]
    finally:
        db.close()


KILLED_WRITER = """
import os, signal, sys
from relate.server.engine import Database
db = Database.open(sys.argv[1])
s = db.session()
s.run("UNWIND range(1, 3000) AS i CREATE (:P {id: i}), (:Q {id: i % 10})").consume()
s.run("CREATE CONSTRAINT pid FOR (n:P) REQUIRE n.id IS UNIQUE").consume()
try:
    s.run("CREATE CONSTRAINT qid FOR (n:Q) REQUIRE n.id IS UNIQUE").consume()
except Exception as exc:
    print(type(exc).__name__, flush=True)
os.kill(os.getpid(), signal.SIGKILL)             # no close, no checkpoint: the WAL alone must hold it
"""


def test_built_constraint_survives_kill_9_and_a_failed_one_leaves_nothing(tmp_path):
    path = str(tmp_path / "db")
    done = subprocess.run([sys.executable, "-c", KILLED_WRITER, path], capture_output=True, text=True, timeout=120)
    assert done.returncode == -signal.SIGKILL, done.stderr
    assert done.stdout.strip() == "ConstraintValidationFailed"
    db = Database.open(path)
    try:
        s = db.session()
        assert run(s, "SHOW CONSTRAINTS YIELD name") == [("pid",)]
        read = db.store.begin_read()
        assert read.has_property_index("node", "P", "id") and not read.has_property_index("node", "Q", "id")
        read.close()
        with pytest.raises(ConstraintValidationFailed):
            run(s, "CREATE (:P {id: 2999})")
        run(s, "CREATE (:Q {id: 1})")
    finally:
        db.close()
