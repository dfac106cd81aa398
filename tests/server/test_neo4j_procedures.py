"""Neo4j 5 built-in procedures as a Neo4j user meets them, embedded: db.schema.visualization's virtual
graph, db.awaitIndex, db.createLabel / createRelationshipType / createProperty (tokens that stop the
unknown-name warnings, durably), db.checkpoint, and SHOW FUNCTIONS' signatures at their source."""
from __future__ import annotations

import pytest

import relate
from relate.protocol.errors import IndexNotFound
from relate.protocol.values import Node, Relationship
from relate.server.query.exec import functions


@pytest.fixture
def db():
    connection = relate.connect(":memory:")
    yield connection
    connection.close()


def _codes(connection, text: str) -> list[str]:
    result = connection.execute(text)
    result.consume()
    return [note["code"].rsplit(".", 1)[-1] for note in result.summary.notifications]


# -- db.schema.visualization -------------------------------------------------------------------------

def test_schema_visualization_returns_virtual_nodes_and_relationships(db):
    db.execute("CREATE CONSTRAINT topic_name FOR (t:Topic) REQUIRE t.name IS UNIQUE")
    db.execute("CREATE INDEX note_id FOR (n:Note) ON (n.id)")
    db.execute("CREATE (:Note {id: 1})-[:ABOUT]->(:Topic {name: 'auth'}), (:Note {id: 2})-[:ABOUT]->(:Note)")
    row = db.execute("CALL db.schema.visualization()").single()
    nodes, rels = row["nodes"], row["relationships"]
    assert all(type(n) is Node for n in nodes) and all(type(r) is Relationship for r in rels)
    by_name = {n["name"]: n for n in nodes}
    assert set(by_name) == {"Note", "Topic"}
    assert [list(n.labels) for n in nodes] == [["Note"], ["Topic"]]        # labelled with the label
    assert by_name["Note"]["indexes"] == ["range (id)"] and by_name["Topic"]["constraints"] == ["unique (name)"]
    # negative ids: no stored entity has one
    assert all(n.id < 0 for n in nodes) and all(r.id < 0 for r in rels)
    ends = {(by_name_of(nodes, r.start_id), r.type, by_name_of(nodes, r.end_id)) for r in rels}
    assert ends == {("Note", "ABOUT", "Topic"), ("Note", "ABOUT", "Note")}
    assert all(r["name"] == r.type for r in rels)


def by_name_of(nodes, nid):
    return next(n["name"] for n in nodes if n.id == nid)


def test_schema_visualization_values_work_in_cypher(db):
    db.execute("CREATE (:Person)-[:KNOWS]->(:Person)-[:LIKES]->(:Movie)")
    row = db.execute("CALL db.schema.visualization() YIELD nodes, relationships "
                     "RETURN [n IN nodes | labels(n)] AS labels, [n IN nodes | n.name] AS names, "
                     "[r IN relationships | [startNode(r).name, type(r), endNode(r).name]] AS triples, "
                     "labels(nodes[0]) AS first").single()
    assert row["labels"] == [["Movie"], ["Person"]] and row["names"] == ["Movie", "Person"]
    assert sorted(row["triples"]) == [["Person", "KNOWS", "Person"], ["Person", "LIKES", "Movie"]]
    assert row["first"] == ["Movie"]
    # the stored graph is untouched: nothing new to count
    assert db.execute("MATCH (n) RETURN count(n) AS c").single()["c"] == 3


def test_schema_visualization_signature_says_node_and_relationship(db):
    shown = db.execute("SHOW PROCEDURES YIELD name, signature WHERE name = 'db.schema.visualization' "
                       "RETURN signature").single()["signature"]
    assert "nodes :: LIST? OF NODE?" in shown and "relationships :: LIST? OF RELATIONSHIP?" in shown


# -- db.awaitIndex -------------------------------------------------------------------------------------

