"""The HTTP Query API against a real server process, with a real HTTP client (httpx)."""
from __future__ import annotations

import base64
import json
import time

import httpx
import pytest

from relate.protocol.json_values import from_typed, to_typed
from relate.values import Node, Path, Relationship

from .conftest import PASSWORD, ServerProcess

TYPED = "application/vnd.neo4j.query"
JSONL = "application/vnd.neo4j.query.v1.0+jsonl"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    process = ServerProcess(tmp_path_factory.mktemp("http"), "--http-listen", "127.0.0.1:0",
                            "--http-tx-timeout", "1", "--max-message-size", "200000")
    yield process
    process.stop()


@pytest.fixture
def http(server):
    with httpx.Client(base_url=f"http://{server.info['http']}", auth=("neo4j", PASSWORD), timeout=120) as client:
        yield client


def query(http, statement, parameters=None, **headers):
    body = {"statement": statement}
    if parameters is not None:
        body["parameters"] = parameters
    return http.post("/db/neo4j/query/v2", json=body, headers=headers)


TYPED_VALUES = {
    "null": {"$type": "Null", "_value": None},
    "bool": {"$type": "Boolean", "_value": True},
    "int": {"$type": "Integer", "_value": str(2 ** 62 + 1)},
    "negative": {"$type": "Integer", "_value": str(-2 ** 63)},
    "float": {"$type": "Float", "_value": "0.1"},
    "string": {"$type": "String", "_value": "héllo \u2603"},
    "bytes": {"$type": "Base64", "_value": base64.b64encode(b"\x00\x01\xff").decode()},
    "list": {"$type": "List", "_value": [{"$type": "Integer", "_value": "1"}, {"$type": "String", "_value": "a"}]},
    "map": {"$type": "Map", "_value": {"k": {"$type": "Float", "_value": "2.5"}}},
    "date": {"$type": "Date", "_value": "2024-02-29"},
    "time": {"$type": "Time", "_value": "12:34:56.123456789+01:00"},
    "localtime": {"$type": "LocalTime", "_value": "23:59:59.000000001"},
    "localdatetime": {"$type": "LocalDateTime", "_value": "2024-01-01T21:40:32.500"},
    "offset": {"$type": "OffsetDateTime", "_value": "2024-01-01T21:40:32-01:00"},
    "zoned": {"$type": "ZonedDateTime", "_value": "2024-07-01T12:00+02:00[Europe/Stockholm]"},
    "duration": {"$type": "Duration", "_value": "P1Y2M3DT4H5M6.000000007S"},
    "vector": {"$type": "Vector", "_value": {"coordinatesType": "FLOAT32", "coordinates": ["0.5", "-1.0", "2.0"]}},
    "point": {"$type": "Point", "_value": "SRID=4326;POINT (12.5 55.6)"},
    "point3d": {"$type": "Point", "_value": "SRID=9157;POINT Z (1.0 -2.0 3.5)"},
}


def test_every_value_type_round_trips_through_typed_json(http):
    names = list(TYPED_VALUES)
    statement = "RETURN " + ", ".join(f"${n} AS {n}" for n in names)
    response = query(http, statement, TYPED_VALUES, **{"Content-Type": TYPED, "Accept": TYPED})
    assert response.status_code == 202, response.text
    data = response.json()["data"]
    assert data["fields"] == names
    assert dict(zip(names, data["values"][0])) == TYPED_VALUES


def test_graph_entities_come_back_typed_and_decode(http):
    response = query(http, "CREATE p = (a:Person {name: 'Ann', big: $big})-[r:KNOWS {since: 2020}]->(b:Person) "
                           "RETURN a, r, p", {"big": 2 ** 60}, Accept=TYPED)
    assert response.status_code == 202, response.text
    a, r, p = (from_typed(v) for v in response.json()["data"]["values"][0])
    assert isinstance(a, Node) and a.labels == {"Person"} and a["big"] == 2 ** 60
    assert isinstance(r, Relationship) and r.type == "KNOWS" and r.start_id == a.id and r["since"] == 2020
    assert isinstance(p, Path) and [n.id for n in p.nodes] == [a.id, r.end_id]
    assert to_typed(from_typed(to_typed(p))) == to_typed(p)
    # plain JSON: element ids link relationships to nodes, the large integer is exact
    plain = query(http, "MATCH (a:Person {name: 'Ann'})-[r:KNOWS]->(b) RETURN a, r").json()["data"]["values"][0]
    assert plain[0]["properties"]["big"] == 2 ** 60
    assert plain[1]["startNodeElementId"] == plain[0]["elementId"]
    assert json.loads(query(http, "RETURN 1 AS x").text)["data"]["values"] == [[1]]


