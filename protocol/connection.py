"""The native protocol's connection objects, sans I/O (in the manner of h11): ``ServerConnection``
and ``ClientConnection`` each own one side's handshake, framing, message codec and state table.
The I/O layer feeds received bytes to ``receive_data`` and gets events back; it writes the bytes
that the ``send_*`` methods return. Nothing here touches a socket, a clock or a thread.
"""
from __future__ import annotations

from typing import Any, Callable, NamedTuple, Sequence

from . import handshake as hs
from . import messages as m
from .codec import Codec
from .errors import ProtocolViolation
from .framing import DEFAULT_MAX_MESSAGE_SIZE, FrameDecoder, MessageSkipped, append_frame, frame
from .hydration import value_codec
from .states import CLIENT_TRANSITIONS, State, Transition, server_transition

__all__ = ["Handshaken", "Records", "ServerConnection", "ClientConnection", "ServerEvent", "ClientEvent"]

_RECORD_HEAD = bytes([0x92, m.RECORD])      # msgpack: a 2-element array starting with RECORD
_RECORDS_HEAD = bytes([0x92, m.RECORDS])
# A RECORDS message is cut at about this size (many rows, or big ones, go out as several), far below
# any receiver's maximum message size, so that rows that would pass one by one pass batched too.
RECORDS_MAX_BYTES = 1 << 20
_IGNORED = frame(bytes([0x91, m.IGNORED]))


class Handshaken(NamedTuple):
    """The handshake finished. ``version`` is the agreed one, None when no version is common (the
    server then closes after sending ``reply``); ``reply`` is what the server must send back."""
    version: hs.Version | None
    reply: bytes = b""


class Records(NamedTuple):
    """RECORD messages that arrived together, decoded in one pass (rows as tuples)."""
    rows: list[tuple[Any, ...]]


# A request (a messages NamedTuple) or a protocol violation that takes its place in the stream.
ServerEvent = Any
# A reply (Success/Failure/Ignored), or a batch of Records.
ClientEvent = Any


