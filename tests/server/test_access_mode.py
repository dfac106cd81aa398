"""READ transactions refuse statements that write, whichever door they come through: embedded and
relate:// ``execute_read`` / ``begin(read_only=True)``, the asyncio twin, and the HTTP Query API's
``accessMode: READ`` (Bolt's access mode: tests/bolt/test_neo4j_parity.py). Neo4j's code is
``Neo.ClientError.Statement.AccessMode``; nothing of the refused statement is left behind."""
from __future__ import annotations

import asyncio

import httpx
import pytest

import relate
import relate.aio
from relate.errors import AccessModeError

from .conftest import PASSWORD, ServerProcess

AUTH = ("neo4j", PASSWORD)
CODE = "Neo.ClientError.Statement.AccessMode"
WRITES = ["CREATE (:Guarded)", "MATCH (n) DETACH DELETE n", "CREATE INDEX guarded_x FOR (n:Guarded) ON (n.x)",
          "CALL db.index.vector.createNodeIndex('guarded_e', 'Guarded', 'e', 3, 'cosine')",
          "CREATE USER guarded SET PASSWORD 'guarded-pw-1'"]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    process = ServerProcess(tmp_path_factory.mktemp("access"), "--http-listen", "127.0.0.1:0")
    yield process
    process.stop()


def _check_refusals(conn) -> None:
    conn.execute("MERGE (:Kept {id: 1})")
    for statement in WRITES:
        with pytest.raises(AccessModeError) as caught:
            conn.execute_read(lambda tx: tx.execute(statement).fetchall())
        assert caught.value.code == CODE
    assert conn.execute("MATCH (n) RETURN labels(n) AS l, count(*) AS c").fetchall() == [(["Kept"], 1)]
    assert conn.execute("SHOW INDEXES YIELD name WHERE name STARTS WITH 'guarded' RETURN count(*)").single()[0] == 0


def _check_reads(conn) -> None:
    assert conn.execute_read(lambda tx: tx.execute("MATCH (n:Kept) RETURN n.id").single()[0]) == 1
    assert conn.execute_read(lambda tx: tx.execute("SHOW INDEXES YIELD name RETURN count(*)").single()[0]) >= 0
    assert conn.execute_read(lambda tx: tx.execute("EXPLAIN CREATE (:Guarded)").fetchall()) == []
    tx = conn.begin(read_only=True)
    with pytest.raises(AccessModeError):
        tx.execute("CREATE (:Guarded)").fetchall()
    tx.rollback()
    # after a READ transaction, statements write again
    conn.execute_write(lambda tx: tx.execute("CREATE (:Written)").fetchall())
    assert conn.execute("MATCH (n:Written) RETURN count(*)").single()[0] >= 1


def test_embedded_read_transactions_refuse_writes(tmp_path):
    with relate.connect(tmp_path / "db") as conn:
        _check_refusals(conn)
        _check_reads(conn)


def test_remote_read_transactions_refuse_writes(server):
    with relate.connect(server.url, auth=AUTH) as conn:
        _check_refusals(conn)
        _check_reads(conn)


def test_async_read_transactions_refuse_writes(server):
    async def main():
        for target, auth in ((":memory:", None), (server.url, AUTH)):
            async with await relate.aio.connect(target, auth=auth) as conn:
                async def write(tx):
                    return await (await tx.execute("CREATE (:Guarded)")).fetchall()
                with pytest.raises(AccessModeError):
                    await conn.execute_read(write)

                async def read(tx):
                    return await (await tx.execute("RETURN 1 AS x")).fetchall()
                assert [tuple(r) for r in await conn.execute_read(read)] == [(1,)]
    asyncio.run(main())


def test_http_access_mode_read_refuses_writes(server):
    with httpx.Client(base_url=f"http://{server.info['http']}", auth=AUTH, timeout=60) as http:
        refused = http.post("/db/neo4j/query/v2", json={"statement": "CREATE (:ViaHttp)", "accessMode": "READ"})
        assert refused.status_code == 400 and refused.json()["errors"][0]["code"] == CODE
        read = http.post("/db/neo4j/query/v2", json={"statement": "MATCH (n:ViaHttp) RETURN count(n) AS c",
                                                      "accessMode": "read"})
        assert read.status_code == 202 and read.json()["data"]["values"] == [[0]]
        tx = http.post("/db/neo4j/query/v2/tx", json={"accessMode": "READ"})
        assert tx.status_code == 202
        in_tx = http.post(f"/db/neo4j/query/v2/tx/{tx.json()['transaction']['id']}",
                          json={"statement": "CREATE (:ViaHttp)"})
        assert in_tx.json()["errors"][0]["code"] == CODE
        bad = http.post("/db/neo4j/query/v2", json={"statement": "RETURN 1", "accessMode": "SOMETIMES"})
        assert bad.status_code == 400 and "accessMode" in bad.json()["errors"][0]["message"]
        written = http.post("/db/neo4j/query/v2", json={"statement": "CREATE (:ViaHttp) RETURN 1 AS one"})
        assert written.status_code == 202 and written.json()["data"]["values"] == [[1]]
