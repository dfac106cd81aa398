"""AsyncWireSession and AsyncWireResult: the network *session backend* under the user-facing
Connection/Result classes (the same interface the embedded engine's session offers)."""
from __future__ import annotations

from typing import Any

from relate.errors import ServiceUnavailable, TransactionError
from relate.protocol import messages as m
from relate.protocol.connection import ClientConnection
from relate.protocol.states import State
from relate.summary import Summary

from ..transport import Address
from .wire import DEFAULT_MAX_REPLY_SIZE, AsyncWire, Response

DEFAULT_FETCH_SIZE = 1000


class AsyncWireResult:
    """One statement's rows. PULLs go out in batches of ``fetch_size``, one batch ahead of the
    reader, so the server prepares the next batch while this one is consumed."""

    def __init__(self, session: "AsyncWireSession"):
        self._session = session
        self._wire = session._wire
        self.columns: list[str] = []
        self.qid = m.LAST_QUERY
        self.summary: Summary | None = None
        self._rows: list = []
        self._pos = 0
        self._pull: Response | None = None
        self._has_more = True
        self._t_first = 0.0

    def _queue_pull(self, n: int | None = None) -> None:
        self._pull = self._wire.queue(m.Pull(n or self._session.fetch_size, self.qid), records=[])

    def _started(self, metadata: dict) -> None:
        self.columns = list(metadata.get("fields", []))
        self.qid = metadata.get("qid", m.LAST_QUERY)
        self._t_first = float(metadata.get("t_first", 0.0))

    async def _take_pull(self) -> list:
        """Wait for the outstanding PULL; its rows, with has_more/summary updated."""
        response = self._pull
        await self._wire.wait(response)
        self._pull = None
        if response.error is not None or response.ignored:
            self._finish(None)
            if response.error is not None:
                await self._session._recover()
                raise response.error
            return response.records
        if response.metadata.get("has_more"):
            return response.records
        self._finish(Summary.from_metadata(response.metadata, self._t_first))
        return response.records

    def _finish(self, summary: Summary | None) -> None:
        self._has_more = False
        self.summary = summary
        self._session._forget(self)

    def _abandon(self) -> None:
        """The transaction ended (COMMIT/ROLLBACK/RESET) with this result still open."""
        self._pull = None
        if self._has_more:
            self._finish(Summary())

    async def fetch(self, n: int) -> list:
        while self._pos >= len(self._rows):
            self._rows, self._pos = [], 0
            if self._pull is None:
                if not self._has_more:
                    return []
                await self._session._prepare()
                if self._pull is None and self._has_more:
                    self._queue_pull()
            self._rows = await self._take_pull()
            if self._has_more and self._pull is None:
                self._queue_pull()          # prefetch the next batch while this one is read
                await self._wire.flush()
        rows = self._rows[self._pos:self._pos + n]
        self._pos += len(rows)
        return rows

    async def _buffer_rest(self) -> None:
        """Read every remaining row into memory (another auto-commit statement is about to run)."""
        while self._has_more or self._pull is not None:
            if self._pull is None:
                self._queue_pull(m.ALL)
            self._rows = self._rows[self._pos:] + await self._take_pull()
            self._pos = 0

    async def consume(self) -> Summary:
        if self._pull is not None:
            await self._take_pull()
        if self._has_more:
            await self._session._prepare()
            response = await self._wire.wait(self._wire.queue(m.Discard(m.ALL, self.qid)))
            if response.error is not None:
                self._finish(None)
                await self._session._recover()
                raise response.error
            self._finish(Summary.from_metadata(response.metadata, self._t_first))
        self._rows, self._pos = [], 0
        if self.summary is None:
            self.summary = Summary()
        return self.summary

    async def close(self) -> None:
        if self._has_more and not self._wire.defunct:
            try:
                await self.consume()
            except ServiceUnavailable:
                pass
        self._rows, self._pos = [], 0


