"""db.retrieve / db.retrieve.diagnostics: lanes, weights, hydration, diagnostics, degradation, raw questions."""
import pytest

from relate.server.retrieval import graph
from tests.retrieval.corpus import open_loaded

Q = "How do I write components with React?"
CALL = ("CALL db.retrieve($q, $o) YIELD node, score, rank, lanes, evidence, diagnostics "
        "RETURN node.id AS id, score, rank, lanes, evidence, diagnostics")


@pytest.fixture(scope="module")
def db():
    db = open_loaded()
    yield db
    db.close()


def retrieve(db, question=Q, **options):
    rows = db.session().run(CALL, {"q": question, "o": options}).fetch(1000)
    return [dict(zip(("id", "score", "rank", "lanes", "evidence", "diagnostics"), r)) for r in rows]


def steps(rows):
    return {s["name"]: s for s in rows[0]["diagnostics"]["steps"]}


def test_three_lanes_reach_content_the_question_never_worded(db):
    direct = retrieve(db, lanes=["direct"], laneK=2, k=3)
    assert all(r["lanes"] == ["direct"] for r in direct)
    assert direct[0]["id"] == "d1#0"
    rows = retrieve(db, laneK=2, k=5)
    by_id = {r["id"]: r for r in rows if r["rank"] <= 5}
    assert "d1#0" in by_id and "direct" in by_id["d1#0"]["lanes"]
    # the chunks naming only JSX and Meta (never the question's words) arrive through the graph lanes
    assert "expanded" in by_id["d2#0"]["lanes"] or "evidence" in by_id["d2#0"]["lanes"]
    assert any("evidence" in r["lanes"] and r["id"].startswith(("d3", "d4", "d5")) for r in by_id.values())
    s = steps(rows)
    assert s["entities"]["resolved"] == ["React"]
    assert s["traversal"]["facts"] == 2 and s["traversal"]["hops"] == 2
    assert s["evidence"]["documents"] == 4


def test_evidence_lane_orders_by_corroboration(db):
    rows = retrieve(db, lanes=["evidence"], laneK=10, k=10, weights={"direct": 0.0})
    # the direct lane always runs; at weight 0 the fused order is the evidence lane's own order
    evidence_only = [r["id"] for r in rows if "evidence" in r["lanes"]]
    # the fact asserted by three documents (d3, d4, d5) ranks its chunks above the one asserted by d2 alone
    docs = [i.split("#")[0] for i in evidence_only]
    assert set(docs[:3]) == {"d3", "d4", "d5"} and set(docs[3:]) == {"d2"}


def test_weights_and_rrf_constant_are_applied(db):
    rows = retrieve(db, laneK=3, k=10, rrfConstant=10, weights={"direct": 1.0, "expanded": 0.0, "evidence": 2.0})
    ranked = [r for r in rows if r["lanes"] != ["hydration"]]
    lanes_only = retrieve(db, laneK=3, k=10, rrfConstant=10, weights={"direct": 1.0, "expanded": 0.0, "evidence": 2.0},
                          lanes=["direct"])
    direct_rank = {r["id"]: r["rank"] for r in lanes_only}
    evidence_rows = retrieve(db, laneK=3, k=10, rrfConstant=10, lanes=["evidence"],
                             weights={"direct": 0.0, "evidence": 1.0})
    evidence_rank = {r["id"]: i for i, r in enumerate((r for r in evidence_rows if "evidence" in r["lanes"]), 1)}
    for row in ranked:
        expected = 0.0
        if row["id"] in direct_rank:
            expected += 1.0 / (10 + direct_rank[row["id"]])
        if row["id"] in evidence_rank:
            expected += 2.0 / (10 + evidence_rank[row["id"]])
        assert row["score"] == pytest.approx(expected)
    assert steps(rows)["fusion"]["weights"]["evidence"] == 2.0


def test_hydration_pulls_chunks_from_every_asserting_document(db):
    rows = retrieve(db, laneK=2, k=2, weights={"direct": 0.1, "expanded": 0.0, "evidence": 5.0})
    top = [r for r in rows if r["rank"] <= 2]
    used = {f["fact"] for r in top for f in r["evidence"]}
    assert used
    asserting = {d for r in top for f in r["evidence"] for d in f["documents"]}
    returned_docs = {r["id"].split("#")[0] for r in rows}
    assert asserting <= returned_docs                            # every asserting document, not one
    hydrated = [r for r in rows if r["lanes"] == ["hydration"]]
    assert hydrated and all(r["rank"] > 2 for r in hydrated)
    meta = next(f for r in top for f in r["evidence"] if f["to"] == "Meta")
    assert meta["corroboration"] == 3 and sorted(meta["documents"]) == ["d3", "d4", "d5"]