def test_authentication_basic_bearer_and_failures(server, http):
    base = f"http://{server.info['http']}"
    body = {"statement": "RETURN 1 AS x"}
    missing = httpx.post(base + "/db/neo4j/query/v2", json=body)
    assert missing.status_code == 401
    assert missing.json()["errors"][0]["code"] == "Neo.ClientError.Security.Unauthorized"
    wrong = httpx.post(base + "/db/neo4j/query/v2", json=body, auth=("neo4j", "wrong"))
    assert wrong.status_code == 401
    bogus = httpx.post(base + "/db/neo4j/query/v2", json=body, headers={"Authorization": "Bearer nope"})
    assert bogus.status_code == 401
    login = http.post("/login")
    assert login.status_code == 200 and login.json()["user"] == "neo4j"
    token = login.json()["token"]
    ok = httpx.post(base + "/db/neo4j/query/v2", json=body, headers={"Authorization": f"Bearer {token}"})
    assert ok.status_code == 202 and ok.json()["data"]["values"] == [[1]]
    assert http.post("/db/nowhere/query/v2", json=body).status_code == 404


def test_explicit_transaction_commit_and_rollback(http):
    begin = http.post("/db/neo4j/query/v2/tx", json={"statement": "CREATE (:T {v: 1})"})
    assert begin.status_code == 202, begin.text
    tx = begin.json()["transaction"]["id"]
    assert http.post(f"/db/neo4j/query/v2/tx/{tx}", json={"statement": "CREATE (:T {v: 2})"}).status_code == 202
    inside = http.post(f"/db/neo4j/query/v2/tx/{tx}", json={"statement": "MATCH (t:T) RETURN count(t) AS c"})
    assert inside.json()["data"]["values"] == [[2]]
    assert query(http, "MATCH (t:T) RETURN count(t) AS c").json()["data"]["values"] == [[0]]   # not yet
    commit = http.post(f"/db/neo4j/query/v2/tx/{tx}/commit")
    assert commit.status_code == 202 and commit.json()["bookmarks"]
    assert query(http, "MATCH (t:T) RETURN count(t) AS c").json()["data"]["values"] == [[2]]
    assert http.post(f"/db/neo4j/query/v2/tx/{tx}/commit").status_code == 404       # over
    rolled = http.post("/db/neo4j/query/v2/tx", json={"statement": "CREATE (:T {v: 3})"}).json()["transaction"]["id"]
    assert http.delete(f"/db/neo4j/query/v2/tx/{rolled}").status_code == 202
    assert query(http, "MATCH (t:T) RETURN count(t) AS c").json()["data"]["values"] == [[2]]


def test_failed_statement_ends_the_transaction_and_expiry(http):
    tx = http.post("/db/neo4j/query/v2/tx", json={"statement": "CREATE (:U)"}).json()["transaction"]["id"]
    bad = http.post(f"/db/neo4j/query/v2/tx/{tx}", json={"statement": "RETURN 1/0"})
    assert bad.status_code == 400 and bad.json()["errors"][0]["code"].startswith("Neo.ClientError.Statement")
    assert http.post(f"/db/neo4j/query/v2/tx/{tx}/commit").status_code == 404
    idle = http.post("/db/neo4j/query/v2/tx", json={"statement": "CREATE (:U)"}).json()["transaction"]["id"]
    time.sleep(2.0)                                           # the server runs with --http-tx-timeout 1
    expired = http.post(f"/db/neo4j/query/v2/tx/{idle}", json={"statement": "RETURN 1"})
    assert expired.status_code == 404
    assert expired.json()["errors"][0]["code"] == "Neo.ClientError.Transaction.TransactionNotFound"
    assert query(http, "MATCH (u:U) RETURN count(u) AS c").json()["data"]["values"] == [[0]]


