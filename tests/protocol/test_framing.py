"""Chunked framing: round trips at chunk boundaries, partial feeds, keep-alives, size limits."""
import pytest

from relate.protocol import FrameDecoder, FrameTooLarge, frame
from relate.protocol.framing import MAX_CHUNK_SIZE


@pytest.mark.parametrize("size", [1, 2, 100, MAX_CHUNK_SIZE - 1, MAX_CHUNK_SIZE, MAX_CHUNK_SIZE + 1,
                                  3 * MAX_CHUNK_SIZE, 3 * MAX_CHUNK_SIZE + 7])
def test_round_trip_at_chunk_boundaries(size):
    payload = bytes(range(256)) * (size // 256) + bytes(size % 256)
    assert FrameDecoder(10 * MAX_CHUNK_SIZE).feed(frame(payload)) == [payload]


def test_byte_by_byte_feed_yields_each_message_once():
    data = frame(b"first") + b"\x00\x00" + frame(b"second" * 20000) + frame(b"x")
    decoder, out = FrameDecoder(), []
    for i in range(len(data)):
        out += decoder.feed(data[i:i + 1])
    assert out == [b"first", b"second" * 20000, b"x"]
    assert decoder.pending == 0


def test_empty_chunks_between_messages_are_keepalives():
    assert FrameDecoder().feed(b"\x00\x00\x00\x00" + frame(b"a") + b"\x00\x00") == [b"a"]


def test_oversized_message_refused_when_its_header_arrives():
    decoder = FrameDecoder(max_message_size=1000)
    decoder.feed(frame(b"y" * 1000))                    # exactly the limit is fine
    with pytest.raises(FrameTooLarge) as info:
        decoder.feed(b"\x03\xe9")                       # announces 1001 bytes: refused before they come
    assert info.value.fatal and "maximum" in info.value.message


def test_limit_counts_all_chunks_of_one_message():
    decoder = FrameDecoder(max_message_size=100)
    with pytest.raises(FrameTooLarge):
        decoder.feed(b"\x00\x3c" + b"a" * 60 + b"\x00\x3c")
