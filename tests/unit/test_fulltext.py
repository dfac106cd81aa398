"""Full-text indexes: both engines (Whoosh, tantivy) run the same suite; scores are exact Lucene BM25."""
from __future__ import annotations

import json
import math
import os
import random
import re

import pytest

from relate.errors import ArgumentError, QueryTimeout
from relate.server.index.analyzers import get_analyzer
from relate.server.index.fulltext import FullTextIndex
from relate.server.index.lucene_query import parse_lucene

ENGINES = ["whoosh", "tantivy"]
FIXTURE = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "hybrid-recall", "fixture.json")


def make_index(engine, docs: dict, props=("text",), directory=None, analyzer=None, commit=True) -> FullTextIndex:
    """An index over ``docs``; ``commit`` writes them to the engine (else they stay in the overlay)."""
    index = FullTextIndex(list(props), analyzer, engine, directory)
    index.apply({key: index.analyze(p if isinstance(p, dict) else {props[0]: p}) for key, p in docs.items()})
    if commit:
        index.flush_engine()
    return index


# ---- a plain-Python Lucene BM25, independent of the index code -----------------------------------
def lucene_bm25(docs: dict, props: list, query_terms: list) -> list:
    """Every matching (key, score) for an OR of terms over ``props`` (each field scored on its own), best first."""
    tokens = {k: {p: re.findall(r"[^\W_]+", d[p].lower()) for p in props if isinstance(d.get(p), str)}
              for k, d in docs.items()}
    stats = {}
    for p in props:
        holding = [t[p] for t in tokens.values() if t.get(p)]
        stats[p] = (len(holding), sum(map(len, holding)) / max(len(holding), 1),
                    lambda term, h=holding: sum(1 for toks in h if term in toks))
    out = []
    for key, fields in tokens.items():
        total, hit = 0.0, False
        for term in query_terms:
            per_term, term_hit = 0.0, False
            for p in props:
                toks = fields.get(p)
                if not toks or term not in toks:
                    continue
                n_docs, avgdl, df = stats[p]
                idf = math.log(1 + (n_docs - df(term) + 0.5) / (df(term) + 0.5))
                tf = toks.count(term)
                per_term += idf * tf / (tf + 1.2 * (1 - 0.75 + 0.75 * len(toks) / avgdl))
                term_hit = True
            if term_hit:
                total += per_term
                hit = True
        if hit:
            out.append((key, total))
    out.sort(key=lambda x: (-x[1], x[0]))
    return out


def random_texts(seed: int, n: int, vocab: int = 80) -> dict:
    rng = random.Random(seed)
    words = [f"w{i}" for i in range(vocab)] + ["Kafka", "OAuth", "tokens", "ticket-events"]
    weights = [1.0 / (i + 1) for i in range(len(words))]          # Zipf-like, so some terms are common
    return {i: " ".join(rng.choices(words, weights, k=rng.randint(1, 50))) for i in range(n)}


# ---- the analyzer ---------------------------------------------------------------------------------
def test_standard_analyzer_is_lowercased_runs_of_letters_and_digits():
    analyzer = get_analyzer(None)
    assert analyzer.tokens("Auth0; HttpOnly ticket-events KAFKA-142 the_end") == \
        ["auth0", "httponly", "ticket", "events", "kafka", "142", "the", "end"]
    assert get_analyzer("standard").analyze("the kafka of topics") == [(1, "kafka"), (3, "topics")]
    with pytest.raises(ArgumentError):
        get_analyzer("klingon")


# ---- cookbook numbers -----------------------------------------------------------------------------
@pytest.mark.parametrize("engine", ENGINES)
def test_cookbook_scores_to_the_last_digit(engine):
    fixture = json.load(open(FIXTURE))
    ids = {i: note["id"] for i, note in enumerate(fixture["notes"])}
    index = make_index(engine, {i: note["text"] for i, note in enumerate(fixture["notes"])})
    assert sum(index.corpus.field_tokens) == 453 and index.corpus.field_docs == [40]
    hits = [(ids[k], s) for k, s in index.search("what did we decide about oauth tokens", 0, 15)]
    assert hits == [("n03", 1.4178942683735956), ("n25", 1.335407782356475), ("n02", 1.2865960449569087)]
    decisions = make_index(engine, {i: d["text"] for i, d in enumerate(fixture["decisions"])})
    notes = [fixture["decisions"][k]["note"] for k, _ in decisions.search("kafka tenant", 0, 5)]
    scores = [s for _, s in decisions.search("kafka tenant", 0, 5)]
    assert notes == ["n04", "n18", "n30", "n27"]
    assert scores == [1.0354512120083705, 0.8976179364575441, 0.3514558522085262, 0.3280639672217632]