class ServerConnection:
    """The server's side of one native connection. Events out of ``receive_data``: ``Handshaken``
    first, then requests in order; a ``ProtocolViolation`` stands in the stream for a message that
    could not be read (oversized, malformed). After a fatal one nothing more is read."""

    def __init__(self, codec: Codec | None = None, *, max_message_size: int = DEFAULT_MAX_MESSAGE_SIZE,
                 supported: Sequence[hs.Version] = (hs.VERSION,)):
        self.codec = codec if codec is not None else value_codec(strict=True)
        self.version: hs.Version | None = None
        self._supported = tuple(supported)
        self._opening = bytearray()               # handshake bytes until all 20 have come
        self._handshaken = False
        self._decoder = FrameDecoder(max_message_size, skip_oversized=True)
        self.broken = False                       # a fatal violation: the stream cannot be trusted
        self._rows_per_message = 0                # RECORDS: rows per message once a batch ran over (0: all)

    @property
    def pending(self) -> int:
        """Bytes of a request received but not yet whole (a stalled request is the I/O's to time)."""
        return len(self._opening) if not self._handshaken else self._decoder.pending

    def receive_data(self, data: bytes) -> list[ServerEvent]:
        """Events completed by ``data``. Raises ``HandshakeError`` when the peer is not a Relate
        client (wrong magic bytes)."""
        if self.broken:
            return []
        events: list[ServerEvent] = []
        if not self._handshaken:
            self._opening += data
            if len(self._opening) < hs.CLIENT_HANDSHAKE_SIZE:
                return events
            opening = bytes(self._opening[:hs.CLIENT_HANDSHAKE_SIZE])
            data = bytes(self._opening[hs.CLIENT_HANDSHAKE_SIZE:])
            self._opening.clear()
            self.version = hs.choose_version(hs.parse_client_handshake(opening), self._supported)
            self._handshaken = True
            events.append(Handshaken(self.version, hs.server_response(self.version)))
            if self.version is None:
                self.broken = True
                return events
            if not data:
                return events
        try:
            payloads = self._decoder.feed(data)
        except ProtocolViolation as exc:
            self.broken = True
            events.append(exc)
            return events
        unpack, decode_request = self.codec.unpack, m.decode_request
        for payload in payloads:
            if isinstance(payload, MessageSkipped):
                events.append(payload)
                continue
            try:
                events.append(decode_request(unpack(payload)))
            except ProtocolViolation as exc:
                events.append(exc)
                if exc.fatal:                     # hostile bytes (too deep): stop reading this peer
                    self.broken = True
                    break
        return events

    def decode(self, payload: bytes) -> Any:
        """One request from its frame's payload."""
        return m.decode_request(self.codec.unpack(payload))

    # Where a request's signature leads from a state; None when the state table refuses it (the
    # table's own function, not a wrapper: the session core calls it for every request).
    transition: Callable[[State, int], Transition | None] = staticmethod(server_transition)

    # -- replies: bytes to send ---------------------------------------------------------------------

    def send_success(self, metadata: dict[str, Any]) -> bytes:
        return frame(self.codec.pack([m.SUCCESS, metadata]))

    def send_failure(self, metadata: dict[str, Any]) -> bytes:
        return frame(self.codec.pack([m.FAILURE, metadata]))

    def send_ignored(self) -> bytes:
        return _IGNORED

    def send_records(self, rows: Sequence[Sequence[Any]], into: bytearray) -> None:
        """Frame ``rows`` onto ``into`` (in place: the hot path): RECORDS batches from version 1.1, one
        RECORD per row before. Raises ``CodecError`` for a value that cannot be encoded."""
        if not rows:
            return
        if self.version is not None and self.version >= hs.BATCHED_RECORDS:
            step = self._rows_per_message or len(rows)
            for start in range(0, len(rows), step):
                self._send_batch(rows[start:start + step] if step < len(rows) else rows, into)
            return
        pack = self.codec.pack
        for row in rows:
            body = pack(row)
            size = len(body) + 2
            if size <= 0xFFFF:
                into += size.to_bytes(2, "big")
                into += _RECORD_HEAD
                into += body
                into += b"\x00\x00"
            else:
                append_frame(into, _RECORD_HEAD + body)

    def _send_batch(self, rows: Sequence[Sequence[Any]], into: bytearray) -> None:
        """One RECORDS message, or, when it would pass RECORDS_MAX_BYTES, two halves (and fewer rows per
        message from then on, until small batches show that more fit again)."""
        body = self.codec.pack([m.RECORDS, rows])
        if len(body) > RECORDS_MAX_BYTES and len(rows) > 1:
            self._rows_per_message = max(1, len(rows) * RECORDS_MAX_BYTES // (2 * len(body)))
            half = len(rows) // 2
            self._send_batch(rows[:half], into)
            self._send_batch(rows[half:], into)
            return
        if self._rows_per_message and len(body) < RECORDS_MAX_BYTES // 4:
            self._rows_per_message *= 2
        append_frame(into, body)


class ClientConnection:
    """The driver's side of one native connection. ``initiate`` gives the opening bytes; events out
    of ``receive_data``: ``Handshaken`` first, then ``Records`` batches and replies in order. A
    fatal violation (oversized or too deep) is raised: the connection is then unusable."""

    def __init__(self, codec: Codec | None = None, *, max_message_size: int = DEFAULT_MAX_MESSAGE_SIZE,
                 versions: Sequence[hs.Version] = (hs.VERSION,)):
        self.codec = codec if codec is not None else value_codec()
        self.version: hs.Version | None = None
        self._versions = tuple(versions)
        self._opening = bytearray()
        self._handshaken = False
        self._decoder = FrameDecoder(max_message_size)

    def initiate(self) -> bytes:
        """The handshake's opening bytes: magic and the proposed versions."""
        return hs.client_handshake(self._versions)

    def send(self, request: Any) -> bytes:
        """One request's frame (a messages NamedTuple)."""
        return frame(self.codec.pack(m.encode(request)))

    @staticmethod
    def allows(state: State, signature: int) -> bool:
        """Whether the state table lets a session in ``state`` send ``signature``."""
        return signature in CLIENT_TRANSITIONS[state]

    def receive_data(self, data: bytes) -> list[ClientEvent]:
        """Events completed by ``data``. Raises ``HandshakeError`` for a short or foreign handshake
        answer, ``FrameTooLarge``/``ValueTooDeep`` for hostile replies, ``MalformedMessage`` for
        a reply that is not one."""
        events: list[ClientEvent] = []
        if not self._handshaken:
            self._opening += data
            if len(self._opening) < hs.SERVER_RESPONSE_SIZE:
                return events
            answer = bytes(self._opening[:hs.SERVER_RESPONSE_SIZE])
            data = bytes(self._opening[hs.SERVER_RESPONSE_SIZE:])
            self._opening.clear()
            self.version = hs.parse_server_response(answer)
            self._handshaken = True
            events.append(Handshaken(self.version))
            if not data:
                return events
        codec = self.codec
        unpack, decode_reply = codec.unpack, m.decode_reply
        bodies: list[Any] = []          # consecutive RECORD bodies (version 1.0), decoded together
        for payload in self._decoder.feed(data):
            assert not isinstance(payload, MessageSkipped)     # only with skip_oversized
            head = payload[:2]
            if head == _RECORD_HEAD:
                bodies.append(memoryview(payload)[2:])
                continue
            if bodies:
                events.append(Records(codec.unpack_rows(bodies)))
                bodies = []
            if head == _RECORDS_HEAD:
                events.append(Records(codec.unpack_batch(memoryview(payload)[2:])))
            else:
                events.append(decode_reply(unpack(payload)))
        if bodies:
            events.append(Records(codec.unpack_rows(bodies)))
        return events
