"""Hostile clients that leave must leave nothing behind: the server's connection count (/health)
returns to its baseline on both listeners. Found by the wire fuzzer: a client that sent a long
statement and then a fatal frame (too deep) and left was counted open until the statement ended on
its own, because the reader stopped watching the socket at the fatal frame."""
import json
import time
import urllib.request

import msgpack
import pytest

from relate.protocol import frame
from relate.protocol import messages as m
from tests.bolt.raw_bolt import RawBolt
from tests.security.conftest import AUTH, ServerProcess
from tests.security.test_bounded_decoding import nested_list
from tests.server.raw_client import RawClient

LONG = "UNWIND range(1, 1000000000) AS x RETURN count(x)"     # minutes unless cancelled


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    process = ServerProcess(tmp_path_factory.mktemp("leaks"), "--http-listen", "127.0.0.1:0",
                            "--message-timeout", "1")
    yield process
    process.stop()


def open_connections(server) -> int:
    with urllib.request.urlopen(f"http://{server.info['http']}/health", timeout=10) as response:
        return json.loads(response.read())["connections"]


def settles_to(server, count: int, seconds: float = 5) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if open_connections(server) == count:
            return True
        time.sleep(0.05)
    return False


@pytest.mark.parametrize("tail", [
    frame(b"\x91" + nested_list(400)),           # too deep: fatal, the reader stops decoding
    b"\xff\xff" + b"\x00" * 10,                  # a chunk that never completes: the message deadline
])
def test_native_client_leaving_after_a_fatal_frame_behind_a_long_statement(server, tail):
    baseline = open_connections(server)
    client = RawClient(server.port)
    hello, logon = client.login(*AUTH)
    assert isinstance(logon, m.Success)
    client.send(m.Run(LONG, {}, {}), m.Pull(-1, -1))
    client.send_bytes(tail)
    time.sleep(1.5)                              # the fatal frame / the message deadline is reached
    client.close()
    assert settles_to(server, baseline), f"{open_connections(server) - baseline} connection(s) still open"


def test_bolt_client_leaving_after_a_fatal_frame_behind_a_long_statement(server):
    baseline = open_connections(server)
    client = RawBolt(server.bolt_address)
    client.manifest_handshake()
    client.send(m.Hello({"user_agent": "t"}), m.Logon({"scheme": "basic", "principal": AUTH[0],
                                                       "credentials": AUTH[1]}))
    assert client.recv()[0] == 0x70 and client.recv()[0] == 0x70
    client.send(m.Run(LONG, {}, {}), m.Pull(-1, -1))
    client.send_bytes(frame(b"\xB3\x10\x81x\xA1\x81p" + b"\x91" * 400 + b"\x90" + b"\xA0"))   # RUN, $p too deep
    time.sleep(0.5)
    client.close()
    assert settles_to(server, baseline), f"{open_connections(server) - baseline} connection(s) still open"


def test_many_hostile_clients_leave_no_connection_open(server):
    """Each kind of early failure (bad handshake, bad chunk, garbage message, too deep before login,
    half a message) on both listeners, 20 times over: the count returns to its baseline."""
    baseline = open_connections(server)
    native_bad = [b"\x00" * 20, b"\x60\x60\xb0\x17", frame(msgpack.packb([m.HELLO, {}]))[:5],
                  frame(b"\xc1\xc1\xc1"), frame(b"\x91" + nested_list(400))]
    clients = []
    for _ in range(20):
        for tail in native_bad:
            client = RawClient(server.port)
            if tail[:4] != b"\x60\x60\xb0\x17" and tail != b"\x00" * 20:
                client.handshake()
            client.send_bytes(tail)
            clients.append(client)
        bolt = RawBolt(server.bolt_address)
        bolt.manifest_handshake()
        bolt.send_bytes(frame(b"\xB1\x01\xA1\x81a" + b"\x91" * 400 + b"\x90"))   # HELLO too deep
        clients.append(bolt)
    for client in clients:
        client.close()
    assert settles_to(server, baseline, 10), f"{open_connections(server) - baseline} connection(s) still open"


def test_clients_that_reset_the_connection_right_after_their_requests_log_no_server_error(server):
    """A reply written after the peer reset the connection is a disconnect (uvloop raised RuntimeError
    from the Bolt listener's write, logged as 'connection failed')."""
    import socket
    import struct
    baseline = open_connections(server)
    logon = m.Logon({"scheme": "basic", "principal": AUTH[0], "credentials": AUTH[1]})
    for _ in range(15):
        for kind in ("native", "bolt"):
            client = RawClient(server.port) if kind == "native" else RawBolt(server.bolt_address)
            if kind == "native":
                client.handshake()
                client.send(m.Hello({"user_agent": "t"}), logon, m.Run("UNWIND range(1, 5000) AS x RETURN x", {}, {}),
                            m.Pull(-1, -1))
            else:
                client.manifest_handshake()
                client.send(m.Hello({"user_agent": "t"}), logon, m.Run("UNWIND range(1, 5000) AS x RETURN x", {}, {}),
                            m.Pull(-1, -1))
            client.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            client.sock.close()                      # RST while the server is answering
    assert settles_to(server, baseline, 10)
    assert "connection failed" not in server.log()


def test_a_client_that_leaves_during_its_failed_login_delay_frees_its_place_at_once(server):
    """Failed logins are answered after a growing delay (up to 5 s); a client that left meanwhile no
    longer held its unauthenticated place for the rest of the delay (the wire fuzzer's control client
    was refused once while such connections piled up)."""
    import socket
    from relate.protocol import handshake as hs
    from relate.protocol.hydration import value_codec
    codec = value_codec()
    hostile = (hs.client_handshake() + frame(codec.pack([m.HELLO, {"user_agent": "t"}])) +
               frame(codec.pack([m.LOGON, {"scheme": "basic", "principal": "ghost-user", "credentials": "nope"}])))
    baseline = open_connections(server)
    clients = []
    for i in range(5):              # the same user name: each failure doubles the next one's delay
        sock = socket.create_connection(("127.0.0.1", server.port), source_address=(f"127.0.5.{i + 1}", 0))
        sock.sendall(hostile)
        clients.append(sock)
        time.sleep(0.3)             # hashed and failed: the delay runs (the last one's: 4 s)
    for sock in clients:
        sock.close()
    assert settles_to(server, baseline, 1.0), f"{open_connections(server) - baseline} connection(s) still open"
