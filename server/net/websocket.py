"""Bolt over WebSocket on the Bolt port, as Neo4j serves it (browser-based tools: Neo4j Browser,
NeoDash, the JavaScript driver in a web page). A client that opens with ``GET`` gets the WebSocket
upgrade (``websockets``' sans-I/O protocol), then the Bolt byte stream travels in binary frames: the
connection goes on unchanged with a reader and a writer that unwrap and wrap them."""
from __future__ import annotations

import asyncio
from typing import Any

from websockets.frames import Opcode
from websockets.http11 import Request
from websockets.server import ServerProtocol

HTTP_PREFIX = b"GET "
MAX_REQUEST_BYTES = 16 * 1024          # the upgrade request's headers
READ_SIZE = 64 * 1024


class WebSocketTransport:
    """What the connection asks of its writer's transport, for the socket underneath."""

    def __init__(self, writer: asyncio.StreamWriter):
        self._transport = writer.transport

    def get_write_buffer_size(self) -> int:
        return self._transport.get_write_buffer_size()

    def abort(self) -> None:
        self._transport.abort()


class WebSocketWriter:
    """A StreamWriter look-alike: what is written goes out as one binary frame."""

    def __init__(self, protocol: ServerProtocol, writer: asyncio.StreamWriter):
        self._protocol, self._writer = protocol, writer
        self.transport = WebSocketTransport(writer)
        self.pump: asyncio.Task | None = None      # the task that unwraps incoming frames

    def write(self, data: bytes) -> None:
        if data:
            self._protocol.send_binary(bytes(data))
            self.flush()

    def flush(self) -> None:
        """Hand the protocol's pending bytes (frames, pongs, a close) to the socket."""
        for chunk in self._protocol.data_to_send():
            if chunk:
                self._writer.write(chunk)

    async def drain(self) -> None:
        await self._writer.drain()

    def is_closing(self) -> bool:
        return self._writer.is_closing()

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return self._writer.get_extra_info(name, default)

    def close(self) -> None:
        if not self._writer.is_closing():
            try:
                self._protocol.send_close()
                self.flush()
            except Exception:         # the protocol already closing: nothing more to say
                pass
        self._writer.close()

    async def wait_closed(self) -> None:
        await self._writer.wait_closed()


async def upgrade(first: bytes, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, *,
                  max_frame: int, timeout_s: float) -> tuple[asyncio.StreamReader, WebSocketWriter] | None:
    """Answer the upgrade request that begins with ``first``; (reader, writer) of the Bolt stream
    inside, or None when the request is not a WebSocket upgrade (it got a 4xx answer)."""
    protocol = ServerProtocol(max_size=max_frame)
    protocol.receive_data(first)
    head = bytearray(first)
    while True:                                   # read until the request is complete
        events = protocol.events_received()
        if events:
            break
        if len(head) > MAX_REQUEST_BYTES or protocol.state.name == "CLOSED":
            return _refuse(protocol, writer)
        chunk = await asyncio.wait_for(reader.read(4096), timeout_s)
        if not chunk:
            return None
        head += chunk
        protocol.receive_data(chunk)
    request = events[0]
    if not isinstance(request, Request):
        return _refuse(protocol, writer)
    response = protocol.accept(request)
    protocol.send_response(response)
    out = WebSocketWriter(protocol, writer)
    out.flush()
    await writer.drain()
    if response.status_code != 101:
        writer.close()
        return None
    inner = asyncio.StreamReader(limit=READ_SIZE)
    out.pump = asyncio.get_running_loop().create_task(_pump(protocol, reader, inner, out))   # held: not collected
    return inner, out


def _refuse(protocol: ServerProtocol, writer: asyncio.StreamWriter) -> None:
    for chunk in protocol.data_to_send():
        if chunk:
            writer.write(chunk)
    writer.close()
    return None


async def _pump(protocol: ServerProtocol, reader: asyncio.StreamReader, inner: asyncio.StreamReader,
                out: WebSocketWriter) -> None:
    """Socket bytes in, the binary frames' payloads out to ``inner`` (text frames close the socket:
    Bolt is binary); pings are answered, a close frame or EOF ends the stream."""
    try:
        while True:
            data = await reader.read(READ_SIZE)
            if not data:
                protocol.receive_eof()
                break
            protocol.receive_data(data)
            for frame in protocol.events_received():
                if frame.opcode in (Opcode.BINARY, Opcode.CONT):
                    inner.feed_data(frame.data)
                elif frame.opcode is Opcode.TEXT:
                    protocol.fail(1003, "Bolt travels in binary frames")
            out.flush()
            if protocol.state.name in ("CLOSING", "CLOSED"):
                break
    except (ConnectionError, asyncio.CancelledError):
        pass
    finally:
        out.flush()
        inner.feed_eof()
