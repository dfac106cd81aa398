"""Spec 001 claims checked statement by statement: the via selector's names (§6.6, §6.8), the agentic
mode over memory, a memory system read through its parent's join, memory curation held at the
source (active only, or the statuses a query names), undirected hops, and the relationship forms no
relevance join can answer (typed errors, never a silent empty or a Python exception)."""
from __future__ import annotations

import re

import pytest

import relate

from relate.errors import CypherSemanticError, CypherSyntaxError, SchemaError

from . import expected as E, fixture

DOCS = "MATCH (c:Concept {value: 'lotteries'})-[r:RELEVANT_TO%s]->(d:Document) RETURN d.id, r.score, r.mode ORDER BY r.rank"


def test_via_vector_names_the_default_semantic_lane(graph):
    run = graph.runner()
    default, _ = run(DOCS % "")
    rows, summary = run(DOCS % " {via: 'vector'}")
    assert rows == default and rows and {r[2] for r in rows} == {"fused"}
    assert summary.costs["semanticCalls"] == 1
    rows, _ = run("MATCH (c:Concept {value: 'lotteries'})-[r:RELEVANT_TO {via: $via}]->(d:Document) "
                  "RETURN r.via, d.id ORDER BY r.rank", via="vector")
    assert [r[1] for r in rows] == [r[0] for r in default] and {r[0] for r in rows} == {"vector"}


def test_a_join_declaring_via_vector_is_the_default_one(graph):
    with pytest.raises(SchemaError, match="already answers"):
        graph.admin.execute("CREATE RELEVANCE JOIN concept_docs_vector FOR (c:Concept)-[:RELEVANT_TO]->(d:Document) "
                            "ON c.value OPTIONS {indexes: ['doc_e'], via: 'vector'}").consume()
    graph.admin.execute("CREATE RELEVANCE JOIN meeting_docs FOR (m:Meeting)-[:RELEVANT_TO]->(d:Document) "
                        "ON m.subject OPTIONS {indexes: ['doc_e', 'doc_t'], via: 'vector', k: 2}").consume()
    rows, _ = graph.runner()("MATCH (m:Meeting)-[r:RELEVANT_TO]->(d:Document) RETURN r.mode, r.rank")
    assert [r[1] for r in rows] == [1, 2] and {r[0] for r in rows} == {"fused"}


def test_agentic_rag_over_memory_answers_with_the_semantic_lane(graph, model):
    graph.admin.execute("CREATE RELEVANCE JOIN concept_dice_agentic IF NOT EXISTS FOR (c:Concept)-[:RELEVANT_TO]->"
                        "(m:DiceMemory) ON c.value OPTIONS {indexes: ['memory_e', 'memory_t'], via: 'agentic-rag', "
                        "k: 5}").consume()
    run = graph.runner()
    fused, _ = run("MATCH (:Concept {value: 'coffee'})-[r:RELEVANT_TO]->(m:DiceMemory) RETURN m.id, r.score "
                   "ORDER BY r.rank")
    before = len(model.requests)
    rows, summary = run("MATCH (:Concept {value: 'coffee'})-[r:RELEVANT_TO {via: 'agentic-rag', intent: 'habits'}]->"
                        "(m:Memory) RETURN m.id, r.score, r.mode, r.intent ORDER BY r.rank")
    assert [r[:2] for r in rows] == fused and fused
    assert {r[2] for r in rows} == {"fused"} and {r[3] for r in rows} == {"habits"}
    assert summary.costs == {"semanticCalls": 1, "llmCalls": 0, "apiCalls": 0}
    assert len(model.requests) == before
    _, summary = run("EXPLAIN MATCH (:Concept {value: 'coffee'})-[r:RELEVANT_TO {via: 'agentic-rag'}]->(m:Memory) "
                     "RETURN m")
    assert summary.plan["pricing"] == "~1 semantic search"


def test_a_child_label_reads_its_parents_join_for_that_system_alone(graph):
    run = graph.runner()
    mine = [m for m in fixture.MEMORIES if (m[4], m[5]) == ("alice", "acme") and "p-ada" in m[6]]
    rows, _ = run("MATCH (p:Person {id: 'p-ada'})-[r:REMEMBERED_IN]->(m:DiceMemory) RETURN m.text, r.mode, r.rank")
    assert rows == [[m[2], "participant", 1] for m in mine if m[1] == "DiceMemory" and m[3] == "ACTIVE"]
    rows, _ = run("MATCH (p:Person {id: 'p-ada'})-[r:REMEMBERED_IN]->(m:ZepMemory) RETURN m.text")
    assert rows == []


def test_memory_is_read_active_only_at_the_source(graph):
    # mem-5 (SUPERSEDED) is the second-best Ada memory: it must not take a rank (or a top-k slot)
    run = graph.runner()
    rows, _ = run("MATCH (:Concept {value: 'Ada Lovelace'})-[r:RELEVANT_TO]->(m:DiceMemory) "
                  "RETURN m.id, m.status, r.rank ORDER BY r.rank")
    assert {r[1] for r in rows} == {"ACTIVE"}
    assert [r[2] for r in rows] == list(range(1, len(rows) + 1))
    active = [m for m in fixture.MEMORIES if m[1] == "DiceMemory" and m[3] == "ACTIVE" and m[4:6] == ("alice", "acme")]
    assert len(rows) == min(5, len(active))


