"""db.schema.nodeTypeProperties / relTypeProperties, apoc.meta.stats, db.index.vector.createNodeIndex /
createRelationshipIndex, db.info / dbms.info and dbms.listConfig."""
from __future__ import annotations

import re

import pytest

from relate.errors import ArgumentError, SchemaError
from relate.server.engine import Database
from tests.helpers import rows

GRAPH = ("CREATE (:Person {name: 'x', age: 3}), (:Person {name: 'y'}), (:Person {name: 'w', age: 4.5, "
         "born: date('2000-01-02'), seen: datetime('2024-01-01T10:00:00Z'), ok: true}), "
         "(p:Person:Admin {name: 'z', tags: ['a', 'b'], scores: [1, 2]}), (t:Thing), "
         "(p)-[:OWNS {since: date('2020-01-01')}]->(t), (p)-[:LIKES {w: 1}]->(t), (p)-[:LIKES]->(p)")


def test_node_type_properties(db):
    rows(db, GRAPH)
    assert rows(db, "CALL db.schema.nodeTypeProperties()") == [
        (":`Admin`:`Person`", ["Admin", "Person"], "name", ["String"], True),
        (":`Admin`:`Person`", ["Admin", "Person"], "scores", ["LongArray"], True),
        (":`Admin`:`Person`", ["Admin", "Person"], "tags", ["StringArray"], True),
        (":`Person`", ["Person"], "age", ["Double", "Long"], False),
        (":`Person`", ["Person"], "born", ["Date"], False),
        (":`Person`", ["Person"], "name", ["String"], True),
        (":`Person`", ["Person"], "ok", ["Boolean"], False),
        (":`Person`", ["Person"], "seen", ["DateTime"], False),
        (":`Thing`", ["Thing"], None, None, False),
    ]
    assert rows(db, "CALL db.schema.nodeTypeProperties() YIELD nodeType, propertyName WHERE propertyName = 'age' "
                    "RETURN nodeType") == [(":`Person`",)]


def test_rel_type_properties(db):
    rows(db, GRAPH)
    assert rows(db, "CALL db.schema.relTypeProperties()") == [
        (":`LIKES`", "w", ["Long"], False),
        (":`OWNS`", "since", ["Date"], True),
    ]
    assert rows(db, "CALL db.schema.relTypeProperties()") == \
        rows(db, "CALL db.schema.relTypeProperties() YIELD relType, propertyName, propertyTypes, mandatory "
                 "RETURN relType, propertyName, propertyTypes, mandatory")


def test_schema_procedures_on_an_empty_database(db):
    assert rows(db, "CALL db.schema.nodeTypeProperties()") == []
    assert rows(db, "CALL db.schema.relTypeProperties()") == []
    rows(db, "CREATE ()-[:R]->()")
    assert rows(db, "CALL db.schema.nodeTypeProperties()") == [("", [], None, None, False)]
    assert rows(db, "CALL db.schema.relTypeProperties()") == [(":`R`", None, None, False)]


def test_meta_stats(db):
    rows(db, GRAPH)
    ((label_count, type_count, key_count, node_count, rel_count, labels, rel_types, rel_types_count, stats),) = \
        rows(db, "CALL apoc.meta.stats()")
    assert (label_count, type_count, node_count, rel_count) == (3, 2, 5, 3)
    assert key_count == len(rows(db, "CALL db.propertyKeys()"))
    assert labels == {"Admin": 1, "Person": 4, "Thing": 1}
    assert rel_types_count == {"LIKES": 2, "OWNS": 1}
    assert rel_types == {"()-[:LIKES]->()": 2, "(:Person)-[:LIKES]->()": 2, "(:Admin)-[:LIKES]->()": 2,
                         "()-[:LIKES]->(:Thing)": 1, "()-[:LIKES]->(:Person)": 1, "()-[:LIKES]->(:Admin)": 1,
                         "()-[:OWNS]->()": 1, "(:Person)-[:OWNS]->()": 1, "(:Admin)-[:OWNS]->()": 1,
                         "()-[:OWNS]->(:Thing)": 1}
    assert stats == {"labelCount": 3, "relTypeCount": 2, "propertyKeyCount": key_count, "nodeCount": 5,
                     "relCount": 3, "labels": labels, "relTypes": rel_types}
    assert rows(db, "CALL apoc.meta.stats() YIELD nodeCount RETURN nodeCount") == [(5,)]


def test_create_node_vector_index_then_query_it(db):
    rows(db, "CALL db.index.vector.createNodeIndex('chunks', 'Chunk', 'embedding', 3, 'COSINE')")
    assert rows(db, "SHOW VECTOR INDEXES YIELD name, entityType, labelsOrTypes, properties, options "
                    "RETURN name, entityType, labelsOrTypes, properties, "
                    "options.indexConfig.`vector.dimensions`, options.indexConfig.`vector.similarity_function`") \
        == [("chunks", "NODE", ["Chunk"], ["embedding"], 3, "cosine")]
    rows(db, "UNWIND [['x', [1.0, 0.0, 0.0]], ['y', [0.0, 1.0, 0.0]]] AS r "
             "CREATE (:Chunk {id: r[0], embedding: r[1]})")
    rows(db, "CALL db.awaitIndexes()")
    assert rows(db, "CALL db.index.vector.queryNodes('chunks', 1, [0.1, 0.9, 0.0]) YIELD node RETURN node.id") == \
        [("y",)]


