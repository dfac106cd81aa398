"""WireOutput: the ReplySink that writes the native protocol's replies (encoded and framed by the
connection's ``ServerConnection``) with backpressure."""
from __future__ import annotations

import asyncio

from relate.protocol.errors import DatabaseError
from relate.protocol import CodecError
from relate.protocol.connection import ServerConnection

FLUSH_AT = 64 * 1024


class WireOutput:
    """Replies are gathered and written when the connection has no more queued requests, or as
    soon as 64 KiB of records are pending; each write waits for the socket to drain."""

    def __init__(self, writer: asyncio.StreamWriter, protocol: ServerConnection):
        self._writer = writer
        self._protocol = protocol
        self._buffer = bytearray()

    async def success(self, metadata: dict) -> None:
        self._buffer += self._protocol.send_success(metadata)

    # Synchronous forms for SessionCore.answer_now (the connection writes the buffer afterwards).
    def success_now(self, metadata: dict) -> None:
        self._buffer += self._protocol.send_success(metadata)

    def records_now(self, rows: list) -> None:
        """Rows added whole or not at all; raises CodecError for a value that cannot be encoded."""
        encoded = bytearray()
        self._protocol.send_records(rows, encoded)
        self._buffer += encoded

    def write_now(self) -> None:
        """Hand the buffer to the transport without waiting for it to drain (the caller made sure
        the transport holds nothing unsent: a client that does not read gets no fast answers)."""
        if self._buffer:
            self._writer.write(bytes(self._buffer))
            self._buffer.clear()

    @property
    def idle(self) -> bool:
        """Nothing buffered here nor unsent in the transport (so ``write_now`` cannot pile up)."""
        return not self._buffer and not self._writer.is_closing() \
            and not self._writer.transport.get_write_buffer_size()

    async def failure(self, metadata: dict) -> None:
        self._buffer += self._protocol.send_failure(metadata)

    async def ignored(self) -> None:
        self._buffer += self._protocol.send_ignored()

    async def records(self, rows: list) -> None:
        buffer = self._buffer
        try:
            self._protocol.send_records(rows, buffer)
        except CodecError as exc:
            raise DatabaseError(f"a result value cannot be sent: {exc.message}") from None
        if len(buffer) >= FLUSH_AT:
            await self.flush()          # waits for the socket to drain: backpressure on the query
    async def flush(self) -> None:
        await flush_buffer(self._writer, self._buffer)


async def flush_buffer(writer: asyncio.StreamWriter, buffer: bytearray) -> None:
    """Write ``buffer`` (then empty it) and wait for the socket to drain; ConnectionResetError when
    the peer left (or the login deadline cut it): uvloop raises RuntimeError on a write to a closed
    transport, and that is a disconnect, not a server error (both listeners' outputs use this)."""
    if writer.is_closing():
        buffer.clear()
        raise ConnectionResetError("the connection is closed")
    if buffer:
        writer.write(bytes(buffer))
        buffer.clear()
    await writer.drain()