# ---- exact BM25 on random texts -----------------------------------------------------------------
@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("commit", [True, False], ids=["engine", "overlay"])
def test_scores_equal_plain_python_lucene_bm25(engine, commit):
    texts = random_texts(7, 600)
    index = make_index(engine, texts, commit=commit)
    docs = {k: {"text": v} for k, v in texts.items()}
    for query in ["w0 w3 w17", "kafka oauth", "w1", "tokens w60 w61 w62", "ticket-events w2"]:
        terms = re.findall(r"[^\W_]+", query.lower())
        expected = lucene_bm25(docs, ["text"], terms)
        assert index.search(query, 0, 10) == expected[:10], query
        assert index.search(query, 5, 7) == expected[5:12], query
        assert index.search(query) == expected, query


@pytest.mark.parametrize("engine", ENGINES)
def test_multi_property_index_sums_per_field_scores(engine):
    rng = random.Random(3)
    texts_a, texts_b = random_texts(11, 300), random_texts(12, 300)
    docs = {}
    for k in range(300):
        doc = {}
        if rng.random() < 0.8:
            doc["title"] = texts_a[k]
        if rng.random() < 0.7 or not doc:
            doc["body"] = texts_b[k]
        docs[k] = doc
    index = make_index(engine, docs, props=("title", "body"))
    for query in ["w0 w5", "w9 kafka w40", "oauth"]:
        expected = lucene_bm25(docs, ["title", "body"], re.findall(r"[^\W_]+", query.lower()))
        assert index.search(query, 0, 20) == expected[:20], query


@pytest.mark.parametrize("engine", ENGINES)
def test_updates_and_deletes_keep_scores_exact(engine):
    texts = random_texts(21, 400)
    index = make_index(engine, texts)
    rng = random.Random(5)
    for round_ in range(4):
        changes = {}
        for key in rng.sample(sorted(texts), 60):
            if rng.random() < 0.5:
                texts.pop(key)
                changes[key] = None
            else:
                texts[key] = texts[key] + " w1 kafka"
                changes[key] = index.analyze({"text": texts[key]})
        index.apply(changes)
        if round_ % 2:
            index.flush_engine()              # even rounds search engine + overlay, odd ones the engine
        docs = {k: {"text": v} for k, v in texts.items()}
        expected = lucene_bm25(docs, ["text"], ["w1", "kafka", "w7"])
        assert index.search("w1 kafka w7", 0, 25) == expected[:25], round_
    assert len(index) == len(texts)


def test_tantivy_engine_is_rebuilt_when_deleted_documents_pile_up():
    texts = random_texts(4, 50)
    index = make_index("tantivy", texts)
    for _ in range(25):                      # 25 x 50 rewrites: deleted docs far outnumber live ones
        index.apply({k: index.analyze({"text": v + " w2"}) for k, v in texts.items()})
        index.flush_engine()
        texts = {k: v + " w2" for k, v in texts.items()}
    assert index.engine.deleted_since_build < 2 * len(texts) + 1000
    expected = lucene_bm25({k: {"text": v} for k, v in texts.items()}, ["text"], ["w2", "w3"])
    assert index.search("w2 w3", 0, 10) == expected[:10]


# ---- query syntax -----------------------------------------------------------------------------------
SMALL = {1: "kafka topic per tenant", 2: "shared kafka topics keyed by tenant id",
         3: "oauth tokens live in cookies", 4: "refresh tokens rotate", 5: "the tenant console",
         6: "kafka lag dashboard alert", 7: "topic tenant kafka"}


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("query, keys", [
    ("kafka tenant", {1, 2, 5, 6, 7}),
    ("kafka AND tenant", {1, 2, 7}),
    ("kafka && tenant", {1, 2, 7}),
    ("+kafka -tenant", {6}),
    ("kafka NOT tenant", {6}),
    ("tokens OR console", {3, 4, 5}),
    ('"kafka topic"', {1}),
    ('"topic kafka"~1', {7}),
    ('"kafka tenant"~2', {1}),
    ("text:oauth", {3}),
    ("other:oauth", set()),
    ("topic*", {1, 2, 7}),
    ("t?ken*", {3, 4}),
    ("tokns~1", {3, 4}),
    ("kafka~", {1, 2, 6, 7}),
    ("(kafka OR oauth) AND (tenant OR cookies)", {1, 2, 3, 7}),
    ("*:*", {1, 2, 3, 4, 5, 6, 7}),
    ("-kafka", set()),
    ("nothing-here", set()),
])
def test_lucene_syntax_matches(engine, query, keys):
    index = make_index(engine, SMALL)
    assert {k for k, _ in index.search(query)} == keys


