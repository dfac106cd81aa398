"""The sans-I/O connection objects: a ClientConnection and a ServerConnection talking to each other
through nothing but the bytes each returns (handshake, pipelining, partial chunks, violations)."""
from __future__ import annotations

import msgpack
import pytest

from relate.protocol import frame
from relate.protocol import handshake as hs
from relate.protocol import messages as m
from relate.protocol.codec import ValueTooDeep
from relate.protocol.errors import ProtocolViolation
from relate.protocol.connection import ClientConnection, Handshaken, Records, ServerConnection
from relate.protocol.framing import FrameTooLarge, MessageSkipped
from relate.protocol.messages import MalformedMessage
from relate.protocol.states import State
from relate.values import Node, Vector


def _opened() -> tuple[ClientConnection, ServerConnection]:
    client, server = ClientConnection(), ServerConnection()
    (opened,) = server.receive_data(client.initiate())
    assert opened == Handshaken(hs.VERSION, hs.server_response(hs.VERSION))
    assert client.receive_data(opened.reply) == [Handshaken(hs.VERSION)]
    return client, server


def test_handshake_agrees_on_a_version():
    client, server = _opened()
    assert server.version == client.version == hs.VERSION


def test_handshake_without_a_common_version_answers_zero_and_reads_nothing_more():
    server = ServerConnection()
    (opened,) = server.receive_data(hs.client_handshake([hs.Version(9, 0)]))
    assert opened.version is None and opened.reply == b"\x00\x00\x00\x00"
    assert server.receive_data(ClientConnection().send(m.Hello())) == []
    client = ClientConnection()
    assert client.receive_data(opened.reply) == [Handshaken(None)]


def test_a_foreign_peer_is_refused_with_a_handshake_error():
    with pytest.raises(hs.HandshakeError):
        ServerConnection().receive_data(b"GET / HTTP/1.1\r\nHost: x\r\n")


def test_a_partial_handshake_answer_is_held_until_whole():
    client = ClientConnection()
    assert client.receive_data(b"\x00\x01") == []
    assert client.receive_data(b"\x00\x00") == [Handshaken(hs.Version(1, 0))]


def test_handshake_and_pipelined_requests_in_one_write():
    client = ClientConnection()
    server = ServerConnection()
    data = client.initiate() + b"".join(client.send(r) for r in (
        m.Hello({"user_agent": "t"}), m.Logon({"scheme": "none"}), m.Run("RETURN $v", {"v": [1.5] * 384}),
        m.Pull(), m.Goodbye()))
    events = server.receive_data(data)
    assert isinstance(events[0], Handshaken)
    assert [type(e) for e in events[1:]] == [m.Hello, m.Logon, m.Run, m.Pull, m.Goodbye]
    assert events[3].params == {"v": [1.5] * 384}


def test_requests_fed_byte_by_byte_come_out_whole_and_in_order():
    client = ClientConnection()
    server = ServerConnection()
    data = client.initiate() + client.send(m.Run("RETURN 1", {"s": "x" * 70000})) + client.send(m.Pull(10))
    events = []
    midway = []
    for i in range(len(data)):
        events += server.receive_data(data[i:i + 1])
        if i == len(data) // 2:
            midway = list(events)
            assert server.pending > 0           # half a request is held, not yet an event
    assert [type(e) for e in midway] == [Handshaken]
    assert isinstance(events[0], Handshaken)
    assert events[1] == m.Run("RETURN 1", {"s": "x" * 70000})
    assert events[2] == m.Pull(10)
    assert server.pending == 0


def test_replies_and_records_reach_the_client_typed_and_batched():
    client, server = _opened()
    out = bytearray(server.send_success({"fields": ["n", "v"]}))
    server.send_records([[Node(1, ["A"], {"k": 1}), Vector([0.5, 1.0])], [None, "x" * 70000]], out)
    out += server.send_success({"type": "r"})
    out += server.send_failure({"code": "Neo.ClientError.Statement.SyntaxError", "message": "no"})
    out += server.send_ignored()
    events = []
    for i in range(0, len(out), 7):               # partial chunks on the client side too
        events += client.receive_data(bytes(out[i:i + 7]))
    assert events[0] == m.Success({"fields": ["n", "v"]})
    rows = [row for e in events if isinstance(e, Records) for row in e.rows]
    assert rows[0][0].labels == {"A"} or list(rows[0][0].labels) == ["A"]
    assert list(rows[0][1]) == [0.5, 1.0]
    assert rows[1] == (None, "x" * 70000)
    replies = [e for e in events if not isinstance(e, Records)]
    assert [type(e) for e in replies] == [m.Success, m.Success, m.Failure, m.Ignored]


def test_an_oversized_request_is_skipped_and_the_stream_stays_in_step():
    client = ClientConnection()
    server = ServerConnection(max_message_size=1000)
    server.receive_data(client.initiate())
    events = server.receive_data(client.send(m.Run("RETURN 1", {"s": "x" * 5000})) + client.send(m.Reset()))
    assert isinstance(events[0], MessageSkipped)
    assert events[1] == m.Reset()


