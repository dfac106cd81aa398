"""One client connection: handshake, then a reader task that decodes requests while the processor
runs them one at a time through the SessionCore. The reader sees RESET and dropped connections as
soon as they arrive, so it can stop a running query that the processor is waiting on."""
from __future__ import annotations

import asyncio
import itertools
import ssl
from collections import deque

import structlog

from relate.protocol import ProtocolViolation
from relate.protocol import handshake as hs
from relate.protocol import messages as m
from relate.protocol.connection import ServerConnection
from relate.protocol.states import AUTHENTICATED_STATES, State

from ..session import SessionCore
from .busy_poll import BUSY_POLL
from .output import WireOutput

HANDSHAKE_TIMEOUT_S = 10.0
READ_SIZE = 256 * 1024
QUEUE_SIZE = 256          # pipelined requests held before the reader stops reading (TCP backpressure)
_ids = itertools.count(1)
_log = structlog.get_logger("relate.net")
_DISCONNECTS = (ConnectionError, asyncio.IncompleteReadError, ssl.SSLError, OSError)


class IncompleteMessage(ProtocolViolation):
    """A request stalled mid-message: the stream cannot be resynchronized."""
    fatal = True


class RequestQueue:
    """Decoded requests waiting for the processor. Bounded: when full the reader stops reading, and
    TCP pushes back on the client. ``peek`` lets a RUN see the PULL pipelined behind it."""

    def __init__(self, limit: int = QUEUE_SIZE):
        self._items: deque = deque()
        self._limit = limit
        self._readable = asyncio.Event()
        self._writable = asyncio.Event()
        self._writable.set()
        self.waiting = False          # the processor waits for a request (it handles none now)

    def offer(self, item) -> bool:
        """Queue ``item`` without waiting when there is room (the common case: no coroutine); else False."""
        if len(self._items) >= self._limit:
            return False
        self._items.append(item)
        self._readable.set()
        return True

    async def put(self, item) -> None:
        while not self.offer(item):
            self._writable.clear()
            await self._writable.wait()

    async def get(self):
        while not self._items:
            self._readable.clear()
            self.waiting = True
            try:
                await self._readable.wait()
            finally:
                self.waiting = False
        item = self._items.popleft()
        self._writable.set()
        return item

    def peek(self):
        return self._items[0] if self._items else None

    def close(self) -> None:
        """No more requests: the processor gets None (at once, whatever the queue's limit)."""
        self._items.append(None)
        self._readable.set()

    def empty(self) -> bool:
        return not self._items


