"""Queries written for FalkorDB run unchanged: vecf32(), vec.*Distance(), CREATE VECTOR INDEX with
FalkorDB's OPTIONS, db.idx.vector.queryNodes/queryRelationships (score = distance, smallest first) and
db.idx.fulltext.createNodeIndex/queryNodes/drop with RediSearch's query syntax."""
import math

import numpy as np
import pytest

from relate.protocol.errors import ArgumentError, CypherTypeError, IndexNotFound
from relate.server.query.procedures_falkordb import lucene_of_redisearch
from tests.helpers import rows

VECTORS = {"a": [1.0, 0.0, 0.0], "b": [0.6, 0.8, 0.0], "c": [0.0, 0.0, 1.0], "d": [-1.0, 0.1, 0.0]}


@pytest.fixture
def db(db):
    for title, v in VECTORS.items():
        rows(db, "CREATE (:Doc {title: $t, e: vecf32($v)})", {"t": title, "v": v})
    return db


def test_vecf32_and_the_distances():
    import relate
    with relate.connect(":memory:") as conn:
        v = conn.execute("RETURN vecf32([1, 2.5]) AS v").fetchone().v
        assert v.coordinate_type == "FLOAT32" and list(v) == [1.0, 2.5]
        assert conn.execute("RETURN vecf32(null) AS v").fetchone().v is None
        for bad, error in (("[]", ArgumentError), ("['x']", CypherTypeError), ("'text'", CypherTypeError)):
            with pytest.raises(error):
                conn.execute(f"RETURN vecf32({bad}) AS v").fetchone()
        got = conn.execute("RETURN vec.euclideanDistance(vecf32([0, 0]), [3, 4]) AS e, "
                           "vec.cosineDistance(vecf32([1, 0]), vecf32([0, 1])) AS c, "
                           "vec.cosineDistance(vecf32([1, 1]), vecf32([2, 2])) AS same, "
                           "vec.euclideanDistance(null, [1]) AS n").fetchone()
        assert (got.e, got.c, got.n) == (5.0, 1.0, None) and abs(got.same) < 1e-9
        with pytest.raises(ArgumentError):
            conn.execute("RETURN vec.cosineDistance([1, 2], [1, 2, 3])").fetchone()


def test_a_vector_index_with_falkordb_options_answers_with_distances(db):
    rows(db, "CREATE VECTOR INDEX FOR (d:Doc) ON (d.e) OPTIONS {dimension: 3, similarityFunction: 'cosine', "
             "M: 24, efConstruction: 100, efRuntime: 50}")
    rows(db, "CALL db.awaitIndexes(30)")
    config = rows(db, "SHOW VECTOR INDEXES YIELD options RETURN options.indexConfig AS c")[0][0]
    assert (config["vector.dimensions"], config["vector.similarity_function"], config["vector.hnsw.m"],
            config["vector.hnsw.ef_search"]) == (3, "cosine", 24, 50)
    query = [0.8, 0.6, 0.0]
    got = rows(db, "CALL db.idx.vector.queryNodes('Doc', 'e', 3, vecf32($q)) YIELD node, score "
                   "RETURN node.title, score, vec.cosineDistance(node.e, vecf32($q))", {"q": query})
    assert [title for title, _, _ in got] == ["b", "a", "c"]             # nearest (smallest distance) first
    for title, score, direct in got:
        x, y = np.array(VECTORS[title]), np.array(query)
        assert score == pytest.approx(1 - x @ y / np.linalg.norm(x) / np.linalg.norm(y), abs=1e-6)
        assert score == pytest.approx(direct, abs=1e-6)
    with pytest.raises(IndexNotFound):
        rows(db, "CALL db.idx.vector.queryNodes('Doc', 'other', 3, vecf32([1, 0, 0])) YIELD node RETURN node")
    with pytest.raises(ArgumentError):
        rows(db, "CALL db.idx.vector.queryNodes('Doc', 'e', 0, vecf32([1, 0, 0])) YIELD node RETURN node")


