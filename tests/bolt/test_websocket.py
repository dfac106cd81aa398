"""Bolt over WebSocket on the Bolt port (what browser-based tools speak): the upgrade, the Bolt
handshake and messages in binary frames, split anyhow; a plain HTTP request or a text frame is
refused without harm, and --no-bolt-websocket turns it off."""
from __future__ import annotations

import socket

import pytest
from websockets.exceptions import ConnectionClosed, InvalidHandshake
from websockets.sync.client import connect

from relate.protocol import FrameDecoder, frame
from relate.protocol import messages as m
from relate.protocol.bolt import handshake as hs
from relate.protocol.bolt import messages as bm
from relate.protocol.bolt.packstream import Packer, Unpacker
from tests.server.conftest import ServerProcess

from .conftest import AUTH

LOGON = m.Logon({"scheme": "basic", "principal": AUTH[0], "credentials": AUTH[1]})


class WebSocketBolt:
    """A Bolt client whose bytes travel in WebSocket binary frames."""

    def __init__(self, address: str):
        self._connection = connect(f"ws://{address}", open_timeout=10, max_size=None)
        self.decoder = FrameDecoder(1 << 30)
        self.ready: list = []

    def __enter__(self) -> "WebSocketBolt":
        self.ws = self._connection.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        self._connection.__exit__(*exc)

    def handshake(self, split: bool = False) -> bytes:
        data = hs.client_handshake([bytes.fromhex("00000405"), bytes.fromhex("00000004")])
        if split:                                   # the 20 bytes in three frames
            for part in (data[:3], data[3:11], data[11:]):
                self.ws.send(part)
        else:
            self.ws.send(data)
        answer = b""
        while len(answer) < 4:
            answer += self.ws.recv(timeout=10)
        return answer

    def send(self, *requests) -> None:
        self.ws.send(b"".join(frame(Packer().pack(bm.encode_request(r))) for r in requests))

    def recv(self):
        while not self.ready:
            self.ready += self.decoder.feed(self.ws.recv(timeout=10))
        message = Unpacker().unpack_message(self.ready.pop(0))
        return message.tag, message.fields


def test_a_websocket_client_logs_in_and_queries(server):
    with WebSocketBolt(server.bolt_address) as client:
        assert client.handshake()[2:] == bytes((4, 5))      # Bolt 5.4, the highest both speak here
        client.send(m.Hello({"user_agent": "neo4j-javascript/5.28"}), LOGON,
                    m.Run("UNWIND [1, 2] AS x RETURN x", {}, {}), m.Pull(-1, -1))
        tags = [client.recv() for _ in range(6)]
    assert [t for t, _ in tags] == [bm.SUCCESS, bm.SUCCESS, bm.SUCCESS, bm.RECORD, bm.RECORD, bm.SUCCESS]
    assert [fields[0] for tag, fields in tags if tag == bm.RECORD] == [[1], [2]]


def test_the_bolt_stream_may_be_split_across_frames(server):
    with WebSocketBolt(server.bolt_address) as client:
        assert client.handshake(split=True)[2:] == bytes((4, 5))
        data = b"".join(frame(Packer().pack(bm.encode_request(r))) for r in (
            m.Hello({"user_agent": "t"}), LOGON, m.Run("RETURN 'ws' AS s", {}, {}), m.Pull(-1, -1)))
        for i in range(0, len(data), 7):                    # seven bytes a frame
            client.ws.send(data[i:i + 7])
        tags = [client.recv() for _ in range(5)]
    assert tags[3] == (bm.RECORD, [["ws"]])


def test_a_plain_http_request_or_a_text_frame_is_refused(server):
    host, port = server.bolt_address.rsplit(":", 1)
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        answer = sock.recv(4096)
    assert answer.startswith(b"HTTP/1.1 4"), answer[:60]
    with WebSocketBolt(server.bolt_address) as client:
        client.ws.send("not bolt")
        with pytest.raises(ConnectionClosed):
            client.ws.recv(timeout=10)
    # the server is unharmed: a WebSocket client still gets in
    with WebSocketBolt(server.bolt_address) as client:
        assert client.handshake()[2:] == bytes((4, 5))


def test_no_bolt_websocket_turns_it_off(tmp_path):
    process = ServerProcess(tmp_path, "--no-bolt-websocket")
    try:
        with pytest.raises((InvalidHandshake, ConnectionClosed, OSError, EOFError, TimeoutError)):
            with WebSocketBolt(process.bolt_address) as client:
                client.handshake()
    finally:
        process.stop()


def test_an_endless_upgrade_request_is_cut_off(server):
    host, port = server.bolt_address.rsplit(":", 1)
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nX-Long: " + b"a" * 40_000)
        received = b""
        while True:                      # the server answers 4xx (or just closes): never waits for more
            try:
                chunk = sock.recv(4096)
            except ConnectionResetError:
                break
            if not chunk:
                break
            received += chunk
    assert received == b"" or received.startswith(b"HTTP/1.1 4")
    with WebSocketBolt(server.bolt_address) as client:
        assert client.handshake()[2:] == bytes((4, 5))


def test_the_javascript_driver_of_a_web_page_works_over_websocket(server):
    """The official neo4j JavaScript driver's browser build (WebSocket channel), run by Node.js."""
    import json
    import subprocess
    from pathlib import Path
    script = Path(__file__).resolve().parents[1] / "js" / "bolt_ws.js"
    done = subprocess.run(["node", "--experimental-websocket", str(script), f"bolt://{server.bolt_address}", *AUTH],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert "failure" not in seen, seen
    assert seen["protocolVersion"] >= 5.0
    assert seen["xs"] == [1, 2, 3] and seen["labels"] == ["Js"]
    assert seen["count"] == 3                         # the rolled-back node is gone
    assert seen["errorCode"] == "Neo.ClientError.Statement.SyntaxError"