def test_malformed_and_oversized_requests_get_4xx_and_the_server_stays_up(http):
    for body, phrase in ((b'{"statement": ', "not valid JSON"), (b"[1, 2]", "JSON object"),
                         (b"[" * 100_000 + b"]" * 100_000, "nested too deeply"), (b"", "empty"),
                         (b'{"statement": 5}', "statement"), (b'{"statement": "RETURN 1", "parameters": 3}', "object")):
        response = http.post("/db/neo4j/query/v2", content=body, headers={"Content-Type": "application/json"})
        assert response.status_code == 400, (body[:20], response.text)
        assert phrase in response.json()["errors"][0]["message"]
    deep = {"$type": "List", "_value": []}
    for _ in range(200):
        deep = {"$type": "List", "_value": [deep]}
    too_deep = query(http, "RETURN $p", {"p": deep}, **{"Content-Type": TYPED})
    assert too_deep.status_code == 400 and "nested deeper" in too_deep.text
    for wkt in ("SRID=4326;POINT Z (1 2)", "SRID=1;POINT (1 2)", "POINT (1 2)", "SRID=7203;POINT (1 x)",
                "SRID=9157;POINT (1 2 3)", "SRID=7203;POINT Z (1 2 3)"):
        bad_point = query(http, "RETURN $p", {"p": {"$type": "Point", "_value": wkt}}, **{"Content-Type": TYPED})
        assert bad_point.status_code == 400, (wkt, bad_point.text)
    big = http.post("/db/neo4j/query/v2", json={"statement": "RETURN $s", "parameters": {"s": "x" * 300_000}})
    assert big.status_code == 413 and "exceeds the limit" in big.json()["errors"][0]["message"]
    assert http.get("/health").json()["status"] == "ok"
    assert query(http, "RETURN 1 AS x").json()["data"]["values"] == [[1]]


def test_a_million_rows_stream_as_json_lines_with_bounded_server_memory(server, http):
    rows = 1_000_000
    before = server.rss_kib()
    peak, count, started = before, 0, time.monotonic()
    with http.stream("POST", "/db/neo4j/query/v2", headers={"Accept": JSONL},
                     json={"statement": "UNWIND range(1, $n) AS i RETURN i, 'row ' + toString(i) AS s",
                           "parameters": {"n": rows}}) as response:
        assert response.status_code == 202
        events = set()
        for line in response.iter_lines():
            event = json.loads(line)
            events.add(event["$event"])
            if event["$event"] == "Record":
                count += 1
                if count % 100_000 == 0:
                    peak = max(peak, server.rss_kib())
    elapsed = time.monotonic() - started
    assert count == rows and events == {"Header", "Record", "Summary"}
    growth_mib = (peak - before) / 1024
    print(f"1M rows as JSON Lines in {elapsed:.1f} s; server RSS growth {growth_mib:.1f} MiB")
    assert growth_mib < 64          # buffering the result would need hundreds of MiB


def test_a_client_leaving_mid_stream_leaves_the_server_healthy(server, http):
    for _ in range(3):
        with http.stream("POST", "/db/neo4j/query/v2", headers={"Accept": JSONL},
                         json={"statement": "UNWIND range(1, 2000000) AS i RETURN i"}) as response:
            lines = response.iter_lines()
            assert json.loads(next(lines))["$event"] == "Header"
            next(lines)
        # the response is closed here, long before its end
    tx = http.post("/db/neo4j/query/v2/tx", json={"statement": "CREATE (:Left {ok: true})"})
    assert tx.status_code == 202
    assert http.post(f"/db/neo4j/query/v2/tx/{tx.json()['transaction']['id']}/commit").status_code == 202
    assert query(http, "MATCH (l:Left) RETURN count(l) AS c").json()["data"]["values"] == [[1]]
    assert "Traceback" not in server.log()


