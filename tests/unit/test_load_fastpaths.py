"""Fast paths of bulk loading (UNWIND ... MATCH (n:L {key: ...}) CREATE (n)-[:T]->(m)): the inlined
index seek (stale candidates, numeric/boolean equality, MVCC), the Eager rule for relationship-only
CREATEs, and statement-end constraint checks."""
import pytest

from relate.errors import ConstraintValidationFailed
from relate.server.engine import Database
from relate.server.query.parser import parse
from relate.server.query.planner import logical as L
from relate.server.query.planner import plan_query
from relate.server.storage import GraphStore
from tests.helpers import rows


def operators(db, text):
    tx = db.store.begin_read()
    try:
        return [type(op).__name__ for op in L.walk(plan_query(parse(text).body, tx, db.procedures).logical)]
    finally:
        tx.close()


def test_index_seek_equality_by_kind_and_stale_candidates():
    store = GraphStore.open(None)
    tx = store.begin_write()
    tx.create_property_index("node", "A", "v")
    one = tx.create_node(["A"], {"v": 1})
    flt = tx.create_node(["A"], {"v": 2.0})
    yes = tx.create_node(["A"], {"v": True})
    lst = tx.create_node(["A"], {"v": [1, "x"]})
    other = tx.create_node(["B"], {"v": 1})
    assert list(tx.index_seek("node", "A", "v", 1)) == [one]
    assert list(tx.index_seek("node", "A", "v", 1.0)) == [one]          # 1 = 1.0
    assert list(tx.index_seek("node", "A", "v", 2)) == [flt]
    assert list(tx.index_seek("node", "A", "v", True)) == [yes]         # true <> 1
    assert list(tx.index_seek("node", "A", "v", [1.0, "x"])) == [lst]
    assert list(tx.index_seek("node", "A", "v", [True, "x"])) == []
    assert list(tx.index_seek("node", "A", "v", float("nan"))) == []
    tx.commit()
    snapshot = store.begin_read()
    tx = store.begin_write()
    tx.set_node_prop(one, "v", 5)                  # the entry under 1 goes stale
    tx.delete_node(flt)
    tx.remove_labels(yes, ["A"])
    assert list(tx.index_seek("node", "A", "v", 1)) == []
    assert list(tx.index_seek("node", "A", "v", 5)) == [one]
    assert list(tx.index_seek("node", "A", "v", 2)) == []
    assert list(tx.index_seek("node", "A", "v", True)) == []
    # the snapshot still sees the committed state
    assert list(snapshot.index_seek("node", "A", "v", 1)) == [one]
    assert list(snapshot.index_seek("node", "A", "v", 2.0)) == [flt]
    assert list(snapshot.index_seek("node", "A", "v", True)) == [yes]
    assert list(snapshot.index_seek("node", "A", "v", 5)) == []
    tx.rollback()
    assert list(store.begin_read().index_seek("node", "A", "v", 1)) == [one]
    assert other not in list(store.begin_read().index_seek("node", "A", "v", 1))


@pytest.fixture
def db(db):
    s = db.session()
    s.run("CREATE CONSTRAINT FOR (n:Note) REQUIRE n.id IS UNIQUE").consume()
    s.run("CREATE CONSTRAINT FOR (t:Topic) REQUIRE t.name IS UNIQUE").consume()
    s.run("CREATE CONSTRAINT FOR ()-[d:DECIDED]-() REQUIRE d.ts IS :: INTEGER").consume()
    s.run("UNWIND range(1, 20) AS i CREATE (:Note {id: 'n' + toString(i)})").consume()
    s.run("UNWIND ['a', 'b', 'c'] AS name CREATE (:Topic {name: name})").consume()
    return db


LOAD = ("UNWIND $rows AS r MATCH (n:Note {id: r.note}), (t:Topic {name: r.topic}) "
        "CREATE (n)-[:ABOUT]->(t)")


def test_relationship_only_create_after_node_match_needs_no_eager(db):
    assert "Eager" not in operators(db, LOAD)
    for text in ["MATCH (a)-->(b) CREATE (a)-[:R]->(b)",                       # reads relationships
                 "MATCH (a), (b) WHERE NOT (a)-->(b) CREATE (a)-[:R]->(b)",      # pattern predicate
                 "MATCH (a), (b) WHERE COUNT { (a)--() } = 0 CREATE (a)-[:R]->(b)",
                 "MATCH (a) WITH a, [(a)-->(x) | x] AS xs MATCH (b) CREATE (a)-[:R]->(b)",
                 "MATCH (a), (b) CREATE (a)-[:R]->(:New)",                       # creates a node
                 "MATCH (a), (b) CREATE (a)-[:R]->(b) SET a.x = 1"]:
        assert "Eager" in operators(db, text), text


