"""WireOutput: the ReplySink that encodes replies into framed msgpack and writes them with backpressure."""
from __future__ import annotations

import asyncio

from relate.protocol.errors import DatabaseError
from relate.protocol import Codec, CodecError, frame
from relate.protocol import messages as m

_RECORD_HEAD = bytes([0x92, m.RECORD])      # msgpack: a 2-element array starting with RECORD
_IGNORED = frame(bytes([0x91, m.IGNORED]))
_END = b"\x00\x00"
FLUSH_AT = 64 * 1024


class WireOutput:
    """Replies are gathered and written when the connection has no more queued requests, or as
    soon as 64 KiB of records are pending; each write waits for the socket to drain."""

    def __init__(self, writer: asyncio.StreamWriter, codec: Codec):
        self._writer = writer
        self._codec = codec
        self._buffer = bytearray()

    def _message(self, signature: int, metadata: dict) -> None:
        self._buffer += frame(self._codec.pack([signature, metadata]))

    async def success(self, metadata: dict) -> None:
        self._message(m.SUCCESS, metadata)

    async def failure(self, metadata: dict) -> None:
        self._message(m.FAILURE, metadata)

    async def ignored(self) -> None:
        self._buffer += _IGNORED

    async def records(self, rows: list) -> None:
        pack = self._codec.pack
        buffer = self._buffer
        try:
            for row in rows:
                body = pack(row)
                size = len(body) + 2
                if size <= 0xFFFF:
                    buffer += size.to_bytes(2, "big")
                    buffer += _RECORD_HEAD
                    buffer += body
                    buffer += _END
                else:
                    buffer += frame(_RECORD_HEAD + body)
        except CodecError as exc:
            raise DatabaseError(f"a result value cannot be sent: {exc.message}") from None
        if len(buffer) >= FLUSH_AT:
            await self.flush()          # waits for the socket to drain: backpressure on the query

    async def flush(self) -> None:
        if self._writer.is_closing():
            # The peer left (or the login deadline cut it): uvloop raises RuntimeError on a write
            # to a closed transport; this is a disconnect, not a server error.
            self._buffer.clear()
            raise ConnectionResetError("the connection is closed")
        if self._buffer:
            self._writer.write(bytes(self._buffer))
            self._buffer.clear()
        await self._writer.drain()