@pytest.mark.parametrize("engine", ENGINES)
def test_phrase_prefix_and_boost_scores(engine):
    index = make_index(engine, SMALL)
    prefix = dict(index.search("topic*"))
    assert set(prefix.values()) == {1.0}                     # constant score, as Lucene's rewrite
    plain, boosted = dict(index.search("oauth")), dict(index.search("oauth^2"))
    assert boosted[3] == pytest.approx(2 * plain[3], rel=1e-12)
    corpus = index.corpus
    n = corpus.field_docs[0]
    avgdl = corpus.avgdl(0)
    idf = sum(math.log(1 + (n - df + 0.5) / (df + 0.5)) for df in (4, 2))    # kafka 4 docs, topic 2
    expected = idf * 1 / (1 + 1.2 * (1 - 0.75 + 0.75 * 4 / avgdl))
    assert dict(index.search('"kafka topic"'))[1] == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("query", ["", "kafka AND", "AND kafka", "(kafka", "kafka)", '"unterminated',
                                   "[a TO b]", "/regex/", "kafka^", "+", "OR OR"])
def test_malformed_queries_raise_a_clear_error(query):
    with pytest.raises(ArgumentError, match="Invalid full-text query"):
        parse_lucene(query)


@pytest.mark.parametrize("engine", ENGINES)
def test_malformed_query_through_the_index(engine):
    index = make_index(engine, SMALL)
    with pytest.raises(ArgumentError):
        index.search("kafka AND (")
    with pytest.raises(ArgumentError):
        index.search("kafka", -1, 3)


@pytest.mark.parametrize("engine", ENGINES)
def test_search_time_limit(engine):
    index = make_index(engine, random_texts(2, 200))
    with pytest.raises(QueryTimeout):
        index.search("w1 w2", 0, 5, timeout_s=1e-9)


@pytest.mark.parametrize("engine", ENGINES)
def test_ties_resolve_by_id_and_string_lists_are_indexed(engine):
    index = make_index(engine, {5: "same words", 3: "same words", 9: ["same", "words"]})
    assert [k for k, _ in index.search("same")] == [3, 5, 9]
    assert index.search('"same words"')[0][0] == 3


@pytest.mark.parametrize("engine", ENGINES)
def test_files_reopen_with_the_same_results(engine, tmp_path):
    texts = random_texts(9, 300)
    index = make_index(engine, texts, directory=str(tmp_path))
    before = index.search("w3 w4 kafka", 0, 20)
    index.save(str(tmp_path))
    index.close()
    reopened = FullTextIndex(["text"], None, engine, str(tmp_path), create=False)
    reopened.load(str(tmp_path))
    assert reopened.search("w3 w4 kafka", 0, 20) == before
    reopened.apply({0: None, 1: reopened.analyze({"text": "kafka kafka"})})
    reopened.flush_engine()
    texts.pop(0)
    texts[1] = "kafka kafka"
    expected = lucene_bm25({k: {"text": v} for k, v in texts.items()}, ["text"], ["w3", "w4", "kafka"])
    assert reopened.search("w3 w4 kafka", 0, 20) == expected[:20]
    reopened.close()


@pytest.mark.slow
def test_plain_or_query_over_a_large_whoosh_index_returns():
    """Regression: stock Whoosh 2.7.4 could loop forever on plain OR queries over big indexes."""
    texts = random_texts(13, 20_000, vocab=2_000)
    index = make_index("whoosh", texts)
    hits = index.search("w1 w2 w3 w5 w8 w13 w21 w34 w55 w89 w144 kafka oauth", 0, 10, timeout_s=60)
    assert len(hits) == 10


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("commit", [True, False], ids=["engine", "overlay"])
def test_a_huge_limit_returns_every_match_without_allocating_for_it(engine, commit):
    """LIMIT 1,000,000,000 (a user's 'all of them', or hostile input) made tantivy size its collector for a
    billion hits: the process aborted. The engine is never asked for more hits than it holds documents."""
    texts = random_texts(3, 300)
    index = make_index(engine, texts, commit=commit)
    expected = lucene_bm25({k: {"text": v} for k, v in texts.items()}, ["text"], ["w0"])
    assert index.search("w0", 0, 10 ** 9) == expected
    assert index.search("w0", 10 ** 9, 10 ** 9) == []
    assert index.search("w0", 2, 10 ** 12)[:3] == expected[2:5]


def test_a_huge_limit_through_cypher(conn):
    conn.execute("UNWIND range(1, 30) AS i CREATE (:D {t: 'react hooks ' + i})")
    conn.execute("CREATE FULLTEXT INDEX dt FOR (n:D) ON EACH [n.t]")
    conn.execute("CALL db.awaitIndexes()")
    assert conn.execute("CALL db.index.fulltext.queryNodes('dt', 'react', {limit: 1000000000}) YIELD node "
                        "RETURN count(*)").single()[0] == 30
    assert conn.execute("MATCH (n:D) SEARCH n IN (FULLTEXT INDEX dt FOR 'hooks' LIMIT 1000000000) SCORE AS s "
                        "RETURN count(*)").single()[0] == 30
