"""Bolt on the wire, byte by byte: handshakes, framing, pipelining, the state machine, hostile input."""
from __future__ import annotations

import pytest

from relate.protocol import frame
from relate.protocol import messages as m
from relate.protocol.bolt import messages as bm

from .conftest import AUTH
from .raw_bolt import RawBolt

LOGON = m.Logon({"scheme": "basic", "principal": AUTH[0], "credentials": AUTH[1]})
SUCCESS, RECORD, IGNORED, FAILURE = bm.SUCCESS, bm.RECORD, bm.IGNORED, bm.FAILURE


@pytest.fixture
def raw(server):
    client = RawBolt(server.bolt_address)
    yield client
    client.close()


def _ready(raw: RawBolt) -> None:
    raw.manifest_handshake()
    raw.send(m.Hello({"user_agent": "raw"}), LOGON)
    hello, logon = raw.recv(), raw.recv()
    assert hello[0] == SUCCESS and hello[1][0]["hints"]["telemetry.enabled"] is False
    assert logon[0] == SUCCESS


def test_manifest_offers_6_0_5_8_down_to_5_0_and_4_4(raw):
    assert raw.manifest_handshake() == bytes.fromhex("00000006 00080805 00000404")


def test_legacy_handshake_picks_5_8_then_4_4_and_refuses_3(server, raw):
    assert raw.handshake("00080805", "00020404") == bytes.fromhex("00000805")
    older = RawBolt(server.bolt_address)
    try:
        assert older.handshake("00020404", "00000003") == bytes.fromhex("00000404")
    finally:
        older.close()
    other = RawBolt(server.bolt_address)
    try:
        assert other.handshake("00000003") == bytes(4)
        assert other.recv() is None                     # and the server closes
    finally:
        other.close()


def test_bolt_5_0_hello_with_credentials_logs_in(raw):
    assert raw.handshake("00000005") == bytes.fromhex("00000005")
    raw.send(m.Hello({"user_agent": "old", "scheme": "basic", "principal": AUTH[0], "credentials": AUTH[1]}),
             m.Run("RETURN 5 AS five", {}, {}), m.Pull(-1, -1))
    hello = raw.recv()
    assert hello[0] == SUCCESS and hello[1][0]["server"].startswith("Neo4j/")
    assert raw.recv()[0] == SUCCESS
    assert raw.recv() == (RECORD, [[5]])


def test_pipelined_requests_with_noop_chunks_and_multi_chunk_messages(raw):
    _ready(raw)
    big = "x" * 150_000                  # three chunks
    data = b"\x00\x00" + frame(_pack(m.Run("RETURN $s AS s, 1 AS one", {"s": big}, {}))) + b"\x00\x00\x00\x00"
    raw.send_bytes(data + frame(_pack(m.Pull(-1, -1))))
    run = raw.recv()
    assert run[0] == SUCCESS and run[1][0]["fields"] == ["s", "one"]
    assert raw.recv() == (RECORD, [[big, 1]])
    summary = raw.recv()
    assert summary[0] == SUCCESS and summary[1][0]["type"] == "r" and summary[1][0]["db"] == "neo4j"


def _pack(request) -> bytes:
    from relate.protocol.bolt.packstream import Packer
    return Packer().pack(bm.encode_request(request))


def test_failure_then_ignored_until_reset(raw):
    _ready(raw)
    raw.send(m.Run("RETURN 1 +", {}, {}), m.Pull(-1, -1), m.Run("RETURN 2", {}, {}), bm.Telemetry(1))
    failure = raw.recv()
    assert failure[0] == FAILURE and failure[1][0]["neo4j_code"] == "Neo.ClientError.Statement.SyntaxError"
    assert failure[1][0]["gql_status"] == "42001"
    assert [raw.recv()[0] for _ in range(3)] == [IGNORED, IGNORED, IGNORED]
    raw.send(m.Reset(), m.Run("RETURN 2 AS two", {}, {}), m.Pull(-1, -1))
    assert raw.recv()[0] == SUCCESS
    assert raw.recv()[0] == SUCCESS
    assert raw.recv() == (RECORD, [[2]])


def test_pull_in_steps_and_discard(raw):
    _ready(raw)
    raw.send(m.Run("UNWIND range(1, 5) AS i RETURN i", {}, {}), m.Pull(2, -1), m.Pull(2, -1), m.Discard(-1, -1))
    assert raw.recv()[0] == SUCCESS
    assert [raw.recv()[1][0][0] for _ in range(2)] == [1, 2]
    assert raw.recv() == (SUCCESS, [{"has_more": True}])
    assert [raw.recv()[1][0][0] for _ in range(2)] == [3, 4]
    assert raw.recv() == (SUCCESS, [{"has_more": True}])
    done = raw.recv()
    assert done[0] == SUCCESS and "has_more" not in done[1][0]