def test_diagnostics_in_every_response_and_as_rows(db):
    rows = retrieve(db)
    names = [s["name"] for s in rows[0]["diagnostics"]["steps"]]
    assert names[:6] == ["direct", "entities", "traversal", "expanded", "evidence", "fusion"]
    assert all(s["ms"] >= 0 for s in rows[0]["diagnostics"]["steps"])
    assert all(r["diagnostics"] == rows[0]["diagnostics"] for r in rows)
    table = db.session().run("CALL db.retrieve.diagnostics($q) YIELD step, ms, details RETURN step, ms, details",
                             {"q": Q}).fetch(100)
    by_step = {r[0]: r for r in table}
    assert by_step["direct"][2]["hits"] > 0 and by_step["traversal"][2]["facts"] == 2
    assert by_step["fusion"][2]["kind"] == "rrf"


def test_the_whole_response_as_one_row_also_when_nothing_is_found(db):
    rows = retrieve(db, laneK=3)
    (one,) = db.session().run("CALL db.retrieve.response($q, $o) YIELD results, answer, citations, diagnostics "
                              "RETURN [r IN results | r.node.id] AS ids, [r IN results | r.rank] AS ranks, "
                              "answer, citations, diagnostics", {"q": Q, "o": {"laneK": 3}}).fetch(10)
    ids, ranks, answer, citations, diagnostics = one
    assert ids == [r["id"] for r in rows] and ranks == list(range(1, len(rows) + 1))
    assert answer is None and citations == []              # no AI provider configured here
    assert [s["name"] for s in diagnostics["steps"]] == [s["name"] for s in rows[0]["diagnostics"]["steps"]]
    (empty,) = db.session().run("CALL db.retrieve.response($q, {workspace: 'nowhere'}) YIELD results, diagnostics "
                                "RETURN results, diagnostics", {"q": Q}).fetch(10)
    assert empty[0] == [] and empty[1]["steps"][0]["name"] == "direct" and empty[1]["steps"][0]["hits"] == 0


def test_graph_failure_degrades_to_the_direct_lane(db, monkeypatch):
    def broken(*args, **kwargs):
        raise ConnectionError("graph store unreachable")
    monkeypatch.setattr(graph, "traverse", broken)
    rows = retrieve(db, laneK=3)
    assert rows and all(r["lanes"] == ["direct"] for r in rows)
    degraded = rows[0]["diagnostics"]["degraded"]
    assert degraded[0]["step"] == "graph" and "unreachable" in degraded[0]["error"]
    assert [r["id"] for r in rows] == [r["id"] for r in retrieve(db, lanes=["direct"], laneK=3)]


def test_no_entities_means_the_direct_lane(db):
    rows = retrieve(db, "what is a library for building user interfaces", laneK=3)
    assert rows and all(r["lanes"] == ["direct"] for r in rows)
    s = steps(rows)
    assert s["entities"]["resolved"] == [] and "traversal" not in s
    assert s["fusion"]["lanes"] == ["direct"]


def test_no_facts_means_one_lane_fusion(db):
    rows = retrieve(db, "tell me about Kafka", laneK=3)      # Kafka is an entity without facts
    s = steps(rows)
    assert s["entities"]["resolved"] == ["Kafka"] and s["traversal"]["facts"] == 0
    assert s["fusion"]["lanes"] == ["direct"] and rows[0]["id"] == "d6#0"


@pytest.mark.parametrize("question", ["", "React AND", '"React', "((((", "React~~^", "\x00\x01", "x" * 50_000,
                                      "React " * 2000])
def test_malformed_questions_are_still_answered(db, question):
    rows = retrieve(db, question, laneK=3)
    if any(ch.isalnum() for ch in question):
        assert rows
    for r in rows:
        if len(question) > 10_000:           # searched as far as the limit, and said so
            assert [d["step"] for d in r["diagnostics"]["degraded"]] == ["question"]
        else:
            assert r["diagnostics"]["degraded"] == []


@pytest.mark.parametrize("options", [{"weights": 3}, {"weights": {"direct": -1}}, {"lanes": "direct"},
                                     {"lanes": ["graph"]}, {"k": -1}, {"entities": "magic"}, {"hydrate": "yes"},
                                     {"vectorIndex": 7}, {"entityThreshold": 0}, {"nope": 1}])
def test_bad_options_are_typed_errors(db, options):
    from relate.errors import ArgumentError
    with pytest.raises(ArgumentError):
        retrieve(db, **options)


@pytest.mark.parametrize("options", [{"weights": {"expand": 1.0}}, {"weights": {"direct": float("nan")}},
                                     {"weights": {"evidence": float("inf")}}, {"rrfConstant": float("nan")},
                                     {"laneK": 10**9}])
