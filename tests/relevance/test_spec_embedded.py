"""Spec 001's statements on the acceptance fixture, embedded, per user and context."""
from __future__ import annotations

from . import checks, fixture


def test_every_spec_statement_as_alice(graph):
    checks.check_spec_statements(graph.runner(fixture.ALICE))


def test_every_spec_statement_as_bob_sees_only_his_scope(graph):
    run = graph.runner(fixture.BOB)
    rows, _ = run(fixture.spec_statements()[0])
    assert {r[0] for r in rows} == {"Ada Lovelace biography draft"}     # never alice's threads
    rows, _ = run(fixture.spec_statements()[2])
    assert [r[0] for r in rows] == ["d-9"]
    rows, _ = run(fixture.spec_statements()[5])
    assert [r[1] for r in rows] == ["Bob likes coffee with oat milk"]


def test_a_user_in_another_context_sees_that_context_only(graph):
    run = graph.runner({"user": "alice", "context": "globex"})
    rows, _ = run(fixture.spec_statements()[0])
    assert {r[0] for r in rows} == {"Ada Lovelace in another context"}


def test_no_scope_reads_nothing(graph):
    for scope in ({}, {"user": "alice"}, {"context": "acme"}):
        run = graph.runner(scope)
        for statement in fixture.spec_statements():
            rows, summary = run(statement)
            assert rows == [], (scope, statement)
        rows, _ = run("MATCH (m:Memory) RETURN m")
        assert rows == []


def test_show_relevance_joins(graph):
    rows, _ = graph.runner()("SHOW RELEVANCE JOINS YIELD name, anchorLabels, anchorProperty, type, targetLabel, "
                             "mode, via, k, minScore, cacheTtl WHERE name STARTS WITH 'concept_docs' RETURN *")
    assert len(rows) == 5
    row = dict(zip(["anchorLabels", "anchorProperty", "cacheTtl", "k", "minScore", "mode", "name", "targetLabel",
                    "type", "via"], next(r for r in rows if "concept_docs_keyword" in r)))
    assert row["mode"] == "keyword" and row["via"] == "keyword" and row["k"] == 5 and row["minScore"] == 0.0