def test_bearer_tokens_die_with_their_user(server, http):
    assert query(http, "CREATE USER temp SET PASSWORD 'temp-password' CHANGE NOT REQUIRED").status_code == 202
    base = f"http://{server.info['http']}"
    token = httpx.post(base + "/login", auth=("temp", "temp-password")).json()["token"]
    bearer = {"Authorization": f"Bearer {token}"}
    body = {"statement": "RETURN 1 AS x"}
    assert httpx.post(base + "/db/neo4j/query/v2", json=body, headers=bearer).status_code == 202
    assert query(http, "DROP USER temp").status_code == 202
    assert httpx.post(base + "/db/neo4j/query/v2", json=body, headers=bearer).status_code == 401


def test_hostile_json_values_get_typed_400s_and_leave_no_traceback(server, http):
    surrogate = b'{"statement": "RETURN $p AS p", "parameters": {"p": "\\ud800"}}'
    cases = (
        (b'{"statement": "RETURN $p", "parameters": {"p": ' + b"9" * 5000 + b"}}", "too many digits"),
        (surrogate, "surrogate"),
        (b'{"statement": "RETURN \\udfff"}', "surrogate"),
        (b'{"statement": "RETURN $p", "parameters": {"p": {"\\ud800": 1}}}', "surrogate"),
        (b'{"statement": "RETURN $p", "parameters": {"p": [' + str(2 ** 70).encode() + b"]}}", "64 bits"),
        (b'{"statement": "RETURN 1", "parameters": 0}', "parameters"),
        (b'{"statement": "RETURN 1", "bookmarks": "FB:x"}', "bookmarks"),
        ('{"statement": "RETURN 1"}'.encode("utf-16"), "UTF-8"),
    )
    for body, phrase in cases:
        response = http.post("/db/neo4j/query/v2", content=body, headers={"Content-Type": "application/json"})
        assert response.status_code == 400, (body[:60], response.text)
        error = response.json()["errors"][0]
        assert error["code"] == "Neo.ClientError.Request.InvalidFormat" or "bookmarks" in error["message"], error
        assert phrase in error["message"], (body[:60], error)
    for kind, value in (("INT8", "300"), ("INT16", "-40000")):
        vector = {"$type": "Vector", "_value": {"coordinatesType": kind, "coordinates": [value]}}
        response = query(http, "RETURN $p", {"p": vector}, **{"Content-Type": TYPED})
        assert response.status_code == 400, response.text
    with_marks = http.post("/db/neo4j/query/v2", json={"statement": "RETURN 1 AS x", "bookmarks": ["rl:1"]})
    assert with_marks.status_code == 202
    foreign = http.post("/db/neo4j/query/v2", json={"statement": "RETURN 1 AS x", "bookmarks": ["FB:kcwQ"]})
    assert foreign.status_code == 400, foreign.text
    assert foreign.json()["errors"][0]["code"] == "Neo.ClientError.Transaction.InvalidBookmark"
    assert http.get("/health").json()["status"] == "ok"
    assert "Traceback" not in server.log() and "Exception in ASGI" not in server.log()


