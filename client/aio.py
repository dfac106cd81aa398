"""The asyncio twin of the user API: ``conn = await relate.aio.connect(url, auth=...)``,
``result = await conn.execute(q)``, ``async for row in result``, ``async with conn.transaction() as tx``.

Network sessions use the driver's asyncio core (``relate.driver._async``), of which the blocking
driver is generated. A database path runs the embedded engine on a private thread per connection.
"""
from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from typing import Any, AsyncIterator, Mapping

from relate.protocol.conversion import to_parameters

from .connection import _get
from .errors import ResultConsumedError, ResultNotSingleError, TransactionError
from .summary import Summary
from .values import Row, row_class

__all__ = ["connect", "AsyncConnection", "AsyncTransaction", "AsyncResult"]

_BATCH = 1000


class AsyncResult:
    """Rows of one statement, streamed in batches as they are read."""

    def __init__(self, backend_result):
        self._backend = backend_result
        self.columns: list[str] = list(backend_result.columns)
        self._row = row_class(self.columns)
        self._buffer: list = []
        self._pos = 0
        self._done = False
        self._consumed = False

    async def _fill(self, want: int) -> bool:
        if self._done:
            return False
        batch = await self._backend.fetch(max(want, _BATCH))
        if not batch:
            self._done = True
            return False
        self._buffer, self._pos = self._buffer[self._pos:] + list(batch), 0
        return True

    def __aiter__(self) -> AsyncIterator[Row]:
        if self._consumed:
            raise ResultConsumedError("the result was already read to the end or consumed")
        return self._iterate()

    async def _iterate(self):
        make = self._row
        while True:
            if self._pos >= len(self._buffer):
                if not await self._fill(_BATCH):
                    self._consumed = True
                    return
            rows, self._buffer, self._pos = self._buffer[self._pos:], [], 0
            for row in rows:
                yield make(row)

    async def fetchone(self) -> Row | None:
        if self._pos >= len(self._buffer) and not await self._fill(1):
            return None
        self._pos += 1
        return self._row(self._buffer[self._pos - 1])

    async def fetchmany(self, size: int = 100) -> list[Row]:
        while len(self._buffer) - self._pos < size and await self._fill(size):
            pass
        rows = self._buffer[self._pos:self._pos + size]
        self._pos += len(rows)
        return list(map(self._row, rows))

    async def fetchall(self) -> list[Row]:
        return [row async for row in self]

    async def values(self, *keys) -> list[list[Any]]:
        if keys:
            return [[_get(row, key, None) for key in keys] async for row in self]
        return [list(row) async for row in self]

    async def data(self, *keys) -> list[dict[str, Any]]:
        if keys:
            return [{key: _get(row, key, None) for key in keys} async for row in self]
        return [row.as_dict() async for row in self]

    def keys(self) -> list[str]:
        return list(self.columns)

    async def peek(self) -> Row | None:
        """The next row without consuming it; None when there is none."""
        if self._pos >= len(self._buffer) and not await self._fill(1):
            return None
        return self._row(self._buffer[self._pos])

    async def value(self, key: int | str = 0, default: Any = None) -> list[Any]:
        return [_get(row, key, default) async for row in self]

    async def single(self, strict: bool = True) -> Row | None:
        """As ``Result.single``: exactly one row, else ResultNotSingleError (``strict=False``: None/first)."""
        rows = await self.fetchmany(2)
        if len(rows) == 1 and await self.peek() is None:
            return rows[0]
        await self.consume()
        if strict:
            raise ResultNotSingleError("expected exactly one row, got " + ("no row" if not rows else "more than one row"))
        return rows[0] if rows else None

    @property
    def summary(self) -> Summary | None:
        """The summary once the result is exhausted or consumed, else None (``await consume()``)."""
        return self._backend.summary

    async def consume(self) -> Summary:
        """Discard the rows not yet read; the statement's summary."""
        summary = self._backend.summary
        if summary is None:
            summary = await self._backend.consume()
        self._done = self._consumed = True
        self._buffer, self._pos = [], 0
        return summary

    async def to_df(self):
        import pandas as pd
        return pd.DataFrame([tuple(r) async for r in self], columns=self.columns)

    async def close(self) -> None:
        await self._backend.close()
        self._done = True

    async def __aenter__(self) -> "AsyncResult":
        return self

    async def __aexit__(self, *exc) -> None:
        await self.close()


class AsyncTransaction:
    """An explicit transaction; ``async with`` commits on success and rolls back on error."""

    def __init__(self, connection: "AsyncConnection", begun: bool):
        self._connection = connection
        self._open = begun

    async def execute(self, query: str, params: Mapping[str, Any] | None = None, **kwparams) -> AsyncResult:
        if not self._open:
            raise TransactionError("the transaction is closed")
        return await self._connection._run(query, params, kwparams)

    async def commit(self) -> None:
        if self._open:
            self._open = False
            await self._connection._session.commit()

    async def rollback(self) -> None:
        if self._open:
            self._open = False
            await self._connection._session.rollback()

    @property
    def closed(self) -> bool:
        return not self._open

    async def __aenter__(self) -> "AsyncTransaction":
        if not self._open:
            await self._connection._session.begin()
            self._open = True
        return self

    async def __aexit__(self, exc_type, exc, tb) -> None:
        if not self._open:
            return
        if exc_type is None:
            await self.commit()
        else:
            await self.rollback()


