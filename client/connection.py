"""The user-facing API shared by embedded and network modes: Connection, Transaction, Result.

Both modes plug a *session backend* under these classes. A backend session has
``run(query, params) -> backend result``, ``begin()``, ``commit()``, ``rollback()``,
``in_transaction`` and ``close()``; a backend result has ``columns``, ``fetch(n) -> list[tuple]``
(empty when exhausted), ``consume() -> Summary``, ``summary`` (None until exhausted) and ``close()``.
"""
from __future__ import annotations

from typing import Any, Iterator, Mapping

from relate.protocol.conversion import to_parameters

from .errors import TransactionError
from .summary import Summary
from .values import Row, row_class

_BATCH = 1000


class Result:
    """Rows of one statement; they stream from the backend in batches as you read them."""

    def __init__(self, backend_result):
        self._backend = backend_result
        self.columns: list[str] = list(backend_result.columns)
        self._row = row_class(self.columns)
        self._buffer: list[tuple] = []
        self._pos = 0
        self._done = False

    def _fill(self, want: int) -> bool:
        if self._done:
            return False
        batch = self._backend.fetch(max(want, _BATCH))
        if not batch:
            self._done = True
            return False
        if self._pos:
            self._buffer = self._buffer[self._pos:]
            self._pos = 0
        self._buffer.extend(batch)
        return True

    def __iter__(self) -> Iterator[Row]:
        make = self._row
        while True:
            if self._pos >= len(self._buffer):
                self._buffer, self._pos = [], 0
                if not self._fill(_BATCH):
                    return
            row = self._buffer[self._pos]
            self._pos += 1
            yield make(row)

    def fetchone(self) -> Row | None:
        if self._pos >= len(self._buffer):
            self._buffer, self._pos = [], 0
            if not self._fill(1):
                return None
        row = self._buffer[self._pos]
        self._pos += 1
        return self._row(row)

    def fetchmany(self, size: int = 100) -> list[Row]:
        out: list[Row] = []
        while len(out) < size:
            if self._pos >= len(self._buffer):
                self._buffer, self._pos = [], 0
                if not self._fill(size - len(out)):
                    break
            take = self._buffer[self._pos:self._pos + size - len(out)]
            self._pos += len(take)
            out.extend(map(self._row, take))
        return out

    def fetchall(self) -> list[Row]:
        return list(self)

    def values(self) -> list[list[Any]]:
        """All remaining rows as plain lists."""
        return [list(row) for row in self]

    def data(self) -> list[dict[str, Any]]:
        """All remaining rows as dicts keyed by column name."""
        return [row.as_dict() for row in self]

    @property
    def summary(self) -> Summary:
        """The statement's summary; reading it discards rows not yet fetched."""
        summary = self._backend.summary
        if summary is None:
            summary = self._backend.consume()
            self._done = True
        return summary

    def consume(self) -> Summary:
        return self.summary

    def to_df(self):
        """The remaining rows as a pandas DataFrame (pandas must be installed)."""
        try:
            import pandas as pd
        except ImportError as exc:  # pragma: no cover - depends on the environment
            raise ImportError("to_df() needs pandas: pip install pandas") from exc
        return pd.DataFrame([tuple(r) for r in self], columns=self.columns)

    def close(self) -> None:
        self._backend.close()
        self._done = True

    def __enter__(self) -> "Result":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class Transaction:
    """An explicit transaction; as a context manager it commits on success, rolls back on error."""

    def __init__(self, connection: "Connection"):
        self._connection = connection
        self._open = True

    def execute(self, query: str, params: Mapping[str, Any] | None = None, **kwparams) -> Result:
        if not self._open:
            raise TransactionError("the transaction is closed")
        return self._connection._run(query, params, kwparams)

    def commit(self) -> None:
        if self._open:
            self._open = False
            self._connection._session.commit()

    def rollback(self) -> None:
        if self._open:
            self._open = False
            self._connection._session.rollback()

    @property
    def closed(self) -> bool:
        return not self._open

    def __enter__(self) -> "Transaction":
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if not self._open:
            return
        if exc_type is None:
            self.commit()
        else:
            self.rollback()


class Connection:
    """A connection to a Relate database, embedded or over the network."""

    max_retry_time = 30.0            # seconds a managed transaction keeps retrying

    def __init__(self, session, *, owner=None, target: str = ""):
        self._session = session
        self._owner = owner          # what to close with the connection (an embedded Database)
        self.target = target
        self._closed = False

    def _run(self, query: str, params, kwparams) -> Result:
        if params is None:
            params = kwparams
        elif kwparams:
            params = {**params, **kwparams}
        return Result(self._session.run(query, to_parameters(params)))

    def execute(self, query: str, params: Mapping[str, Any] | None = None, **kwparams) -> Result:
        """Run one statement; it auto-commits unless a transaction is open on this connection."""
        if self._closed:
            raise TransactionError("the connection is closed")
        return self._run(query, params, kwparams)

    def begin(self) -> Transaction:
        self._session.begin()
        return Transaction(self)

    def transaction(self) -> Transaction:
        """``with db.transaction() as tx: tx.execute(...)``."""
        return self.begin()

    def commit(self) -> None:
        self._session.commit()

    def rollback(self) -> None:
        self._session.rollback()

    def execute_write(self, work, *args, **kwargs):
        """Run ``work(tx, *args, **kwargs)`` in a transaction, retried on retryable errors only."""
        from .driver._sync.managed import run_managed
        return run_managed(self, work, args, kwargs, max_retry_time=self.max_retry_time)

    def execute_read(self, work, *args, **kwargs):
        """Like execute_write; for units of work that only read."""
        from .driver._sync.managed import run_managed
        return run_managed(self, work, args, kwargs, max_retry_time=self.max_retry_time)

    @property
    def in_transaction(self) -> bool:
        return self._session.in_transaction

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        try:
            if self._session.in_transaction:
                self._session.rollback()
        finally:
            self._session.close()
            if self._owner is not None:
                self._owner.close()

    @property
    def closed(self) -> bool:
        return self._closed

    def __enter__(self) -> "Connection":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