@pytest.mark.parametrize("constraint, params", [
    ("{status: 'SUPERSEDED'}", {}),
    (" WHERE m.status IN $s", {"s": ["SUPERSEDED"]}),
    (" WHERE m.status = $s", {"s": "SUPERSEDED"}),
])
def test_a_status_constraint_pushes_down_to_the_source(graph, constraint, params):
    node = "(m:DiceMemory%s)" % (constraint if constraint.startswith("{") else "")
    where = "" if constraint.startswith("{") else constraint
    rows, _ = graph.runner()(f"MATCH (:Concept {{value: 'Ada Lovelace'}})-[r:RELEVANT_TO]->{node}{where} "
                             "RETURN m.id, r.rank", **params)
    assert rows == [["mem-5", 1]]


def test_a_relaxed_status_never_reads_contradicted_memories(graph):
    rows, _ = graph.runner()("MATCH (:Concept {value: 'coffee'})-[r:RELEVANT_TO]->(m:Memory) "
                             "WHERE m.status IN ['ACTIVE', 'CONTRADICTED'] RETURN m.id")
    assert "mem-2" not in {r[0] for r in rows} and rows


@pytest.mark.parametrize("pattern", [
    "(c:Concept {value: 'lotteries'})-[r:RELEVANT_TO]-(d:Document)",
    "(d:Document)-[r:RELEVANT_TO]-(c:Concept {value: 'lotteries'})",
])
def test_an_undirected_relevance_hop_runs_from_its_anchor(graph, pattern):
    run = graph.runner()
    want, _ = run(DOCS % "")
    rows, _ = run(f"MATCH {pattern} RETURN d.id, r.score, r.mode ORDER BY r.rank")
    assert rows == want and rows


def test_quantified_path_patterns_still_plan_once_a_join_exists(graph):
    rows, _ = graph.runner()("MATCH (u:AssistantUser) ((x)-[:EMAILED]->(y)){1,2} (z) RETURN z.name ORDER BY z.name")
    assert rows == [["Ada Lovelace"], ["Grace Hopper"]]


@pytest.mark.parametrize("pattern", [
    "(c:Concept {value: 'lotteries'})-[:RELEVANT_TO*1..2]->(d)",
    "(c:Concept {value: 'lotteries'})-[:RELEVANT_TO|MENTIONS]->(d)",
    "(c:Person) ((a)-[:RELEVANT_TO]->(b)){1,2} (d)",
    "p = SHORTEST 1 (c:Person)-[:RELEVANT_TO]->+(d)",
])
def test_a_relevance_type_in_a_form_no_join_answers_is_a_typed_error(graph, pattern):
    with pytest.raises(CypherSemanticError) as info:
        graph.runner()(f"MATCH {pattern} RETURN d")
    assert info.value.code == "Neo.ClientError.Statement.SemanticError"
    assert info.value.detail == "UnsupportedRelevancePattern" and "RELEVANT_TO" in str(info.value)


def test_convergent_anchors_in_two_parts(graph):
    rows, _ = graph.runner()("MATCH (a:Person {id: 'p-ada'})-[r1:RELEVANT_TO]->(t:RelevantEmailThread), "
                             "(g:Person {id: 'p-grace'})-[r2:RELEVANT_TO]->(t) RETURN t.id, r1.score, r2.score")
    assert rows
    for tid, s1, s2 in rows:
        thread = next(t for t in fixture.THREADS if t[0] == tid)
        assert s1 == pytest.approx(E.thread_sim("Ada Lovelace", thread), abs=1e-5)
        assert s2 == pytest.approx(E.thread_sim("Grace Hopper", thread), abs=1e-5)


def test_convergent_anchors_in_one_path(graph):
    """Spec 001 §6.2's convergent match in one path: the same rows as the two-part form."""
    one, _ = graph.runner()("MATCH (a:Person {id: 'p-ada'})-[r1:RELEVANT_TO]->(t:RelevantEmailThread)"
                            "<-[r2:RELEVANT_TO]-(g:Person {id: 'p-grace'}) RETURN t.id, r1.score, r2.score ORDER BY t.id")
    two, _ = graph.runner()("MATCH (a:Person {id: 'p-ada'})-[r1:RELEVANT_TO]->(t:RelevantEmailThread), "
                            "(g:Person {id: 'p-grace'})-[r2:RELEVANT_TO]->(t) RETURN t.id, r1.score, r2.score ORDER BY t.id")
    assert one and one == two


def test_a_participant_identity_field_may_hold_one_id(graph):
    graph.admin.execute("CREATE RELEVANCE JOIN person_facts IF NOT EXISTS FOR (p:Person)-[:STATED_IN]->(f:Fact) "
                        "ON p.id OPTIONS {kind: 'participant', identityField: 'entityId'}").consume()
    graph.admin.execute("CREATE (:Fact {text: 'Ada wrote the first program', entityId: 'p-ada'}), "
                        "(:Fact {text: 'Grace found a moth', entityId: 'p-grace'})").consume()
    rows, _ = graph.runner()("MATCH (p:Person {id: 'p-ada'})-[r:STATED_IN]->(f:Fact) RETURN f.text, r.mode")
    assert rows == [["Ada wrote the first program", "participant"]]


@pytest.mark.parametrize("on, named", [("d.value", "`d` (the target)"), ("x.value", "`x`")])
def test_a_join_is_on_a_property_of_its_anchor(on, named):
    """``ON`` names the anchor's property whose value is searched for; another variable is a syntax error
    (it was stored as the anchor's property of that name, silently)."""
    db = relate.connect(":memory:")
    with pytest.raises(CypherSyntaxError, match=f"ON must name a property of the anchor `p`, not of {re.escape(named)}"):
        db.execute(f"CREATE RELEVANCE JOIN j FOR (p:Person)-[:R]->(d:Doc) ON {on} OPTIONS {{indexes: ['x']}}")
    db.close()
