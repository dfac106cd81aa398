"""Smaller hostile-client cases: SIGTERM with idle clients, bounded syntax-error replies, and an
oversized parameter that reaches the driver as the server's typed FAILURE."""
import signal
import time

import pytest

import relate
from relate.errors import ClientError, CypherSyntaxError
from tests.security.conftest import AUTH
from tests.server.raw_client import RawClient


def test_sigterm_with_idle_clients_exits_promptly_and_quietly(start_server):
    server = start_server()
    idle = [relate.connect(server.url, auth=AUTH) for _ in range(2)]
    raw = RawClient(server.port)
    raw.handshake()
    time.sleep(0.3)
    started = time.monotonic()
    server.process.send_signal(signal.SIGTERM)
    assert server.process.wait(30) == 0
    assert time.monotonic() - started < 5
    log = server.log()
    assert "CancelledError" not in log and "Traceback" not in log
    for conn in idle:
        conn.close()


def test_a_syntax_error_reply_is_bounded(server):
    query = "RETURN 1 +\n" + "x" * 200_000 + " ) garbage"
    with relate.connect(server.url, auth=AUTH) as conn:
        with pytest.raises(CypherSyntaxError) as caught:
            conn.execute(query).consume()
    error = caught.value
    assert len(error.message) + len(error.excerpt or "") < 4_000, len(str(error))


def test_an_oversized_parameter_is_the_servers_typed_failure(server):
    with relate.connect(server.url, auth=AUTH) as conn:
        with pytest.raises(ClientError) as caught:
            conn.execute("RETURN size($p)", {"p": "x" * (17 * 2 ** 20)}).consume()
        assert "larger than the maximum" in str(caught.value)
        assert caught.value.code == "Neo.ClientError.Request.Invalid"
    with relate.connect(server.url, auth=AUTH) as conn:
        assert conn.execute("RETURN 1").fetchall() == [(1,)]