def test_a_euclidean_relationship_index_scores_the_l2_distance(db):
    rows(db, "CREATE VECTOR INDEX FOR ()-[r:SIM]-() ON (r.e) OPTIONS {dimension: 2, similarityFunction: 'euclidean'}")
    rows(db, "MATCH (a:Doc {title: 'a'}), (b:Doc {title: 'b'}) "
             "CREATE (a)-[:SIM {e: vecf32([3, 4]), w: 1}]->(b), (b)-[:SIM {e: vecf32([1, 1]), w: 2}]->(a)")
    rows(db, "CALL db.awaitIndexes(30)")
    got = rows(db, "CALL db.idx.vector.queryRelationships('SIM', 'e', 2, vecf32([0, 0])) "
                   "YIELD relationship, score RETURN relationship.w, score")
    assert [w for w, _ in got] == [2, 1]
    assert [score for _, score in got] == pytest.approx([math.sqrt(2), 5.0], abs=1e-5)


def test_full_text_indexes_by_label_with_redisearch_queries(db):
    rows(db, "UNWIND $docs AS d CREATE (:Movie {title: d[0], plot: d[1]})",
         {"docs": [["The Jungle Book", "a boy raised in the jungle"], ["Jungle Fever", "love in new york"],
                   ["Books of Blood", "horror stories"]]})
    rows(db, "CALL db.idx.fulltext.createNodeIndex('Movie', 'title')")
    rows(db, "CALL db.idx.fulltext.createNodeIndex({label: 'Movie', language: 'english'}, 'plot', 'title')")
    rows(db, "CALL db.idx.fulltext.createNodeIndex('Movie', 'title')")             # nothing new: no rebuild
    assert rows(db, "SHOW FULLTEXT INDEXES YIELD name, labelsOrTypes, properties") == \
        [("fulltext_Movie", ["Movie"], ["title", "plot"])]
    rows(db, "CALL db.awaitIndexes(30)")

    def titles(query):
        return sorted(t for t, in rows(db, "CALL db.idx.fulltext.queryNodes('Movie', $q) YIELD node, score "
                                           "RETURN node.title", {"q": query}))

    assert titles("jungle book") == ["The Jungle Book"]                  # every term required
    assert titles("fever | horror") == ["Books of Blood", "Jungle Fever"]
    assert titles("jungle -fever") == ["The Jungle Book"]
    assert titles("%jungel%") == ["Jungle Fever", "The Jungle Book"]       # one edit away
    assert titles("boo*") == ["Books of Blood", "The Jungle Book"]
    assert titles("york") == ["Jungle Fever"]                             # the plot field too
    scores = [s for _, s in rows(db, "CALL db.idx.fulltext.queryNodes('Movie', 'jungle') YIELD node, score "
                                     "RETURN node.title, score")]
    assert scores == sorted(scores, reverse=True) and len(scores) == 2
    rows(db, "CALL db.idx.fulltext.drop('Movie')")
    assert rows(db, "SHOW FULLTEXT INDEXES") == []
    with pytest.raises(IndexNotFound):
        rows(db, "CALL db.idx.fulltext.queryNodes('Movie', 'jungle') YIELD node RETURN node")


@pytest.mark.parametrize("redisearch, lucene", [
    ("hello world", "+hello +world"),
    ("hello | world", "(+hello) (+world)"),
    ("a b | c", "(+a +b) (+c)"),
    ("-spam eggs", "-spam +eggs"),
    ("%hello%", "+hello~1"),
    ("%%hello%%", "+hello~2"),
    ("hel*", "+hel*"),
    ('"exact phrase" x', '+"exact phrase" +x'),
    ("@title:jungle", "+title:jungle"),
])
def test_redisearch_queries_read_as_lucene(redisearch, lucene):
    assert lucene_of_redisearch(redisearch) == lucene
