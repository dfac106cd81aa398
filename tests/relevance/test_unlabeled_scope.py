"""Scope and curation hold however a read reaches a node: an all-nodes scan, an expand to an unlabeled
end node, id/elementId lookups, variable-length paths, OPTIONAL MATCH, pattern comprehensions and an
undeclared label on a node that also carries a declared one (fail closed)."""
from __future__ import annotations

import pytest

import relate
from relate.server.engine import Database

ALICE = {"user": "alice", "context": "A"}
BOB = {"user": "bob", "context": "B"}

SETUP = [
    "CREATE LABEL Note OPTIONS {scope: {owner: 'user', ctx: 'context'}}",
    "CREATE LABEL Mem OPTIONS {lifecycle: {active: ['ACTIVE'], never: ['CONTRADICTED']}}",
    "CREATE (h:Hub {id: 'hub'}), (p:Plain {id: 'plain'}), "
    "(a:Note {id: 'alice-note', owner: 'alice', ctx: 'A'}), (b:Note {id: 'bob-note', owner: 'bob', ctx: 'B'}), "
    "(pa:Plain:Note {id: 'alice-plain', owner: 'alice', ctx: 'A'}), (behind:Plain {id: 'behind-alice'}), "
    "(ok:Mem {id: 'mem-ok', status: 'ACTIVE'}), (old:Mem {id: 'mem-old', status: 'SUPERSEDED'}), "
    "(bad:Mem {id: 'mem-bad', status: 'CONTRADICTED'}), (none:Mem {id: 'mem-none'}), "
    "(h)-[:HAS]->(p), (h)-[:HAS]->(a), (h)-[:HAS]->(b), (h)-[:HAS]->(pa), (a)-[:NEXT]->(behind), "
    "(h)-[:HAS]->(ok), (h)-[:HAS]->(old), (h)-[:HAS]->(bad), (h)-[:HAS]->(none)",
]
EVERYONE_SEES = {"hub", "plain", "behind-alice", "mem-ok"}     # mem-old: SUPERSEDED


@pytest.fixture(scope="module")
def db():
    database = Database.open(None)
    session = database.session()
    session.scope = dict(ALICE)
    conn = relate.Connection(session)
    for statement in SETUP:
        conn.execute(statement).consume()
    yield database
    database.close()


def connect(db, scope):
    session = db.session()
    session.scope = dict(scope)
    return relate.Connection(session)


def col(conn, query, **params):
    return sorted(r[0] for r in conn.execute(query, params).values())


def test_all_nodes_scan(db):
    alice, bob = connect(db, ALICE), connect(db, BOB)
    assert set(col(bob, "MATCH (n) RETURN n.id")) == EVERYONE_SEES | {"bob-note"}
    assert set(col(alice, "MATCH (n) RETURN n.id")) == EVERYONE_SEES | {"alice-note", "alice-plain"}
    assert col(bob, "MATCH (n) WHERE n.owner = 'alice' RETURN n.id") == []
    assert col(bob, "MATCH (n) WHERE n:Note RETURN n.id") == ["bob-note"]
    assert bob.execute("MATCH (n) RETURN count(n)").values() == [[5]]
    assert bob.execute("MATCH (n) RETURN count(*)").values() == [[5]]


def test_an_undeclared_label_does_not_bypass_a_declared_one(db):
    bob = connect(db, BOB)
    assert col(bob, "MATCH (n:Plain) RETURN n.id") == ["behind-alice", "plain"]
    assert bob.execute("MATCH (n:Plain) RETURN count(n)").values() == [[2]]


def test_expands_to_and_from_unlabeled_nodes(db):
    bob = connect(db, BOB)
    assert set(col(bob, "MATCH ()-[r]->(n) RETURN n.id")) == {"plain", "bob-note", "mem-ok"}
    assert set(col(bob, "MATCH (h:Hub)-->(n) RETURN n.id")) == {"plain", "bob-note", "mem-ok"}
    assert col(bob, "MATCH (n)-->(x:Plain) RETURN n.id") == ["hub"]          # not alice's note → behind
    assert col(bob, "MATCH (x:Plain)<-[:NEXT]-(n) RETURN x.id") == []
    assert col(bob, "MATCH ()-[r]->() RETURN type(r)").count("NEXT") == 0
    assert bob.execute("MATCH ()-[r]->() RETURN count(r)").values() == [[3]]