def test_create_relationship_vector_index_then_query_it(db):
    rows(db, "CALL db.index.vector.createRelationshipIndex('rels', 'SIMILAR', 'v', 2, 'euclidean')")
    rows(db, "CREATE (a)-[:SIMILAR {v: [1.0, 1.0], k: 'near'}]->(b), (a)-[:SIMILAR {v: [9.0, 9.0], k: 'far'}]->(b)")
    rows(db, "CALL db.awaitIndexes()")
    assert rows(db, "CALL db.index.vector.queryRelationships('rels', 1, [1.0, 1.2]) YIELD relationship "
                    "RETURN relationship.k") == [("near",)]
    assert rows(db, "SHOW INDEXES YIELD name, type, entityType WHERE name = 'rels' RETURN type, entityType") == [
        ("VECTOR", "RELATIONSHIP")]


def test_create_vector_index_inside_an_explicit_transaction(db):
    session = db.session()
    session.begin()
    rows(session, "CALL db.index.vector.createNodeIndex('later', 'Doc', 'e', 2, 'cosine')")
    session.commit()
    assert rows(db, "SHOW INDEXES YIELD name WHERE name = 'later' RETURN name") == [("later",)]


@pytest.mark.parametrize("args, error, message", [
    ("'bad', 'L', 'p', 0, 'cosine'", ArgumentError, "vectorDimension"),
    ("'bad', 'L', 'p', 5000, 'cosine'", ArgumentError, "vectorDimension"),
    ("'bad', 'L', 'p', 3, 'manhattan'", ArgumentError, "vectorSimilarityFunction"),
    ("'', 'L', 'p', 3, 'cosine'", ArgumentError, "indexName"),
    ("'bad', null, 'p', 3, 'cosine'", ArgumentError, "label"),
])
def test_create_vector_index_errors(db, args, error, message):
    with pytest.raises(error, match=message):
        rows(db, f"CALL db.index.vector.createNodeIndex({args})")
    assert rows(db, "SHOW INDEXES YIELD name WHERE name = 'bad' RETURN name") == []


def test_create_vector_index_with_an_existing_name_fails(db):
    rows(db, "CREATE INDEX taken FOR (n:Person) ON (n.name)")
    with pytest.raises(SchemaError) as raised:
        rows(db, "CALL db.index.vector.createNodeIndex('taken', 'Doc', 'e', 2, 'cosine')")
    assert raised.value.code == "Neo.ClientError.Schema.IndexWithNameAlreadyExists"
    rows(db, "CALL db.index.vector.createNodeIndex('vec', 'Doc', 'e', 2, 'cosine')")
    with pytest.raises(SchemaError):
        rows(db, "CALL db.index.vector.createNodeIndex('vec', 'Doc', 'other', 2, 'cosine')")


def test_db_and_dbms_info(db):
    ((db_id, name, created),) = rows(db, "CALL db.info()")
    assert name == "neo4j" and re.fullmatch(r"[0-9A-F]{32,64}", db_id)
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", created)
    assert rows(db, "CALL db.info()") == [(db_id, name, created)]          # stable
    ((dbms_id, dbms_name, dbms_created),) = rows(db, "CALL dbms.info()")
    assert dbms_id != db_id and dbms_name and dbms_created == created


def test_db_info_of_a_database_directory_is_stable_across_opens(tmp_path):
    first = Database.open(str(tmp_path / "data"))
    try:
        before = rows(first, "CALL db.info()")
    finally:
        first.close()
    second = Database.open(str(tmp_path / "data"))
    try:
        assert rows(second, "CALL db.info()") == before
    finally:
        second.close()


def test_list_config(db):
    settings = {name: (value, dynamic) for name, _, value, dynamic in rows(db, "CALL dbms.listConfig()")}
    assert settings["query_timeout"] == (None, False) and settings["read_only"] == ("false", False)
    # Relate's name and Neo4j's (db.transaction.timeout), by name as Neo4j lists them
    assert rows(db, "CALL dbms.listConfig('TIMEOUT') YIELD name RETURN name") == [("db.transaction.timeout",),
                                                                                  ("query_timeout",)]
    assert all(description for _, description, _, _ in rows(db, "CALL dbms.listConfig('')"))


def test_info_procedures_are_listed_with_descriptions(db):
    names = ["db.schema.nodeTypeProperties", "db.schema.relTypeProperties", "apoc.meta.stats",
             "db.index.vector.createNodeIndex", "db.index.vector.createRelationshipIndex", "db.info", "dbms.info",
             "dbms.listConfig"]
    listed = dict(rows(db, "SHOW PROCEDURES YIELD name, description WHERE name IN $names RETURN name, description",
                       {"names": names}))
    assert sorted(listed) == sorted(names) and all(listed.values())


def test_show_settings_lists_the_engines_settings(db):
    names = [row[0] for row in rows(db, "SHOW SETTINGS YIELD name")]
    assert "query_timeout" in names and "read_only" in names
    assert rows(db, "SHOW SETTING 'read_only', 'fulltext_engine' YIELD name, value, isDynamic "
                    "RETURN name, value, isDynamic ORDER BY name") == [("fulltext_engine", "tantivy", False),
                                                                      ("read_only", "false", False)]
    assert rows(db, "SHOW SETTINGS YIELD * WHERE name = 'nope' RETURN name") == []
    assert rows(db, "WITH 1 AS settings RETURN settings") == [(1,)]


def test_client_config_and_current_user(db):
    config = dict(rows(db, "CALL dbms.clientConfig() YIELD name, value RETURN name, value"))
    assert config["browser.allow_outgoing_connections"] == "false"
    assert rows(db, "CALL dbms.showCurrentUser()") == []          # embedded: nobody logged in