def test_await_index_waits_for_named_indexes_and_refuses_unknown_names(db):
    db.execute("CREATE INDEX comp FOR (p:Person) ON (p.name, p.age)")
    db.execute("CREATE CONSTRAINT pid FOR (p:Person) REQUIRE p.id IS UNIQUE")
    db.execute("CREATE FULLTEXT INDEX ft FOR (n:Person) ON EACH [n.name]")
    assert db.execute("CALL db.awaitIndex('comp', 300)").data() == []
    assert db.execute("CALL db.awaitIndex('pid')").data() == []            # a constraint's own index
    assert db.execute("CALL db.awaitIndex('ft')").data() == []             # a search index, built in the background
    with pytest.raises(IndexNotFound) as failure:
        db.execute("CALL db.awaitIndex('nope')").consume()
    assert failure.value.code == "Neo.ClientError.Schema.IndexNotFound" and "No such index 'nope'" in str(failure.value)


# -- db.createLabel / createRelationshipType / createProperty ------------------------------------------

def test_created_tokens_stop_the_unknown_name_warnings(db):
    indexes = db.execute("SHOW INDEXES").data()
    assert _codes(db, "MATCH (n:Foo) RETURN n") == ["UnknownLabelWarning"]
    assert _codes(db, "MATCH ()-[r:FOO]->() RETURN r") == ["UnknownRelationshipTypeWarning"]
    assert _codes(db, "MATCH (n) WHERE n.foo = 1 RETURN n") == ["UnknownPropertyKeyWarning"]
    db.execute("CALL db.createLabel('Foo')").consume()
    db.execute("CALL db.createRelationshipType('FOO')").consume()
    db.execute("CALL db.createProperty('foo')").consume()
    db.execute("CALL db.createLabel('Foo')").consume()                      # again: a no-op
    assert _codes(db, "MATCH (n:Foo) RETURN n") == []
    assert _codes(db, "MATCH ()-[r:FOO]->() RETURN r") == []
    assert _codes(db, "MATCH (n) WHERE n.foo = 1 RETURN n") == []
    # each kind is its own: a label named FOO is still unknown
    assert _codes(db, "MATCH (n:FOO) RETURN n") == ["UnknownLabelWarning"]
    assert {"foo"} <= {r["propertyKey"] for r in db.execute("CALL db.propertyKeys()").data()}
    # created tokens are not indexes, constraints or schema nodes
    assert db.execute("SHOW INDEXES").data() == indexes and db.execute("SHOW CONSTRAINTS").data() == []
    assert db.execute("CALL db.schema.visualization()").single()["nodes"] == []


def test_created_tokens_survive_a_restart_and_a_checkpoint(tmp_path):
    path = str(tmp_path / "db")
    with relate.connect(path) as connection:
        connection.execute("CALL db.createLabel('Foo')").consume()
        connection.execute("CALL db.createRelationshipType('FOO')").consume()
    with relate.connect(path) as connection:                                # replayed from the WAL
        assert _codes(connection, "MATCH (n:Foo)-[:FOO]->() RETURN n") == []
        connection.execute("CALL db.createProperty('foo')").consume()
        assert connection.execute("CALL db.checkpoint()").single()["success"] is True
    with relate.connect(path) as connection:                                # loaded from the snapshot
        assert _codes(connection, "MATCH (n:Foo)-[:FOO]->() WHERE n.foo = 1 RETURN n") == []


def test_token_procedures_refuse_a_missing_name(db):
    with pytest.raises(Exception, match="non-empty name"):
        db.execute("CALL db.createLabel(null)").consume()
    with pytest.raises(Exception, match="non-empty name"):
        db.execute("CALL db.createProperty('')").consume()


def test_a_rolled_back_token_is_not_created(db):
    with pytest.raises(RuntimeError):
        with db.transaction() as tx:
            tx.execute("CALL db.createLabel('Gone')").consume()
            raise RuntimeError("roll back")
    assert _codes(db, "MATCH (n:Gone) RETURN n") == ["UnknownLabelWarning"]


# -- db.checkpoint -------------------------------------------------------------------------------------

def test_checkpoint_writes_a_snapshot_and_trims_the_wal(tmp_path):
    path = tmp_path / "db"
    with relate.connect(str(path)) as connection:
        connection.execute("UNWIND range(1, 50) AS i CREATE (:N {i: i})")
        before = {p.name for p in path.rglob("*") if p.is_file()}
        row = connection.execute("CALL db.checkpoint()").single()
        assert row["success"] is True and row["message"]
        after = {p.name for p in path.rglob("*") if p.is_file()}
        assert after != before                                          # a new snapshot file at least
    with relate.connect(str(path)) as connection:
        assert connection.execute("MATCH (n:N) RETURN count(n) AS c").single()["c"] == 50