def test_a_malformed_request_is_a_typed_violation_and_the_next_one_still_reads():
    client = ClientConnection()
    server = ServerConnection()
    server.receive_data(client.initiate())
    events = server.receive_data(frame(msgpack.packb([0x55, 1])) + client.send(m.Reset()))
    assert isinstance(events[0], MalformedMessage) and events[0].code.startswith("Neo.ClientError.")
    assert events[1] == m.Reset()


def test_a_hostile_nesting_is_fatal_and_nothing_after_it_is_read():
    client = ClientConnection()
    server = ServerConnection()
    server.receive_data(client.initiate())
    deep = b"\x91" * 5000 + b"\xc0"
    events = server.receive_data(frame(b"\x93\x10" + deep + b"\x80") + client.send(m.Reset()))
    assert len(events) == 1 and isinstance(events[0], ValueTooDeep) and events[0].fatal
    assert server.broken and server.receive_data(client.send(m.Reset())) == []


def test_the_client_refuses_an_oversized_reply_before_it_arrives():
    client = ClientConnection(max_message_size=100)
    client.receive_data(hs.server_response(hs.VERSION))
    with pytest.raises(FrameTooLarge):
        client.receive_data(b"\xff\xff" + b"x" * 10)


def test_the_state_table_refuses_what_a_state_does_not_allow():
    assert ServerConnection.transition(State.CONNECTED, m.RUN) is None
    assert ServerConnection.transition(State.READY, m.RUN).after(True, streaming=True) is State.STREAMING
    assert ServerConnection.transition(State.TX_READY, m.BEGIN) is None
    assert not ClientConnection.allows(State.READY, m.COMMIT)
    assert not ClientConnection.allows(State.TX_READY, m.BEGIN)
    assert ClientConnection.allows(State.FAILED, m.RESET)


def _frames(data: bytes) -> list[bytes]:
    from relate.protocol import FrameDecoder
    return FrameDecoder(1 << 30).feed(data)


def test_from_version_1_1_a_batch_of_rows_is_one_records_message_and_reads_back_alike():
    client, server = _opened()
    rows = [(i, f"row {i}", [0.5] * 3, {"k": [i]}, Node(i, ["A"], {"p": i})) for i in range(50)]
    out = bytearray()
    server.send_records(rows, out)
    (payload,) = _frames(bytes(out))                     # fifty rows, one message
    assert payload[:2] == bytes([0x92, m.RECORDS])
    events = client.receive_data(bytes(out))
    assert [type(e) for e in events] == [Records]
    got = events[0].rows
    assert [r[:4] for r in got] == [(i, f"row {i}", [0.5] * 3, {"k": [i]}) for i in range(50)]
    assert got[7][4].id == 7 and list(got[7][4].labels) == ["A"]


def test_a_1_0_client_gets_one_record_message_per_row():
    client, server = ClientConnection(versions=[hs.Version(1, 0)]), ServerConnection()
    (opened,) = server.receive_data(client.initiate())
    assert opened.version == hs.Version(1, 0)
    client.receive_data(opened.reply)
    out = bytearray()
    server.send_records([(1,), (2,), (3,)], out)
    assert [p[:2] for p in _frames(bytes(out))] == [bytes([0x92, m.RECORD])] * 3
    assert [r for e in client.receive_data(bytes(out)) for r in e.rows] == [(1,), (2,), (3,)]


def test_a_big_batch_is_cut_into_messages_below_the_batch_size_and_keeps_its_order():
    from relate.protocol.connection import RECORDS_MAX_BYTES
    client, server = _opened()
    rows = [(i, "x" * 20_000) for i in range(300)]        # ~6 MiB in all
    out = bytearray()
    server.send_records(rows, out)
    payloads = _frames(bytes(out))
    assert len(payloads) > 5 and all(len(p) <= RECORDS_MAX_BYTES for p in payloads)
    assert [r for e in client.receive_data(bytes(out)) for r in e.rows] == rows
    small = bytearray()                                  # later small batches grow back to one message
    for _ in range(12):
        small.clear()
        server.send_records([(i,) for i in range(1000)], small)
    assert len(_frames(bytes(small))) == 1


def test_hostile_records_batches_are_refused():
    client, _ = _opened()
    with pytest.raises(ProtocolViolation):                # a batch that is not an array of rows
        client.receive_data(frame(msgpack.packb([m.RECORDS, [1, 2]])))
    client, _ = _opened()
    deep: list = []
    for _ in range(300):
        deep = [deep]
    with pytest.raises(ValueTooDeep):                     # a row nested past the limit, as for RECORD
        client.receive_data(frame(msgpack.packb([m.RECORDS, [[1], [deep]]])))
    client, _ = _opened()
    ok: list = []
    for _ in range(250):
        ok = [ok]
    (records,) = client.receive_data(frame(msgpack.packb([m.RECORDS, [[ok]]])))
    assert records.rows[0][0] == ok                       # as deep as a single RECORD may be
