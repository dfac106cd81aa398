"""The compiled full-text scorer gives exactly the floats of the plan walk, for every query shape."""
from __future__ import annotations

import random

import pytest

from relate.server.index import query_plan as QP
from relate.server.index.fulltext import FullTextIndex
from relate.server.index.plain_query import LUCENE, parse_query

from tests.unit.test_fulltext import random_texts


def two_field_index() -> FullTextIndex:
    """Two properties, some documents holding one of them only, and stop-word gaps (the standard analyzer drops "the", "and", "of")."""
    rng = random.Random(9)
    titles, bodies = random_texts(31, 400, vocab=40), random_texts(32, 400, vocab=40)
    index = FullTextIndex(["title", "body"], "standard", "tantivy", None)
    docs = {}
    for k in range(400):
        doc = {}
        if rng.random() < 0.7:
            doc["title"] = titles[k] + (" the and of" if k % 3 == 0 else "")
        if rng.random() < 0.8 or not doc:
            doc["body"] = bodies[k]
        docs[k] = index.analyze(doc)
    index.apply(docs)
    return index


QUERIES = [
    "w1", "w3 w7 w11", "w1 w1 w2", "+w2 w5 w9", "+w2 +w4 -w6 w8", "w5 -w1", "title:w3 body:w3 w12",
    "+title:w0 -body:w2", "kafka oauth w39", "nosuchword w4", "+nosuchword w4",
    # other shapes take the plan walk: still the same answers
    '"w1 w2" w3', "w1* w4", "w3~1", "(w1 OR w2) AND w5", "w2^3 w6",
]


@pytest.mark.parametrize("query", QUERIES)
def test_compiled_scorer_equals_plan_walk(query):
    index = two_field_index()
    corpus = index.corpus
    plan = QP.build_plan(parse_query(query, LUCENE), index.properties, index.analyzer, corpus)
    score = QP.compile_scorer(plan, corpus)
    matched = 0
    for doc in corpus.docs.values():
        expected = QP.score_document(plan, doc, corpus)
        assert score(doc) == expected          # the same float (or None), not merely close
        matched += expected is not None
    if "nosuchword" not in query or not query.startswith("+"):
        assert matched > 0, query


def test_search_results_unchanged_by_the_compiled_scorer():
    index = two_field_index()
    corpus = index.corpus
    for query in QUERIES:
        plan = QP.build_plan(parse_query(query, LUCENE), index.properties, index.analyzer, corpus)
        walked = sorted(((k, s) for k, doc in corpus.docs.items()
                         if (s := QP.score_document(plan, doc, corpus)) is not None),
                        key=lambda hit: (-hit[1], hit[0]))
        assert index.search(query, 0, 15) == walked[:15], query
        assert index.search(query, 0, 15, keys=set(range(0, 400, 3))) == \
            [hit for hit in walked if hit[0] % 3 == 0][:15], query
