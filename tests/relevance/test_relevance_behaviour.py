"""Relevance join behaviour on the acceptance fixture: counting, cache, culls, pricing, budgets,
fail-open and grounded agentic mode, scope, exact tokens, lifecycle, composition and write refusal."""
from __future__ import annotations

import json

import pytest

import relate
from relate.errors import ClientError, CypherSemanticError, RelateError, SchemaError
from relate.server.ai.providers import OpenAICompatibleProvider, ProviderConfig

from tests.ai.fake_openai import FakeOpenAI

from . import expected as E, fixture

LOTTERIES = "MATCH (c:Concept {value: $v})-[r:RELEVANT_TO {via: $via}]->(d:Document) RETURN d.id, r.score, r.mode " \
            "ORDER BY r.rank"


def test_one_search_per_distinct_anchor_key(graph):
    run = graph.runner()
    rows, summary = run("MATCH (p:Person)-[r:RELEVANT_TO]->(t:RelevantEmailThread) RETURN p.id, t.id")
    assert {r[0] for r in rows} == {"p-ada", "p-ada-2", "p-grace"}
    assert summary.costs["semanticCalls"] == 2          # 'Ada Lovelace' twice, 'Grace Hopper' once
    rows, summary = run("UNWIND ['lotteries', 'lotteries', 'anvils'] AS v "
                        "MATCH (c:Concept {value: v})-[r:RELEVANT_TO]->(d:Document) RETURN v, d.id")
    assert summary.costs["semanticCalls"] == 2
    assert len(rows) == 9


def test_same_target_from_two_anchors_has_two_edges_with_two_scores(graph):
    # two parts: one path converging on t is a core planner limit (test_spec_modes_and_memory.py)
    rows, _ = graph.runner()("MATCH (a:Person {id: 'p-ada'})-[r1:RELEVANT_TO]->(t:RelevantEmailThread), "
                             "(g:Person {id: 'p-grace'})-[r2:RELEVANT_TO]->(t) RETURN t.id, r1.score, r2.score, "
                             "id(r1) <> id(r2) AS distinct, id(r1) < 0 AS virtual")
    assert len(rows) == 3                                # grace's top 3 are ada's top 3 in alice's scope
    for tid, s1, s2, distinct, virtual in rows:
        thread = next(t for t in fixture.THREADS if t[0] == tid)
        assert s1 == pytest.approx(E.thread_sim("Ada Lovelace", thread), abs=1e-5)
        assert s2 == pytest.approx(E.thread_sim("Grace Hopper", thread), abs=1e-5)
        assert distinct and virtual


def test_ttl_cache_makes_a_repeated_question_cost_zero_searches(graph):
    run = graph.runner()
    first, s1 = run(LOTTERIES, v="lottery jackpot odds", via="cached")
    second, s2 = run(LOTTERIES, v="lottery jackpot odds", via="cached")
    assert s1.costs["semanticCalls"] == 1 and s2.costs["semanticCalls"] == 0
    assert first == second
    _, s3 = graph.runner(fixture.BOB)(LOTTERIES, v="lottery jackpot odds", via="cached")
    assert s3.costs["semanticCalls"] == 1                # the cache is per scope: bob searches his own


def test_min_score_cull_is_reported(graph):
    run = graph.runner()
    fused, _ = run("MATCH (c:Concept {value: 'lotteries'})-[r:RELEVANT_TO]->(d:Document) RETURN d.id, r.score")
    rows, summary = run(LOTTERIES, v="lotteries", via="strict")
    kept = [r for r in fused if r[1] >= 0.7]
    assert [r[0] for r in rows] == [r[0] for r in kept]
    dropped = len(fused) - len(kept)
    assert dropped > 0
    notes = [n for n in summary.notifications if n["code"].endswith("MinScoreCull")]
    best = max(r[1] for r in fused)
    assert notes and notes[0]["description"] == (
        f"Relevance join `concept_docs_strict`: minScore 0.7 dropped {dropped} of {len(fused)} hits "
        f"(best score seen {best:.4f})")


