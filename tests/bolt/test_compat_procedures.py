"""The Neo4j-compatibility procedures, embedded (no network): what they compute over the data and catalog."""
import pytest

import relate


@pytest.fixture
def db():
    with relate.connect(":memory:") as conn:
        yield conn


def test_set_node_vector_property_keeps_rows_and_checks_constraints(db):
    db.execute("UNWIND range(1, 3) AS i CREATE (:Doc {i: i})").consume()
    rows = db.execute("MATCH (d:Doc) CALL db.create.setNodeVectorProperty(d, 'emb', [d.i, 0.5]) "
                      "RETURN d.i AS i ORDER BY i").fetchall()
    assert [r[0] for r in rows] == [1, 2, 3]                     # a void procedure keeps its rows
    assert db.execute("MATCH (d:Doc {i: 2}) RETURN d.emb").fetchone()[0] == [2.0, 0.5]
    db.execute("CREATE CONSTRAINT emb_is_string FOR (d:Doc) REQUIRE d.tag IS :: STRING").consume()
    with pytest.raises(relate.ConstraintValidationFailed):
        db.execute("MATCH (d:Doc {i: 1}) CALL db.create.setNodeVectorProperty(d, 'tag', [1.0])").consume()
    assert db.execute("MATCH (d:Doc {i: 1}) RETURN d.tag").fetchone()[0] is None
    with pytest.raises(relate.ArgumentError):
        db.execute("MATCH (d:Doc) CALL db.create.setNodeVectorProperty(d, 'emb', ['x'])").consume()


def test_set_relationship_vector_property(db):
    db.execute("CREATE (:A)-[:R]->(:B)").consume()
    summary = db.execute("MATCH ()-[r:R]->() CALL db.create.setRelationshipVectorProperty(r, 'v', [1, 2]) "
                         "RETURN count(*) AS c").consume()
    assert summary.counters.properties_set == 1
    assert db.execute("MATCH ()-[r:R]->() RETURN r.v").fetchone()[0] == [1.0, 2.0]


def test_dbms_components(db):
    assert db.execute("CALL dbms.components() YIELD name, versions, edition").fetchall() == [
        ("Neo4j Kernel", ["5.26.0"], "community")]


def test_apoc_meta_data_over_the_data(db):
    db.execute("CREATE (:P {name: 'a', age: 1})-[:KNOWS {since: 2000}]->(:P {name: 'b'})-[:IN]->(:C {tags: ['x']})"
               ).consume()
    rows = db.execute("CALL apoc.meta.data() YIELD label, property, type, elementType, other, count "
                      "RETURN label, property, type, elementType, other, count").fetchall()
    assert sorted(map(tuple, rows)) == sorted([
        ("P", "IN", "RELATIONSHIP", "node", ["C"], 1), ("P", "KNOWS", "RELATIONSHIP", "node", ["P"], 1),
        ("P", "age", "INTEGER", "node", [], 1), ("P", "name", "STRING", "node", [], 2),
        ("C", "tags", "LIST", "node", [], 1), ("KNOWS", "since", "INTEGER", "relationship", [], 1)])
    sampled = db.execute("CALL apoc.meta.data({sample: 1}) YIELD label, property, count "
                         "WHERE label = 'P' AND property = 'name' RETURN count").fetchone()[0]
    assert sampled == 1


def test_apoc_schema_nodes_from_the_catalog(db):
    db.execute("UNWIND ['a', 'b', 'b'] AS n CREATE (:P {name: n})").consume()
    db.execute("CREATE INDEX p_name FOR (p:P) ON (p.name)").consume()
    db.execute("CREATE CONSTRAINT c_id FOR (c:C) REQUIRE c.id IS UNIQUE").consume()
    rows = {r[0]: r[1:] for r in db.execute(
        "CALL apoc.schema.nodes() YIELD name, label, properties, type, size, valuesSelectivity "
        "RETURN name, label, properties, type, size, valuesSelectivity").fetchall()}
    assert rows["p_name"] == ("P", ["name"], "RANGE", 3, pytest.approx(2 / 3))
    assert rows["c_id"][:3] == ("C", ["id"], "UNIQUENESS")


def test_index_names_as_parameters(db):
    db.execute("CREATE VECTOR INDEX $name IF NOT EXISTS FOR (n:Doc) ON n.emb "
               "OPTIONS {indexConfig: {`vector.dimensions`: toInteger($d), `vector.similarity_function`: 'cosine'}}",
               name="by_param", d=2.0).consume()
    assert db.execute("SHOW VECTOR INDEXES YIELD name RETURN name").fetchall() == [("by_param",)]
    db.execute("DROP INDEX $name IF EXISTS", name="by_param").consume()
    assert db.execute("SHOW VECTOR INDEXES YIELD name RETURN name").fetchall() == []
    with pytest.raises(relate.ParameterMissing):
        db.execute("DROP INDEX $name").consume()


def test_apoc_merge_node_and_relationship(db):
    query = ("UNWIND $rows AS row CALL apoc.merge.node([row.label], {id: row.id}, {name: row.name}, {seen: true}) "
             "YIELD node RETURN node.id AS id, node.name AS name, node.seen AS seen ORDER BY id")
    first = db.execute(query, rows=[{"label": "P", "id": 1, "name": "a"}, {"label": "P", "id": 2, "name": "b"}])
    assert first.fetchall() == [(1, "a", None), (2, "b", None)]
    assert first.summary.counters.nodes_created == 2
    again = db.execute(query, rows=[{"label": "P", "id": 1, "name": "ignored"}])
    assert again.fetchall() == [(1, "a", True)] and again.summary.counters.nodes_created == 0
    rel = ("MATCH (a:P {id: 1}), (b:P {id: 2}) CALL apoc.merge.relationship(a, 'KNOWS', {}, {w: $w}, b) "
           "YIELD rel RETURN rel.w AS w")
    assert db.execute(rel, w=1).fetchall() == [(1,)]
    assert db.execute(rel, w=2).fetchall() == [(1,)]              # merged: onCreate not applied again
    assert db.execute("MATCH ()-[r:KNOWS]->() RETURN count(r)").fetchone()[0] == 1
    with pytest.raises(relate.ArgumentError):
        db.execute("CALL apoc.merge.node(['P'], {id: null})").consume()


def test_dynamic_labels_in_set(db):
    db.execute("CREATE (:A {t: 'X'}), (:A {t: 'Y'})").consume()
    result = db.execute("MATCH (n:A) SET n:$(n.t), n:$(['Z', 'W']):Q RETURN labels(n) AS l ORDER BY n.t")
    assert [sorted(r[0]) for r in result.fetchall()] == [["A", "Q", "W", "X", "Z"], ["A", "Q", "W", "Y", "Z"]]
    assert result.summary.counters.labels_added == 8
    with pytest.raises(relate.CypherTypeError):
        db.execute("MATCH (n:A) SET n:$(n.t), n:$(1)").consume()
    with pytest.raises(relate.CypherSyntaxError):
        db.execute("MATCH (n:A) SET n:$(nope)").consume()
    assert db.execute("MATCH (n:X) RETURN count(n)").fetchone()[0] == 1       # the failures left nothing