class ClientConnection:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, server):
        self._reader = reader
        self._writer = writer
        self._server = server
        self.id = f"c{next(_ids)}"
        peer = writer.get_extra_info("peername")
        self.peer = f"{peer[0]}:{peer[1]}" if isinstance(peer, tuple) else str(peer)
        self.core: SessionCore | None = None
        self._reader_task: asyncio.Task | None = None
        self._protocol: ServerConnection | None = None     # the native protocol's state, sans I/O

    @property
    def busy(self) -> bool:
        return self.core is not None and self.core.busy

    async def serve(self) -> None:
        try:
            if await self._handshake():
                await self._session()
        except (*_DISCONNECTS, asyncio.TimeoutError):
            pass
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            # uvloop raises RuntimeError for a write (a handshake reply, say) to a transport the peer
            # already closed: a disconnect like the others, not a server error.
            if not (isinstance(exc, RuntimeError) and self._writer.is_closing()):
                _log.exception("connection failed", conn=self.id)
        finally:
            await self._close()

    def expire(self) -> None:
        """The login deadline passed: drop the connection (the reader sees EOF)."""
        self._writer.transport.abort()

    def stop(self) -> None:
        """Cut the connection (server shutdown): the running query is cancelled, the tx rolled back."""
        if self.core is not None:
            self.core.abort()
        if self._reader_task is not None:
            self._reader_task.cancel()

    async def _handshake(self) -> bool:
        data = await asyncio.wait_for(self._reader.readexactly(hs.CLIENT_HANDSHAKE_SIZE), HANDSHAKE_TIMEOUT_S)
        self._protocol = ServerConnection(max_message_size=self._server.config.max_message_size)
        try:
            (opened,) = self._protocol.receive_data(data)
        except hs.HandshakeError as exc:
            _log.info("handshake refused", conn=self.id, peer=self.peer, error=str(exc))
            return False
        self._writer.write(opened.reply)
        await self._writer.drain()
        return opened.version is not None

    async def _session(self) -> None:
        config = self._server.config
        protocol = self._connection()
        self.core = core = SessionCore(self._server.database, self._server.authenticator, connection_id=self.id,
                                       peer=self.peer, query_timeout=config.query_timeout,
                                       batch_size=config.batch_size, transition=protocol.transition)
        core.slow_query_s = getattr(config, "slow_query_log", core.slow_query_s)
        out = self._output(protocol)
        queue = RequestQueue()
        preauth = getattr(self._server, "preauth", None)
        self._reader_task = asyncio.create_task(self._read_requests(queue, protocol, core, out))
        while True:
            item = await queue.get()
            if item is None:
                break
            if isinstance(item, ProtocolViolation):
                await core.reject(item, out)
                if item.fatal:
                    await out.flush()
                    break
            else:
                await self._handle(item, out, queue)
                if preauth is not None and core.state in AUTHENTICATED_STATES:
                    preauth.release(self)
                    preauth = None
            if core.state is State.DEFUNCT:
                await out.flush()
                break
            if queue.empty():
                await out.flush()
                BUSY_POLL.replied()

    # The wire format, as hooks a listener for another protocol (Bolt) overrides: a sans-I/O
    # connection object (receive_data(bytes) -> requests or violations, pending, transition) and
    # the ReplySink that writes what it encodes.
    def _connection(self):
        return self._protocol

    def _output(self, protocol):
        return WireOutput(self._writer, protocol)

    async def _handle(self, request, out, queue: RequestQueue) -> None:
        await self.core.handle(request, out, queue.peek())

    # Whether the reader may answer a cheap RUN+PULL pair itself (SessionCore.answer_now): the
    # native protocol's output supports it; another protocol's listener may turn it off.
    answers_now = True

    async def _read_requests(self, queue: RequestQueue, protocol, core: SessionCore, out) -> None:
        message_timeout = getattr(self._server.config, "message_timeout", None)
        try:
            while True:
                if protocol.pending and message_timeout:
                    # A chunk header announcing bytes that never come must not hold the connection.
                    try:
                        data = await asyncio.wait_for(self._reader.read(READ_SIZE), message_timeout)
                    except asyncio.TimeoutError:
                        await queue.put(IncompleteMessage(
                            f"a request was not received whole within {message_timeout:g} s"))
                        break
                else:
                    data = await self._reader.read(READ_SIZE)
                if not data:
                    return
                BUSY_POLL.received()
                events = protocol.receive_data(data)
                if len(events) == 2 and self.answers_now and queue.waiting and queue.empty() and out.idle:
                    # The common request, answered here: a task switch to the processor and back,
                    # and the awaits of the usual path, cost more than a cheap statement itself.
                    answered = core.answer_now(events[0], events[1], out)
                    if answered:
                        events = events[answered:]
                        if not events:
                            out.write_now()
                            BUSY_POLL.replied()
                            continue
                if await self._dispatch(events, queue, core):
                    break       # hostile bytes: stop decoding this peer
            # The processor answers the violation and closes; until then a running statement must
            # still end when the client leaves, so keep watching the socket (its bytes are dropped).
            while await self._reader.read(READ_SIZE):
                pass
        except _DISCONNECTS:
            pass
        except asyncio.CancelledError:      # server shutdown: the processor must not wait on
            raise                           # an empty queue until the shutdown deadline
        except Exception:
            _log.exception("connection failed", conn=self.id)
        finally:
            # EOF, an error or shutdown: stop the running query; queued requests get IGNORED, and the
            # processor always learns that no more requests come (else it waits forever).
            core.abort()
            queue.close()

    @staticmethod
    async def _dispatch(events, queue: RequestQueue, core: SessionCore) -> bool:
        """Queue decoded requests; True after a fatal violation (nothing more is read from this peer)."""
        for event in events:
            if isinstance(event, ProtocolViolation):   # oversized or malformed: FAILURE
                await queue.put(event)
                if event.fatal:
                    return True
                continue
            if event.signature == m.RESET:
                core.interrupt()
            if not queue.offer(event):
                await queue.put(event)
        return False

    async def _close(self) -> None:
        if self._reader_task is not None:
            self._reader_task.cancel()
        if self.core is not None:
            await self.core.close()
        try:
            self._writer.close()
            await asyncio.wait_for(self._writer.wait_closed(), 2.0)
        except (*_DISCONNECTS, asyncio.TimeoutError):
            pass
