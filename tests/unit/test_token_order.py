"""db.labels(), db.relationshipTypes() and db.propertyKeys() list tokens in creation order, as Neo4j lists
them in token-id order (not by name), and tokens are kept for ever: a name whose data was deleted stays
known, in its place, across a WAL replay (a crash) and a checkpoint (storage/tokens.py)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import relate

ROOT = Path(__file__).resolve().parents[2]


def labels(db) -> list[str]:
    return [row[0] for row in db.execute("CALL db.labels()")]


def types(db) -> list[str]:
    return [row[0] for row in db.execute("CALL db.relationshipTypes()")]


def keys(db) -> list[str]:
    return [row[0] for row in db.execute("CALL db.propertyKeys()")]


def warnings(db, query: str) -> list[str]:
    result = db.execute(query)
    result.consume()
    return [note["code"].rsplit(".", 1)[-1] for note in result.summary.notifications]


def crash_after(path: str, *statements: str) -> None:
    """Run ``statements`` in a child process that exits without closing (no checkpoint: the WAL only)."""
    script = ("import os, sys, relate\n"
              "db = relate.connect(sys.argv[1])\n"
              "for q in sys.argv[2:]:\n"
              "    db.execute(q).consume()\n"
              "os._exit(0)\n")
    subprocess.run([sys.executable, "-c", script, path, *statements], cwd=ROOT, check=True, timeout=120,
                   env={**os.environ, "PYTHONPATH": str(ROOT)})


# The statements of the persistence tests: names created out of name order, some of them deleted since,
# and a relationship type whose only relationship goes while a later type's stays (relationship ids then
# meet BETA first: only the stored token order keeps ALPHA first).
HISTORY = (
    "CREATE (:Zeta {zk: 1})-[:ALPHA {w: 1}]->(:Mid {mk: 1})",
    "CREATE (:Gone {gk: 1}), (:Apex {ak: 1})-[:BETA]->(:Apex)",
    "MATCH ()-[r:ALPHA]->() DELETE r",
    "MATCH (n:Gone) DETACH DELETE n",
    "MATCH (z:Zeta), (m:Mid) CREATE (z)-[:ALPHA]->(m)",
    "CREATE (:Apex)-[:GONE_TYPE]->(:Apex)",
    "MATCH ()-[r:GONE_TYPE]->() DELETE r",
    "CALL db.createLabel('Made')",
    "CALL db.createProperty('madeKey')",
    "CREATE INDEX idx FOR (n:Indexed) ON (n.ik)",
)
LABELS = ["Zeta", "Mid", "Apex", "Indexed"]          # Gone: no node; Made: created, not in use
TYPES = ["ALPHA", "BETA"]                            # GONE_TYPE: no relationship
KEYS = ["zk", "mk", "w", "gk", "ak", "madeKey", "ik"]  # every key ever created


def check_history(db) -> None:
    assert labels(db) == LABELS and types(db) == TYPES and keys(db) == KEYS
    # deleted data's names and created ones stay known: no Unknown...Warning
    assert warnings(db, "MATCH (n:Gone)-[:GONE_TYPE]->(m:Made) WHERE n.gk = 1 AND m.madeKey = 2 RETURN n") == []
    assert warnings(db, "MATCH (n:Never) RETURN n") == ["UnknownLabelWarning"]


def test_tokens_come_in_creation_order_not_by_name():
    db = relate.connect(":memory:")
    db.execute("CREATE (:Zebra {zz: 1, aa: 2})-[:ZAPS {mm: 3}]->(:Aardvark {bb: 4})").consume()
    db.execute("CREATE (:Mongoose:Aardvark)-[:ATE]->(:Zebra)").consume()
    assert labels(db) == ["Zebra", "Aardvark", "Mongoose"]
    assert types(db) == ["ZAPS", "ATE"]
    assert keys(db) == ["zz", "aa", "bb", "mm"]
    # a label or type no data carries any more leaves db.labels() (Neo4j lists those in use) ...
    db.execute("MATCH (n:Mongoose) DETACH DELETE n").consume()
    assert labels(db) == ["Zebra", "Aardvark"] and types(db) == ["ZAPS"]
    # ... and takes its old place when used again; property keys are never dropped
    db.execute("CREATE (:Mongoose)-[:ATE]->(:Cobra)").consume()
    assert labels(db) == ["Zebra", "Aardvark", "Mongoose", "Cobra"] and types(db) == ["ZAPS", "ATE"]
    db.execute("MATCH (n) SET n = {}").consume()
    assert keys(db) == ["zz", "aa", "bb", "mm"]


def test_indexes_and_constraints_put_their_names_in_use():
    db = relate.connect(":memory:")
    db.execute("CREATE (:Later)").consume()
    db.execute("CREATE CONSTRAINT person_id FOR (p:Person) REQUIRE p.id IS UNIQUE").consume()
    db.execute("CREATE INDEX knows_since FOR ()-[r:KNOWS]-() ON (r.since)").consume()
    db.execute("CREATE FULLTEXT INDEX docs FOR (n:Doc|Note) ON EACH [n.text]").consume()
    db.execute("CALL db.createLabel('OnlyCreated')").consume()
    # as Neo4j: labels and types an index or constraint names are in use; a created token alone is not
    assert labels(db) == ["Later", "Person", "Doc", "Note"]
    assert types(db) == ["KNOWS"]
    assert keys(db) == ["id", "since", "text"]
    db.execute("DROP INDEX knows_since").consume()
    assert types(db) == []
    # the index made Person a token before any node had it: a node's labels come in token order, as in Neo4j
    assert db.execute("CREATE (n:Employee:Person) RETURN labels(n)").fetchone()[0] == ["Person", "Employee"]


def test_a_transaction_sees_its_own_new_tokens():
    db = relate.connect(":memory:")
    db.execute("CREATE (:First {one: 1})").consume()
    with db.transaction() as tx:
        tx.execute("CREATE (:Second {two: 2})-[:LINK]->(:First)").consume()
        tx.execute("CALL db.createProperty('three')").consume()
        assert labels(tx) == ["First", "Second"] and types(tx) == ["LINK"]
        assert keys(tx) == ["one", "two", "three"]
    assert keys(db) == ["one", "two", "three"]


def test_order_and_deleted_names_survive_a_checkpoint(tmp_path):
    path = str(tmp_path / "db")
    with relate.connect(path) as db:
        for statement in HISTORY:
            db.execute(statement).consume()
        check_history(db)
    with relate.connect(path) as db:            # closing checkpointed: loaded from the snapshot
        check_history(db)
        db.execute("CREATE (:Newest {nk: 1})-[:NEWEST]->(:Zeta)").consume()
        assert labels(db) == LABELS + ["Newest"] and types(db) == TYPES + ["NEWEST"] and keys(db) == KEYS + ["nk"]


def test_order_and_deleted_names_survive_a_crash(tmp_path):
    path = str(tmp_path / "db")
    crash_after(path, *HISTORY)
    assert not (Path(path) / "snapshot.msgpack").exists()        # nothing but the WAL to replay
    with relate.connect(path) as db:
        check_history(db)
    # a crash after a checkpoint: the snapshot's order, then the WAL's newer names after it
    crash_after(path, "CALL db.checkpoint()", "CREATE (:Newest {nk: 1})-[:NEWEST]->(:Zeta)",
                "MATCH (n:Newest) DETACH DELETE n")
    with relate.connect(path) as db:
        assert labels(db) == LABELS and types(db) == TYPES and keys(db) == KEYS + ["nk"]
        assert warnings(db, "MATCH (n:Newest)-[:NEWEST]->() RETURN n") == []


def test_a_backup_keeps_the_order(tmp_path):
    path, copy = str(tmp_path / "db"), str(tmp_path / "copy")
    with relate.connect(path) as db:
        for statement in HISTORY:
            db.execute(statement).consume()
        db.execute("CALL db.backup($to)", {"to": copy}).consume()
    with relate.connect(copy) as db:
        check_history(db)


@pytest.mark.parametrize("procedure, description", [
    ("db.labels", "creation order"), ("db.relationshipTypes", "creation order"),
    ("db.propertyKeys", "creation order")])
def test_the_descriptions_say_so(procedure, description):
    db = relate.connect(":memory:")
    shown = db.execute("SHOW PROCEDURES YIELD name, description WHERE name = $name RETURN description",
                       {"name": procedure}).fetchone()[0]
    assert description in shown