def test_misspelt_lanes_non_finite_numbers_and_huge_lane_k_are_typed_errors(db, options):
    # a huge laneK used to reach the full-text engine, which aborted the whole process allocating for it
    from relate.errors import ArgumentError
    with pytest.raises(ArgumentError) as raised:
        retrieve(db, **options)
    assert raised.value.code == "Neo.ClientError.Statement.ArgumentError"


def test_empty_lane_list_runs_the_direct_lane_only(db):
    rows = retrieve(db, lanes=[], laneK=3)
    assert rows and all(r["lanes"] == ["direct"] for r in rows)
    assert "entities" not in steps(rows)


def test_workspace_scopes_the_chunks_as_well_as_the_entities():
    from tests.retrieval.corpus import open_loaded as fresh
    db = fresh()
    try:
        db.session().run("CREATE (:Document {id: 'x1', workspace: 'x'})-[:HAS_CHUNK]->(:Chunk {id: 'x1#0', "
                         "workspace: 'x', position: 0, text: 'write React components with React', "
                         "embedding: ai.text.embed('write React components with React', {model: 'hash-384'})})"
                         ).consume()
        db.index_manager.await_indexes(10)
        assert "x1#0" in {r["id"] for r in retrieve(db, laneK=10)}
        scoped = retrieve(db, laneK=10, workspace="w")
        assert scoped and all(not r["id"].startswith("x1") for r in scoped)
        assert {r["id"] for r in retrieve(db, laneK=10, workspace="x")} == {"x1#0"}
        assert retrieve(db, laneK=10, workspace="nobody") == []
    finally:
        db.close()


@pytest.mark.parametrize("dropped, half, fallback", [("chunk_text", "keyword", "dense search only"),
                                                     ("chunk_embedding", "dense", "keyword search only")])
def test_a_missing_chunk_index_leaves_the_other_half_of_the_search(dropped, half, fallback):
    from relate.errors import ClientError
    from tests.retrieval.corpus import open_loaded as fresh
    db = fresh()
    try:
        db.session().run(f"DROP INDEX {dropped}").consume()
        rows = retrieve(db, laneK=3)
        assert "d1#0" in {r["id"] for r in rows}
        degraded = rows[0]["diagnostics"]["degraded"]
        assert degraded[0]["step"] == half and degraded[0]["fallback"] == fallback
        assert degraded[0]["code"] == "Neo.ClientError.Schema.IndexNotFound"
        other = "chunk_embedding" if dropped == "chunk_text" else "chunk_text"
        db.session().run(f"DROP INDEX {other}").consume()
        with pytest.raises(ClientError) as raised:            # neither index: a clear error, not an empty answer
            retrieve(db)
        assert raised.value.code == "Neo.ClientError.Schema.IndexNotFound"
    finally:
        db.close()


def test_a_failing_embedder_leaves_the_keyword_search(db, monkeypatch):
    from relate.server.retrieval import retrieve as module

    class Broken:
        def embed(self, text, model=None):
            raise ConnectionError("embedding model unavailable")
    monkeypatch.setattr(module, "for_ctx", lambda ctx: Broken())
    rows = retrieve(db, laneK=3)
    assert rows and rows[0]["id"] == "d1#0"
    degraded = rows[0]["diagnostics"]["degraded"]
    assert [d["step"] for d in degraded] == ["dense"] and "unavailable" in degraded[0]["error"]
    assert degraded[0]["fallback"] == "keyword search only"


def test_failing_evidence_hydration_keeps_the_ranked_chunks(db, monkeypatch):
    from relate.server.retrieval.retrieve import Runner

    def broken(self, *args):
        raise ConnectionError("document store unreachable")
    expected = [(r["id"], r["lanes"]) for r in retrieve(db, laneK=3) if r["lanes"] != ["hydration"]]
    monkeypatch.setattr(Runner, "hydrate", broken)
    rows = retrieve(db, laneK=3)
    assert [(r["id"], r["lanes"]) for r in rows] == expected
    assert all(r["evidence"] == [] for r in rows)
    degraded = rows[0]["diagnostics"]["degraded"]
    assert degraded[0]["step"] == "hydration" and "unreachable" in degraded[0]["error"]


def test_the_question_finds_its_workspaces_entity_when_other_tenants_share_the_name():
    from relate.server.engine import Database
    from tests.retrieval.corpus import load
    db = Database.open(None)
    try:
        # ten tenants named React before this one did: the name index ranks their entities first
        db.session().run("UNWIND range(1, 10) AS i CREATE (:Entity {workspace: 'ws' + i, name: 'React', "
                         "normalized: 'react', type: 'Library'})").consume()
        load(db)
        s = steps(retrieve(db, laneK=3, workspace="w"))
        assert s["entities"]["resolved"] == ["React"] and s["traversal"]["facts"] == 2
    finally:
        db.close()


