"""The Bolt listener's connection object, the same shape as the native ``ServerConnection``
(``receive_data(bytes)`` -> requests or violations, ``pending``, ``transition``), so the server's
I/O layer and the session core serve both protocols alike. The handshake, which Bolt negotiates in
several steps (a manifest), stays with the listener; this object starts at the agreed version."""
from __future__ import annotations

from typing import Any

from ..errors import ProtocolViolation
from ..framing import DEFAULT_MAX_MESSAGE_SIZE, FrameDecoder, MessageSkipped
from ..states import State, Transition
from . import messages as bm
from .packstream import Packer, Unpacker
from .states import bolt_transition


class BoltServerConnection:
    """PackStream requests in (framed), a ``Packer`` for replies out, Bolt's state table."""

    def __init__(self, packer: Packer, unpacker: Unpacker, *,
                 max_message_size: int = DEFAULT_MAX_MESSAGE_SIZE):
        self.packer = packer
        self.unpacker = unpacker
        # Oversized is fatal over Bolt (FAILURE, then the connection closes), as Neo4j does.
        self._decoder = FrameDecoder(max_message_size)
        self.broken = False

    @property
    def pending(self) -> int:
        return self._decoder.pending

    def receive_data(self, data: bytes) -> list[Any]:
        """Requests (core messages or Bolt-only ones) completed by ``data``; a ``ProtocolViolation``
        stands for a message that could not be read. After a fatal one nothing more is read."""
        if self.broken:
            return []
        events: list[Any] = []
        try:
            payloads = self._decoder.feed(data)
        except ProtocolViolation as exc:
            self.broken = True
            return [exc]
        for payload in payloads:
            if isinstance(payload, MessageSkipped):
                events.append(payload)
                continue
            try:
                events.append(bm.decode_request(self.unpacker.unpack_message(payload)))
            except ProtocolViolation as exc:
                events.append(exc)
                if exc.fatal:
                    self.broken = True
                    break
        return events

    @staticmethod
    def transition(state: State, signature: int) -> Transition | None:
        """Where ``signature`` leads from ``state`` in Bolt's table; None when it is refused."""
        return bolt_transition(state, signature)
