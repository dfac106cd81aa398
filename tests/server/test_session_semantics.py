"""Session semantics over real loopback TCP against a real server process whose engine is scripted
(see scripted_engine.py), under uvloop and plain asyncio."""
from __future__ import annotations

import statistics
import threading
import time

import pytest

import relate
from relate.protocol import frame
from relate.protocol import messages as m

from .conftest import AUTH, PASSWORD, ServerProcess
from .raw_client import RawClient


@pytest.fixture(scope="module", params=["uvloop", "asyncio"])
def server(request, tmp_path_factory):
    process = ServerProcess(tmp_path_factory.mktemp("scripted"), scripted=True, loop=request.param)
    yield process
    process.stop()


@pytest.fixture
def conn(server):
    connection = relate.connect(server.url, auth=AUTH)
    yield connection
    connection.close()


def logged_in(server) -> RawClient:
    client = RawClient(server.port)
    hello, logon = client.login("neo4j", PASSWORD)
    assert isinstance(hello, m.Success) and isinstance(logon, m.Success)
    return client


def assert_healthy(server):
    with relate.connect(server.url, auth=AUTH) as other:
        assert other.execute("RETURN 1").fetchall() == [(1,)]


def test_rows_columns_and_summary(conn):
    result = conn.execute("ROWS 2500")
    assert result.columns == ["i", "j", "s"]
    rows = result.fetchall()
    assert len(rows) == 2500 and rows[-1] == (2500, 5000, "x") and rows[0]["j"] == 2
    assert result.summary.query_type == "r"


def test_fetchone_fetchmany_and_streaming_in_batches(conn):
    result = conn.execute("ROWS 5001")
    assert result.fetchone() == (1, 2, "x")
    assert [r.i for r in result.fetchmany(3)] == [2, 3, 4]
    assert sum(1 for _ in result) == 4997


def test_parameters_travel_with_their_types(conn):
    params = {"v": relate.Vector([0.5, 1.5, 2.5], "FLOAT64"), "d": relate.Duration(months=14, seconds=3),
              "n": None, "nested": {"xs": [1, 2.5, "s", True, b"\x00\x01"]}, "big": 2 ** 62}
    row = conn.execute("ECHO", params).fetchone()
    assert row.as_dict() == params
    assert row["v"].coordinate_type == "FLOAT64"


def test_failure_raises_the_same_error_class_and_the_session_recovers(conn):
    with pytest.raises(relate.CypherSyntaxError) as info:
        conn.execute("FAIL Neo.ClientError.Statement.SyntaxError")
    assert info.value.detail == "Scripted"
    with pytest.raises(relate.errors.EntityNotFound):
        conn.execute("FAIL Neo.ClientError.Statement.EntityNotFound")
    assert conn.execute("RETURN 1").fetchall() == [(1,)]


def test_explicit_transactions_commit_and_roll_back(conn):
    with conn.transaction() as tx:
        tx.execute("SET k1 committed")
        assert tx.execute("GET k1").fetchone().value == "committed"
    tx = conn.begin()
    tx.execute("SET k2 rolled-back")
    tx.rollback()
    assert conn.execute("GET k1").fetchone().value == "committed"
    assert conn.execute("GET k2").fetchone().value is None
    with pytest.raises(RuntimeError):
        with conn.transaction() as tx:
            tx.execute("SET k3 doomed")
            raise RuntimeError("the application failed")
    assert conn.execute("GET k3").fetchone().value is None and not conn.in_transaction


def test_a_failed_statement_leaves_the_transaction_open(conn):
    with conn.transaction() as tx:
        tx.execute("SET k4 kept")
        with pytest.raises(relate.CypherTypeError):
            tx.execute("FAIL Neo.ClientError.Statement.TypeError")
        assert conn.in_transaction
        tx.execute("SET k5 kept")
    assert [conn.execute(f"GET {k}").fetchone().value for k in ("k4", "k5")] == ["kept", "kept"]


def test_transaction_misuse_raises_transaction_error_locally(conn):
    with pytest.raises(relate.TransactionError):
        conn.commit()
    conn.begin()
    with pytest.raises(relate.TransactionError):
        conn.begin()
    conn.rollback()


def test_several_open_results_inside_one_transaction(conn):
    with conn.transaction() as tx:
        first, second = tx.execute("ROWS 3000"), tx.execute("ROWS 2000")
        assert second.fetchone() == (1, 2, "x")
        assert len(first.fetchall()) == 3000 and len(second.fetchall()) == 1999


def test_rows_of_a_result_left_open_stay_readable_after_commit(conn):
    tx = conn.begin()
    result = tx.execute("ROWS 2500")
    assert result.fetchone() == (1, 2, "x")
    tx.commit()
    assert len(result.fetchall()) == 2499


def test_autocommit_result_left_open_is_buffered_when_the_next_statement_runs(conn):
    first = conn.execute("ROWS 4000")
    first.fetchone()
    assert conn.execute("RETURN 1").fetchall() == [(1,)]
    assert len(first.fetchall()) == 3999