def test_id_and_element_id_lookups(db):
    alice, bob = connect(db, ALICE), connect(db, BOB)
    nid, eid = alice.execute("MATCH (n:Note {id: 'alice-note'}) RETURN id(n), elementId(n)").values()[0]
    assert alice.execute("MATCH (n) WHERE id(n) = $x RETURN n.id", {"x": nid}).values() == [["alice-note"]]
    assert bob.execute("MATCH (n) WHERE id(n) = $x RETURN n.id", {"x": nid}).values() == []
    assert bob.execute("MATCH (n) WHERE id(n) IN [$x] RETURN n.id", {"x": nid}).values() == []
    assert bob.execute("MATCH (n) WHERE elementId(n) = $e RETURN n.id", {"e": eid}).values() == []
    assert bob.execute("MATCH (h:Hub)-->(n) WHERE id(n) = $x RETURN n.id", {"x": nid}).values() == []


def test_paths_optional_match_and_comprehensions(db):
    bob = connect(db, BOB)
    reached = col(bob, "MATCH (h:Hub)-[*1..3]->(n) RETURN n.id")
    assert "alice-note" not in reached and "behind-alice" not in reached and "bob-note" in reached
    for row in bob.execute("MATCH p = (h:Hub)-[*]->() RETURN [x IN nodes(p) | x.id]").values():
        assert "alice-note" not in row[0] and "alice-plain" not in row[0]
    assert bob.execute("MATCH (h:Hub) OPTIONAL MATCH (h)-->(n {id: 'alice-note'}) RETURN n").values() == [[None]]
    got = bob.execute("MATCH (h:Hub) RETURN [(h)-->(n) | n.id]").values()[0][0]
    assert "alice-note" not in got and "mem-bad" not in got
    assert bob.execute("MATCH (h:Hub) RETURN exists { (h)-->({id: 'alice-note'}) }").values() == [[False]]


def test_contradicted_memories_never_answer(db):
    alice = connect(db, ALICE)
    bad = alice.execute("MATCH (n:Mem) WHERE n.status IN ['CONTRADICTED', 'ACTIVE'] RETURN n.id").values()
    assert bad == [["mem-ok"]]
    assert col(alice, "MATCH (n) WHERE n.status = 'CONTRADICTED' RETURN n.id") == []
    # only ACTIVE answers unless the query reads the status; CONTRADICTED and no status never do
    assert col(alice, "MATCH (h:Hub)-->(n) WHERE n.id STARTS WITH 'mem' RETURN n.id") == ["mem-ok"]
    assert col(alice, "MATCH (h:Hub)-[*1..2]->(n) WHERE n.id STARTS WITH 'mem' RETURN n.id") == ["mem-ok"]
    assert col(alice, "MATCH (h:Hub)-->(n) WHERE n.status <> 'ACTIVE' OR n.status IS NULL RETURN n.id") == \
        ["alice-note", "alice-plain", "mem-old", "plain"]        # never mem-bad, never mem-none
    assert col(alice, "MATCH (n) WHERE n.status IN ['SUPERSEDED', 'CONTRADICTED'] RETURN n.id") == ["mem-old"]
    assert alice.execute("MATCH (h:Hub) OPTIONAL MATCH (h)-->(n {id: 'mem-bad'}) RETURN n").values() == [[None]]


def test_contradicted_memory_by_id_never_answers(tmp_path):
    database = Database.open(None)
    try:
        conn = relate.Connection(database.session())
        conn.execute(SETUP[1]).consume()
        nid = conn.execute("CREATE (n:Plain {id: 'later'}) RETURN id(n)").values()[0][0]
        conn.execute("MATCH (n) WHERE id(n) = $x SET n:Mem, n.status = 'CONTRADICTED'", {"x": nid}).consume()
        assert conn.execute("MATCH (n) WHERE id(n) = $x RETURN n", {"x": nid}).values() == []
        assert conn.execute("MATCH (n:Plain) RETURN n").values() == []
    finally:
        database.close()


def test_no_declared_label_adds_no_filter():
    database = Database.open(None)
    try:
        conn = relate.Connection(database.session())
        conn.execute("CREATE (:A)-[:R]->(:B)-[:R]->(:C)").consume()
        plan = str(conn.execute("EXPLAIN MATCH (a)-->()-->(c) RETURN count(*)").summary.plan)
        assert " visible" not in plan
        assert conn.execute("MATCH (a)-->()-->(c) RETURN count(*)").values() == [[1]]
    finally:
        database.close()
