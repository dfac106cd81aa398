"""Before login: a deadline, a limit on unauthenticated connections, stalled messages time out, and
every request (RESET included) is checked against the state table."""
import socket
import time

import relate
from relate.protocol import messages as m
from tests.security.conftest import AUTH
from tests.server.raw_client import RawClient


def closed_within(sock: socket.socket, seconds: float) -> bool:
    """True when the peer closes ``sock`` within ``seconds`` (replies before the close are skipped)."""
    sock.settimeout(seconds)
    deadline = time.monotonic() + seconds
    try:
        while time.monotonic() < deadline:
            if not sock.recv(65536):
                return True
    except ConnectionResetError:
        return True
    except socket.timeout:
        return False
    return False


def test_idle_unauthenticated_connections_are_dropped_at_the_login_deadline(start_server):
    server = start_server("--login-timeout", "1", "--max-unauthenticated", "4")
    idle = [RawClient(server.port) for _ in range(4)]
    for client in idle[:2]:
        client.handshake()
    idle[2].send_bytes(b"\x60\x60\xb0\x17")                 # half a handshake
    extra = socket.create_connection(("127.0.0.1", server.port))
    assert closed_within(extra, 2), "a fifth unauthenticated connection was admitted"
    started = time.monotonic()
    assert all(closed_within(client.sock, 5) for client in idle)
    assert time.monotonic() - started < 4
    with relate.connect(server.url, auth=AUTH) as conn:     # room again for real clients
        assert conn.execute("RETURN 1").fetchall() == [(1,)]
    assert "login deadline passed" in server.log()


def test_logged_in_clients_do_not_count_and_are_not_timed_out(start_server):
    server = start_server("--login-timeout", "1", "--max-unauthenticated", "1")
    with relate.connect(server.url, auth=AUTH) as first, relate.connect(server.url, auth=AUTH) as second:
        time.sleep(1.5)
        assert first.execute("RETURN 2").fetchall() == [(2,)]
        assert second.execute("RETURN 3").fetchall() == [(3,)]


def test_a_chunk_header_announcing_bytes_that_never_come_times_out(start_server):
    server = start_server("--message-timeout", "1")
    client = RawClient(server.port)
    hello, logon = client.login(*AUTH)
    assert isinstance(logon, m.Success)
    client.send_bytes(b"\xff\xff" + b"\x00" * 100)
    reply = client.recv()
    assert isinstance(reply, m.Failure) and "whole" in reply.metadata["message"]
    assert client.recv() is None


def test_reset_before_hello_is_a_violation_not_ready(server):
    client = RawClient(server.port)
    client.handshake()
    client.send(m.Reset())
    assert isinstance(client.recv(), m.Failure)
    assert client.recv() is None


def test_reset_between_hello_and_logon_is_a_violation(server):
    client = RawClient(server.port)
    client.handshake()
    client.send(m.Hello({"user_agent": "t"}), m.Reset(), m.Run("RETURN 1", {}, {}))
    assert isinstance(client.recv(), m.Success)
    assert isinstance(client.recv(), m.Failure)
    assert client.recv() is None


def test_reset_pipelined_after_hello_and_logon_does_not_ignore_them(server):
    client = RawClient(server.port)
    client.handshake()
    client.send(m.Hello({"user_agent": "t"}),
                m.Logon({"scheme": "basic", "principal": AUTH[0], "credentials": AUTH[1]}), m.Reset(),
                m.Run("RETURN 7 AS x", {}, {}), m.Pull(-1, -1))
    replies = [client.recv() for _ in range(3)]
    assert [type(r) for r in replies] == [m.Success, m.Success, m.Success]
    rows, summary = client.recv_until_summary()
    rows, summary = client.recv_until_summary()
    assert rows == [[7]] and isinstance(summary, m.Success)