@pytest.mark.parametrize("k", [3, 5])
def test_the_direct_lane_is_a_floor_its_best_hit_stays(db, k):
    best = retrieve(db, lanes=["direct"], k=k)[0]["id"]
    rows = retrieve(db, k=k)                   # every lane at its default weight
    ranked = [r["id"] for r in rows if r["lanes"] != ["hydration"]]     # not the evidence rows hydrated after
    assert len(ranked) == k and best in ranked


def test_workspaces_that_reuse_document_ids_each_get_their_own_evidence_and_hydration():
    from relate.server.engine import Database
    from tests.retrieval.corpus import load
    db = Database.open(None)
    try:
        load(db, "a")
        load(db, "b", setup=False)          # the same document ids d1..d6 in a second workspace
        for workspace in ("a", "b"):
            rows = retrieve(db, laneK=2, k=2, workspace=workspace,
                            weights={"direct": 0.1, "expanded": 0.0, "evidence": 5.0})
            s = steps(rows)
            assert s["evidence"]["hits"] > 0 and s["hydration"]["chunks"] > 0
            spaces = db.session().run("CALL db.retrieve($q, $o) YIELD node RETURN collect(DISTINCT node.workspace)",
                                      {"q": Q, "o": {"laneK": 2, "k": 2, "workspace": workspace}}).fetch(1)[0][0]
            assert spaces == [workspace]
    finally:
        db.close()


def test_hydration_takes_the_chunks_that_state_the_fact_not_the_first_ones():
    from relate.server.engine import Database
    from tests.retrieval.corpus import load
    db = Database.open(None)
    try:
        load(db)
        texts = ["Release notes for the spring.", "Our office moved.", "Hiring is open.",
                 "Meta also created React Native for mobile apps."]
        db.session().run("MATCH (e:Entity {name: 'React'})-[f:CREATED_BY]->() SET f.sources = f.sources + 'd9' "
                         "CREATE (d:Document {id: 'd9', workspace: 'w'}) WITH d UNWIND range(0, 3) AS i "
                         "CREATE (d)-[:HAS_CHUNK]->(:Chunk {id: 'd9#' + i, position: i, workspace: 'w', text: $t[i], "
                         "embedding: ai.text.embed($t[i], {model: 'hash-384'})})", {"t": texts}).consume()
        db.index_manager.await_indexes(10)
        rows = retrieve(db, laneK=2, k=2, weights={"direct": 0.1, "expanded": 0.0, "evidence": 5.0})
        used = {f["to"] for r in rows if r["rank"] <= 2 for f in r["evidence"]}
        assert "Meta" in used
        hydrated = [r["id"] for r in rows if r["lanes"] == ["hydration"] and r["id"].startswith("d9#")]
        assert hydrated and hydrated[0] == "d9#3"         # the chunk naming both React and Meta
    finally:
        db.close()


@pytest.mark.parametrize("question, resolved", [("Is Go fast?", ["Go"]), ("Can I go to the AI talk?", ["AI"]),
                                                ("where do we go now", [])])
def test_names_under_three_characters_resolve_exactly(question, resolved):
    from relate.server.engine import Database
    db = Database.open(None)
    try:
        load_short = ("CREATE VECTOR INDEX chunk_embedding FOR (c:Chunk) ON (c.embedding) "
                      "OPTIONS {indexConfig: {`vector.dimensions`: 384, `vector.embedder`: 'hash-384'}}")
        db.session().run(load_short).consume()
        db.session().run("UNWIND [['Go', 'Language'], ['AI', 'Field'], ['Gopher', 'Mascot']] AS e "
                         "CALL db.entity.resolve([{name: e[0], type: e[1]}], {workspace: 'w'}) YIELD entity "
                         "RETURN count(*)").consume()
        db.session().run("MATCH (g:Entity {name: 'Go'}), (m:Entity {name: 'Gopher'}) "
                         "CREATE (g)-[:HAS_MASCOT {sources: ['d1']}]->(m) "
                         "CREATE (:Document {id: 'd1', workspace: 'w'})-[:HAS_CHUNK]->(:Chunk {id: 'd1#0', "
                         "workspace: 'w', position: 0, text: 'The gopher is the mascot.', "
                         "embedding: ai.text.embed('The gopher is the mascot.', {model: 'hash-384'})})").consume()
        db.index_manager.await_indexes(10)
        rows = db.session().run("CALL db.retrieve.diagnostics($q, {workspace: 'w'}) YIELD step, details "
                                "WHERE step = 'entities' RETURN details.resolved", {"q": question}).fetch(10)
        assert rows == [(resolved,)]
    finally:
        db.close()
