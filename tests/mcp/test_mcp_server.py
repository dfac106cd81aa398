"""relate-mcp through the SDK's own client: stdio on the cookbook's notes (embedded), streamable HTTP
against a relate:// server."""
from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

from tests.server.conftest import PASSWORD, ServerProcess

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def notes(tmp_path_factory):
    path = tmp_path_factory.mktemp("mcp") / "notes.rl"
    subprocess.run([sys.executable, "examples/hybrid-recall/recall.py", str(path)], cwd=ROOT, check=True,
                   capture_output=True)
    return str(path)


def payload(result) -> dict:
    assert not result.is_error, result.content
    return json.loads(result.content[0].text)


async def session_for(path: str, *flags: str):
    params = StdioServerParameters(command=sys.executable, args=["-m", "relate.mcp.server", path, *flags],
                                   cwd=str(ROOT))
    return stdio_client(params)


async def test_tools_search_and_read_only_queries(notes):
    async with await session_for(notes) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        names = {tool.name for tool in (await session.list_tools()).tools}
        assert {"get_schema", "read_cypher", "write_cypher", "search_vector", "search_fulltext",
                "search_combined"} <= names
        schema = payload(await session.call_tool("get_schema", {}))
        assert {"Note", "Topic"} <= set(schema["labels"]) and "DECIDED" in schema["relationshipTypes"]
        assert {"note_e", "note_t"} <= {index["name"] for index in schema["indexes"]}
        resource = await session.read_resource("relate://schema")
        assert json.loads(resource.contents[0].text)["labels"] == schema["labels"]

        rows = payload(await session.call_tool("read_cypher", {
            "statement": "MATCH (n:Note) RETURN count(n) AS notes"}))["rows"]
        assert rows == [{"notes": 40}]
        fulltext = payload(await session.call_tool("search_fulltext", {"index": "note_t", "query": "kafka", "k": 3}))
        assert len(fulltext["rows"]) == 3 and all("kafka" in r["node"]["properties"]["text"].lower()
                                                  for r in fulltext["rows"])
        vector = payload(await session.call_tool("search_vector", {"index": "note_e", "text": "oauth tokens", "k": 5}))
        assert len(vector["rows"]) == 5
        scores = [r["score"] for r in vector["rows"]]
        assert scores == sorted(scores, reverse=True)
        combined = payload(await session.call_tool("search_combined", {
            "vector_index": "note_e", "fulltext_index": "note_t", "text": "what did we decide about oauth tokens",
            "k": 5}))
        assert len(combined["rows"]) == 5

        refused = await session.call_tool("read_cypher", {"statement": "CREATE (:Note {id: 'x'})"})
        assert refused.is_error and "AccessMode" in refused.content[0].text
        sneaky = await session.call_tool("read_cypher", {"statement": "MATCH (n:Note) WITH n LIMIT 1 "
                                                                      "SET n.text = 'changed' RETURN n"})
        assert sneaky.is_error
        write = await session.call_tool("write_cypher", {"statement": "CREATE (:Note {id: 'x'})"})
        assert write.is_error and "--allow-writes" in write.content[0].text
        rows = payload(await session.call_tool("read_cypher", {
            "statement": "MATCH (n:Note) RETURN count(n) AS notes"}))["rows"]
        assert rows == [{"notes": 40}]


async def test_writes_when_allowed(notes):
    async with await session_for(notes, "--allow-writes") as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        done = payload(await session.call_tool("write_cypher", {
            "statement": "CREATE (t:Topic {name: $name}) RETURN t.name AS name", "parameters": {"name": "mcp"}}))
        assert done["rows"] == [{"name": "mcp"}] and done["counters"]["nodes_created"] == 1
        rows = payload(await session.call_tool("read_cypher", {
            "statement": "MATCH (t:Topic {name: 'mcp'}) RETURN count(t) AS c"}))["rows"]
        assert rows == [{"c": 1}]


