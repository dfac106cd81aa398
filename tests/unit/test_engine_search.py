"""The SEARCH clause through the engine: vector (in-search filters), full-text (SKIP), relationships, COMBINE."""
import functools

import pytest

from relate.server.engine import Database
from tests.helpers import rows as all_rows

DOCS = [
    {"id": "a", "v": [1.0, 0.0], "t": "apple banana", "g": 1},
    {"id": "b", "v": [0.9, 0.1], "t": "banana", "g": 2},
    {"id": "c", "v": [0.0, 1.0], "t": "cherry apple apple", "g": 1},
    {"id": "d", "v": [0.5, 0.5], "t": "durian", "g": 2},
]


@pytest.fixture(scope="module")
def run():
    db = Database.open(None)
    session = db.session()
    for statement in (
            "CREATE VECTOR INDEX e FOR (n:D) ON (n.v) WITH [n.g] "
            "OPTIONS {indexConfig: {`vector.dimensions`: 2, `vector.similarity_function`: 'cosine'}}",
            "CREATE FULLTEXT INDEX t FOR (n:D) ON EACH [n.text]",
            "CREATE FULLTEXT INDEX rt FOR ()-[r:L]-() ON EACH [r.text]"):
        session.run(statement).consume()
    session.run("UNWIND $rows AS r CREATE (:D {id: r.id, v: vector(r.v, 2, FLOAT32), text: r.t, g: r.g})",
                {"rows": DOCS}).consume()
    session.run("MATCH (a:D {id: 'a'}), (b:D {id: 'b'}) CREATE (a)-[:L {text: 'link apple'}]->(b)").consume()
    db.index_manager.await_indexes(10)
    yield functools.partial(all_rows, session)
    db.close()


def ids(rows):
    return [r[0] for r in rows]


def test_vector_search_scores_and_in_search_filter(run):
    rows = run("MATCH (n:D) SEARCH n IN (VECTOR INDEX e FOR [1.0, 0.0] LIMIT 3) SCORE AS s RETURN n.id, s")
    assert ids(rows) == ["a", "b", "d"] and rows[0][1] == pytest.approx(1.0)
    rows = run("MATCH (n:D) SEARCH n IN (VECTOR INDEX e FOR $v WHERE n.g = $g LIMIT $k) SCORE AS s RETURN n.id",
               {"v": [1.0, 0.0], "g": 2, "k": 5})
    assert ids(rows) == ["b", "d"]
    rows = run("MATCH (n:D) SEARCH n IN (VECTOR INDEX e FOR [1.0, 0.0] LIMIT 3) SCORE AS s WHERE n.g = 1 "
               "RETURN n.id")
    assert ids(rows) == ["a"]                       # the WHERE after SCORE AS filters the window


def test_fulltext_search_with_skip(run):
    rows = run("MATCH (n:D) SEARCH n IN (FULLTEXT INDEX t FOR 'apple' LIMIT 10) SCORE AS s RETURN n.id")
    assert ids(rows) == ["c", "a"]
    rows = run("MATCH (n:D) SEARCH n IN (FULLTEXT INDEX t FOR 'apple' SKIP 1 LIMIT 10) SCORE AS s RETURN n.id")
    assert ids(rows) == ["a"]


def test_relationship_search_undirected_yields_each_hit_twice(run):
    assert len(run("MATCH ()-[r:L]->() SEARCH r IN (FULLTEXT INDEX rt FOR 'apple' LIMIT 5) SCORE AS s "
                   "RETURN r")) == 1
    assert len(run("MATCH ()-[r:L]-() SEARCH r IN (FULLTEXT INDEX rt FOR 'apple' LIMIT 5) SCORE AS s "
                   "RETURN r")) == 2


def test_combine_is_weighted_reciprocal_rank_fusion(run):
    rows = run("MATCH (n:D) SEARCH n IN (COMBINE (VECTOR INDEX e FOR [1.0, 0.0] LIMIT 3, "
               "FULLTEXT INDEX t FOR 'apple' LIMIT 3 WEIGHT 0.5) USING WRRF WITH CONSTANT 10 LIMIT 4) SCORE AS s "
               "RETURN n.id, s")
    expected = {"a": 1 / 11 + 0.5 / 12, "b": 1 / 12, "d": 1 / 13, "c": 0.5 / 11}
    assert ids(rows) == ["a", "b", "d", "c"]
    assert [r[1] for r in rows] == pytest.approx([expected[i] for i in ids(rows)])
    rows = run("MATCH (n:D) SEARCH n IN (COMBINE (VECTOR INDEX e FOR [1.0, 0.0] LIMIT 3, "
               "FULLTEXT INDEX t FOR 'apple' LIMIT 3) USING RRF LIMIT 1) SCORE AS s RETURN n.id, s")
    assert rows == [("a", pytest.approx(1 / 61 + 1 / 62))]


def test_search_sees_only_committed_and_visible_entities(run):
    run("MATCH (n:D {id: 'd'}) SET n.id = 'd2'")
    rows = run("MATCH (n:D) SEARCH n IN (VECTOR INDEX e FOR [0.5, 0.5] LIMIT 1) SCORE AS s RETURN n.id")
    assert ids(rows) == ["d2"]
