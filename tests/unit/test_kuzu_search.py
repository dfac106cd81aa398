"""Kuzu's vector and fts extensions' calls over Relate's indexes: INSTALL / LOAD of a built-in extension
changes nothing (another one is a typed error), CREATE_VECTOR_INDEX / QUERY_VECTOR_INDEX answer Kuzu's
distances nearest first, CREATE_FTS_INDEX / QUERY_FTS_INDEX BM25 scores with conjunctive and top, named
arguments (name := value), SHOW_INDEXES, the DROP calls, and every bad argument a typed error."""
import math

import pytest

import relate
from tests.helpers import raises_code

BOOKS = [(1, "Quantum machine learning", "qubits and models", [1.0, 0.0, 0.0]),
         (2, "Learning machines", "classic learning theory", [0.0, 1.0, 0.0]),
         (3, "Quantum chemistry", "molecules and bonds", [0.6, 0.8, 0.0])]


@pytest.fixture
def conn():
    with relate.connect(":memory:") as connection:
        for statement in ("INSTALL vector", "LOAD vector", "INSTALL fts", "LOAD EXTENSION fts",
                          "CREATE NODE TABLE Book(id INT64 PRIMARY KEY, title STRING, abstract STRING, emb FLOAT[3])"):
            connection.execute(statement).consume()
        connection.execute("UNWIND $books AS b CREATE (:Book {id: b[0], title: b[1], abstract: b[2], emb: b[3]})",
                           {"books": [list(b) for b in BOOKS]}).consume()
        yield connection


def values(conn, query, params=None):
    return [tuple(row) for row in conn.execute(query, params or {})]


@pytest.mark.parametrize("metric, distance", [("cosine", lambda q, v: 1 - _cos(q, v)),
                                              ("l2", lambda q, v: math.dist(q, v))])
def test_vector_queries_answer_kuzus_distances_nearest_first(conn, metric, distance):
    conn.execute("CALL CREATE_VECTOR_INDEX('Book', 'book_vec', 'emb', metric := $m)", {"m": metric}).consume()
    conn.execute("CALL db.awaitIndexes()").consume()
    query = [1.0, 0.2, 0.0]
    got = values(conn, "CALL QUERY_VECTOR_INDEX('Book', 'book_vec', $q, 3) RETURN node.id, distance", {"q": query})
    want = sorted(((i, distance(query, v)) for i, _, _, v in BOOKS), key=lambda p: p[1])
    assert [i for i, _ in got] == [i for i, _ in want]
    assert all(abs(d - w) < 1e-4 for (_, d), (_, w) in zip(got, want))
    config = values(conn, "SHOW VECTOR INDEXES YIELD name, options RETURN options.indexConfig")[0][0]
    assert config["vector.dimensions"] == 3          # from the table's FLOAT[3]
    assert values(conn, "CALL QUERY_VECTOR_INDEX('Book', 'book_vec', $q, 1, efs := 64) WITH node RETURN node.id",
                  {"q": query}) == [(1,)]


def _cos(a, b):
    return sum(x * y for x, y in zip(a, b)) / math.hypot(*a) / math.hypot(*b)


def test_fts_queries_score_by_bm25_with_conjunctive_and_top(conn):
    conn.execute("CALL CREATE_FTS_INDEX('Book', 'book_fts', ['title', 'abstract'])").consume()
    conn.execute("CALL db.awaitIndexes()").consume()
    anyword = values(conn, "CALL QUERY_FTS_INDEX('Book', 'book_fts', 'quantum machine') RETURN node.id, score")
    assert anyword[0][0] == 1 and {i for i, _ in anyword} == {1, 2, 3}
    assert [s for _, s in anyword] == sorted((s for _, s in anyword), reverse=True)
    assert values(conn, "CALL QUERY_FTS_INDEX('Book', 'book_fts', 'quantum machine', conjunctive := true) "
                        "RETURN node.id") == [(1,)]
    assert len(values(conn, "CALL QUERY_FTS_INDEX('Book', 'book_fts', 'learning', top := 1) RETURN node")) == 1
    # the porter stemmer (Kuzu's default): "learns" finds "learning"
    assert {r[0] for r in values(conn, "CALL QUERY_FTS_INDEX('Book', 'book_fts', 'learns') RETURN node.id")} == {1, 2}