def test_node_match_then_relationship_create_results(db):
    rows_in = [{"note": f"n{i}", "topic": "abc"[i % 3]} for i in range(1, 21)] + [{"note": "zz", "topic": "a"}]
    db.session().run(LOAD, {"rows": rows_in}).consume()
    assert rows(db, "MATCH (:Note)-[r:ABOUT]->(:Topic) RETURN count(r)")[0][0] == 20
    # without an Eager a pattern predicate would see the earlier rows' writes: still one per pair
    db.session().run("MATCH (a:Topic), (b:Topic) WHERE NOT (a)-->(b) CREATE (a)-[:R]->(b)").consume()
    assert rows(db, "MATCH (:Topic)-[r:R]->(:Topic) RETURN count(r)")[0][0] == 9
    # every row of a node-only MATCH gets its relationship (no row lost or repeated)
    db.session().run("MATCH (a:Note), (b:Topic) CREATE (a)-[:S]->(b)").consume()
    assert rows(db, "MATCH ()-[r:S]->() RETURN count(r)")[0][0] == 60


def test_constraints_still_checked_on_loaded_relationships(db):
    with pytest.raises(ConstraintValidationFailed):
        db.session().run("UNWIND $rows AS r MATCH (n:Note {id: r.note}), (t:Topic {name: r.topic}) "
                         "CREATE (n)-[:DECIDED {ts: r.ts}]->(t)",
                         {"rows": [{"note": "n1", "topic": "a", "ts": 1}, {"note": "n2", "topic": "b", "ts": "x"}]}
                         ).consume()
    assert rows(db, "MATCH ()-[r:DECIDED]->() RETURN count(r)")[0][0] == 0      # the statement left no trace
    with pytest.raises(ConstraintValidationFailed):
        db.session().run("UNWIND ['n3', 'n3'] AS id CREATE (:Note {id: id + 'x'})").consume()
    assert rows(db, "MATCH (n:Note) RETURN count(n)")[0][0] == 20


def test_one_relationship_create_counters_props_and_fallbacks():
    db = Database.open(None)
    s = db.session()
    s.run("UNWIND range(1, 3) AS i CREATE (:N {id: i})").consume()
    summary = s.run("UNWIND $rows AS r MATCH (a:N {id: r.a}), (b:N {id: r.b}) "
                    "CREATE (a)-[:T {w: r.w, none: null}]->(b)",
                    {"rows": [{"a": 1, "b": 2, "w": 5}, {"a": 2, "b": 3, "w": None}]}).consume()
    assert summary.counters.relationships_created == 2
    assert summary.counters.properties_set == 1
    assert rows(db, "MATCH (a)-[r:T]->(b) RETURN a.id, r.w, b.id ORDER BY a.id") == [(1, 5, 2), (2, None, 3)]
    # an unbound end creates the node (general path), a null end fails
    summary = s.run("MATCH (a:N {id: 1}) CREATE (a)-[:U]->(:M)").consume()
    assert (summary.counters.relationships_created, summary.counters.nodes_created) == (1, 1)
    with pytest.raises(Exception):
        s.run("OPTIONAL MATCH (a:Missing) MATCH (b:N {id: 1}) CREATE (a)-[:V]->(b)").consume()
    assert rows(db, "MATCH ()-[r:V]->() RETURN count(r)") == [(0,)]
    # a map property is refused and the statement leaves nothing behind
    with pytest.raises(Exception):
        s.run("MATCH (a:N), (b:N {id: 1}) CREATE (a)-[:W {m: {x: 1}}]->(b)").consume()
    assert rows(db, "MATCH ()-[r:W]->() RETURN count(r)") == [(0,)]
    # rows after the create see the relationship; LIMIT stops early with exact counters
    assert rows(db, "MATCH (a:N {id: 3}), (b:N {id: 1}) CREATE (a)-[r:X]->(b) RETURN type(r), startNode(r).id") \
        == [("X", 3)]
    summary = s.run("MATCH (a:N), (b:N {id: 1}) CREATE (a)-[:Y]->(b) WITH a LIMIT 1 RETURN a").consume()
    assert summary.counters.relationships_created == rows(db, "MATCH ()-[r:Y]->() RETURN count(r)")[0][0]
    # rollback of an explicit transaction leaves no relationship
    s.begin()
    s.run("MATCH (a:N {id: 1}), (b:N {id: 2}) CREATE (a)-[:Z]->(b)").consume()
    s.rollback()
    assert rows(db, "MATCH ()-[r:Z]->() RETURN count(r)") == [(0,)]
    db.close()


def test_map_property_access_in_expressions():
    db = Database.open(None)
    assert rows(db, "UNWIND $rows AS r RETURN r.a, r.b", {"rows": [{"a": 1}, {"a": None, "b": [2]}]}) \
        == [(1, None), (None, [2])]
    db.close()
