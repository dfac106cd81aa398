"""SEARCH end to end on random data (seeded): vector results equal numpy brute force inside the filter
(exact indexes) or keep recall@10 >= 0.98 (HNSW); full-text scores equal a plain-Python Lucene BM25;
SEARCH and the db.index.* procedures agree."""
from __future__ import annotations

import math
import random
import re

import numpy as np
import pytest

from relate.errors import ArgumentError, ClientError
from relate.server.engine import Database
from tests.helpers import rows as run

N, DIMS = 2_400, 16
WORDS = [f"w{i}" for i in range(150)] + ["kafka", "oauth", "tokens", "tenant"]
FILTERS = [  # (label, WHERE inside the search, mask over i)
    ("100%", "", lambda i: np.ones(len(i), bool)),
    ("10%", "WHERE n.g < 10", lambda i: i % 100 < 10),
    ("1%", "WHERE n.g = 7 AND n.ts >= 0", lambda i: i % 100 == 7),
    ("0.1%", "WHERE n.h IN [3, -1]", lambda i: i % 1000 == 3),
]


@pytest.fixture(scope="module")
def graph():
    rng = np.random.default_rng(11)
    words = random.Random(12)
    vectors = rng.normal(size=(N, DIMS))
    texts = [" ".join(words.choices(WORDS, [1 / (k + 1) for k in range(len(WORDS))], k=words.randint(2, 30)))
             for _ in range(N)]
    db = Database.open(None)
    session = db.session()
    run(session, "CREATE VECTOR INDEX item_exact FOR (n:Item) ON (n.e) WITH [n.g, n.h, n.ts] "
                 "OPTIONS {indexConfig: {`vector.dimensions`: 16, `vector.similarity_function`: 'cosine'}}")
    run(session, "CREATE VECTOR INDEX item_l2 FOR (n:Item) ON (n.e) WITH [n.g, n.h, n.ts] "
                 "OPTIONS {indexConfig: {`vector.similarity_function`: 'euclidean'}}")
    run(session, "CREATE VECTOR INDEX item_hnsw FOR (n:Item) ON (n.e) WITH [n.g, n.h, n.ts] "
                 "OPTIONS {indexConfig: {`vector.dimensions`: 16, `vector.hnsw.min_size`: 0, "
                 "`vector.exact.max_scope`: 0, `vector.hnsw.m`: 16, `vector.hnsw.ef_search`: 64}}")
    run(session, "CREATE FULLTEXT INDEX item_t FOR (n:Item) ON EACH [n.text] "
                 "OPTIONS {indexConfig: {`fulltext.engine`: 'tantivy'}}")
    run(session, "CREATE FULLTEXT INDEX item_w FOR (n:Item) ON EACH [n.text] "
                 "OPTIONS {indexConfig: {`fulltext.engine`: 'whoosh'}}")
    rows = [{"i": i, "e": vectors[i].tolist(), "text": texts[i]} for i in range(N)]
    run(session, "UNWIND $rows AS r CREATE (:Item {i: r.i, e: r.e, text: r.text, g: r.i % 100, "
                 "h: r.i % 1000, ts: r.i})", {"rows": rows})
    run(session, "CALL db.awaitIndexes(120)")
    yield session, vectors, texts
    session.close()
    db.close()


def brute_force(vectors, q, metric, mask, k=10):
    idx = np.flatnonzero(mask)
    if metric == "cosine":
        x = (vectors[idx] / np.linalg.norm(vectors[idx], axis=1, keepdims=True)).astype(np.float32)
        scores = (1 + (x @ (q / np.linalg.norm(q)).astype(np.float32)).astype(np.float64)) / 2
    else:
        d2 = ((vectors[idx].astype(np.float32) - q.astype(np.float32)) ** 2).sum(axis=1)
        scores = 1 / (1 + d2.astype(np.float64))
    order = np.lexsort((idx, -scores))[:k]
    return [(int(idx[j]), float(scores[j])) for j in order]


def vector_search(session, index, where, q, k=10):
    rows = run(session, f"MATCH (n:Item) SEARCH n IN (VECTOR INDEX {index} FOR $q {where} LIMIT $k) SCORE AS s "
                        "RETURN n.i AS i, s ORDER BY s DESC, i", {"q": q.tolist(), "k": k})
    return [(r[0], r[1]) for r in rows]