def test_explain_prices_exact_first_stage_and_a_floor_for_later_hops(graph):
    run = graph.runner()
    _, summary = run("EXPLAIN MATCH (p:Person)-[r:RELEVANT_TO]->(t:RelevantEmailThread) RETURN t")
    assert summary.plan["pricing"] == "~2 semantic searches"
    assert summary.plan["costs"] == {"semanticCalls": 2, "llmCalls": 0, "apiCalls": 0, "exact": True}
    assert summary.costs["semanticCalls"] == 0          # EXPLAIN spends nothing
    _, summary = run("EXPLAIN MATCH (c:Concept {value: 'lotteries'})-[:RELEVANT_TO]->(d:Document) RETURN d")
    assert summary.plan["pricing"] == "~1 semantic search"
    _, summary = run("EXPLAIN MATCH (c:Concept {value: 'Acme'})-[:RELEVANT_TO {via: 'agentic-rag'}]->(d:Document) "
                     "RETURN d")
    assert summary.plan["pricing"] == "~1 semantic search, ~2 model call(s)"
    _, summary = run("EXPLAIN MATCH (p:Person {name: 'Ada Lovelace'})-[:RELEVANT_TO]->(t:RelevantEmailThread)"
                     "-[:RELEVANT_TO]->(d:Document) RETURN d")
    assert summary.plan["pricing"] == "at least ~2 semantic searches"
    assert summary.plan["costs"]["exact"] is False


@pytest.mark.parametrize("query", [
    "MATCH (p:Person) OPTIONAL MATCH (p)-[r:RELEVANT_TO]->(t:RelevantEmailThread) RETURN p.id, t.id",
    "MATCH (p:Person) CALL (p) { MATCH (p)-[r:RELEVANT_TO]->(t:RelevantEmailThread) RETURN t } RETURN p.id, t.id",
    "MATCH (p:Person) CALL { WITH p MATCH (p)-[r:RELEVANT_TO]->(t:RelevantEmailThread) RETURN t } RETURN t.id",
])
def test_explain_prices_a_first_stage_hop_inside_a_subquery_exactly(graph, query):
    run = graph.runner()
    _, explained = run("EXPLAIN " + query)
    _, ran = run(query)
    assert explained.plan["costs"] == {"semanticCalls": ran.costs["semanticCalls"], "llmCalls": 0, "apiCalls": 0,
                                       "exact": True}
    assert explained.plan["pricing"] == f"~{ran.costs['semanticCalls']} semantic searches"


@pytest.mark.parametrize("query", [
    "MATCH (p:Person) RETURN p.id, COUNT { (p)-[:RELEVANT_TO]->(:RelevantEmailThread) } AS n",
    "MATCH (p:Person) WHERE EXISTS { (p)-[:RELEVANT_TO]->(:RelevantEmailThread) } RETURN p.id",
    "MATCH (p:Person) RETURN p.id, [(p)-[:RELEVANT_TO]->(t:RelevantEmailThread) | t.id] AS ts",
])
def test_explain_prices_a_hop_inside_a_subquery_expression_as_a_floor(graph, query):
    _, explained = graph.runner()("EXPLAIN " + query)
    assert explained.plan["pricing"] == "at least ~1 semantic search"
    assert explained.plan["costs"]["exact"] is False


@pytest.mark.parametrize("query", [
    "UNWIND ['Acme', 'lotteries'] AS v CALL (v) { MATCH (:Concept {value: v})-[:RELEVANT_TO {via: 'agentic-rag'}]->"
    "(d:Document) RETURN d } RETURN count(*)",
    "UNWIND ['Acme', 'lotteries'] AS v OPTIONAL MATCH (:Concept {value: v})-[:RELEVANT_TO {via: 'agentic-rag'}]->"
    "(d:Document) RETURN count(d)",
])
def test_budget_refuses_a_subquerys_hops_before_the_first_model_call(graph, model, query):
    asked = model.calls("/v1/chat/completions")
    with pytest.raises(ClientError) as info:
        graph.runner(budget={"llmCalls": 2})(query)
    assert info.value.code == "Neo.ClientError.Statement.TooExpensive"
    assert "would spend 4 llmCalls (budget 2)" in info.value.message
    assert model.calls("/v1/chat/completions") == asked          # refused before the first model call
    rows, summary = graph.runner(budget={"llmCalls": 4})(query)
    assert summary.costs["llmCalls"] == 4


def test_budget_refuses_as_too_expensive_before_spending(graph):
    run = graph.runner(budget={"semanticCalls": 1})
    query = "MATCH (p:Person)-[r:RELEVANT_TO]->(t:RelevantEmailThread) RETURN count(*)"
    with pytest.raises(ClientError) as info:
        run(query)
    assert info.value.code == "Neo.ClientError.Statement.TooExpensive" and info.value.detail == "TOO_EXPENSIVE"
    rows, summary = graph.runner(budget={"semanticCalls": 2})(query)
    assert summary.costs["semanticCalls"] == 2
    with pytest.raises(ClientError, match="llmCalls"):
        graph.runner(budget={"llmCalls": 1})(LOTTERIES, v="Acme", via="agentic-rag")