def test_route_telemetry_logoff_logon(server, raw):
    _ready(raw)
    raw.send(bm.Route({"address": "db.example:7687"}, [], {"db": None}), bm.Telemetry(0))
    route = raw.recv()
    table = route[1][0]["rt"]
    assert route[0] == SUCCESS and table["db"] == "neo4j" and table["ttl"] > 0
    assert sorted(s["role"] for s in table["servers"]) == ["READ", "ROUTE", "WRITE"]
    assert all(s["addresses"] == ["db.example:7687"] for s in table["servers"])
    assert raw.recv() == (SUCCESS, [{}])
    raw.send(bm.Logoff(), m.Run("RETURN 1", {}, {}))
    assert raw.recv() == (SUCCESS, [{}])
    assert raw.recv()[0] == FAILURE                   # not logged in any more
    raw.close()
    again = RawBolt(server.bolt_address)
    try:
        _ready(again)
        again.send(bm.Logoff(), LOGON, m.Run("RETURN 3", {}, {}), m.Pull(-1, -1))
        assert [again.recv()[0] for _ in range(3)] == [SUCCESS, SUCCESS, SUCCESS]
        assert again.recv() == (RECORD, [[3]])
    finally:
        again.close()


def test_wrong_password_fails_and_closes(raw):
    raw.manifest_handshake()
    raw.send(m.Hello({}), m.Logon({"scheme": "basic", "principal": "neo4j", "credentials": "nope"}))
    assert raw.recv()[0] == SUCCESS
    failure = raw.recv()
    assert failure[0] == FAILURE and failure[1][0]["neo4j_code"] == "Neo.ClientError.Security.Unauthorized"
    assert raw.recv() is None


@pytest.mark.parametrize("payload,code", [
    (b"\xB3\x10\x81\x41\xA1\x81\x78\xC7\xA0", "Neo.ClientError.Request.InvalidFormat"),    # unknown marker
    (b"\xB3\x10\x81\x41\xA1\x81\x78\xB2\x58\x01\x02\xA0", "Neo.ClientError.Statement.TypeError"),  # bad point
    (b"\xB0\x99", "Neo.ClientError.Request.Invalid"),                                      # unknown request
])
def test_hostile_messages_get_typed_failures_and_the_session_recovers(raw, payload, code):
    _ready(raw)
    raw.send_bytes(frame(payload))
    failure = raw.recv()
    assert failure[0] == FAILURE and failure[1][0]["neo4j_code"] == code
    raw.send(m.Reset(), m.Run("RETURN 1 AS ok", {}, {}), m.Pull(-1, -1))
    assert [raw.recv()[0] for _ in range(2)] == [SUCCESS, SUCCESS]
    assert raw.recv() == (RECORD, [[1]])


def test_oversized_message_closes_the_connection(server, raw):
    _ready(raw)
    raw.send_bytes((b"\xFF\xFF" + b"\x00" * 0xFFFF) * 300)  # one message of ~19 MiB > the 16 MiB default
    failure = raw.recv()
    assert failure[0] == FAILURE
    assert raw.recv() is None


def test_bolt_off_with_none(start_server):
    server = start_server("--bolt-listen", "none")
    assert server.bolt_address is None


def test_bolt_uses_the_servers_tls_and_users(start_server, tmp_path):
    import subprocess

    from neo4j import GraphDatabase, TrustCustomCAs, exceptions
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out",
                    str(cert), "-days", "1", "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost"],
                   check=True, capture_output=True)
    server = start_server("--tls-cert", str(cert), "--tls-key", str(key))
    port = server.bolt_address.rsplit(":", 1)[1]
    with GraphDatabase.driver(f"bolt+ssc://localhost:{port}", auth=AUTH) as driver:
        assert driver.execute_query("RETURN 'tls' AS t").records[0]["t"] == "tls"
    with GraphDatabase.driver(f"bolt://localhost:{port}", auth=AUTH, encrypted=True,
                              trusted_certificates=TrustCustomCAs(str(cert))) as driver:
        driver.verify_connectivity()
    with GraphDatabase.driver(f"bolt://localhost:{port}", auth=AUTH, connection_timeout=3) as plain:
        with pytest.raises(exceptions.ServiceUnavailable):
            plain.verify_connectivity()          # plain text is refused by a TLS listener


def test_bookmarks_come_with_auto_commit_summaries_and_commit_only(raw):
    _ready(raw)
    raw.send(m.Run("CREATE (:Marked)", {}, {}), m.Pull(-1, -1))
    assert raw.recv()[0] == SUCCESS
    auto = raw.recv()[1][0]
    assert auto["bookmark"].startswith("rl:") and auto["stats"] == {"nodes-created": 1, "labels-added": 1}
    raw.send(m.Begin({}), m.Run("CREATE (:Marked)", {}, {}), m.Pull(-1, -1), m.Commit())
    begin, run, pull, commit = (raw.recv() for _ in range(4))
    assert run[1][0]["qid"] == 0 and "bookmark" not in pull[1][0]
    assert int(commit[1][0]["bookmark"][3:]) > int(auto["bookmark"][3:])


def test_requests_before_logon_close_the_connection(raw):
    raw.manifest_handshake()
    raw.send(m.Hello({}), m.Run("MATCH (n) RETURN n", {}, {}), m.Pull(-1, -1))
    assert raw.recv()[0] == SUCCESS
    failure = raw.recv()
    assert failure[0] == FAILURE and "AUTHENTICATION" in failure[1][0]["message"]
    assert raw.recv() is None
