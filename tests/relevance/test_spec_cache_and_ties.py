"""Spec 001 6.3, 6.6, 6.7 at the edges: an exact identifier's document survives a fused tie; a cached
answer forgets deleted targets, is keyed by the join's whole definition and still reports its floor; a
judge that names only ids it was never shown fails open."""
from __future__ import annotations

import json

import pytest

import relate
from relate.server.ai.providers import OpenAICompatibleProvider, ProviderConfig
from relate.server.engine import Database

from tests.ai.fake_openai import FakeOpenAI

LOTTERIES = "MATCH (c:Concept {value: 'lotteries'})-[r:RELEVANT_TO {via: $via}]->(d%s) RETURN d.id, r.rank, r.mode " \
            "ORDER BY r.rank"


def _fresh():
    db = Database.open(None)
    conn = relate.Connection(db.session())
    return db, conn


def test_the_lexical_arms_best_document_survives_a_tie_on_the_cut():
    db, conn = _fresh()
    try:
        conn.execute("CREATE VECTOR INDEX e FOR (d:Doc) ON (d.embedding) "
                     "OPTIONS {indexConfig: {`vector.dimensions`: 384, `vector.embedder`: 'hash-384'}}").consume()
        conn.execute("CREATE FULLTEXT INDEX t FOR (d:Doc) ON EACH [d.text]").consume()
        question = "consulting engagement billing ZQ-77731"
        # V reads like the question (the vector arm's best) and shares no word with it; made first (lowest id)
        conn.execute("CREATE (:Doc {id: 'V', text: 'quarterly advisory invoice overview', "
                     "embedding: ai.text.embed($q)})", {"q": question}).consume()
        conn.execute("UNWIND range(0, 3) AS i WITH 'consulting engagement billing summary number ' + i AS t, i "
                     "CREATE (:Doc {id: 'p' + i, text: t, embedding: ai.text.embed(t)})").consume()
        conn.execute("CREATE (:Doc {id: 'X', text: 'ledger line ZQ-77731 paid', "
                     "embedding: ai.text.embed('ledger line ZQ-77731 paid')})").consume()
        conn.execute("CALL db.awaitIndexes(60)").consume()
        conn.execute("CREATE RELEVANCE JOIN j FOR (c:Concept)-[:RELEVANT_TO]->(d:Doc) ON c.value "
                     "OPTIONS {indexes: ['e', 't'], k: 3}").consume()
        rows = conn.execute("MATCH (c:Concept {value: $q})-[r:RELEVANT_TO]->(d:Doc) RETURN d.id, r.rank, r.probes "
                            "ORDER BY r.rank", {"q": question}).values()
        ids = [r[0] for r in rows]
        assert len(ids) == 3 and "X" in ids and "V" in ids       # each arm's best document is reachable
        assert [r[1] for r in rows] == [1, 2, 3]
        assert rows[ids.index("X")][2] == ["keyword"]
    finally:
        db.close()


@pytest.fixture()
def docs():
    db, conn = _fresh()
    conn.execute("CREATE VECTOR INDEX doc_e FOR (d:Document) ON (d.embedding) "
                 "OPTIONS {indexConfig: {`vector.dimensions`: 384, `vector.embedder`: 'hash-384'}}").consume()
    conn.execute("CREATE FULLTEXT INDEX doc_t FOR (d:Document) ON EACH [d.title, d.text]").consume()
    texts = ["State lotteries fund schools", "Lotteries and the odds of a jackpot", "Lottery tickets sold online",
             "Acme renewal memo", "Kafka topics per tenant"]
    conn.execute("UNWIND range(0, size($t) - 1) AS i CREATE (:Document {id: 'd-' + (i + 1), title: $t[i], "
                 "text: $t[i], embedding: ai.text.embed($t[i])})", {"t": texts}).consume()
    conn.execute("CALL db.awaitIndexes(60)").consume()
    conn.db = db
    yield conn
    db.close()