def test_a_client_that_leaves_before_its_body_arrives_logs_no_traceback(server):
    import socket
    host, port = server.info["http"].rsplit(":", 1)
    auth = base64.b64encode(f"neo4j:{PASSWORD}".encode()).decode()
    with socket.create_connection((host, int(port))) as sock:
        sock.sendall(f"POST /db/neo4j/query/v2 HTTP/1.1\r\nHost: x\r\nAuthorization: Basic {auth}\r\n"
                     "Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"state".encode())
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and "ClientDisconnect" not in server.log():
        time.sleep(0.1)
    assert "Traceback" not in server.log()


def test_a_commit_streams_its_statement_and_commits_only_once_every_row_is_out(server, http):
    tx = http.post("/db/neo4j/query/v2/tx", json={"statement": "CREATE (:CommitLeaver)"}).json()["transaction"]["id"]
    statement = "UNWIND range(1, 100000) AS i RETURN i, $pad AS pad"
    with http.stream("POST", f"/db/neo4j/query/v2/tx/{tx}/commit", headers={"Accept": JSONL},
                     json={"statement": statement, "parameters": {"pad": "p" * 200}}) as response:
        assert response.status_code == 202
        assert json.loads(next(response.iter_lines()))["$event"] == "Header"
    # the client left before the end: the commit never happened, the transaction is gone
    deadline = time.monotonic() + 10
    while http.post(f"/db/neo4j/query/v2/tx/{tx}", json={"statement": "RETURN 1"}).status_code != 404:
        assert time.monotonic() < deadline
        time.sleep(0.1)
    assert query(http, "MATCH (n:CommitLeaver) RETURN count(n) AS c").json()["data"]["values"] == [[0]]
    tx = http.post("/db/neo4j/query/v2/tx", json={"statement": "CREATE (:CommitStayer)"}).json()["transaction"]["id"]
    done = http.post(f"/db/neo4j/query/v2/tx/{tx}/commit", json={"statement": "UNWIND range(1, 2500) AS i RETURN i"})
    assert done.status_code == 202 and len(done.json()["data"]["values"]) == 2500 and done.json()["bookmarks"]
    assert query(http, "MATCH (n:CommitStayer) RETURN count(n) AS c").json()["data"]["values"] == [[1]]
    tx = http.post("/db/neo4j/query/v2/tx", json={"statement": "CREATE (:CommitFailer)"}).json()["transaction"]["id"]
    late = http.post(f"/db/neo4j/query/v2/tx/{tx}/commit",
                     json={"statement": "UNWIND range(1, 2500) AS i RETURN 1 / (i - 2000) AS x"})
    assert "ArithmeticError" in late.text
    assert query(http, "MATCH (n:CommitFailer) RETURN count(n) AS c").json()["data"]["values"] == [[0]]


def test_a_relevance_statement_reports_its_costs(http):
    for statement in ("CREATE (:HttpDoc {text: 'lotteries and their odds'}), (:HttpDoc {text: 'coffee beans'})",
                      "CREATE FULLTEXT INDEX http_doc_t IF NOT EXISTS FOR (d:HttpDoc) ON EACH [d.text]",
                      "CREATE RELEVANCE JOIN http_docs IF NOT EXISTS FOR (c:HttpConcept)-[:RELEVANT_TO]->(d:HttpDoc) "
                      "ON c.value OPTIONS {indexes: ['http_doc_t'], via: 'keyword'}",
                      "CALL db.awaitIndexes(30)"):
        assert query(http, statement).status_code == 202
    reply = query(http, "MATCH (:HttpConcept {value: 'lotteries'})-[r:RELEVANT_TO {via: 'keyword'}]->(d:HttpDoc) "
                        "RETURN d.text AS text")
    body = reply.json()
    assert body["data"]["values"] == [["lotteries and their odds"]]
    assert body["costs"] == {"semanticCalls": 1, "llmCalls": 0, "apiCalls": 0}
    assert "calls" not in body          # a search of this world's own index is no model or API call
    plain = query(http, "RETURN 1 AS one").json()
    assert "costs" not in plain         # nothing spent, nothing reported


def test_counters_list_every_counter_zeros_included_and_database_names_ignore_case(http):
    done = http.post("/db/NEO4J/query/v2", json={"statement": "CREATE (:CounterProbe {x: 1})", "includeCounters": True})
    assert done.status_code in (200, 202), done.text
    counters = done.json()["counters"]
    assert counters == {"containsUpdates": True, "nodesCreated": 1, "nodesDeleted": 0, "propertiesSet": 1,
                        "relationshipsCreated": 0, "relationshipsDeleted": 0, "labelsAdded": 1, "labelsRemoved": 0,
                        "indexesAdded": 0, "indexesRemoved": 0, "constraintsAdded": 0, "constraintsRemoved": 0,
                        "containsSystemUpdates": False, "systemUpdates": 0}
    read = query(http, "RETURN 1").json()["counters"]
    assert read["containsUpdates"] is False and read["nodesDeleted"] == 0
