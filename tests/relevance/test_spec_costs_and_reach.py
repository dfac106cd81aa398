"""Spec 001 6.6-6.7 details: a document only the lexical arm finds stays reachable and reports no
similarity (not 0.0), a minScore floor keeps it; a relevance search's embedding is its one semanticCalls
(never also an apiCalls); relevance edge types and keys raise no unknown-name warnings."""
from __future__ import annotations

import relate
from relate.server.ai.providers import OpenAICompatibleProvider, ProviderConfig
from relate.server.engine import Database

from tests.ai.fake_openai import FakeOpenAI


def test_a_lexical_only_document_has_no_similarity_and_survives_the_floor(graph):
    graph.admin.execute("CREATE (:Document {id: 'd-x', title: 'Part ZX-9931 spec', text: 'Part ZX-9931 torque "
                        "limits', contextId: 'acme'})").consume()
    graph.admin.execute("CALL db.awaitIndexes(60)").consume()
    graph.admin.execute("CREATE RELEVANCE JOIN c_floor FOR (c:Concept)-[:RELEVANT_TO]->(d:Document) ON c.value "
                        "OPTIONS {indexes: ['doc_e', 'doc_t'], via: 'floor', kind: 'fused', k: 3, minScore: 0.3}").consume()
    run = graph.runner()
    rows, summary = run("MATCH (:Concept {value: 'ZX-9931'})-[r:RELEVANT_TO]->(d:Document) "
                        "RETURN d.id, r.score, r.probes ORDER BY r.rank")
    found = {row[0]: row for row in rows}
    assert found["d-x"][1] is None and found["d-x"][2] == ["keyword"]
    assert all(score is None or 0 <= score <= 1 for _, score, _ in rows)
    floored, _ = run("MATCH (:Concept {value: 'ZX-9931'})-[r:RELEVANT_TO {via: 'floor'}]->(d:Document) RETURN d.id")
    assert ["d-x"] in floored
    assert not [n for n in summary.notifications if "Unknown" in n["code"]]


def test_a_remote_embedding_inside_a_relevance_search_is_one_semantic_call():
    db = Database.open(None)
    with FakeOpenAI() as fake:
        db.ai_provider = OpenAICompatibleProvider(ProviderConfig(base_url=fake.base_url))
        conn = relate.Connection(db.session())
        conn.execute("CREATE VECTOR INDEX e FOR (d:Doc) ON (d.e) "
                     "OPTIONS {indexConfig: {`vector.dimensions`: 384, `vector.embedder`: 'openai:emb'}}")
        conn.execute("UNWIND ['kafka topics', 'okta login'] AS t CREATE (:Doc {t: t, e: ai.text.embed(t)})").consume()
        conn.execute("CREATE RELEVANCE JOIN j FOR (c:Topic)-[:ABOUT]->(d:Doc) ON c.name OPTIONS {indexes: ['e'], k: 1}")
        conn.execute("UNWIND ['kafka', 'okta'] AS n CREATE (:Topic {name: n})")
        plan = conn.execute("EXPLAIN MATCH (c:Topic)-[r:ABOUT]->(d:Doc) RETURN d.t")
        plan.consume()
        session = db.session()
        session.ai_budget = {"apiCalls": 0}
        result = relate.Connection(session).execute("MATCH (c:Topic)-[r:ABOUT]->(d:Doc) RETURN c.name, d.t "
                                                     "ORDER BY c.name")
        assert result.values() == [["kafka", "kafka topics"], ["okta", "okta login"]]
        assert result.summary.costs == {"semanticCalls": 2, "llmCalls": 0, "apiCalls": 0}
        assert plan.summary.plan["costs"]["apiCalls"] == 0 and plan.summary.plan["costs"]["semanticCalls"] == 2
        assert not [n for n in result.summary.notifications if "Unknown" in n["code"]]
    db.close()


def test_kind_vector_names_the_fused_mode(graph):
    graph.admin.execute("CREATE RELEVANCE JOIN mem_vec FOR (c:Concept)-[:RELEVANT_TO]->(m:Memory) ON c.value "
                        "OPTIONS {indexes: ['memory_e', 'memory_t'], kind: 'vector', via: 'vv'}").consume()
    shown = graph.admin.execute("SHOW RELEVANCE JOINS YIELD name, mode WHERE name = 'mem_vec' RETURN mode").values()
    assert shown == [["fused"]]


def test_an_agentic_join_is_never_the_default(graph):
    import pytest
    from relate.errors import ArgumentError
    with pytest.raises(ArgumentError, match="selected explicitly"):
        graph.admin.execute("CREATE RELEVANCE JOIN meet_ag FOR (m:Meeting)-[:RELEVANT_TO]->(d:Document) "
                            "ON m.subject OPTIONS {indexes: ['doc_e', 'doc_t'], kind: 'agentic-rag'}").consume()


def test_a_child_memory_label_reads_its_own_system_alone(graph):
    graph.admin.execute("CREATE RELEVANCE JOIN concept_mem FOR (c:Concept)-[:RELEVANT_TO]->(m:Memory) ON c.value "
                        "OPTIONS {indexes: ['memory_e', 'memory_t'], k: 5}").consume()
    run = graph.runner()
    dice, _ = run("MATCH (:Concept {value: 'coffee'})-[r:RELEVANT_TO]->(m:DiceMemory) RETURN DISTINCT r.join")
    zep, _ = run("MATCH (:Concept {value: 'coffee'})-[r:RELEVANT_TO]->(m:ZepMemory) RETURN DISTINCT r.join")
    every, _ = run("MATCH (:Concept {value: 'coffee'})-[r:RELEVANT_TO]->(m:Memory) RETURN DISTINCT r.join")
    assert dice == [["concept_dice"]] and zep == [["concept_zep"]]
    assert {"concept_dice", "concept_zep", "concept_mem"} <= {row[0] for row in every}