async def test_streamable_http_against_a_relate_server(tmp_path):
    server = ServerProcess(tmp_path)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    mcp = subprocess.Popen([sys.executable, "-m", "relate.mcp.server", server.url, "-u", "neo4j",
                            "--transport", "streamable-http", "--port", str(port)], cwd=ROOT,
                           env={**os.environ, "RELATE_PASSWORD": PASSWORD},
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(200):
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            await asyncio.sleep(0.05)
        async with streamable_http_client(f"http://127.0.0.1:{port}/mcp") as streams, \
                ClientSession(streams[0], streams[1]) as session:
            await session.initialize()
            rows = payload(await session.call_tool("read_cypher", {"statement": "UNWIND [1, 2] AS x RETURN x"}))
            assert rows["rows"] == [{"x": 1}, {"x": 2}]
            refused = await session.call_tool("write_cypher", {"statement": "CREATE (:X)"})
            assert refused.is_error
    finally:
        mcp.terminate()
        mcp.wait(10)
        server.stop()


HOSTILE_READS = (
    "CALL { CREATE () } IN TRANSACTIONS", "FOREACH (i IN [1] | CREATE ())", "PROFILE CREATE ()",
    "CALL apoc.cypher.doIt('CREATE ()', {})", "CALL apoc.periodic.iterate('RETURN 1 AS x', 'CREATE ()', {})",
    "CALL apoc.create.node(['X'], {})", "CALL apoc.merge.node(['M'], {k: 1})", "CREATE USER evil SET PASSWORD 'pw-12345'",
    "CREATE INDEX ix FOR (n:A) ON (n.x)", "CALL db.index.vector.createNodeIndex('v', 'A', 'w', 3, 'cosine')",
    "MATCH (n:A) CALL db.create.setNodeVectorProperty(n, 'v', [1.0, 2.0, 3.0])", "RETURN 1; CREATE ()",
    "WITH 1 AS x CALL (x) { CREATE () }", "CYPHER runtime=slotted MERGE (n:Z)",
)


def test_graph_tools_refuse_hostile_calls_with_typed_errors_and_bound_results(tmp_path):
    import relate
    from relate.errors import RelateError
    from relate.mcp.tools import MAX_BYTES, GraphTools
    connection = relate.connect(str(tmp_path / "db"))
    try:
        connection.execute("CREATE (:A {x: 1})-[:R]->(:B)").consume()
        tools = GraphTools(connection)
        for statement in HOSTILE_READS:
            with pytest.raises(RelateError) as refused:
                tools.read(statement)
            assert refused.value.code.startswith("Neo.ClientError"), statement
        assert tools.read("MATCH (n) RETURN count(n) AS c")["rows"] == [{"c": 2}]
        for statement, parameters in ((5, None), (None, None), ("RETURN $p", [1]), ("RETURN 1", "p")):
            with pytest.raises(RelateError) as bad:
                tools.read(statement, parameters)
            assert bad.value.code == "Neo.ClientError.Request.Invalid"
        with pytest.raises(RelateError) as huge:
            tools.read("RETURN range(1, 2000000) AS r")           # one row of ~16 MB of JSON
        assert huge.value.code == "Neo.ClientError.Request.Invalid" and "larger than" in huge.value.message
        wide = tools.read("UNWIND range(1, 1000) AS i RETURN i, $pad AS pad", {"pad": "x" * 20_000})
        assert wide["truncated"] and 0 < len(wide["rows"]) < 1000
        assert len(json.dumps(wide)) <= MAX_BYTES + 64 * 1024
    finally:
        connection.close()


def test_a_read_that_spends_ai_calls_reports_its_costs(tmp_path):
    import relate
    from relate.mcp.tools import GraphTools
    connection = relate.connect(str(tmp_path / "db"))
    try:
        for statement in ("CREATE (:Doc {text: 'lotteries and their odds'}), (:Doc {text: 'coffee beans'})",
                          "CREATE FULLTEXT INDEX doc_t FOR (d:Doc) ON EACH [d.text]",
                          "CREATE RELEVANCE JOIN docs FOR (c:Concept)-[:RELEVANT_TO]->(d:Doc) ON c.value "
                          "OPTIONS {indexes: ['doc_t'], via: 'keyword'}", "CALL db.awaitIndexes(30)"):
            connection.execute(statement).consume()
        tools = GraphTools(connection)
        found = tools.read("MATCH (:Concept {value: 'lotteries'})-[:RELEVANT_TO {via: 'keyword'}]->(d:Doc) "
                           "RETURN d.text AS text")
        assert found["rows"] == [{"text": "lotteries and their odds"}]
        assert found["costs"] == {"semanticCalls": 1, "llmCalls": 0, "apiCalls": 0}
        assert "costs" not in tools.read("MATCH (d:Doc) RETURN count(d) AS c")     # nothing spent
    finally:
        connection.close()