def test_max_anchors_refuses(graph):
    graph.admin.execute("CREATE RELEVANCE JOIN capped IF NOT EXISTS FOR (o:Organization)-[:RELEVANT_TO]->"
                        "(t:RelevantEmailThread) ON o.name OPTIONS {indexes: ['thread_e'], via: 'capped', "
                        "kind: 'fused', maxAnchors: 1}").consume()
    run = graph.runner()
    with pytest.raises(ClientError, match="maxAnchors is 1"):
        run("MATCH (o:Organization)-[:RELEVANT_TO {via: 'capped'}]->(t) RETURN t")
    rows, _ = run("MATCH (o:Organization {id: 'o-acme'})-[:RELEVANT_TO {via: 'capped'}]->(t) RETURN t.id")
    assert rows


@pytest.mark.parametrize("failure", ["error", "timeout"])
def test_agentic_fails_open_to_the_fused_lane(graph, failure):
    fused, _ = graph.runner()("MATCH (c:Concept {value: 'Acme'})-[r:RELEVANT_TO]->(d:Document) "
                              "RETURN d.id, r.score ORDER BY r.rank")
    kwargs = {"fail_status": 500} if failure == "error" else {"delay_s": 1.5}
    with FakeOpenAI(**kwargs) as broken:
        saved = graph.db.ai_provider
        graph.db.ai_provider = OpenAICompatibleProvider(ProviderConfig(base_url=broken.base_url, timeout_s=0.3))
        try:
            rows, summary = graph.runner()(
                "MATCH (c:Concept {value: 'Acme'})-[r:RELEVANT_TO {via: 'agentic-rag', intent: 'renewal risk'}]->"
                "(d:Document) RETURN d.id, r.score, r.mode, r.intent ORDER BY r.rank")
        finally:
            graph.db.ai_provider = saved
    assert [r[:2] for r in rows] == fused
    assert {r[2] for r in rows} == {"fused"} and {r[3] for r in rows} == {"renewal risk"}
    assert summary.costs == {"semanticCalls": 1, "llmCalls": 1, "apiCalls": 0}
    assert any(n["code"].endswith("AgenticDegraded") for n in summary.notifications)


def test_agentic_is_grounded_and_scoped(graph, model):
    before = len(model.requests)
    rows, _ = graph.runner(fixture.BOB)(LOTTERIES, v="lotteries", via="agentic-rag")
    shown = [json.loads(body["messages"][1]["content"]) for _, _, body in model.requests[before:]
             if "candidates" in body["messages"][1]["content"]]
    seen = [c["snippet"] for req in shown for c in req["candidates"]]
    assert seen and all("Globex" in s for s in seen)     # the judge saw bob's context only
    assert all(r[0] == "d-9" for r in rows)
    assert not graph.runner()("MATCH (n) WHERE id(n) < 0 RETURN n")[0]


def test_an_exact_token_is_reachable_through_the_fused_lane(graph):
    question = "what was billed on INV-2024-0042 for the consulting engagement"
    rows, _ = graph.runner()("MATCH (c:Concept {value: $q})-[r:RELEVANT_TO]->(d:Document) "
                             "RETURN d.id, r.probes, r.score, r.matchedTerms ORDER BY r.rank", q=question)
    invoice = next(r for r in rows if r[0] == "d-2")
    assert "keyword" in invoice[1]
    doc = next(d for d in fixture.DOCUMENTS if d[0] == "d-2")
    assert invoice[2] == pytest.approx(E.doc_sim(question, doc), abs=1e-5)   # still a similarity
    assert {"inv", "2024", "0042"} <= set(invoice[3])


def test_keyword_lane_is_an_honest_empty(graph):
    rows, summary = graph.runner()(LOTTERIES, v="lotteries anvils", via="keyword")
    assert rows == [] and summary.costs["semanticCalls"] == 1
    rows, _ = graph.runner()(LOTTERIES, v="Acme anvils", via="keyword")
    assert [r[0] for r in rows] == ["d-5"] and rows[0][2] == "keyword"


