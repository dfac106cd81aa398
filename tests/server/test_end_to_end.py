"""End to end with the real engine: a relate-server process on a loopback port, a fresh data
directory, the Python driver, under uvloop and plain asyncio."""
from __future__ import annotations

import statistics
import subprocess
import sys
import threading
import time

import pytest

import relate

from .conftest import AUTH, PASSWORD, ROOT, ServerProcess

EXAMPLE = ROOT / "examples" / "hybrid-recall"


@pytest.fixture(scope="module", params=["uvloop", "asyncio"])
def server(request, tmp_path_factory):
    process = ServerProcess(tmp_path_factory.mktemp("e2e"), loop=request.param)
    yield process
    process.stop()


@pytest.fixture
def conn(server):
    connection = relate.connect(server.url, auth=AUTH)
    yield connection
    connection.close()


def test_values_and_errors_match_embedded_mode(conn, tmp_path):
    setup = ("CREATE (a:Person {name: 'Ada', born: date('1815-12-10'), v: vector([1, 2, 3], 3, FLOAT32)})"
             "-[:KNOWS {since: datetime('2015-07-21T21:40:32.142+01:00[Europe/London]')}]->"
             "(b:Person {name: 'Bob', nap: duration('PT1H30M'), at: localtime('12:31:14.645876123')})")
    queries = ["MATCH p = (a:Person)-[r:KNOWS]->(b) RETURN a, r, b, p, a.v AS v, r.since AS since, b.nap AS nap",
               "UNWIND range(1, 2500) AS i RETURN i, i * 1.5 AS f, toString(i) AS s, [i, {k: i}] AS nested",
               "RETURN $p AS p", "RETURN localdatetime('2020-01-02T03:04:05') AS ldt, time('10:00+02:00') AS t"]
    params = {"p": {"list": [1, "two", None, 3.5], "v": relate.Vector([0.25, 0.5], "FLOAT64")}}
    with relate.connect(str(tmp_path / "embedded.rl")) as embedded:
        for target in (embedded, conn):
            target.execute("MATCH (n) DETACH DELETE n").consume()
            assert target.execute(setup).summary.counters.nodes_created == 2
        for query in queries:
            local = [tuple(r) for r in embedded.execute(query, params)]
            remote = [tuple(r) for r in conn.execute(query, params)]
            assert remote == local
            assert [list(map(type, row)) for row in remote] == [list(map(type, row)) for row in local]
        for bad in ["RETRUN 1", "RETURN x", "MATCH (n) RETURN n.name + $missing"]:
            with pytest.raises(relate.RelateError) as local_error:
                embedded.execute(bad).fetchall()
            with pytest.raises(relate.RelateError) as remote_error:
                conn.execute(bad).fetchall()
            assert type(remote_error.value) is type(local_error.value)
            assert (remote_error.value.code, remote_error.value.message, remote_error.value.excerpt) == \
                   (local_error.value.code, local_error.value.message, local_error.value.excerpt)


def test_explicit_transactions_commit_and_roll_back_over_the_wire(conn):
    conn.execute("MATCH (n:Tx) DELETE n").consume()
    with conn.transaction() as tx:
        tx.execute("CREATE (:Tx {k: 'committed'})")
        assert tx.execute("MATCH (n:Tx) RETURN count(n) AS c").fetchone().c == 1
    tx = conn.begin()
    tx.execute("CREATE (:Tx {k: 'rolled back'})")
    tx.rollback()
    with relate.connect(conn.target, auth=AUTH) as other:
        assert [r.k for r in other.execute("MATCH (n:Tx) RETURN n.k AS k")] == ["committed"]
    with pytest.raises(relate.RelateError):
        with conn.transaction() as tx:
            tx.execute("CREATE (:Tx {k: 'doomed'})")
            tx.execute("RETURN 1 / 0").fetchall()
            raise AssertionError("not reached")
    assert conn.execute("MATCH (n:Tx) RETURN count(n) AS c").fetchone().c == 1