def test_wrong_state_message_fails_then_is_ignored_until_reset(server):
    client = logged_in(server)
    client.send(m.Pull(10))
    failure = client.recv()
    assert isinstance(failure, m.Failure) and failure.metadata["code"] == "Neo.ClientError.Request.Invalid"
    assert "READY" in failure.metadata["message"]
    client.send(m.Run("RETURN 1"), m.Pull())
    assert isinstance(client.recv(), m.Ignored) and isinstance(client.recv(), m.Ignored)
    assert_healthy(server)
    client.send(m.AckFailure())                       # a protocol failure needs RESET, not ACK_FAILURE
    assert isinstance(client.recv(), m.Ignored)
    client.send(m.Reset(), m.Run("RETURN 1"), m.Pull())
    assert isinstance(client.recv(), m.Success)
    assert isinstance(client.recv(), m.Success)
    assert client.recv_until_summary()[0] == [[1]]
    client.close()


def test_statement_failure_is_acknowledged_with_ack_failure(server):
    client = logged_in(server)
    client.send(m.Begin(), m.Run("SET a 1"), m.Pull(), m.Run("FAIL Neo.ClientError.Statement.TypeError"), m.Pull())
    replies = [client.recv() for _ in range(5)]
    assert [type(r) for r in replies] == [m.Success, m.Success, m.Success, m.Failure, m.Ignored]
    client.send(m.AckFailure(), m.Commit())
    ack, commit = client.recv(), client.recv()
    assert ack.metadata == {"in_transaction": True} and commit.metadata["bookmark"].startswith("rl:")
    client.close()


def test_malformed_bytes_get_a_failure_and_other_sessions_keep_working(server):
    client = logged_in(server)
    client.send_bytes(frame(b"\xc1\xc1\xc1"))           # framed, but not msgpack
    reply = client.recv()
    assert isinstance(reply, m.Failure) and "malformed" in reply.metadata["message"]
    client.send_bytes(frame(b"\x93\x10\x05\x06"))       # msgpack, but not a RUN
    assert isinstance(client.recv(), m.Ignored)
    assert_healthy(server)
    client.send(m.Reset(), m.Run("RETURN 1"), m.Pull())
    assert [type(client.recv()) for _ in range(3)] == [m.Success, m.Success, m.Record]
    client.close()


