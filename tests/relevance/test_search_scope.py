"""Index searches outside relevance joins also run inside the session's scope and curation: SEARCH
(labelled or not), the search procedures, and SET of a child label."""
from __future__ import annotations

from . import fixture


def ids(run, query, **params):
    return sorted(r[0] for r in run(query, **params)[0])


def test_search_clause_is_scoped(graph):
    bob = graph.runner(fixture.BOB)
    assert ids(bob, "MATCH (t:RelevantEmailThread) SEARCH t IN (VECTOR INDEX thread_e FOR 'Ada Lovelace' LIMIT 10) "
                    "RETURN t.id") == ["t-9"]
    assert ids(bob, "MATCH (n) SEARCH n IN (FULLTEXT INDEX thread_t FOR 'Ada' LIMIT 10) RETURN n.id") == ["t-9"]
    nobody = graph.runner({})
    assert ids(nobody, "MATCH (n) SEARCH n IN (FULLTEXT INDEX thread_t FOR 'Ada' LIMIT 10) RETURN n.id") == []


def test_search_procedures_are_scoped_and_curated(graph):
    alice, bob = graph.runner(fixture.ALICE), graph.runner(fixture.BOB)
    query = "CALL db.index.fulltext.queryNodes('thread_t', 'Ada') YIELD node RETURN node.id"
    assert ids(bob, query) == ["t-9"]
    assert ids(graph.runner({}), query) == []
    assert ids(alice, "CALL db.index.fulltext.queryNodes('memory_t', 'coffee') YIELD node RETURN node.id") == \
        ["mem-1", "mem-6"]                  # never the CONTRADICTED one, one without status, or bob's


def test_search_with_a_status_constraint_relaxes_curation(graph):
    alice = graph.runner(fixture.ALICE)
    assert ids(alice, "MATCH (m:Memory) SEARCH m IN (FULLTEXT INDEX memory_t FOR 'Ada' LIMIT 10) "
                      "WHERE m.status IN ['ACTIVE', 'SUPERSEDED', 'CONTRADICTED'] RETURN m.id") == ["mem-4", "mem-5"]
    assert ids(alice, "MATCH (m:Memory) SEARCH m IN (FULLTEXT INDEX memory_t FOR 'Ada' LIMIT 10) RETURN m.id") == \
        ["mem-4"]


def test_set_child_label_adds_its_parents(graph):
    graph.admin.execute("CREATE (n:Scratch {id: 'x'}) SET n:DiceMemory").consume()
    rows = graph.admin.execute("MATCH (n:Scratch {id: 'x'}) RETURN labels(n)").values()
    assert sorted(rows[0][0]) == ["DiceMemory", "Memory", "Scratch"]
    graph.admin.execute("MATCH (n:Scratch) DETACH DELETE n").consume()