def test_32_concurrent_clients_mixed_reads_and_writes(server):
    per_client, errors = 15, []
    with relate.connect(server.url, auth=AUTH) as setup:
        setup.execute("MATCH (n:Load) DELETE n").consume()

    def client(n):
        try:
            with relate.connect(server.url, auth=AUTH) as conn:
                for i in range(per_client):
                    if i % 3 == 2:
                        with conn.transaction() as tx:
                            tx.execute("CREATE (:Load {client: $c, i: $i})", c=n, i=i)
                    else:
                        conn.execute("CREATE (:Load {client: $c, i: $i})", c=n, i=i).consume()
                    seen = conn.execute("MATCH (x:Load {client: $c}) RETURN count(x) AS c", c=n).fetchone().c
                    assert seen == i + 1
                    assert len(conn.execute("UNWIND range(1, 300) AS k RETURN k").fetchall()) == 300
        except Exception as exc:  # noqa: BLE001 - reported by the assertion below
            errors.append(exc)
    threads = [threading.Thread(target=client, args=(n,)) for n in range(32)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    with relate.connect(server.url, auth=AUTH) as check:
        assert check.execute("MATCH (n:Load) RETURN count(n) AS c").fetchone().c == 32 * per_client
        assert check.execute("MATCH (n:Load) RETURN count(DISTINCT [n.client, n.i]) AS c").fetchone().c == 32 * 15


MILLION = "UNWIND range(1, 1000000) AS i RETURN i, i * 2 AS j, 'x' AS s"
READER = """
import sys, time, relate
conn = relate.connect(sys.argv[1], auth=("neo4j", sys.argv[2]))
count = total = 0
for row in conn.execute(sys.argv[3]):
    count += 1
    total += row[1]
    if count == 1:
        print("streaming", flush=True)
    if count % 100_000 == 0:
        time.sleep(0.1)                       # a slow reader: the server must wait, not buffer
print(count, total, flush=True)
"""


# The engine materializes range(1, 1000000) as a list (~30 MiB, embedded too); the nested form it
# streams. A result buffered in the server would add > 150 MiB of row tuples either way.
STREAMED_MILLION = "UNWIND range(1, 100) AS k UNWIND range(1, 10000) AS i RETURN i, i * 2 AS j, 'x' AS s"


@pytest.mark.slow
@pytest.mark.parametrize("query, limit_mib", [(MILLION, 80), (STREAMED_MILLION, 32)], ids=["range", "nested"])
def test_a_million_rows_stream_with_bounded_server_memory(server, query, limit_mib):
    baseline = server.rss_kib()
    reader = subprocess.Popen([sys.executable, "-c", READER, server.url, PASSWORD, query], cwd=ROOT,
                              stdout=subprocess.PIPE, text=True)
    peak = baseline
    while reader.poll() is None:
        peak = max(peak, server.rss_kib())
        time.sleep(0.02)
    lines = reader.stdout.read().split()
    assert lines[-2] == "1000000"
    assert peak - baseline < limit_mib * 1024, f"RSS grew from {baseline} to {peak} KiB"


def test_client_killed_mid_stream_leaves_the_server_healthy(server):
    reader = subprocess.Popen([sys.executable, "-c", READER, server.url, PASSWORD, MILLION], cwd=ROOT,
                              stdout=subprocess.PIPE, text=True)
    assert reader.stdout.readline().strip() == "streaming"
    reader.kill()
    reader.wait()
    with relate.connect(server.url, auth=AUTH) as conn:
        assert conn.execute("RETURN 1 AS one").fetchall() == [(1,)]
        assert len(conn.execute("UNWIND range(1, 5000) AS i RETURN i").fetchall()) == 5000
    assert server.alive()


def test_long_query_does_not_stall_a_short_one(server, conn):
    long_query = "UNWIND range(1, 2000000) AS i WITH i WHERE i < 0 RETURN count(i)"   # a few CPU seconds
    done = threading.Event()

    def run_long():
        with relate.connect(server.url, auth=AUTH) as other:
            other.execute(long_query).fetchall()
        done.set()
    for _ in range(50):                               # warm the plan cache and the connection
        conn.execute("RETURN 1 AS one").fetchall()
    thread = threading.Thread(target=run_long)
    thread.start()
    time.sleep(0.5)
    latencies = []
    while not done.is_set() and len(latencies) < 300:
        started = time.perf_counter()
        conn.execute("RETURN 1 AS one").fetchall()
        latencies.append(time.perf_counter() - started)
    thread.join()
    assert len(latencies) >= 50
    assert statistics.median(latencies) < 0.015, sorted(latencies)[::25]


def test_query_timeout_terminates_a_runaway_query(tmp_path):
    server = ServerProcess(tmp_path, "--query-timeout", "1")
    try:
        with relate.connect(server.url, auth=AUTH) as conn:
            conn.execute("UNWIND range(1, 3000) AS i CREATE (:X {i: i})").consume()
            started = time.perf_counter()
            with pytest.raises(relate.QueryTimeout) as caught:
                conn.execute("MATCH (a:X), (b:X), (c:X) RETURN count(*) AS c").fetchall()
            assert time.perf_counter() - started < 5
            assert caught.value.code == "Neo.ClientError.Transaction.TransactionTimedOut"     # the server's limit
            assert conn.execute("MATCH (x:X) RETURN count(x) AS c").fetchone().c == 3000
    finally:
        server.stop()


def test_users_are_managed_with_cypher_and_checked_at_login(server, conn):
    conn.execute("CREATE USER alice IF NOT EXISTS SET PASSWORD 'first-pw' CHANGE NOT REQUIRED").consume()
    with relate.connect(server.url, auth=("alice", "first-pw")) as alice:
        assert alice.execute("RETURN 1 AS one").fetchall() == [(1,)]
    assert "alice" in [r["user"] for r in conn.execute("SHOW USERS")]
    conn.execute("ALTER USER alice SET PASSWORD 'second-pw' CHANGE NOT REQUIRED").consume()
    with pytest.raises(relate.AuthenticationError):
        relate.connect(server.url, auth=("alice", "first-pw"))
    relate.connect(server.url, auth=("alice", "second-pw")).close()
    conn.execute("DROP USER alice").consume()
    with pytest.raises(relate.AuthenticationError):
        relate.connect(server.url, auth=("alice", "second-pw"))


def test_async_driver_against_the_engine(server):
    import asyncio

    import relate.aio

    async def main():
        async with await relate.aio.connect(server.url, auth=AUTH) as conn:
            result = await conn.execute("UNWIND range(1, 3000) AS i RETURN i")
            assert [row.i async for row in result][-1] == 3000
            async with conn.transaction() as tx:
                await (await tx.execute("CREATE (:Aio {i: 1})")).consume()
            assert (await (await conn.execute("MATCH (n:Aio) RETURN count(n) AS c")).fetchone()).c >= 1
    asyncio.run(main())


def test_data_and_users_survive_a_restart(tmp_path):
    first = ServerProcess(tmp_path)
    with relate.connect(first.url, auth=AUTH) as conn:
        conn.execute("CREATE (:Durable {v: 42})").consume()
        conn.execute("CREATE USER bob SET PASSWORD 'bob-pw-42' CHANGE NOT REQUIRED").consume()
    assert first.stop() == 0
    second = ServerProcess(tmp_path, "--init-password", "ignored-now")
    try:
        with relate.connect(second.url, auth=("bob", "bob-pw-42")) as conn:
            assert conn.execute("MATCH (n:Durable) RETURN n.v AS v").fetchone().v == 42
        relate.connect(second.url, auth=AUTH).close()        # the original password still works
    finally:
        second.stop()


def _recall(db, fixture, statements):
    _setup(db, fixture, statements)
    result = db.execute(statements.RECALL, statements.question_params(fixture, "oauth"))
    return result.columns, [tuple(r) for r in result]


def _setup(db, fixture, statements):
    for query in statements.SETUP:
        db.execute(query).consume()
    for query in (statements.LOAD_NOTES, statements.LOAD_DECISIONS):
        db.execute(query, statements.load_params(fixture)).consume()


def test_cookbook_recall_gives_the_same_rows_over_the_wire(tmp_path):
    sys.path.insert(0, str(EXAMPLE))
    try:
        import statements
    finally:
        sys.path.remove(str(EXAMPLE))
    fixture = statements.load_fixture()
    with relate.connect(str(tmp_path / "embedded.rl")) as embedded:
        local = _recall(embedded, fixture, statements)
    server = ServerProcess(tmp_path)
    try:
        with relate.connect(server.url, auth=AUTH) as remote:
            assert _recall(remote, fixture, statements) == local
        assert len(local[1]) > 0
    finally:
        server.stop()
