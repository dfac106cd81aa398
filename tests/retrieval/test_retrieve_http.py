"""POST /db/{db}/retrieve and /db/{db}/retrieve/diagnostics against a real server process (httpx), over
the retrieval corpus, with a fake OpenAI-compatible provider for the answer."""
from __future__ import annotations

import httpx
import pytest

from relate.protocol.json_values import from_typed
from relate.values import Node
from tests.ai.fake_openai import FakeOpenAI
from tests.retrieval.corpus import run_statements
from tests.server.conftest import PASSWORD, ServerProcess

QUESTION = "How do I write components with React?"
ANSWER = "React uses JSX [1] and came from Meta [3]."
KEY = "sk-http-retrieve"


@pytest.fixture(scope="module")
def fake():
    with FakeOpenAI(chat=lambda body: "React uses JSX [1] and came from Meta [3][42].") as provider:
        yield provider


@pytest.fixture(scope="module")
def server(tmp_path_factory, fake):
    process = ServerProcess(tmp_path_factory.mktemp("retrieve-http"), "--http-listen", "127.0.0.1:0",
                            "--max-message-size", "100000",
                            env={"RELATE_AI_BASE_URL": fake.base_url, "RELATE_AI_API_KEY": KEY})
    try:
        with httpx.Client(base_url=f"http://{process.info['http']}", auth=("neo4j", PASSWORD), timeout=120) as c:
            def run(statement, parameters=None):
                response = c.post("/db/neo4j/query/v2", json={"statement": statement, "parameters": parameters or {}})
                assert response.status_code == 202, response.text
            run_statements(run)
            run("CALL db.awaitIndexes(30)")
        yield process
    finally:
        process.stop()


@pytest.fixture
def http(server):
    with httpx.Client(base_url=f"http://{server.info['http']}", auth=("neo4j", PASSWORD), timeout=120) as client:
        yield client


def names(steps):
    return [step["name"] for step in steps]


def test_retrieve_ranks_results_and_carries_answer_citations_and_diagnostics(server, http):
    response = http.post("/db/neo4j/retrieve", json={"question": QUESTION, "options": {"k": 3, "laneK": 3}})
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("application/json")
    body = response.json()
    assert set(body) == {"results", "answer", "citations", "diagnostics"}
    results = body["results"]
    assert [r["rank"] for r in results] == list(range(1, len(results) + 1))      # the k fused, then hydration
    fused = [r for r in results if r["lanes"] != ["hydration"]]
    assert len(fused) == 3 and results[:3] == fused
    assert [r["score"] for r in fused] == sorted((r["score"] for r in fused), reverse=True)
    for r in results:
        assert set(r) == {"node", "score", "rank", "lanes", "evidence"}
        assert r["node"]["labels"] == ["Chunk"] and r["node"]["elementId"].startswith("n:")
        assert isinstance(r["node"]["properties"]["text"], str)
        assert set(r["lanes"]) <= {"direct", "expanded", "evidence", "hydration"}
    assert any(r["evidence"] for r in results)                    # facts with their documents
    assert all({"type", "documents", "corroboration"} <= set(e) for r in results for e in r["evidence"])
    # every search carries prose about what it found, with citations resolving to returned nodes
    assert body["answer"] == ANSWER
    assert [c["marker"] for c in body["citations"]] == [1, 3]
    assert body["citations"][0]["node"]["elementId"] == results[0]["node"]["elementId"]
    steps = body["diagnostics"]["steps"]
    assert {"direct", "entities", "traversal", "fusion", "synthesis"} <= set(names(steps))
    assert names(steps)[0] == "direct"
    for step in steps:
        assert list(step)[:2] == ["name", "ms"] and isinstance(step["ms"], (int, float)) and step["ms"] >= 0
    fusion = next(s for s in steps if s["name"] == "fusion")
    assert fusion["kind"] == "rrf" and fusion["k"] == 3
    assert isinstance(body["diagnostics"]["degraded"], list)
    log = server.log()
    assert KEY not in log and QUESTION not in log


def test_retrieve_renders_nodes_typed_when_asked(http):
    response = http.post("/db/neo4j/retrieve", json={"question": QUESTION, "options": {"k": 2, "answer": False}},
                         headers={"Accept": "application/vnd.neo4j.query"})
    assert response.status_code == 200, response.text
    body = response.json()
    node = from_typed(body["results"][0]["node"])
    assert isinstance(node, Node) and node.labels == {"Chunk"}
    assert isinstance(body["results"][0]["score"], float) and body["results"][0]["rank"] == 1   # the rest plain
    assert body["answer"] is None and body["citations"] == []          # {answer: false}: no model call
    assert "synthesis" not in names(body["diagnostics"]["steps"])


