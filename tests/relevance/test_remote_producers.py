"""Spec 001: relevance producers over a store outside this world (remote-search, elasticsearch), against
a local fake store: one apiCalls per distinct anchor key (never a semanticCalls; a refused search still
counts), EXPLAIN prices them as API calls, the score on the edge and the record on a query-time node,
scope filters sent and fail-closed, cacheTtl, failures fail-open with a notification, the key never shown."""
from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

import relate
from relate.errors import ClientError
from relate.server.engine import Database


class FakeStore:
    """A search service on 127.0.0.1: POST /search (remote-search) and POST /<index>/_search
    (Elasticsearch's shape). It answers from ``records`` by word overlap and records every request."""

    def __init__(self, records, *, status: int = 200):
        self.records, self.status, self.requests = records, status, []
        store = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
                store.requests.append((self.path, dict(self.headers), body))
                if store.status != 200:
                    return self._send(store.status, {"error": "refused"})
                if self.path.endswith("/_search"):
                    query = body["query"]["bool"]["must"][0]["multi_match"]["query"]
                    hits = [{"_id": r["id"], "_score": s * 2.0, "_source": {k: v for k, v in r.items() if k != "id"}}
                            for s, r in store.ranked(query)][:body["size"]]
                    return self._send(200, {"hits": {"total": {"value": len(hits)}, "hits": hits}})
                hits = [dict(r, score=s / 10) for s, r in store.ranked(body["query"])][:body["k"]]
                self._send(200, {"results": hits})

            def _send(self, status, payload):
                raw = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def ranked(self, query: str):
        words = set(query.lower().split())
        scored = [(len(words & set(r["text"].lower().split())), r) for r in self.records]
        return sorted([(s, r) for s, r in scored if s], key=lambda x: -x[0])

    def close(self):
        self.server.shutdown()
        self.server.server_close()


MEMORIES = [{"id": "z1", "text": "Ada prefers tea in the morning", "kind": "preference"},
            {"id": "z2", "text": "Ada wrote the first program", "kind": "fact"},
            {"id": "z3", "text": "Grace likes coffee", "kind": "preference"}]


@pytest.fixture
def store():
    s = FakeStore(MEMORIES)
    yield s
    s.close()


