"""Full-text fixes every retrieval lane needs: plain mode, escape, WHERE and candidate sets, per-arm PROFILE."""
import pytest

from relate.errors import ArgumentError, CypherSemanticError
from relate.server.engine import Database

NOTES = [
    {"id": "n1", "text": "Kafka topics per tenant", "ws": "a", "ts": 1, "v": [1.0, 0.0]},
    {"id": "n2", "text": "kafka consumer lag alert", "ws": "b", "ts": 2, "v": [0.9, 0.1]},
    {"id": "n3", "text": "OAuth tokens rotate; kafka audit", "ws": "a", "ts": 3, "v": [0.2, 0.8]},
    {"id": "n4", "text": "Okta replaces Auth0", "ws": "b", "ts": 4, "v": [0.0, 1.0]},
    {"id": "n5", "text": "kafka kafka kafka retention", "ws": "b", "ts": 5, "v": [0.7, 0.3]},
]


@pytest.fixture(scope="module")
def run():
    db = Database.open(None)
    session = db.session()
    for statement in (
            "CREATE FULLTEXT INDEX note_t FOR (n:Note) ON EACH [n.text] WITH [n.ws, n.ts]",
            "CREATE VECTOR INDEX note_e FOR (n:Note) ON (n.v) WITH [n.ws] "
            "OPTIONS {indexConfig: {`vector.dimensions`: 2}}"):
        session.run(statement).consume()
    session.run("UNWIND $rows AS r CREATE (:Note {id: r.id, text: r.text, ws: r.ws, ts: r.ts, v: r.v})",
                {"rows": NOTES}).consume()
    db.index_manager.await_indexes(10)

    def run(query, params=None):
        return session.run(query, params).fetch(1000)
    run.session = session
    yield run
    db.close()


SEARCH = "MATCH (n:Note) SEARCH n IN (FULLTEXT INDEX note_t FOR $q LIMIT 10) SCORE AS s RETURN n.id ORDER BY s DESC, n.id"


@pytest.mark.parametrize("question", ["", "kafka AND", 'kafka "tokens', "(kafka", "kafka~~ ^2 -", "AND OR NOT",
                                      "title:kafka", "\\", "*"])
def test_raw_user_questions_never_fail_a_search(run, question):
    rows = run(SEARCH, {"q": question})
    expect_kafka = "kafka" in question
    assert bool(rows) == expect_kafka
    if expect_kafka:
        assert {r[0] for r in rows} >= {"n1", "n2", "n5"}


def test_procedure_keeps_lucene_syntax_and_offers_plain_mode(run):
    with pytest.raises(ArgumentError, match="Invalid full-text query"):
        run("CALL db.index.fulltext.queryNodes('note_t', 'kafka AND') YIELD node RETURN node")
    both = run("CALL db.index.fulltext.queryNodes('note_t', 'kafka AND tokens') YIELD node RETURN node.id")
    assert [r[0] for r in both] == ["n3"]             # Lucene AND: both terms
    plain = run("CALL db.index.fulltext.queryNodes('note_t', 'kafka AND', {mode: 'plain'}) "
                "YIELD node RETURN node.id")
    assert {r[0] for r in plain} == {"n1", "n2", "n3", "n5"}
    with pytest.raises(ArgumentError, match="mode"):
        run("CALL db.index.fulltext.queryNodes('note_t', 'kafka', {mode: 'regex'}) YIELD node RETURN node")


def test_escape_makes_any_text_a_literal_lucene_query(run):
    rows = run("RETURN db.index.fulltext.escape('kafka AND (tokens\"') AS e")
    escaped = rows[0][0]
    assert escaped == 'kafka "AND" \\(tokens\\"'
    found = run("CALL db.index.fulltext.queryNodes('note_t', db.index.fulltext.escape($q)) YIELD node "
                "RETURN node.id", {"q": 'kafka "tokens'})
    assert {r[0] for r in found} == {"n1", "n2", "n3", "n5"}


def test_where_inside_fulltext_is_a_prefilter(run):
    # k = 1 inside workspace a: the best kafka note of workspace a, not the global best filtered away
    rows = run("MATCH (n:Note) SEARCH n IN (FULLTEXT INDEX note_t FOR 'kafka' WHERE n.ws = 'a' LIMIT 1) "
               "SCORE AS s RETURN n.id")
    assert [r[0] for r in rows] == ["n1"]
    rows = run("MATCH (n:Note) SEARCH n IN (FULLTEXT INDEX note_t FOR 'kafka' WHERE n.ws = $ws AND n.ts >= 3 "
               "LIMIT 5) SCORE AS s RETURN n.id ORDER BY s DESC", {"ws": "b"})
    assert [r[0] for r in rows] == ["n5"]
    with pytest.raises(CypherSemanticError, match="not declared"):
        run("MATCH (n:Note) SEARCH n IN (FULLTEXT INDEX note_t FOR 'kafka' WHERE n.id = 'x' LIMIT 1) RETURN n")


def test_in_candidates_restricts_both_index_kinds(run):
    ids = [r[0] for r in run("MATCH (n:Note) WHERE n.id IN ['n2', 'n4'] RETURN n")]
    rows = run("MATCH (n:Note) SEARCH n IN (FULLTEXT INDEX note_t FOR 'kafka okta' WHERE n IN $c LIMIT 5) "
               "SCORE AS s RETURN n.id ORDER BY s DESC, n.id", {"c": ids})
    assert sorted(r[0] for r in rows) == ["n2", "n4"]
    element_ids = [f"n:{n.id}" for n in ids]
    rows = run("MATCH (n:Note) SEARCH n IN (VECTOR INDEX note_e FOR [1.0, 0.0] WHERE n IN $c AND n.ws = 'b' "
               "LIMIT 5) SCORE AS s RETURN n.id ORDER BY s DESC", {"c": element_ids})
    assert [r[0] for r in rows] == ["n2", "n4"]
    assert run("MATCH (n:Note) SEARCH n IN (FULLTEXT INDEX note_t FOR 'kafka' WHERE n IN [] LIMIT 5) "
               "RETURN n") == []


def test_unknown_index_in_a_combine_arm_is_a_clear_typed_error(run):
    with pytest.raises(CypherSemanticError, match="no search index named `missing`"):
        run("MATCH (n:Note) SEARCH n IN (COMBINE (FULLTEXT INDEX note_t FOR 'kafka' LIMIT 5, "
            "VECTOR INDEX missing FOR [1.0, 0.0] LIMIT 5) USING WRRF LIMIT 5) RETURN n")


def test_profile_shows_each_combine_arm(run):
    result = run.session.run("PROFILE MATCH (n:Note) SEARCH n IN (COMBINE (FULLTEXT INDEX note_t FOR 'kafka' "
                             "LIMIT 2, VECTOR INDEX note_e FOR [1.0, 0.0] LIMIT 3) USING WRRF LIMIT 4) "
                             "RETURN n.id")
    result.fetch(100)
    plan = result.consume().plan

    def arms(node):
        found = [node] if node["operator"] == "SearchArm" else []
        for child in node["children"]:
            found += arms(child)
        return found
    shown = {a["details"]: a for a in arms(plan)}
    assert shown["FULLTEXT INDEX note_t"]["rows"] == 2
    assert shown["VECTOR INDEX note_e"]["rows"] == 3
    assert all(a["time_ms"] >= 0 for a in shown.values())