def test_checkpoint_inside_a_writing_transaction_declines_instead_of_waiting(tmp_path):
    with relate.connect(str(tmp_path / "db")) as connection:
        with connection.transaction() as tx:
            tx.execute("CREATE (:C)").consume()
            row = tx.execute("CALL db.checkpoint()").single()
            assert row["success"] is False and "on its own" in row["message"]
        assert connection.execute("CALL db.checkpoint()").single()["success"] is True


def test_checkpoint_in_memory_succeeds(db):
    assert db.execute("CALL db.checkpoint()").single()["success"] is True


def test_new_procedures_are_listed_with_signatures(db):
    shown = {r["name"]: r for r in db.execute("SHOW PROCEDURES YIELD name, signature, mode, description").data()}
    for name in ("db.awaitIndex", "db.createLabel", "db.createRelationshipType", "db.createProperty",
                 "db.checkpoint"):
        assert name in shown and shown[name]["description"], name
    assert shown["db.awaitIndex"]["signature"].startswith("db.awaitIndex(indexName :: STRING?, timeOutSeconds")
    assert shown["db.createLabel"]["mode"] == "WRITE"
    assert shown["db.checkpoint"]["signature"] == "db.checkpoint() :: (success :: BOOLEAN?, message :: STRING?)"
    # defaults as Neo4j prints them: ``name = default :: TYPE``
    assert shown["db.awaitIndex"]["signature"] == "db.awaitIndex(indexName :: STRING?, timeOutSeconds = 300 :: INTEGER?) :: ()"
    assert "database = null :: STRING?" in shown["dbms.routing.getRoutingTable"]["signature"]
    assert "options = {} :: MAP?" in shown["db.index.fulltext.queryNodes"]["signature"]


# -- SHOW FUNCTIONS' signatures at their source --------------------------------------------------------

def test_function_catalog_has_neo4j_signatures():
    info = {i.name: i for i in functions.catalog()}
    assert info["toUpper"].signature == "toUpper(input :: STRING) :: STRING"
    assert info["toUpper"].argument_description == [
        {"name": "input", "description": "input :: STRING", "type": "STRING", "isDeprecated": False}]
    assert info["toUpper"].return_description == "STRING"
    assert info["substring"].signature == "substring(original :: STRING, start :: INTEGER, length :: INTEGER) :: STRING"
    assert [a["name"] for a in info["round"].argument_description] == ["value", "precision", "mode"]
    assert info["collect"].return_description == "LIST<ANY>" and info["collect"].aggregating
    assert info["datetime.truncate"].signature.endswith(":: ZONED DATETIME")
    # every built-in (not APOC) function is in the one table; none says "arguments" any more
    assert all(" arguments)" not in i.signature for i in info.values())
    # argument names of functions outside the table come from their implementation
    assert info["apoc.text.join"].signature == "apoc.text.join(values :: ANY, delimiter :: ANY) :: ANY"


def test_apoc_functions_are_not_built_in():
    info = {i.name: i for i in functions.catalog()}
    assert info["toUpper"].is_builtin and info["vector.similarity.cosine"].is_builtin
    apoc = [i for i in info.values() if i.name.lower().startswith("apoc.")]
    assert apoc and not any(i.is_builtin for i in apoc)


def test_every_builtin_function_has_a_table_signature():
    from relate.server.query.catalog_docs import FUNCTION_SIGNATURES
    missing = [i.name for i in functions.catalog()
               if not i.name.lower().startswith("apoc.") and i.name.lower() not in FUNCTION_SIGNATURES]
    assert missing == []


def test_show_functions_reports_the_catalog_signatures(db):
    row = db.execute("SHOW FUNCTIONS YIELD * WHERE name = 'toUpper'").single()
    assert row["signature"] == "toUpper(input :: STRING) :: STRING"
    assert row["argumentDescription"] == [
        {"name": "input", "description": "input :: STRING", "type": "STRING", "isDeprecated": False}]
    assert row["returnDescription"] == "STRING" and row["isBuiltIn"] is True
    apoc = db.execute("SHOW FUNCTIONS YIELD name, isBuiltIn WHERE name STARTS WITH 'apoc' "
                      "RETURN count(*) AS c, collect(DISTINCT isBuiltIn) AS b").single()
    assert apoc["c"] > 0 and apoc["b"] == [False]