def test_show_and_drop_the_indexes(conn):
    conn.execute("CALL CREATE_VECTOR_INDEX('Book', 'book_vec', 'emb')").consume()
    conn.execute("CALL CREATE_FTS_INDEX('Book', 'book_fts', ['title'], stemmer := 'none')").consume()
    shown = values(conn, "CALL SHOW_INDEXES() RETURN `table name`, `index name`, `index type`, `property names`")
    assert shown == [("Book", "book_fts", "FTS", ["title"]), ("Book", "book_vec", "HNSW", ["emb"])]
    conn.execute("CALL DROP_VECTOR_INDEX('Book', 'book_vec')").consume()
    conn.execute("CALL DROP_FTS_INDEX('Book', 'book_fts')").consume()
    assert values(conn, "CALL SHOW_INDEXES() RETURN *") == []


@pytest.mark.parametrize("statement, code", [
    ("INSTALL algo", "Neo.ClientError.Statement.ArgumentError"),
    ("LOAD EXTENSION json", "Neo.ClientError.Statement.ArgumentError"),
    ("CALL CREATE_VECTOR_INDEX('Book', 'v', 'emb', metric := 'dotproduct')", "Neo.ClientError.Statement.ArgumentError"),
    ("CALL CREATE_VECTOR_INDEX('Book', 'v', 'emb', colour := 1)", "Neo.ClientError.Statement.ArgumentError"),
    ("CALL CREATE_VECTOR_INDEX('Book', '', 'emb')", "Neo.ClientError.Statement.ArgumentError"),
    ("CALL QUERY_VECTOR_INDEX('Book', 'none', [1.0, 0.0, 0.0], 2) RETURN node", "Neo.ClientError.Schema.IndexNotFound"),
    ("CALL QUERY_VECTOR_INDEX('Book', 'none', [1.0, 0.0, 0.0], 0) RETURN node", "Neo.ClientError.Statement.ArgumentError"),
    ("CALL CREATE_FTS_INDEX('Book', 'f', [])", "Neo.ClientError.Statement.ArgumentError"),
    ("CALL CREATE_FTS_INDEX('Book', 'f', ['title'], stemmer := 'klingon')", "Neo.ClientError.Statement.ArgumentError"),
    ("CALL QUERY_FTS_INDEX('Book', 'none', 'x') RETURN node", "Neo.ClientError.Schema.IndexNotFound"),
    ("CALL QUERY_FTS_INDEX('Book', 'none', 'x', K := 2.0) RETURN node", "Neo.ClientError.Statement.ArgumentError"),
    ("CALL QUERY_FTS_INDEX('Book', 'none', 'x', top := -1) RETURN node", "Neo.ClientError.Statement.ArgumentError"),
    ("CALL db.labels(x := 1)", "Neo.ClientError.Statement.SyntaxError"),
    ("CALL QUERY_FTS_INDEX('Book', top := 1, 'none', 'x') RETURN node", "Neo.ClientError.Statement.SyntaxError"),
])
def test_bad_calls_are_typed_errors(conn, statement, code):
    raises_code(conn, statement, code)


def test_a_wrong_kind_of_index_is_not_found(conn):
    conn.execute("CALL CREATE_FTS_INDEX('Book', 'book_fts', ['title'])").consume()
    raises_code(conn, "CALL QUERY_VECTOR_INDEX('Book', 'book_fts', [1.0, 0.0, 0.0], 1) RETURN node",
                "Neo.ClientError.Schema.IndexNotFound")