def test_lifecycle_curation(graph):
    run = graph.runner()
    ids = lambda q: sorted(r[0] for r in run(q)[0])                               # noqa: E731
    assert ids("MATCH (m:Memory) RETURN m.id") == ["mem-1", "mem-4", "mem-6"]
    assert ids("MATCH (m:DiceMemory) RETURN m.id") == ["mem-1", "mem-4"]
    assert ids("MATCH (m:Memory) WHERE m.status IN ['ACTIVE', 'SUPERSEDED', 'CONTRADICTED'] RETURN m.id") == \
        ["mem-1", "mem-4", "mem-5", "mem-6"]
    assert ids("MATCH (m:Memory {status: 'CONTRADICTED'}) RETURN m.id") == []
    assert ids("MATCH (m:Memory {id: 'mem-2'}) RETURN m.id") == []
    assert ids("MATCH (m:Memory) WHERE m.status IS NULL RETURN m.id") == []
    # label (token) order: the fixture's indexes FOR (m:Memory) made Memory before any DiceMemory node, as in Neo4j
    assert run("MATCH (m:DiceMemory {id: 'mem-1'}) RETURN labels(m)")[0] == [[["Memory", "DiceMemory"]]]


def test_composition_optional_match_and_subqueries(graph):
    run = graph.runner()
    rows, _ = run("MATCH (p:Person {id: 'p-grace'}) OPTIONAL MATCH (p)-[r:RELEVANT_TO]->(t:RelevantEmailThread) "
                  "WHERE r.score > 0.99 RETURN p.name, t")
    assert rows == [["Grace Hopper", None]]
    rows, _ = run("MATCH (p:Person {id: 'p-grace'}) CALL (p) { MATCH (p)-[r:RELEVANT_TO]->(t:RelevantEmailThread) "
                  "RETURN t.id AS tid, r.rank AS rank } RETURN tid, rank ORDER BY rank")
    assert [r[1] for r in rows] == [1, 2, 3]
    rows, _ = run("MATCH (p:Person {id: 'p-grace'}) "
                  "RETURN COUNT { (p)-[:RELEVANT_TO]->(:RelevantEmailThread) } AS n")
    assert rows == [[3]]
    rows, _ = run("MATCH (c:Concept {value: 'lotteries'})-[r:RELEVANT_TO]->(d) RETURN c, r, d LIMIT 1")
    concept, rel, doc = rows[0]
    assert isinstance(rel, relate.Relationship) and rel.id < 0 and concept.id < 0
    assert rel.type == "RELEVANT_TO" and rel.start_id == concept.id and rel.end_id == doc.id
    assert set(rel.properties) >= {"score", "rank", "mode", "snippet", "matchedTerms", "probes", "via", "intent"}


def test_writing_a_virtual_edge_is_a_clear_error(graph):
    run = graph.runner()
    for write in ("SET r.note = 'x'", "DELETE r", "SET c.value = 'x'", "CREATE (c)-[:SEEN]->(d)"):
        with pytest.raises(CypherSemanticError, match="virtual") as info:
            run(f"MATCH (c:Concept {{value: 'lotteries'}})-[r:RELEVANT_TO]->(d:Document) {write}")
        assert info.value.detail == "VirtualEntityWrite"
    assert run("MATCH ()-[r:SEEN]->() RETURN count(r)")[0] == [[0]]


def test_ddl_errors_and_durability(tmp_path):
    path = str(tmp_path / "db")
    conn = relate.connect(path)
    conn.execute("CREATE FULLTEXT INDEX t FOR (d:Doc) ON EACH [d.text]")
    conn.execute("CREATE RELEVANCE JOIN j FOR (c:Concept)-[:RELEVANT_TO]->(d:Doc) ON c.value "
                 "OPTIONS {indexes: ['t'], via: 'keyword', cacheTtl: 30, maxAnchors: 10, description: 'mentions'}")
    conn.execute("CREATE LABEL Memory OPTIONS {lifecycle: {active: ['ACTIVE'], never: ['CONTRADICTED']}}")
    with pytest.raises(SchemaError, match="already answers"):
        conn.execute("CREATE RELEVANCE JOIN j2 FOR (c:Concept)-[:RELEVANT_TO]->(d:Doc) ON c.value "
                     "OPTIONS {indexes: ['t'], via: 'keyword'}")
    with pytest.raises(SchemaError, match="does not exist"):
        conn.execute("CREATE RELEVANCE JOIN j3 FOR (c:Concept)-[:RELEVANT_TO]->(d:Doc) ON c.value "
                     "OPTIONS {indexes: ['nope']}")
    with pytest.raises(RelateError, match="minScore"):
        conn.execute("CREATE RELEVANCE JOIN j4 FOR (c:Concept)-[:X]->(d:Doc) ON c.value "
                     "OPTIONS {indexes: ['t'], minScore: 2}")
    conn.close()
    conn = relate.connect(path)
    rows = conn.execute("SHOW RELEVANCE JOINS YIELD name, via, cacheTtl, maxAnchors, description").values()
    assert rows == [["j", "keyword", 30.0, 10, "mentions"]]
    assert conn.execute("SHOW LABEL DECLARATIONS YIELD name RETURN name").values() == [["Memory"]]
    conn.execute("DROP RELEVANCE JOIN j")
    conn.execute("DROP RELEVANCE JOIN j IF EXISTS")
    with pytest.raises(SchemaError):
        conn.execute("DROP RELEVANCE JOIN j")
    assert conn.execute("SHOW RELEVANCE JOINS").values() == []
    conn.close()