class AsyncWireSession:
    """A network session: the backend that ``relate.Connection`` (or ``relate.aio.AsyncConnection``)
    drives with run/begin/commit/rollback/close."""

    def __init__(self, url: str, auth: tuple[str, str] | None = None, *, fetch_size: int = DEFAULT_FETCH_SIZE,
                 connect_timeout: float = 10.0, max_message_size: int = DEFAULT_MAX_REPLY_SIZE,
                 trusted_certificates: str | None = None, ssl_context=None, user_agent: str = "relate-python",
                 tx_timeout: float | None = None, context: str | None = None):
        self.address = Address(url)
        # The context (tenant) to work in; the server checks the user may use it (docs/relevance.md).
        self._context = context if context is not None else self.address.options.get("context")
        self._auth = auth if auth is not None else self.address.auth
        self.fetch_size = int(self.address.options.get("fetch_size", fetch_size))
        self._connect_timeout = connect_timeout
        self._max_message_size = max_message_size
        self._ssl = ssl_context if ssl_context is not None else self.address.ssl_context(trusted_certificates)
        self._user_agent = user_agent
        self._tx_timeout_ms = int(tx_timeout * 1000) if tx_timeout else None
        self._wire: AsyncWire | None = None
        self._open: list[AsyncWireResult] = []
        self._in_tx = False
        self._closed = False

    async def open(self) -> "AsyncWireSession":
        self._wire = await AsyncWire.open(self.address, auth=self._auth, ssl_context=self._ssl,
                                          timeout=self._connect_timeout, max_message_size=self._max_message_size,
                                          user_agent=self._user_agent, context=self._context)
        self._open, self._in_tx = [], False
        return self

    @property
    def in_transaction(self) -> bool:
        return self._in_tx

    @property
    def server_info(self) -> dict:
        return self._wire.server_info if self._wire is not None else {}

    @property
    def state(self) -> State:
        """The session state this side expects the server to be in."""
        if self._wire is None or self._wire.defunct:
            return State.DEFUNCT
        if self._wire.failed:
            return State.FAILED
        if self._in_tx:
            return State.TX_STREAMING if self._open else State.TX_READY
        return State.STREAMING if self._open else State.READY

    def _check(self, signature: int, name: str) -> None:
        if not ClientConnection.allows(self.state, signature):
            if signature == m.BEGIN:
                raise TransactionError("a transaction is already open on this connection")
            if signature in (m.COMMIT, m.ROLLBACK):
                raise TransactionError("no transaction is open on this connection")
            raise TransactionError(f"{name} is not possible while the session is {self.state.value}")

    def _forget(self, result: AsyncWireResult) -> None:
        if result in self._open:
            self._open.remove(result)

    async def _connected(self) -> AsyncWire:
        if self._closed:
            raise TransactionError("the connection is closed")
        if self._wire is None or self._wire.defunct:
            if self._in_tx:
                self._in_tx = False
                self._open = []
                raise ServiceUnavailable("the connection was lost; the open transaction is gone")
            await self.open()
        return self._wire

    async def _prepare(self) -> None:
        """Before a new request: read outstanding replies and acknowledge a failure among them."""
        await self._wire.sync()
        if self._wire.failed:
            await self._recover()

    async def _recover(self) -> None:
        self._in_tx = await self._wire.acknowledge()
        if not self._in_tx:
            for result in list(self._open):
                result._abandon()

    async def _settle_autocommit(self) -> None:
        if not self._in_tx:
            for result in list(self._open):
                await result._buffer_rest()

    async def run(self, query: str, params: dict[str, Any] | None = None) -> AsyncWireResult:
        wire = await self._connected()
        if self._open or self._in_tx or wire.busy:
            # Anything outstanding, a result open, or a transaction: settle it first (the common
            # auto-commit statement after a finished one skips this: READY, nothing to read).
            await self._prepare()
            await self._settle_autocommit()
            self._check(m.RUN, "RUN")
        extra = {"tx_timeout": self._tx_timeout_ms} if self._tx_timeout_ms and not self._in_tx else {}
        run = wire.queue(m.Run(query, params or {}, extra))
        result = AsyncWireResult(self)
        result._queue_pull()                 # pipelined: the first batch comes with the RUN's reply
        await wire.wait(run)
        if run.error is not None:
            await self._recover()
            raise run.error
        result._started(run.metadata)
        self._open.append(result)
        return result

    async def begin(self, read_only: bool = False) -> None:
        wire = await self._connected()
        await self._prepare()
        await self._settle_autocommit()
        self._check(m.BEGIN, "BEGIN")
        extra = {"tx_timeout": self._tx_timeout_ms} if self._tx_timeout_ms else {}
        if read_only:
            extra["mode"] = "r"             # a READ transaction: the server refuses its writes
        response = await wire.wait(wire.queue(m.Begin(extra)))
        if response.error is not None:
            await self._recover()
            raise response.error
        self._in_tx = True

    async def _end(self, message, name: str) -> dict:
        wire = await self._connected()
        await self._prepare()
        self._check(message.signature, name)
        if message.signature == m.COMMIT:
            # Rows of results still open stay readable after COMMIT, as in embedded mode.
            for result in list(self._open):
                await result._buffer_rest()
        response = await wire.wait(wire.queue(message))
        for result in list(self._open):
            result._abandon()
        self._in_tx = False
        if response.error is not None:
            await self._recover()
            raise response.error
        return response.metadata

    async def commit(self) -> str | None:
        """Commit the open transaction; returns its bookmark."""
        return (await self._end(m.Commit(), "COMMIT")).get("bookmark")

    async def rollback(self) -> None:
        if not self._in_tx:
            return
        await self._end(m.Rollback(), "ROLLBACK")

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        if self._wire is not None:
            await self._wire.close()