class AsyncConnection:
    """An asyncio connection, embedded or over the network; same methods as ``relate.Connection``."""

    def __init__(self, session, *, owner=None, target: str = "", max_retry_time: float = 30.0):
        self._session = session
        self._owner = owner
        self.target = target
        self.max_retry_time = max_retry_time
        self._closed = False

    async def _run(self, query: str, params, kwparams) -> AsyncResult:
        if params is None:
            params = kwparams
        elif kwparams:
            params = {**params, **kwparams}
        return AsyncResult(await self._session.run(query, to_parameters(params)))

    async def execute(self, query: str, params: Mapping[str, Any] | None = None, **kwparams) -> AsyncResult:
        if self._closed:
            raise TransactionError("the connection is closed")
        return await self._run(query, params, kwparams)

    async def begin(self, *, read_only: bool = False) -> AsyncTransaction:
        """Open a transaction; ``read_only=True``: a READ one (its writing statements raise AccessModeError)."""
        await self._session.begin(read_only)
        return AsyncTransaction(self, begun=True)

    def transaction(self) -> AsyncTransaction:
        """``async with conn.transaction() as tx:`` (begins on entry)."""
        return AsyncTransaction(self, begun=False)

    async def commit(self) -> None:
        await self._session.commit()

    async def rollback(self) -> None:
        await self._session.rollback()

    @property
    def in_transaction(self) -> bool:
        return self._session.in_transaction

    async def execute_write(self, work, *args, **kwargs):
        """``await work(tx, ...)`` in a transaction, retried on retryable errors; returns its value."""
        from .driver._async.managed import run_managed
        return await run_managed(self, work, args, kwargs, max_retry_time=self.max_retry_time)

    async def execute_read(self, work, *args, **kwargs):
        """Like execute_write, in a READ transaction: a statement that writes raises AccessModeError."""
        from .driver._async.managed import run_managed
        return await run_managed(self, work, args, kwargs, max_retry_time=self.max_retry_time, read_only=True)

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        try:
            if self._session.in_transaction:
                await self._session.rollback()
        finally:
            await self._session.close()
            if self._owner is not None:
                await asyncio.to_thread(self._owner.close)

    @property
    def closed(self) -> bool:
        return self._closed

    async def __aenter__(self) -> "AsyncConnection":
        return self

    async def __aexit__(self, *exc) -> None:
        await self.close()


class _ThreadedResult:
    """An embedded engine result driven from asyncio through the connection's thread."""

    def __init__(self, result, call):
        self._result = result
        self._call = call
        self.columns = result.columns

    @property
    def summary(self):
        return self._result.summary

    async def fetch(self, n: int) -> list:
        return await self._call(self._result.fetch, n)

    async def consume(self):
        return await self._call(self._result.consume)

    async def close(self) -> None:
        await self._call(self._result.close)


class _ThreadedSession:
    """The embedded engine's session behind the async backend interface; one thread per connection,
    so the engine's transaction state stays on one thread."""

    def __init__(self, database):
        self._executor = ThreadPoolExecutor(1, thread_name_prefix="relate-aio")
        self._database = database
        self._session = None

    async def _call(self, fn, *args):
        return await asyncio.get_running_loop().run_in_executor(self._executor, fn, *args)

    async def open(self) -> "_ThreadedSession":
        self._session = await self._call(self._database.session)
        return self

    @property
    def in_transaction(self) -> bool:
        return self._session.in_transaction

    async def run(self, query: str, params: dict) -> _ThreadedResult:
        return _ThreadedResult(await self._call(self._session.run, query, params), self._call)

    async def begin(self, read_only: bool = False) -> None:
        await self._call(self._session.begin, read_only)

    async def commit(self) -> None:
        await self._call(self._session.commit)

    async def rollback(self) -> None:
        await self._call(self._session.rollback)

    async def close(self) -> None:
        await self._call(self._session.close)
        self._executor.shutdown(wait=False)


async def connect(target, *, auth: tuple[str, str] | None = None, **options) -> AsyncConnection:
    """Open an asyncio connection: a ``relate://host:port`` URL, a database path or ``:memory:``
    (the same targets and options as ``relate.connect``)."""
    from .targets import open_database, target_kind
    kind, target = target_kind(target)
    if kind == "remote":
        from .driver._async.session import AsyncWireSession
        max_retry_time = options.pop("max_retry_time", 30.0)
        session = await AsyncWireSession(target, auth, **options).open()
        return AsyncConnection(session, target=target, max_retry_time=max_retry_time)
    database = await asyncio.to_thread(open_database, kind, target, auth, options)
    session = await _ThreadedSession(database).open()
    return AsyncConnection(session, owner=database, target=target)
