"""Hostile PackStream frames against a live Bolt listener: a typed FAILURE (the connection closed
when the stream cannot be trusted: too deep, oversized, a stalled chunk), the server survives and
keeps serving other Bolt clients."""
import pytest
from neo4j import GraphDatabase

from relate.protocol import frame
from relate.protocol import messages as m
from relate.protocol.bolt import messages as bm
from tests.server.conftest import AUTH, ServerProcess

from .raw_bolt import RawBolt

RUN_HEAD = b"\xB3\x10\x89RETURN $p"
LOGON = m.Logon({"scheme": "basic", "principal": AUTH[0], "credentials": AUTH[1]})


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    process = ServerProcess(tmp_path_factory.mktemp("bolt-hostile"), "--message-timeout", "1",
                            "--max-message-size", "1048576")
    yield process
    process.stop()


def ready(server) -> RawBolt:
    raw = RawBolt(server.bolt_address)
    raw.manifest_handshake()
    raw.send(m.Hello({"user_agent": "hostile"}), LOGON)
    assert raw.recv()[0] == bm.SUCCESS and raw.recv()[0] == bm.SUCCESS
    return raw


def assert_serving(server):
    assert server.alive(), server.log()
    with GraphDatabase.driver(f"bolt://{server.bolt_address}", auth=AUTH) as driver:
        records, _, _ = driver.execute_query("RETURN 1 AS one")
        assert records[0]["one"] == 1


@pytest.mark.parametrize("params, code", [
    (b"\xA1\x81p\xA1\x01\x01", "Neo.ClientError.Request.InvalidFormat"),           # map key not a string
    (b"\xA1\x81p\xB1\x77\x01", "Neo.ClientError.Statement.TypeError"),            # unknown structure tag
    (b"\xA1\x81p\xD6\x7f\xff\xff\xff", "Neo.ClientError.Request.InvalidFormat"),  # list longer than the message
    (b"\xA1\x81p\xD2\x7f\xff\xff\xff", "Neo.ClientError.Request.InvalidFormat"),  # string longer than the message
    (b"\xA1\x81p\x82\xff\xfe", "Neo.ClientError.Request.InvalidFormat"),          # invalid UTF-8
    (b"\xA1\x81p\xB1\x45\x01", "Neo.ClientError.Statement.TypeError"),           # a Duration of 1 field
])
def test_a_malformed_value_fails_the_request_and_the_connection_recovers(server, params, code):
    raw = ready(server)
    try:
        raw.send_bytes(frame(RUN_HEAD + params + b"\xA0"))
        tag, fields = raw.recv()
        assert tag == bm.FAILURE and (fields[0].get("code") or fields[0]["neo4j_code"]) == code, fields
        raw.send(m.Reset(), m.Run("RETURN 2 AS two", {}, {}), m.Pull(-1, -1))
        assert [raw.recv()[0] for _ in range(4)] == [bm.SUCCESS, bm.SUCCESS, bm.RECORD, bm.SUCCESS]
    finally:
        raw.close()
    assert_serving(server)


@pytest.mark.parametrize("data", [
    frame(RUN_HEAD + b"\xA1\x81p" + b"\x91" * 300 + b"\x90" + b"\xA0"),        # too deep
    frame(RUN_HEAD + b"\xA1\x81p" + b"\xB1\x44" * 300 + b"\x01" + b"\xA0"),    # structures too deep
    frame(RUN_HEAD + b"\xA1\x81p\xD2\x00\x20\x00\x00" + b"x" * (2 << 20) + b"\xA0"),   # over the message size
    b"\xff\xff" + b"\x00" * 16,                                                # a chunk that never completes
])
def test_hostile_bytes_fail_and_close_the_connection(server, data):
    raw = ready(server)
    try:
        raw.send_bytes(data)
        tag, fields = raw.recv()
        assert tag == bm.FAILURE and (fields[0].get("code") or fields[0]["neo4j_code"]).startswith("Neo.ClientError.Request."), fields
        assert raw.recv() is None
    finally:
        raw.close()
    assert_serving(server)


def test_a_repeated_map_key_keeps_the_last_value(server):
    raw = ready(server)
    try:
        raw.send_bytes(frame(RUN_HEAD + b"\xA2\x81p\x01\x81p\x02" + b"\xA0"))
        raw.send(m.Pull(-1, -1))
        assert raw.recv()[0] == bm.SUCCESS
        tag, fields = raw.recv()
        assert tag == bm.RECORD and fields[0] == [2]
    finally:
        raw.close()