@pytest.mark.parametrize("end", [":Document", ""])
def test_a_cached_answer_drops_targets_deleted_since(docs, end):
    docs.execute("CREATE RELEVANCE JOIN cj FOR (c:Concept)-[:RELEVANT_TO]->(d:Document) ON c.value "
                 "OPTIONS {indexes: ['doc_e', 'doc_t'], via: 'cj', kind: 'fused', k: 3, cacheTtl: 60}").consume()
    first = docs.execute(LOTTERIES % end, {"via": "cj"}).values()
    assert len(first) == 3
    docs.execute("MATCH (d:Document {id: $id}) DETACH DELETE d", {"id": first[0][0]}).consume()
    again = docs.execute(LOTTERIES % end, {"via": "cj"})
    rows = again.values()
    assert [r[0] for r in rows] == [r[0] for r in first[1:]]
    assert [r[1] for r in rows] == [1, 2]                         # ranks closed up, no gap
    assert again.summary.costs["semanticCalls"] == 0              # still the cached answer


def test_a_join_created_again_under_its_name_is_searched_anew(docs):
    docs.execute("CREATE RELEVANCE JOIN cj FOR (c:Concept)-[:RELEVANT_TO]->(d:Document) ON c.value "
                 "OPTIONS {indexes: ['doc_e', 'doc_t'], via: 'cj', kind: 'fused', k: 3, cacheTtl: 60}").consume()
    assert {r[2] for r in docs.execute(LOTTERIES % ":Document", {"via": "cj"}).values()} == {"fused"}
    docs.execute("DROP RELEVANCE JOIN cj").consume()
    docs.execute("CREATE RELEVANCE JOIN cj FOR (c:Concept)-[:RELEVANT_TO]->(d:Document) ON c.value "
                 "OPTIONS {indexes: ['doc_t'], via: 'cj', kind: 'keyword', k: 1, cacheTtl: 60}").consume()
    result = docs.execute(LOTTERIES % ":Document", {"via": "cj"})
    rows = result.values()
    assert len(rows) == 1 and rows[0][2] == "keyword"            # a keyword edge never reports anything else
    assert result.summary.costs["semanticCalls"] == 1


def test_a_cached_answer_reports_what_its_floor_dropped(docs):
    docs.execute("CREATE RELEVANCE JOIN cc FOR (c:Concept)-[:RELEVANT_TO]->(d:Document) ON c.value "
                 "OPTIONS {indexes: ['doc_e', 'doc_t'], via: 'cc', kind: 'fused', k: 3, minScore: 0.99, cacheTtl: 60}").consume()
    notes = []
    for _ in range(2):
        result = docs.execute(LOTTERIES % ":Document", {"via": "cc"})
        result.consume()
        notes.append([n["description"] for n in result.summary.notifications if n["code"].endswith("MinScoreCull")])
    assert notes[0] and notes[1] == notes[0]
    assert "dropped 3 of 3 hits (best score seen" in notes[0][0]


def test_a_judge_naming_only_ids_it_was_never_shown_fails_open(docs):
    def chat(body):
        system = body["messages"][0]["content"]
        if "plan" in system:
            return json.dumps({"queries": []})
        return json.dumps({"results": [{"id": "d-4", "score": 1.0, "evidence": "x"}, {"id": "d999", "score": 1}]})
    with FakeOpenAI(chat=chat) as fake:
        docs.db.ai_provider = OpenAICompatibleProvider(ProviderConfig(base_url=fake.base_url))
        docs.execute("CREATE RELEVANCE JOIN ag FOR (c:Concept)-[:RELEVANT_TO]->(d:Document) ON c.value "
                     "OPTIONS {indexes: ['doc_e', 'doc_t'], via: 'agentic-rag', k: 3}").consume()
        result = docs.execute(LOTTERIES % ":Document", {"via": "agentic-rag"})
        rows = result.values()
    assert rows and {r[2] for r in rows} == {"fused"}            # the deterministic lane answered
    codes = [n["code"] for n in result.summary.notifications]
    assert "Relate.ClientNotification.Relevance.AgenticDegraded" in codes
    assert result.summary.costs["llmCalls"] == 2