def test_diagnostics_endpoint_returns_the_steps_only(http, fake):
    before = fake.calls("/v1/chat/completions")
    response = http.post("/db/neo4j/retrieve/diagnostics", json={"question": QUESTION, "options": {"k": 3}})
    assert response.status_code == 200, response.text
    body = response.json()
    assert set(body) == {"steps", "degraded"}
    assert {"direct", "entities", "fusion"} <= set(names(body["steps"]))
    assert "synthesis" not in names(body["steps"])              # no answer is shown, so none is paid for
    explicit_null = http.post("/db/neo4j/retrieve/diagnostics", json={"question": QUESTION,
                                                                       "options": {"answer": None}})
    assert explicit_null.status_code == 200 and "synthesis" not in names(explicit_null.json()["steps"])
    assert fake.calls("/v1/chat/completions") - before == 2     # the two entity extractions only
    direct = body["steps"][0]
    assert direct["name"] == "direct" and direct["hits"] > 0 and direct["ms"] >= 0
    # the caller may ask for the synthesis step's timing too
    asked = http.post("/db/neo4j/retrieve/diagnostics", json={"question": QUESTION, "options": {"answer": True}})
    assert asked.status_code == 200 and "synthesis" in names(asked.json()["steps"])


def test_a_search_that_finds_nothing_still_reports_its_steps(http, fake):
    before = fake.calls("/v1/chat/completions")
    response = http.post("/db/neo4j/retrieve", json={"question": QUESTION, "options": {"workspace": "nowhere"}})
    assert fake.calls("/v1/chat/completions") - before == 1     # one retrieval: one entity extraction
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["results"] == [] and body["answer"] is None and body["citations"] == []
    steps = body["diagnostics"]["steps"]
    assert names(steps)[0] == "direct" and steps[0]["hits"] == 0 and "fusion" in names(steps)


@pytest.mark.parametrize("path", ["/db/neo4j/retrieve", "/db/neo4j/retrieve/diagnostics"])
def test_credentials_and_database_are_checked(server, http, path):
    base = f"http://{server.info['http']}"
    body = {"question": QUESTION}
    missing = httpx.post(base + path, json=body)
    assert missing.status_code == 401
    assert missing.json()["errors"][0]["code"] == "Neo.ClientError.Security.Unauthorized"
    assert missing.headers.get("www-authenticate", "").startswith("Basic")
    wrong = httpx.post(base + path, json=body, auth=("neo4j", "wrong"))
    assert wrong.status_code == 401 and wrong.json()["errors"][0]["code"].startswith("Neo.ClientError.Security")
    token = http.post("/login").json()["token"]
    bearer = httpx.post(base + path, json=body, headers={"Authorization": f"Bearer {token}"}, timeout=120)
    assert bearer.status_code == 200, bearer.text
    unknown = http.post(path.replace("/neo4j/", "/nowhere/"), json=body)
    assert unknown.status_code == 404
    assert unknown.json()["errors"][0]["code"] == "Neo.ClientError.Database.DatabaseNotFound"


BAD_BODIES = [
    (b"", "Neo.ClientError.Request.InvalidFormat"),
    (b"{not json", "Neo.ClientError.Request.InvalidFormat"),
    (b'["a question"]', "Neo.ClientError.Request.InvalidFormat"),
    (b"{}", "Neo.ClientError.Request.Invalid"),
    (b'{"question": 42}', "Neo.ClientError.Request.Invalid"),
    (b'{"question": null}', "Neo.ClientError.Request.Invalid"),
    (b'{"question": "q", "options": [1]}', "Neo.ClientError.Request.Invalid"),
    (b'{"question": "q", "options": "k=3"}', "Neo.ClientError.Request.Invalid"),
    (b'{"question": "q", "statement": "MATCH (n) DETACH DELETE n"}', "Neo.ClientError.Request.Invalid"),
    (b'{"question": "q", "options": {"bogus": 1}}', "Neo.ClientError.Statement.ArgumentError"),
    (b'{"question": "q", "options": {"k": "three"}}', "Neo.ClientError.Statement.ArgumentError"),
    (b'{"question": "q", "options": {"weights": {"directt": 1}}}', "Neo.ClientError.Statement.ArgumentError"),
    (b'{"question": "q", "options": {"k": 99999999999999999999}}', "Neo.ClientError.Request.InvalidFormat"),
]


@pytest.mark.parametrize("path", ["/db/neo4j/retrieve", "/db/neo4j/retrieve/diagnostics"])
@pytest.mark.parametrize("raw,code", BAD_BODIES)
def test_bad_bodies_are_typed_400s(http, path, raw, code):
    response = http.post(path, content=raw, headers={"Content-Type": "application/json"})
    assert response.status_code == 400, response.text
    errors = response.json()["errors"]
    assert len(errors) == 1 and errors[0]["code"] == code and errors[0]["message"]


def test_the_body_limit_applies_and_the_pool_survives_errors(http):
    too_big = http.post("/db/neo4j/retrieve", json={"question": "x" * 200_000})
    assert too_big.status_code == 413
    assert too_big.json()["errors"][0]["code"].startswith("Neo.ClientError.Request")
    for _ in range(3):                    # a failed statement leaves its pooled core usable
        assert http.post("/db/neo4j/retrieve", json={"question": "q", "options": {"bogus": 1}}).status_code == 400
        ok = http.post("/db/neo4j/retrieve/diagnostics", json={"question": QUESTION})
        assert ok.status_code == 200 and ok.json()["steps"]
