"""A node's labels read back in the database's label order, the order labels were first created (as
Neo4j's label tokens), not by name: labels(n), Node.labels, apoc, through restarts and checkpoints."""
from __future__ import annotations

import pickle

import relate
from relate.values import LabelSet, Node


def labels_of(db, where: str = "") -> list:
    return [row[0] for row in db.execute(f"MATCH (n) {where} RETURN labels(n) ORDER BY id(n)")]


def test_one_create_keeps_the_pattern_order():
    db = relate.connect(":memory:")
    row = db.execute("CREATE (n:Person:Employee) RETURN labels(n) AS l, n").fetchone()
    assert row["l"] == ["Person", "Employee"]
    assert list(row["n"].labels) == ["Person", "Employee"]
    assert repr(row["n"]).startswith("<Node id=0 labels=:Person:Employee ")


def test_a_label_made_earlier_comes_first():
    db = relate.connect(":memory:")
    db.execute("CREATE (:Zed)").consume()
    db.execute("CREATE (:Alpha:Zed:Mid)").consume()
    db.execute("MATCH (n:Zed) WHERE NOT n:Alpha SET n:Mid:Alpha").consume()
    # Zed, then Alpha and Mid in the pattern's order; SET's own order does not matter
    assert labels_of(db) == [["Zed", "Alpha", "Mid"], ["Zed", "Alpha", "Mid"]]
    db.execute("MATCH (n:Alpha) REMOVE n:Zed").consume()
    assert labels_of(db) == [["Alpha", "Mid"], ["Alpha", "Mid"]]


def test_order_survives_the_wal_and_a_checkpoint(tmp_path):
    path = str(tmp_path / "db")
    with relate.connect(path) as db:
        db.execute("CREATE (:Zeta:Beta:Alpha)").consume()
        db.execute("CREATE (:Alpha:Gamma)").consume()
    with relate.connect(path) as db:          # replayed from the WAL
        assert labels_of(db) == [["Zeta", "Beta", "Alpha"], ["Alpha", "Gamma"]]
        db._owner.checkpoint()
    with relate.connect(path) as db:          # read from the snapshot
        assert labels_of(db) == [["Zeta", "Beta", "Alpha"], ["Alpha", "Gamma"]]
        db.execute("CREATE (:Gamma:Omega:Beta)").consume()
        assert labels_of(db, "WHERE n:Omega") == [["Beta", "Gamma", "Omega"]]


def test_apoc_and_json_forms_follow_the_same_order():
    db = relate.connect(":memory:")
    db.execute("CREATE (:Foo:Bar {name: 'x'})").consume()
    assert db.execute("MATCH (n) RETURN apoc.node.labels(n)").fetchone()[0] == ["Foo", "Bar"]
    assert '"labels":["Foo","Bar"]' in db.execute("MATCH (n) RETURN apoc.convert.toJson(n)").fetchone()[0]


def test_label_set_is_a_frozenset_that_remembers_order():
    labels = LabelSet(["B", "A", "B"])
    assert labels == frozenset({"A", "B"}) and hash(labels) == hash(frozenset({"A", "B"}))
    assert list(labels) == ["B", "A"] and "A" in labels and len(labels) == 2
    assert list(pickle.loads(pickle.dumps(labels))) == ["B", "A"]
    assert list(Node(1, ["Z", "A"]).labels) == ["Z", "A"]
    assert list(Node(1, {"Z", "A"}).labels) == ["A", "Z"]          # no order given: by name