def test_embedded_connect_binds_the_scope(tmp_path):
    conn = relate.connect(str(tmp_path / "db"), scope=fixture.ALICE, ai_budget={"semanticCalls": 5})
    conn.execute("CREATE LABEL Note OPTIONS {scope: {owner: 'user'}}")
    conn.execute("CREATE (:Note {owner: 'alice', text: 'mine'}), (:Note {owner: 'bob', text: 'theirs'})")
    assert conn.execute("MATCH (n:Note) RETURN n.text").values() == [["mine"]]
    # a query parameter cannot stand in for the bound scope
    assert conn.execute("MATCH (n:Note) WHERE n.owner = $u RETURN n.text", u="bob").values() == []
    conn.close()


def test_creating_or_merging_a_relevance_type_is_refused(graph):
    for write in ("CREATE (a)-[:RELEVANT_TO]->(b)", "MERGE (a)-[:RELEVANT_TO]->(b)"):
        with pytest.raises(CypherSemanticError, match="answered by relevance join") as info:
            graph.admin.execute(f"MATCH (a:Person {{id: 'p-ada'}}), (b:Document {{id: 'd-1'}}) {write}").consume()
        assert info.value.detail == "VirtualEntityWrite"


def test_the_memory_contract_is_enforceable_with_constraints(graph):
    # a child label carries its parent, so a constraint on :Memory holds every memory system to it
    graph.admin.execute("CREATE CONSTRAINT memory_text IF NOT EXISTS FOR (m:Memory) REQUIRE m.text IS NOT NULL")
    graph.admin.execute("CREATE CONSTRAINT memory_confidence IF NOT EXISTS FOR (m:Memory) REQUIRE m.confidence IS :: FLOAT")
    try:
        with pytest.raises(RelateError):
            graph.admin.execute("CREATE (:DiceMemory {id: 'bad', status: 'ACTIVE'})").consume()
        with pytest.raises(RelateError):
            graph.admin.execute("CREATE (:ZepMemory {id: 'bad', text: 'x', confidence: 'high'})").consume()
    finally:
        graph.admin.execute("DROP CONSTRAINT memory_text")
        graph.admin.execute("DROP CONSTRAINT memory_confidence")


def test_a_huge_anchor_is_a_bounded_search(graph):
    text = "lotteries " + " ".join(f"w{i}" for i in range(20_000))
    rows, summary = graph.runner()(LOTTERIES, v=text, via="keyword")
    assert summary.costs["semanticCalls"] == 1 and rows == []


def test_a_remote_embedder_embeds_a_joins_anchors_in_one_request():
    from relate.server.engine import Database
    db = Database.open(None)
    session = db.session()
    with FakeOpenAI() as fake:
        db.ai_provider = OpenAICompatibleProvider(ProviderConfig(base_url=fake.base_url))
        conn = relate.Connection(session)
        conn.execute("CREATE VECTOR INDEX e FOR (d:Doc) ON (d.e) "
                     "OPTIONS {indexConfig: {`vector.dimensions`: 384, `vector.embedder`: 'openai:emb'}}")
        conn.execute("UNWIND ['kafka topics', 'okta login', 'coffee beans'] AS t CREATE (:Doc {t: t, e: ai.text.embed(t)})")
        conn.execute("CREATE RELEVANCE JOIN j FOR (c:Topic)-[:ABOUT]->(d:Doc) ON c.name OPTIONS {indexes: ['e'], k: 1}")
        conn.execute("UNWIND ['kafka', 'okta', 'coffee'] AS n CREATE (:Topic {name: n})")
        before = fake.calls("/v1/embeddings")
        result = conn.execute("MATCH (c:Topic)-[r:ABOUT]->(d:Doc) RETURN c.name, d.t ORDER BY c.name")
        assert result.values() == [["coffee", "coffee beans"], ["kafka", "kafka topics"], ["okta", "okta login"]]
        assert fake.calls("/v1/embeddings") - before == 1
        assert result.summary.costs == {"semanticCalls": 3, "llmCalls": 0, "apiCalls": 0}   # 001 6.7: one counter
    db.close()