@pytest.mark.parametrize("index, metric", [("item_exact", "cosine"), ("item_l2", "euclidean")])
@pytest.mark.parametrize("label, where, mask", FILTERS, ids=[f[0] for f in FILTERS])
def test_exact_vector_search_equals_brute_force(graph, index, metric, label, where, mask):
    session, vectors, _ = graph
    rng = np.random.default_rng(13)
    keep = mask(np.arange(N))
    for _ in range(8):
        q = rng.normal(size=DIMS)
        expected = brute_force(vectors, q, metric, keep)
        got = vector_search(session, index, where, q)
        assert [i for i, _ in got] == [i for i, _ in expected]
        assert [s for _, s in got] == pytest.approx([s for _, s in expected], abs=2e-6)


def test_hnsw_vector_search_recall(graph):
    session, vectors, _ = graph
    rng = np.random.default_rng(14)
    for label, where, mask in FILTERS:
        keep = mask(np.arange(N))
        found = wanted = 0
        for _ in range(25):
            q = rng.normal(size=DIMS)
            expected = {i for i, _ in brute_force(vectors, q, "cosine", keep)}
            got = {i for i, _ in vector_search(session, "item_hnsw", where, q)}
            assert len(got) == len(expected), label
            found += len(got & expected)
            wanted += len(expected)
        assert found / wanted >= 0.98, (label, found / wanted)


def lucene_bm25(texts, terms):
    tokens = [re.findall(r"[^\W_]+", t.lower()) for t in texts]
    n_docs, avgdl = len(tokens), sum(map(len, tokens)) / len(tokens)
    df = {t: sum(1 for toks in tokens if t in toks) for t in set(terms)}
    out = []
    for i, toks in enumerate(tokens):
        total, hit = 0.0, False
        for t in terms:
            tf = toks.count(t)
            if tf:
                idf = math.log(1 + (n_docs - df[t] + 0.5) / (df[t] + 0.5))
                total += idf * tf / (tf + 1.2 * (1 - 0.75 + 0.75 * len(toks) / avgdl))
                hit = True
        if hit:
            out.append((i, total))
    return sorted(out, key=lambda x: (-x[1], x[0]))


@pytest.mark.parametrize("index", ["item_t", "item_w"])
def test_fulltext_search_scores_equal_lucene_bm25(graph, index):
    session, _, texts = graph
    for query in ["kafka tenant", "w0 w7 w99", "oauth", "tokens w1 w2 w3 w4"]:
        expected = lucene_bm25(texts, query.split())[:10]
        rows = run(session, f"MATCH (n:Item) SEARCH n IN (FULLTEXT INDEX {index} FOR $q LIMIT 10) SCORE AS s "
                            "RETURN n.i AS i, s", {"q": query})
        assert sorted([(r[0], r[1]) for r in rows], key=lambda x: (-x[1], x[0])) == expected
        skipped = run(session, f"MATCH (n:Item) SEARCH n IN (FULLTEXT INDEX {index} FOR $q SKIP 3 LIMIT 4) "
                               "SCORE AS s RETURN n.i AS i, s ORDER BY s DESC, i", {"q": query})
        assert [(r[0], r[1]) for r in skipped] == expected[3:7]


def test_search_and_procedures_agree(graph):
    session, vectors, _ = graph
    q = np.random.default_rng(15).normal(size=DIMS).tolist()
    by_search = run(session, "MATCH (n:Item) SEARCH n IN (VECTOR INDEX item_exact FOR $q LIMIT 7) SCORE AS s "
                             "RETURN n.i AS i, s", {"q": q})
    by_call = run(session, "CALL db.index.vector.queryNodes('item_exact', 7, $q) YIELD node, score "
                           "RETURN node.i AS i, score", {"q": q})
    assert sorted(by_search) == sorted(by_call) and len(by_call) == 7
    by_search = run(session, "MATCH (n:Item) SEARCH n IN (FULLTEXT INDEX item_t FOR 'kafka w3' LIMIT 5000) "
                             "SCORE AS s RETURN n.i AS i, s")
    by_call = run(session, "CALL db.index.fulltext.queryNodes('item_t', 'kafka w3') YIELD node, score "
                           "RETURN node.i AS i, score")
    assert sorted(by_search) == sorted(by_call) and by_call
    paged = run(session, "CALL db.index.fulltext.queryNodes('item_w', 'kafka w3', {skip: 2, limit: 3}) "
                         "YIELD node, score RETURN node.i AS i, score")
    ranked = sorted(by_call, key=lambda r: (-r[1], r[0]))
    assert [tuple(r) for r in paged] == [tuple(r) for r in ranked[2:5]]
    analyzers = run(session, "CALL db.index.fulltext.listAvailableAnalyzers() YIELD analyzer RETURN analyzer")
    assert ["standard-no-stop-words"] in [list(r) for r in analyzers]


