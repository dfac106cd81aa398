"""Message encoding and strict decoding of requests and replies."""
import pytest

from relate.protocol import Codec
from relate.protocol import messages as m

REQUESTS = [m.Hello({"user_agent": "t"}), m.Logon({"scheme": "basic", "principal": "a", "credentials": "b"}),
            m.Run("RETURN $x", {"x": 1}, {"tx_timeout": 5}), m.Pull(1000, 3), m.Pull(), m.Discard(5, -1),
            m.Begin({"mode": "w"}), m.Commit(), m.Rollback(), m.Reset(), m.AckFailure(), m.Goodbye()]


@pytest.mark.parametrize("message", REQUESTS, ids=lambda msg: type(msg).__name__)
def test_request_round_trip(message):
    codec = Codec()
    assert m.decode_request(codec.unpack(codec.pack(m.encode(message)))) == message


@pytest.mark.parametrize("message", [m.Success({"fields": ["a"], "t_first": 1.5}), m.Record([1, "x", None]),
                                     m.Ignored(), m.Failure({"code": "Neo.ClientError.X", "message": "no"})],
                         ids=lambda msg: type(msg).__name__)
def test_reply_round_trip(message):
    codec = Codec()
    assert m.decode_reply(codec.unpack(codec.pack(m.encode(message)))) == message


def test_run_defaults_missing_maps():
    assert m.decode_request([m.RUN, "RETURN 1"]) == m.Run("RETURN 1", {}, {})


@pytest.mark.parametrize("value", [
    [], "RUN", [999], [m.RUN], [m.RUN, 5], [m.RUN, "q", [1]], [m.PULL, {"n": 0}], [m.PULL, {"n": -2}],
    [m.PULL, {"n": "all"}], [m.DISCARD, {"qid": -5}], [m.HELLO, "x"], [m.COMMIT, {}, {}], [m.SUCCESS, {}],
])
def test_malformed_requests_are_refused(value):
    with pytest.raises(m.MalformedMessage):
        m.decode_request(value)


@pytest.mark.parametrize("value", [[m.RECORD, 1], [m.SUCCESS], [m.FAILURE, []], [m.IGNORED, 1], [m.RUN, "q"]])
def test_malformed_replies_are_refused(value):
    with pytest.raises(m.MalformedMessage):
        m.decode_reply(value)