def test_garbage_instead_of_handshake_closes_the_connection(server):
    client = RawClient(server.port)
    client.send_bytes(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
    assert client.closed_by_server()
    assert_healthy(server)


def test_oversized_frame_gets_a_failure_and_the_stream_stays_in_step(server):
    client = logged_in(server)
    client.send_bytes((b"\xff\xff" + b"a" * 0xFFFF) * 300)    # ~19 MiB > the 16 MiB default
    reply = client.recv()                                    # answered while it still arrives
    assert isinstance(reply, m.Failure) and "maximum" in reply.metadata["message"]
    client.send_bytes(b"\x00\x00")                            # the oversized message ends
    client.send(m.Reset(), m.Run("RETURN 1", {}, {}), m.Pull(-1, -1))
    assert isinstance(client.recv(), m.Success)
    assert isinstance(client.recv(), m.Success)
    rows, summary = client.recv_until_summary()
    assert rows == [[1]] and isinstance(summary, m.Success)
    assert_healthy(server)


def test_bad_password_is_refused_slowly_and_logged(server):
    started = time.perf_counter()
    with pytest.raises(relate.AuthenticationError):
        relate.connect(server.url, auth=("neo4j", "wrong"))
    assert time.perf_counter() - started >= 0.2
    with pytest.raises(relate.AuthenticationError):
        relate.connect(server.url, auth=("nobody", "x"))
    assert_healthy(server)
    assert "login failed" in server.log()


def test_unauthenticated_client_can_run_nothing(server):
    client = RawClient(server.port)
    assert client.handshake() is not None
    client.send(m.Hello(), m.Run("RETURN 1"), m.Pull())
    assert isinstance(client.recv(), m.Success)
    failure = client.recv()
    assert isinstance(failure, m.Failure) and "AUTHENTICATION" in failure.metadata["message"]
    assert client.closed_by_server()
    with pytest.raises(relate.AuthenticationError):
        relate.connect(server.url)                      # scheme "none" on a server that needs auth


def test_reset_stops_a_running_query(server):
    client = logged_in(server)
    client.send(m.Run("SLEEP 30"))
    assert isinstance(client.recv(), m.Success)        # RUN ran; the sleep happens in PULL
    client.send(m.Pull())
    time.sleep(0.2)
    started = time.perf_counter()
    client.send(m.Reset())
    assert isinstance(client.recv(), m.Ignored)
    assert isinstance(client.recv(), m.Success)
    assert time.perf_counter() - started < 2
    client.send(m.Run("RETURN 1"), m.Pull())
    assert isinstance(client.recv(), m.Success)
    client.close()


def test_long_query_does_not_stall_a_short_one(server, conn):
    def long_query():
        with relate.connect(server.url, auth=AUTH) as other:
            other.execute("SLEEP 2").fetchall()
    thread = threading.Thread(target=long_query)
    thread.start()
    time.sleep(0.3)
    latencies = []
    while thread.is_alive() and len(latencies) < 200:
        started = time.perf_counter()
        conn.execute("RETURN 1").fetchall()
        latencies.append(time.perf_counter() - started)
    thread.join()
    assert len(latencies) >= 20
    assert statistics.median(latencies) < 0.01, latencies      # a few milliseconds, not 2 seconds


def test_dropped_connection_cancels_the_running_query(server):
    client = logged_in(server)
    client.send(m.Run("SLEEP 60"))
    assert isinstance(client.recv(), m.Success)
    client.send(m.Pull())
    time.sleep(0.2)
    client.close()
    deadline = time.monotonic() + 5
    while "Terminated" not in server.log() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert_healthy(server)


def test_async_twin_streams_and_commits(server):
    import asyncio

    import relate.aio

    async def main():
        async with await relate.aio.connect(server.url, auth=AUTH) as conn:
            result = await conn.execute("ROWS 2500")
            rows = [row async for row in result]
            assert len(rows) == 2500 and result.summary is not None
            async with conn.transaction() as tx:
                await tx.execute("SET aio yes")
            assert (await (await conn.execute("GET aio")).fetchone()).value == "yes"
            with pytest.raises(relate.CypherSyntaxError):
                await conn.execute("FAIL Neo.ClientError.Statement.SyntaxError")
            assert await (await conn.execute("RETURN 1")).fetchall() == [(1,)]
    asyncio.run(main())


def test_managed_transactions_retry_only_retryable_errors(conn):
    attempts = []

    def flaky(tx):
        attempts.append(1)
        if len(attempts) < 3:
            tx.execute("FAIL Neo.TransientError.Transaction.DeadlockDetected")
        tx.execute("SET managed done")
        return len(attempts)
    assert conn.execute_write(flaky) == 3
    assert conn.execute("GET managed").fetchone().value == "done"
    attempts.clear()

    def broken(tx):
        attempts.append(1)
        tx.execute("FAIL Neo.ClientError.Statement.SyntaxError")
    with pytest.raises(relate.CypherSyntaxError):
        conn.execute_read(broken)
    assert len(attempts) == 1


def test_pool_reuses_connections_across_threads(server):
    from relate.pool import Pool
    with Pool(server.url, auth=AUTH, max_size=4) as pool:
        errors = []

        def work(i):
            try:
                pool.execute_write(lambda tx: tx.execute(f"SET pool{i} {i}").consume())
            except Exception as exc:   # noqa: BLE001 - collected for the assertion
                errors.append(exc)
        threads = [threading.Thread(target=work, args=(i,)) for i in range(16)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not errors and len(pool._idle) <= 4
        with pool.connection() as conn:
            assert conn.execute("GET pool7").fetchone().value == "7"


def test_async_pool_and_managed_retries(server):
    import asyncio

    from relate.pool import AsyncPool

    async def main():
        async with AsyncPool(server.url, auth=AUTH, max_size=3) as pool:
            attempts = []

            async def work(tx, n):
                attempts.append(n)
                if attempts.count(n) == 1:
                    await tx.execute("FAIL Neo.TransientError.General.DatabaseUnavailable")
                await (await tx.execute(f"SET apool{n} {n}")).consume()
                return n
            assert sorted(await asyncio.gather(*(pool.execute_write(work, n) for n in range(8)))) == list(range(8))
            assert len(attempts) == 16 and len(pool._idle) <= 3
            async with pool.connection() as conn:
                assert (await (await conn.execute("GET apool5")).fetchone()).value == "5"
    asyncio.run(main())


def test_a_lost_connection_is_replaced_and_managed_work_retried(server):
    with relate.connect(server.url, auth=AUTH) as conn:
        conn._session._wire._transport._sock.close()          # the network drops under us
        with pytest.raises(relate.ServiceUnavailable):
            conn.execute("RETURN 1")
        assert conn.execute("RETURN 1").fetchall() == [(1,)]  # the next statement reconnects
        conn._session._wire._transport._sock.close()
        assert conn.execute_write(lambda tx: tx.execute("RETURN 1").fetchall()) == [(1,)]


def test_a_statement_that_must_not_wait_on_the_loop_is_not_tried_there_every_time(conn):
    """A statement learned as cheap whose inline run meets a step that may wait (MustNotWait) runs
    again on the session thread; its next runs go there directly, backing off 1, 2, 4, ... runs, so
    it is not run twice per request (every answer stays right)."""
    before = conn.execute("LOOPWAITS").fetchone().n
    for _ in range(30):
        assert conn.execute("LOOPWAIT").fetchall() == [(1,)]
    tried = conn.execute("LOOPWAITS").fetchone().n - before
    assert 1 <= tried <= 5          # on-loop tries at runs 2, 4, 7, 12, 21 of 30 (not 29)