def test_show_indexes_lists_search_indexes(graph):
    session, _, _ = graph
    rows = run(session, "SHOW INDEXES YIELD name, type, entityType, state, populationPercent "
                        "WHERE type IN ['VECTOR', 'FULLTEXT'] RETURN name, type, entityType, state, populationPercent "
                        "ORDER BY name")
    assert [tuple(r) for r in rows] == [
        ("item_exact", "VECTOR", "NODE", "ONLINE", 100.0), ("item_hnsw", "VECTOR", "NODE", "ONLINE", 100.0),
        ("item_l2", "VECTOR", "NODE", "ONLINE", 100.0), ("item_t", "FULLTEXT", "NODE", "ONLINE", 100.0),
        ("item_w", "FULLTEXT", "NODE", "ONLINE", 100.0)]


def test_errors_are_clear(graph):
    session, _, _ = graph
    with pytest.raises(ArgumentError, match="Invalid full-text query"):       # Lucene syntax in the procedure
        run(session, "CALL db.index.fulltext.queryNodes('item_t', 'kafka AND') YIELD node RETURN node")
    # SEARCH reads a user's words as plain text: never a syntax error
    run(session, "MATCH (n:Item) SEARCH n IN (FULLTEXT INDEX item_t FOR 'kafka AND' LIMIT 3) SCORE AS s RETURN n")
    with pytest.raises(ArgumentError, match="dimensions"):
        run(session, "CALL db.index.vector.queryNodes('item_exact', 3, [1.0, 2.0])")
    with pytest.raises(ClientError):
        run(session, "CALL db.index.vector.queryRelationships('item_exact', 3, $q)", {"q": [0.0] * 15 + [1.0]})


def test_relationship_search_and_written_vectors_of_the_wrong_length():
    db = Database.open(None)
    session = db.session()
    run(session, "CREATE FULLTEXT INDEX dec_t FOR ()-[r:DECIDED]-() ON EACH [r.text]")
    run(session, "CREATE VECTOR INDEX v FOR (n:V) ON (n.e) OPTIONS {indexConfig: {`vector.dimensions`: 2}}")
    run(session, "CREATE (a:N)-[:DECIDED {text: 'one kafka topic per tenant'}]->(b:T), "
                 "(a)-[:DECIDED {text: 'shared topics'}]->(b), (:V {e: [1.0, 0.0]}), (:V {e: [1.0, 2.0, 3.0]})")
    directed = run(session, "MATCH ()-[r:DECIDED]->() SEARCH r IN (FULLTEXT INDEX dec_t FOR 'kafka' LIMIT 5) "
                            "SCORE AS s RETURN r.text")
    assert directed == [("one kafka topic per tenant",)]
    undirected = run(session, "MATCH ()-[r:DECIDED]-() SEARCH r IN (FULLTEXT INDEX dec_t FOR 'kafka' LIMIT 5) "
                              "SCORE AS s RETURN r.text")
    assert len(undirected) == 2                   # each hit once per direction, as the cookbook says
    called = run(session, "CALL db.index.fulltext.queryRelationships('dec_t', 'topics') YIELD relationship "
                          "RETURN relationship.text")
    assert called == [("shared topics",)]
    # plain lists of the wrong length are stored and skipped by the index, which counts them
    assert run(session, "MATCH (n:V) RETURN count(n)") == [(2,)]
    assert [r["skippedDocuments"] for r in db.index_manager.list() if r["name"] == "v"] == [1]
    create = run(session, "SHOW INDEXES YIELD name, createStatement WHERE name = 'v' RETURN createStatement")
    assert create == [("CREATE VECTOR INDEX `v` FOR (n:`V`) ON (n.`e`) OPTIONS {indexConfig: "
                       "{`vector.dimensions`: 2, `vector.similarity_function`: 'cosine'}}",)]
    session.close()
    db.close()
