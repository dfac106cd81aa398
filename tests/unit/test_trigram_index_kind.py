"""TRIGRAM indexes, the search-index kind added by one provider file (server/index/providers/trigram.py):
DDL, SEARCH, the db.index.trigram procedures, SHOW INDEXES, commits, rollbacks, durability and DROP."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from relate.protocol.errors import ArgumentError, CypherSemanticError, CypherSyntaxError, IndexNotFound
from relate.server.engine import Database
from tests.helpers import REPO, rows, run

NAMES = ["Jon Smith", "John Smyth", "Alice Jones", "Bob Marley", "Jonathan Smithers"]
SEARCH = ("MATCH (n:Entity) SEARCH n IN (TRIGRAM INDEX names FOR $q LIMIT $k) SCORE AS s "
          "RETURN n.name, s")


@pytest.fixture
def db(db):
    run(db, "CREATE TRIGRAM INDEX names FOR (n:Entity) ON (n.name)")
    run(db, "UNWIND $names AS x CREATE (:Entity {name: x, kind: 'person'})", {"names": NAMES})
    return db


def names(db, q, k=10):
    return [name for name, _ in rows(db, SEARCH, {"q": q, "k": k})]


def test_search_ranks_by_trigram_similarity_best_first(db):
    found = rows(db, SEARCH, {"q": "jon smith", "k": 3})
    assert found[0] == ("Jon Smith", 1.0)
    assert {n for n, _ in found} >= {"Jon Smith", "Jonathan Smithers"} and "Alice Jones" not in dict(found)
    assert all(0.3 <= s <= 1.0 for _, s in found)          # the default threshold leaves weak hits out
    assert [s for _, s in found] == sorted((s for _, s in found), reverse=True)
    assert names(db, "zzzz qqqq") == []


def test_procedure_takes_limit_and_threshold(db):
    query = ("CALL db.index.trigram.queryNodes('names', $q, $o) YIELD node, score "
             "RETURN node.name AS name, score")
    assert rows(db, query, {"q": "alice jone", "o": {"limit": 1}}) == [("Alice Jones", pytest.approx(10 / 13))]
    loose = rows(db, query, {"q": "smith", "o": {"threshold": 0.1}})
    strict = rows(db, query, {"q": "smith", "o": {"threshold": 0.9}})
    assert len(loose) > len(strict)
    with pytest.raises(ArgumentError):
        rows(db, query, {"q": "smith", "o": {"threshold": 2}})
    with pytest.raises(ArgumentError):
        rows(db, query, {"q": "smith", "o": {"fuzz": 1}})
    with pytest.raises(ArgumentError):
        rows(db, query, {"q": "smith", "o": {"limit": "3"}})


def test_show_indexes_row_and_create_statement(db):
    (row,) = [r for r in db.index_manager.list() if r["name"] == "names"]
    assert row["type"] == "TRIGRAM" and row["indexProvider"] == "trigram-1.0"
    assert row["state"] == "ONLINE" and row["size"] == len(NAMES)
    assert row["createStatement"].startswith("CREATE TRIGRAM INDEX `names` FOR (n:`Entity`) ON (n.`name`)")
    assert rows(db, "SHOW INDEXES YIELD name, type WHERE type = 'TRIGRAM' RETURN name") == [("names",)]


def test_commits_keep_it_in_sync_and_rollbacks_leave_no_trace(db):
    run(db, "MATCH (n:Entity {name: 'Bob Marley'}) SET n.name = 'Robert Marley'")
    assert names(db, "robert marley", 1) == ["Robert Marley"]
    assert "Bob Marley" not in names(db, "bob marley")
    run(db, "MATCH (n:Entity {name: 'Alice Jones'}) REMOVE n:Entity SET n:Former")
    assert names(db, "alice jones") == []
    run(db, "MATCH (n:Entity {name: 'Jon Smith'}) DELETE n")
    assert "Jon Smith" not in names(db, "jon smith")
    session = db.session()
    session.begin()
    session.run("CREATE (:Entity {name: 'Zebulon Quux'})").consume()
    session.rollback()
    assert names(db, "zebulon quux") == []


def test_where_inside_search_and_candidate_sets(db):
    run(db, "DROP INDEX names")
    run(db, "CREATE TRIGRAM INDEX names FOR (n:Entity) ON (n.name) WITH [n.kind]")
    run(db, "MATCH (n:Entity {name: 'Jonathan Smithers'}) SET n.kind = 'band'")
    query = ("MATCH (n:Entity) SEARCH n IN (TRIGRAM INDEX names FOR 'jon smith' WHERE n.kind = 'person' LIMIT 5) "
             "RETURN n.name")
    found = [r[0] for r in rows(db, query)]
    assert "Jon Smith" in found and "Jonathan Smithers" not in found
    ids = [r[0] for r in rows(db, "MATCH (n:Entity) WHERE n.name STARTS WITH 'Jonathan' RETURN id(n)")]
    query = ("MATCH (n:Entity) SEARCH n IN (TRIGRAM INDEX names FOR 'jon smith' WHERE n IN $ids LIMIT 5) "
             "RETURN n.name")
    assert rows(db, query, {"ids": ids}) == [("Jonathan Smithers",)]


def test_ddl_errors_are_typed(db):
    with pytest.raises(ArgumentError):
        run(db, "CREATE TRIGRAM INDEX bad FOR (n:Entity) ON (n.name, n.kind)")
    with pytest.raises(ArgumentError):
        run(db, "CREATE TRIGRAM INDEX bad FOR (n:Entity) ON (n.name) OPTIONS {indexConfig: {`trigram.x`: 1}}")
    with pytest.raises(CypherSyntaxError):
        run(db, "CREATE NOSUCHKIND INDEX bad FOR (n:Entity) ON (n.name)")
    with pytest.raises(CypherSemanticError):
        rows(db, "MATCH (n:Entity) SEARCH n IN (NOSUCHKIND INDEX names FOR 'x' LIMIT 1) RETURN n")
    with pytest.raises(CypherSemanticError):      # SKIP is full-text's alone
        rows(db, "MATCH (n:Entity) SEARCH n IN (TRIGRAM INDEX names FOR 'x' SKIP 1 LIMIT 1) RETURN n")


def test_combine_with_full_text(db):
    run(db, "CREATE FULLTEXT INDEX ft FOR (n:Entity) ON EACH [n.name]")
    query = ("MATCH (n:Entity) SEARCH n IN (COMBINE (TRIGRAM INDEX names FOR 'jon smyth' LIMIT 5, "
             "FULLTEXT INDEX ft FOR 'smyth' LIMIT 5) USING WRRF LIMIT 3) RETURN n.name")
    assert rows(db, query)[0] == ("John Smyth",)


def test_relationship_index():
    db = Database.open(None)
    try:
        run(db, "CREATE TRIGRAM INDEX aliases FOR ()-[r:ALIAS]-() ON (r.text)")
        run(db, "CREATE (:A)-[:ALIAS {text: 'Acme Corporation'}]->(:B), (:A)-[:ALIAS {text: 'Zenith'}]->(:B)")
        query = ("CALL db.index.trigram.queryRelationships('aliases', 'acme corp') YIELD relationship "
                 "RETURN relationship.text")
        assert rows(db, query) == [("Acme Corporation",)]
    finally:
        db.close()


def test_drop_by_name(db):
    run(db, "DROP INDEX names")
    assert "names" not in db.index_manager
    with pytest.raises(IndexNotFound):
        run(db, "DROP INDEX names")


_WRITER = textwrap.dedent("""
    import os, sys
    from relate.server.engine import Database
    db = Database.open(sys.argv[1])
    s = db.session()
    s.run("CREATE TRIGRAM INDEX names FOR (n:Entity) ON (n.name)").consume()
    s.run("CREATE (:Entity {name: 'Jon Smith'}), (:Entity {name: 'Alice Jones'})").consume()
    os._exit(0)            # no close, no checkpoint: as after kill -9
""")


def test_committed_index_and_rows_survive_a_crash_and_a_restart(tmp_path):
    directory = str(tmp_path / "db")
    subprocess.run([sys.executable, "-c", _WRITER, directory], check=True, cwd=REPO, timeout=120)
    db = Database.open(directory)
    try:
        assert names(db, "jon smith", 1) == ["Jon Smith"]          # rebuilt from the store
        run(db, "CREATE (:Entity {name: 'Bob Marley'})")
    finally:
        db.close()                                                  # saves the index files
    db = Database.open(directory)
    try:
        assert db.index_manager.get("names").loaded_from_files
        assert names(db, "bob marley", 1) == ["Bob Marley"]
        assert sorted(rows(db, "SHOW INDEXES YIELD name, type WHERE type <> 'LOOKUP' RETURN name, type")) == \
            [("names", "TRIGRAM")]
    finally:
        db.close()
    assert os.path.isdir(directory)
