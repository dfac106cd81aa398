"""Bounded decoding: hostile nesting (ext values inside ext values, deep lists) is refused with a
typed protocol error on both sides, never a crash or a RecursionError."""
import msgpack
import pytest

from relate.driver.hydration import value_codec
from relate.protocol import CodecError, ValueTooDeep
from relate.protocol import codec as wire
from relate.protocol import messages as m


def nested_ext(depth: int) -> bytes:
    """An ext value holding an ext value ... ``depth`` deep (the HELLO that crashed the server)."""
    payload = msgpack.packb([])
    for _ in range(depth):
        payload = msgpack.packb([msgpack.ExtType(99, payload)])
    return payload


def nested_list(depth: int) -> bytes:
    return b"\x91" * depth + b"\x90"


@pytest.mark.parametrize("depth", [20, 200, 5000])
def test_nested_ext_values_are_refused(depth):
    with pytest.raises(ValueTooDeep):
        value_codec().unpack(nested_ext(depth))


@pytest.mark.parametrize("depth", [wire.MAX_DEPTH + 1, 1000, 2000])
def test_nested_lists_are_refused(depth):
    with pytest.raises(ValueTooDeep):
        value_codec().unpack(nested_list(depth))


def test_lists_inside_ext_payloads_count_towards_the_depth():
    inner = msgpack.packb([msgpack.ExtType(99, msgpack.packb([msgpack.unpackb(nested_list(wire.MAX_DEPTH))]))])
    with pytest.raises(ValueTooDeep):
        value_codec().unpack(inner)


def test_rows_are_bounded_too():
    codec = value_codec()
    with pytest.raises(ValueTooDeep):
        codec.unpack_rows([nested_list(300)])
    with pytest.raises(ValueTooDeep):
        codec.unpack_rows([msgpack.packb([1])] * 5 + [nested_list(300)])


def test_values_within_the_limit_still_decode():
    codec = value_codec()
    value = []
    for _ in range(wire.MAX_DEPTH - 1):
        value = [value]
    assert codec.unpack(codec.pack(value)) == value
    # the codec stays usable after refusing a value (its ext depth counter was reset)
    with pytest.raises(ValueTooDeep):
        codec.unpack(nested_ext(50))
    node = codec.unpack(codec.pack(codec.unpack(codec.pack([1, {"a": [2]}]))))
    assert node == [1, {"a": [2]}]


def test_the_refusal_is_a_protocol_violation():
    with pytest.raises(CodecError) as caught:
        value_codec().unpack(nested_ext(200))
    assert caught.value.fatal
    assert caught.value.to_metadata()["code"] == "Neo.ClientError.Request.Invalid"


def test_a_hello_with_a_deep_user_agent_is_refused():
    hello = msgpack.packb([m.HELLO, {"user_agent": msgpack.ExtType(99, nested_ext(200))}])
    with pytest.raises(ValueTooDeep):
        value_codec().unpack(hello)


def test_an_oversized_message_is_skipped_whole_and_the_stream_stays_in_step():
    from relate.protocol import frame
    from relate.protocol.framing import FrameDecoder, MessageSkipped
    data = frame(b"x" * 200_000) + frame(b"ok")
    whole = FrameDecoder(1000, skip_oversized=True).feed(data)
    assert isinstance(whole[0], MessageSkipped) and whole[1:] == [b"ok"]
    decoder, out = FrameDecoder(1000, skip_oversized=True), []
    for start in range(0, len(data), 7777):          # arriving in pieces, never held whole
        out += decoder.feed(data[start:start + 7777])
        assert len(decoder._buffer) < 70_000
    assert isinstance(out[0], MessageSkipped) and out[1:] == [b"ok"]
    assert decoder.pending == 0
