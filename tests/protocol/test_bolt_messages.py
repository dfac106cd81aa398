"""Bolt requests decode into the session core's messages; the Bolt state table ignores after FAILURE."""
import pytest

from relate.protocol import messages as m
from relate.protocol.bolt import messages as bm
from relate.protocol.bolt.packstream import Packer, Structure, Unpacker
from relate.protocol.bolt.states import bolt_transition, ignores
from relate.protocol.states import State


def _decode(tag: int, *fields):
    data = Packer().pack(Structure(tag, list(fields)))
    return bm.decode_request(Unpacker().unpack_message(data))


def test_requests_decode_to_core_messages():
    assert _decode(bm.RUN, "RETURN $x", {"x": 1}, {"db": "neo4j"}) == m.Run("RETURN $x", {"x": 1}, {"db": "neo4j"})
    assert _decode(bm.PULL, {"n": 1000}) == m.Pull(1000, -1)
    assert _decode(bm.PULL, {"n": -1, "qid": 2}) == m.Pull(-1, 2)
    assert _decode(bm.DISCARD, {"n": -1}) == m.Discard(-1, -1)
    assert _decode(bm.BEGIN, {"tx_timeout": 500, "bookmarks": ["rl:3"]}).extra["tx_timeout"] == 500
    assert _decode(bm.HELLO, {"user_agent": "x"}) == m.Hello({"user_agent": "x"})
    assert _decode(bm.LOGON, {"scheme": "basic"}) == m.Logon({"scheme": "basic"})
    assert _decode(bm.LOGOFF) == bm.Logoff()
    assert _decode(bm.ROUTE, {"address": "h:1"}, [], {"db": None}) == bm.Route({"address": "h:1"}, [], {"db": None})
    assert _decode(bm.TELEMETRY, 2) == bm.Telemetry(2)
    for tag, cls in ((bm.RESET, m.Reset), (bm.GOODBYE, m.Goodbye), (bm.COMMIT, m.Commit), (bm.ROLLBACK, m.Rollback)):
        assert type(_decode(tag)) is cls


@pytest.mark.parametrize("tag,fields", [
    (bm.RUN, ["RETURN 1", {}]), (bm.RUN, [1, {}, {}]), (bm.PULL, [{"n": 0}]), (bm.PULL, [{"n": "all"}]),
    (bm.PULL, [{"n": -2}]), (bm.HELLO, []), (bm.RESET, [1]), (0x0E, []), (0x99, []), (bm.TELEMETRY, ["x"]),
])
def test_malformed_requests_are_protocol_violations(tag, fields):
    with pytest.raises(bm.MalformedBoltMessage):
        _decode(tag, *fields)


def test_bolt_5_0_hello_carries_the_credentials():
    hello, auth = bm.split_hello_auth(m.Hello({"user_agent": "a", "scheme": "basic", "principal": "u",
                                               "credentials": "p"}))
    assert hello == m.Hello({"user_agent": "a"})
    assert auth == {"scheme": "basic", "principal": "u", "credentials": "p"}
    assert bm.split_hello_auth(m.Hello({"user_agent": "a"}))[1] is None


def test_encode_request_round_trips():
    for request in (m.Run("RETURN 1", {}, {}), m.Pull(5, 1), m.Begin({"mode": "r"}), m.Commit(), bm.Logoff(),
                    bm.Route({}, [], {}), bm.Telemetry(0)):
        data = Packer().pack(bm.encode_request(request))
        assert bm.decode_request(Unpacker().unpack_message(data)) == request


def test_state_table_ignores_everything_but_reset_after_a_failure():
    assert ignores(State.FAILED) and ignores(State.INTERRUPTED)
    for signature in (bm.RUN, bm.PULL, bm.BEGIN, bm.COMMIT, bm.ROUTE, bm.LOGOFF, 0x0E):
        assert bolt_transition(State.FAILED, signature) is None
    assert bolt_transition(State.FAILED, bm.RESET).success is State.READY
    assert bolt_transition(State.FAILED, bm.GOODBYE).success is State.DEFUNCT


def test_bolt_only_requests_are_allowed_in_ready_only():
    assert bolt_transition(State.READY, bm.LOGOFF).success is State.AUTHENTICATION
    assert bolt_transition(State.READY, bm.ROUTE).success is State.READY
    assert bolt_transition(State.READY, bm.TELEMETRY).success is State.READY
    assert bolt_transition(State.TX_READY, bm.ROUTE) is None
    assert bolt_transition(State.STREAMING, bm.LOGOFF) is None
    assert bolt_transition(State.AUTHENTICATION, bm.LOGON).success is State.READY