def literal(value) -> str:
    """A Cypher literal for an options map (OPTIONS takes a literal, not a parameter)."""
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {literal(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(literal(v) for v in value) + "]"
    if isinstance(value, str):
        return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"
    return json.dumps(value)


def connect(db=None):
    return relate.Connection((db or Database.open(None)).session())


def setup(conn, store, **extra):
    options = {"kind": "remote-search", "url": store.url + "/search", "k": 3, **extra}
    conn.execute("CREATE (:Person {name: 'Ada'}), (:Person {name: 'Ada'}), (:Person {name: 'Grace'})").consume()
    conn.execute("CREATE RELEVANCE JOIN zep FOR (p:Person)-[:REMEMBERED_IN]->(m:ZepMemory) ON p.name "
                 "OPTIONS " + literal(options)).consume()


def test_remote_search_counts_api_calls_per_distinct_key_and_puts_the_score_on_the_edge(store):
    conn = connect()
    setup(conn, store)
    result = conn.execute("MATCH (p:Person)-[r:REMEMBERED_IN]->(m:ZepMemory) "
                          "RETURN p.name AS who, m.id AS id, m.text AS text, m.kind AS kind, r.score AS score, "
                          "r.rank AS rank, r.mode AS mode, m.score AS nodeScore ORDER BY who, rank")
    rows = [r.as_dict() for r in result]
    costs = result.consume().costs
    assert costs["apiCalls"] == 2 and costs["semanticCalls"] == 0          # 'Ada' twice is one search
    assert len(store.requests) == 2 and {b["query"] for _, _, b in store.requests} == {"Ada", "Grace"}
    ada = [r for r in rows if r["who"] == "Ada"]
    assert len(ada) == 4 and {r["id"] for r in ada} == {"z1", "z2"}       # two anchors, one search each edge
    assert all(r["score"] == 0.1 and r["mode"] == "remote-search" and r["nodeScore"] is None for r in rows)
    assert {r["kind"] for r in ada} == {"preference", "fact"}
    grace = [r for r in rows if r["who"] == "Grace"]
    assert [g["id"] for g in grace] == ["z3"]


def test_explain_prices_api_calls_without_sending_anything(store):
    conn = connect()
    setup(conn, store)
    plan = conn.execute("EXPLAIN MATCH (p:Person)-[r:REMEMBERED_IN]->(m:ZepMemory) RETURN m.id").consume().plan
    assert plan["costs"]["apiCalls"] == 2 and plan["costs"]["semanticCalls"] == 0
    assert "~2 API calls" in plan["pricing"]
    assert store.requests == []


def test_a_budget_refuses_before_any_request(store):
    db = Database.open(None)
    db.ai_budget = {"apiCalls": 1}
    conn = connect(db)
    setup(conn, store)
    with pytest.raises(ClientError) as err:
        conn.execute("MATCH (p:Person)-[:REMEMBERED_IN]->(m:ZepMemory) RETURN m.id").fetchall()
    assert err.value.code == "Neo.ClientError.Statement.TooExpensive" and store.requests == []


def test_an_edge_opting_in_with_ai_materialize_is_not_refused_and_still_counts(store):
    db = Database.open(None)
    db.ai_budget = {"apiCalls": 1}
    conn = connect(db)
    setup(conn, store)
    result = conn.execute("MATCH (p:Person)-[r:REMEMBERED_IN {ai: {materialize: true}}]->(m:ZepMemory) "
                          "RETURN DISTINCT m.id AS id ORDER BY id")
    assert [r["id"] for r in result] == ["z1", "z2", "z3"]      # the ai map directs, it matches nothing
    assert result.consume().costs["apiCalls"] == 2 and len(store.requests) == 2
    with pytest.raises(ClientError) as err:                     # without the opt-in the gate holds
        conn.execute("MATCH (p:Person)-[:REMEMBERED_IN {ai: {materialize: false}}]->(m:ZepMemory) "
                     "RETURN m.id").fetchall()
    assert err.value.code == "Neo.ClientError.Statement.TooExpensive"
    assert "materialize: true" in err.value.message


@pytest.mark.parametrize("ai, message", [("1", "must be a map"), ("{materialize: 'yes'}", "must be a boolean"),
                                         ("{refresh: true}", "Unknown directive")])
def test_a_bad_ai_directive_is_a_typed_error(store, ai, message):
    conn = connect()
    setup(conn, store)
    with pytest.raises(ClientError, match=message):
        conn.execute(f"MATCH (p:Person)-[:REMEMBERED_IN {{ai: {ai}}}]->(m:ZepMemory) RETURN m.id").fetchall()
    assert store.requests == []


def test_records_map_onto_stored_targets_by_key(store):
    conn = connect()
    setup(conn, store)
    conn.execute("CREATE (:ZepMemory {id: 'z1', pinned: true})").consume()
    rows = conn.execute("MATCH (:Person {name: 'Grace'})-[:REMEMBERED_IN]->(m) RETURN m.id, m.pinned").fetchall()
    assert [tuple(r) for r in rows] == [("z3", None)]
    rows = conn.execute("MATCH (p:Person {name: 'Ada'})-[:REMEMBERED_IN]->(m) WITH DISTINCT m "
                        "RETURN m.id, m.pinned, id(m) >= 0 ORDER BY m.id").fetchall()
    assert [tuple(r) for r in rows] == [("z1", True, True), ("z2", None, False)]


def test_a_refused_search_still_counts_and_fails_open_with_a_notification():
    store = FakeStore(MEMORIES, status=503)
    try:
        conn = connect()
        setup(conn, store)
        result = conn.execute("MATCH (p:Person)-[:REMEMBERED_IN]->(m:ZepMemory) RETURN m.id")
        assert result.fetchall() == []
        summary = result.consume()
        assert summary.costs["apiCalls"] == 2 and len(store.requests) == 2
        codes = [n["code"] for n in summary.notifications]
        assert codes.count("Relate.ClientNotification.Relevance.RemoteSearchFailed") == 1
    finally:
        store.close()


def test_cache_ttl_spares_the_second_request(store):
    conn = connect()
    setup(conn, store, cacheTtl=60)
    query = "MATCH (:Person {name: 'Grace'})-[:REMEMBERED_IN]->(m:ZepMemory) RETURN m.id, m.text"
    first = conn.execute(query)
    assert [tuple(r) for r in first] == [("z3", "Grace likes coffee")]
    second = conn.execute(query)
    assert [tuple(r) for r in second] == [("z3", "Grace likes coffee")]
    assert second.consume().costs["apiCalls"] == 0 and len(store.requests) == 1


def test_elasticsearch_kind_sends_a_search_and_reads_hits(store, monkeypatch):
    monkeypatch.setenv("ES_TEST_KEY", "s3cr3t-key")
    conn = connect()
    conn.execute("CREATE (:Topic {name: 'Ada morning'})").consume()
    options = {"kind": "elasticsearch", "url": store.url, "index": "memories", "fields": ["text"], "k": 2,
               "apiKeyEnv": "ES_TEST_KEY"}
    conn.execute("CREATE RELEVANCE JOIN es FOR (t:Topic)-[:RELEVANT_TO]->(d:EsDoc) ON t.name OPTIONS "
                 + literal(options)).consume()
    result = conn.execute("MATCH (:Topic)-[r:RELEVANT_TO]->(d:EsDoc) RETURN d.id, r.score ORDER BY r.rank")
    rows = [tuple(r) for r in result]
    assert rows[0] == ("z1", pytest.approx(4.0 / 5.0)) and len(rows) == 2     # BM25 s / (1 + s)
    path, headers, body = store.requests[0]
    assert path == "/memories/_search" and body["size"] == 2
    assert body["query"]["bool"]["must"][0]["multi_match"] == {"query": "Ada morning", "fields": ["text"]}
    assert headers["Authorization"] == "ApiKey s3cr3t-key"
    shown = conn.execute("SHOW RELEVANCE JOINS YIELD * WHERE name = 'es' RETURN *").fetchall()
    assert "s3cr3t-key" not in json.dumps([r.as_dict() for r in shown], default=str)


def test_scope_filters_travel_and_a_caller_without_scope_sends_nothing(store):
    db = Database.open(None)
    admin = connect(db)
    admin.execute("CREATE LABEL ScopedMemory OPTIONS {scope: {contextId: 'context'}}").consume()
    admin.execute("CREATE (:Person {name: 'Ada'})").consume()
    admin.execute("CREATE RELEVANCE JOIN sm FOR (p:Person)-[:REMEMBERED_IN]->(m:ScopedMemory) ON p.name "
                  "OPTIONS " + literal({"kind": "remote-search", "url": store.url + "/search"})).consume()
    query = "MATCH (:Person)-[:REMEMBERED_IN]->(m:ScopedMemory) RETURN m.id"
    assert admin.execute(query).fetchall() == [] and store.requests == []          # fail closed
    session = db.session()
    session.scope = {"user": "u1", "context": "acme"}
    scoped = relate.Connection(session)
    assert len(scoped.execute(query).fetchall()) == 2
    assert store.requests[0][2]["filter"] == {"contextId": "acme"}


@pytest.mark.parametrize("options, message", [
    ({"kind": "remote-search"}, "url"),
    ({"kind": "remote-search", "url": "file:///etc/passwd"}, "url"),
    ({"kind": "elasticsearch", "url": "http://127.0.0.1:9"}, "index"),
    ({"kind": "remote-search", "url": "http://127.0.0.1:9", "timeout": 0}, "timeout"),
    ({"kind": "fused", "indexes": ["x"], "url": "http://127.0.0.1:9"}, "remote-search, elasticsearch or files only"),
])
def test_bad_remote_options_are_typed_errors(options, message):
    conn = connect()
    with pytest.raises(ClientError) as err:
        conn.execute("CREATE RELEVANCE JOIN bad FOR (p:Person)-[:R]->(m:M) ON p.name OPTIONS "
                     + literal(options)).consume()
    assert message in str(err.value)


def _concept_db(store, model_reply=None, fail_status=None):
    from relate.server.ai.providers import OpenAICompatibleProvider, ProviderConfig
    from tests.ai.fake_openai import FakeOpenAI
    fake = FakeOpenAI(chat=lambda body: model_reply, fail_status=fail_status).__enter__()
    db = Database.open(None)
    db.ai_provider = OpenAICompatibleProvider(ProviderConfig(base_url=fake.base_url, api_key="sk-test"))
    conn = connect(db)
    conn.execute("CREATE (:Concept {value: 'beverages'}), (:Concept {value: 'software'})").consume()
    options = {"kind": "remote-search", "url": store.url + "/search", "agentic": True, "k": 3}
    conn.execute("CREATE RELEVANCE JOIN cz FOR (c:Concept)-[:RELEVANT_TO]->(m:ZepMemory) ON c.value OPTIONS "
                 + literal(options)).consume()
    return conn, fake


def test_concept_mode_asks_the_model_for_probe_terms_and_searches_each(store):
    conn, fake = _concept_db(store, 'Terms: ["tea", "coffee", "Tea"]')
    try:
        plan = conn.execute("EXPLAIN MATCH (c:Concept)-[r:RELEVANT_TO]->(m:ZepMemory) RETURN m.id").consume().plan
        assert plan["costs"]["llmCalls"] == 2 and plan["costs"]["apiCalls"] == 2
        assert "at least ~2 API calls" in plan["pricing"] and "(2 expansions)" in plan["pricing"]
        assert store.requests == [] and fake.requests == []
        result = conn.execute("MATCH (c:Concept {value: 'beverages'})-[r:RELEVANT_TO]->(m:ZepMemory) "
                              "RETURN m.id AS id ORDER BY r.rank")
        assert {r["id"] for r in result} == {"z1", "z3"}
        costs = result.consume().costs
        assert costs == {"semanticCalls": 0, "llmCalls": 1, "apiCalls": 2}     # 'Tea' repeats 'tea'
        assert [b["query"] for _, _, b in store.requests] == ["tea", "coffee"]
        assert "beverages" in json.dumps(fake.requests[0][2])
        # the call log: each call by purpose and source, never by the anchor's text
        calls = result.consume().calls
        assert [(c["counter"], c["purpose"], c["source"], c["ok"]) for c in calls] == [
            ("llmCalls", "concept expansion", "cz", True), ("apiCalls", "remote search", "cz", True),
            ("apiCalls", "remote search", "cz", True)]
        assert "beverages" not in json.dumps(calls) and "tea" not in json.dumps(calls)
    finally:
        fake.__exit__(None, None, None)


def test_concept_mode_without_a_model_searches_the_anchor_itself_and_still_counts_the_call(store):
    conn, fake = _concept_db(store, fail_status=500)
    try:
        result = conn.execute("MATCH (c:Concept {value: 'Grace'})-[r:RELEVANT_TO]->(m:ZepMemory) RETURN m.id")
        assert result.fetchall() == []          # no stored concept 'Grace': the pinned shape is not stored
        result = conn.execute("MATCH (c:Concept {value: 'software'})-[r:RELEVANT_TO]->(m:ZepMemory) RETURN m.id")
        result.fetchall()
        summary = result.consume()
        assert summary.costs == {"semanticCalls": 0, "llmCalls": 1, "apiCalls": 1}
        assert [(c["purpose"], c["ok"]) for c in summary.calls] == [("concept expansion", False),
                                                                      ("remote search", True)]
        assert [b["query"] for _, _, b in store.requests] == ["software"]
        assert any(n["code"] == "Relate.ClientNotification.Relevance.RemoteSearchFailed"
                   and "concept expansion" in n["description"] for n in summary.notifications)
    finally:
        fake.__exit__(None, None, None)


def test_concept_mode_is_for_remote_search_only():
    conn = connect()
    with pytest.raises(ClientError) as err:
        conn.execute("CREATE RELEVANCE JOIN bad FOR (p:Person)-[:R]->(m:M) ON p.name OPTIONS "
                     + literal({"kind": "elasticsearch", "url": "http://127.0.0.1:9", "index": "i",
                                "agentic": True})).consume()
    assert "agentic" in str(err.value)
