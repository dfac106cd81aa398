"""AsyncWire: one protocol connection. Requests are queued (pipelined) and sent together; replies are
read in order and handed to the response each request registered."""
from __future__ import annotations

from collections import deque

from relate.errors import ProtocolError, ServiceUnavailable, error_from_code
from relate.protocol import ProtocolViolation, ValueTooDeep
from relate.protocol import handshake as hs
from relate.protocol import messages as m
from relate.protocol.connection import ClientConnection, Handshaken, Records

from ..transport import Address, AsyncTransport

DEFAULT_MAX_REPLY_SIZE = 256 * 1024 * 1024


class Response:
    """What one request got back: metadata on SUCCESS, error on FAILURE, ``ignored`` on IGNORED.
    A PULL's records are appended to ``records`` as they arrive."""

    __slots__ = ("records", "metadata", "error", "ignored", "done")

    def __init__(self, records: list | None = None):
        self.records = records
        self.metadata: dict = {}
        self.error = None
        self.ignored = False
        self.done = False


def failure_error(metadata: dict):
    meta = dict(metadata)
    code = meta.pop("code", "Neo.DatabaseError.General.UnknownError")
    message = meta.pop("message", "the server reported a failure")
    return error_from_code(code, message, **meta)


class AsyncWire:
    def __init__(self, transport: AsyncTransport, address: Address, max_message_size: int):
        self._transport = transport
        self.address = address
        self.protocol = ClientConnection(max_message_size=max_message_size)    # the protocol's state, sans I/O
        self._pending: deque[Response] = deque()
        self._outbox = bytearray()
        self.defunct = False
        self.failed = False              # a FAILURE arrived and has not been acknowledged yet
        self.server_info: dict = {}

    @classmethod
    async def open(cls, address: Address, *, auth: tuple[str, str] | None, ssl_context, timeout: float,
                   max_message_size: int = DEFAULT_MAX_REPLY_SIZE, user_agent: str = "relate-python",
                   context: str | None = None) -> "AsyncWire":
        transport = await AsyncTransport.connect(address, ssl_context=ssl_context, timeout=timeout)
        wire = cls(transport, address, max_message_size)
        try:
            await wire._handshake()
            await wire._login(auth, user_agent, context)
        except BaseException:
            await wire.close()
            raise
        return wire

    async def _handshake(self) -> None:
        try:
            await self._transport.send(self.protocol.initiate())
            (opened,) = self.protocol.receive_data(await self._transport.recv_exactly(hs.SERVER_RESPONSE_SIZE))
        except (OSError, hs.HandshakeError) as exc:
            raise ServiceUnavailable(f"no Relate server at {self.address}: {exc}") from None
        assert isinstance(opened, Handshaken)
        if opened.version is None:
            raise ProtocolError(f"the server at {self.address} speaks no protocol version this driver knows")

    async def _login(self, auth: tuple[str, str] | None, user_agent: str, context: str | None = None) -> None:
        hello = self.queue(m.Hello({"user_agent": user_agent}))
        credentials = {"scheme": "none"}
        if auth is not None:
            credentials = {"scheme": "basic", "principal": auth[0], "credentials": auth[1]}
        if context is not None:
            credentials["context"] = context
        logon = self.queue(m.Logon(credentials))
        await self.wait(logon)
        for response in (hello, logon):
            if response.error is not None:
                raise response.error
        self.server_info = hello.metadata

    @property
    def busy(self) -> bool:
        """Replies still to read, requests not sent yet, or a failure not yet acknowledged."""
        return bool(self._pending or self._outbox or self.failed or self.defunct)

    # -- requests and replies -------------------------------------------------------------------

    def queue(self, message, records: list | None = None) -> Response:
        """Add a request to the outbox; its Response completes when its reply is read."""
        self._outbox += self.protocol.send(message)
        response = Response(records)
        if message.signature != m.GOODBYE:
            self._pending.append(response)
        return response

    async def flush(self) -> None:
        if self._outbox:
            data = bytes(self._outbox)
            self._outbox.clear()
            try:
                await self._transport.send(data)
            except OSError as exc:
                self._broken(exc)

    async def wait(self, response: Response) -> Response:
        """Send what is queued and read replies until ``response`` is complete."""
        await self.flush()
        while not response.done:
            await self._receive()
        return response

    async def sync(self) -> None:
        """Send what is queued and read every outstanding reply."""
        await self.flush()
        while self._pending:
            await self._receive()

    async def _receive(self) -> None:
        try:
            data = await self._transport.recv()
        except OSError as exc:
            self._broken(exc)
        if not data:
            self._broken("the server closed the connection")
        try:
            events = self.protocol.receive_data(data)
        except ValueTooDeep as exc:       # hostile bytes: this stream cannot be trusted any more
            self._broken(exc.message)
        except ProtocolViolation as exc:
            if exc.fatal:
                self._broken(exc.message)
            raise
        pending = self._pending
        for event in events:
            if type(event) is Records:
                records = pending[0].records if pending else None
                if records is None:
                    self._broken("the server sent records nobody asked for")
                records.extend(event.rows)
                continue
            response = pending.popleft()
            response.done = True
            if event.signature == m.SUCCESS:
                response.metadata = event.metadata
            elif event.signature == m.FAILURE:
                response.error = failure_error(event.metadata)
                self.failed = True
            else:
                response.ignored = True

    def _broken(self, reason) -> None:
        self.defunct = True
        error = ServiceUnavailable(f"connection to {self.address} lost: {reason}")
        for response in self._pending:
            response.done, response.error = True, error
        self._pending.clear()
        raise error

    async def acknowledge(self) -> bool:
        """After a FAILURE: read the rest of the pipeline, then return the session to a usable state.
        Returns whether the server still holds an open transaction."""
        await self.sync()
        self.failed = False
        ack = await self.wait(self.queue(m.AckFailure()))
        if ack.ignored or ack.error is not None:       # a protocol-level failure: only RESET clears it
            await self.wait(self.queue(m.Reset()))
            self.failed = False
            return False
        return bool(ack.metadata.get("in_transaction"))

    async def close(self) -> None:
        if not self.defunct:
            try:
                self.queue(m.Goodbye())
                await self.flush()
            except ServiceUnavailable:
                pass
        self.defunct = True
        await self._transport.close()
