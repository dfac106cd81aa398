"""The user-facing API shared by embedded and network modes: Connection, Transaction, Result.

Both modes plug a *session backend* under these classes. A backend session has
``run(query, params) -> backend result``, ``begin(read_only)``, ``commit()``, ``rollback()``,
``in_transaction`` and ``close()``; a backend result has ``columns``, ``fetch(n) -> list[tuple]``
(empty when exhausted), ``consume() -> Summary``, ``summary`` (None until exhausted) and ``close()``.
"""
from __future__ import annotations

from typing import Any, Iterator, Mapping

from relate.protocol.conversion import to_parameters

from .errors import ClientError, ResultConsumedError, ResultNotSingleError, TransactionError
from .summary import Summary
from .values import Row, row_class

_BATCH = 1000


def _get(row: Row, key: int | str, default: Any) -> Any:
    try:
        return row[key]
    except (KeyError, IndexError):
        return default


class Result:
    """Rows of one statement; they stream from the backend in batches as you read them.

    Rows can be read once: iterating a result whose rows were all read (or that was consumed or
    closed) raises ResultConsumedError, and so does reading rows after its connection was closed,
    in embedded and network modes alike."""

    def __init__(self, backend_result, connection: "Connection | None" = None):
        self._backend = backend_result
        self._connection = connection
        self.columns: list[str] = list(backend_result.columns)
        self._row = row_class(self.columns)
        self._buffer: list[tuple] = []
        self._pos = 0
        self._done = False
        self._consumed = False       # every row was handed out, or consume()/close() was called

    def _check_open(self) -> None:
        connection = self._connection
        if connection is not None and connection._closed and not self._consumed:
            raise ResultConsumedError("the connection was closed: this result's remaining rows are gone "
                                      "(read them before closing it)")

    def _fill(self, want: int) -> bool:
        if self._done:
            return False
        self._check_open()
        batch = self._backend.fetch(max(want, _BATCH))
        if not batch:
            self._done = True
            return False
        if self._pos:
            self._buffer = self._buffer[self._pos:]
            self._pos = 0
        self._buffer.extend(batch)
        return True

    def _check_unread(self) -> None:
        if self._consumed:
            raise ResultConsumedError("the result was already read to the end or consumed; "
                                      "run the statement again, or keep the rows (fetchall())")

    def __iter__(self) -> Iterator[Row]:
        self._check_unread()
        return self._rows()

    def _rows(self) -> Iterator[Row]:
        make = self._row
        connection = self._connection
        while True:
            if self._pos >= len(self._buffer):
                self._buffer, self._pos = [], 0
                if not self._fill(_BATCH):
                    self._consumed = True
                    return
            if connection is not None and connection._closed:
                self._check_open()
            row = self._buffer[self._pos]
            self._pos += 1
            yield make(row)

    def keys(self) -> list[str]:
        """The column names."""
        return list(self.columns)

    def peek(self) -> Row | None:
        """The next row without consuming it; None when there is none."""
        self._check_open()
        if self._pos >= len(self._buffer):
            self._buffer, self._pos = [], 0
            if not self._fill(1):
                return None
        return self._row(self._buffer[self._pos])

    def fetchone(self) -> Row | None:
        self._check_open()
        if self._pos >= len(self._buffer):
            self._buffer, self._pos = [], 0
            if not self._fill(1):
                return None
        row = self._buffer[self._pos]
        self._pos += 1
        return self._row(row)

    def fetchmany(self, size: int = 100) -> list[Row]:
        self._check_open()
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
        if self._consumed:
            self._check_unread()
        connection = self._connection
        if connection is not None and connection._closed:
            self._check_open()
        # Whole buffers at a time (not a row at a time through the iterator): most results fit one.
        make = self._row
        out = list(map(make, self._buffer[self._pos:])) if self._buffer else []
        self._buffer, self._pos = [], 0
        backend = self._backend
        while not self._done:
            if connection is not None and connection._closed:
                self._check_open()
            batch = backend.fetch(_BATCH)
            out.extend(map(make, batch))
            # a short batch with the summary in: the rows ran out (no empty fetch to learn it)
            if len(batch) < _BATCH and (not batch or backend.summary is not None):
                self._done = True
        self._consumed = True
        return out

    def single(self, strict: bool = True) -> Row | None:
        """The one and only row. Strict (the default): ResultNotSingleError unless exactly one row;
        ``strict=False``: None for no row, the first row (the rest discarded) for several."""
        rows = self.fetchmany(2)
        if len(rows) != 1:
            if strict:
                what = "no row" if not rows else "more than one row"
                self.consume()
                raise ResultNotSingleError(f"expected exactly one row, got {what}")
            self.consume()
            return rows[0] if rows else None
        if self.peek() is not None:
            self.consume()
            if strict:
                raise ResultNotSingleError("expected exactly one row, got more than one row")
        return rows[0]

    def value(self, key: int | str = 0, default: Any = None) -> list[Any]:
        """One column of every remaining row (by index or name); ``default`` where a row lacks it."""
        return [_get(row, key, default) for row in self]

    def values(self, *keys: int | str) -> list[list[Any]]:
        """All remaining rows as plain lists (only ``keys`` when given)."""
        if keys:
            return [[_get(row, key, None) for key in keys] for row in self]
        return [list(row) for row in self]

    def data(self, *keys: str) -> list[dict[str, Any]]:
        """All remaining rows as dicts keyed by column name (only ``keys`` when given)."""
        if keys:
            return [{key: _get(row, key, None) for key in keys} for row in self]
        return [row.as_dict() for row in self]

    @property
    def summary(self) -> Summary:
        """The statement's summary; reading it discards rows not yet fetched."""
        summary = self._backend.summary
        if summary is None:
            self._check_open()
            summary = self._backend.consume()
            self._done = True
        self._consumed = True
        self._buffer, self._pos = [], 0
        return summary

    def consume(self) -> Summary:
        return self.summary

    def to_arrow(self, batch_rows: int = 10_000):
        """The remaining rows as a pyarrow Table, built batch by batch as they stream (see arrow.py)."""
        from .arrow import to_table
        return to_table(self.columns, list(self.iter_arrow_batches(batch_rows)))

    def iter_arrow_batches(self, batch_rows: int = 10_000):
        """The remaining rows as pyarrow RecordBatches of ``batch_rows`` rows, one at a time."""
        from .arrow import record_batches
        return record_batches(self.columns, iter(lambda: self.fetchmany(batch_rows), []), batch_rows)

    def to_df(self):
        """The remaining rows as a pandas DataFrame, converted from ``to_arrow()`` (types kept)."""
        return self.to_arrow().to_pandas()

    def close(self) -> None:
        self._backend.close()
        self._done = self._consumed = True
        self._buffer, self._pos = [], 0

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
        return Result(self._session.run(query, to_parameters(params)), self)

    def execute(self, query: str, params: Mapping[str, Any] | None = None, **kwparams) -> Result:
        """Run one statement; it auto-commits unless a transaction is open on this connection."""
        if self._closed:
            raise TransactionError("the connection is closed")
        return self._run(query, params, kwparams)

    def executescript(self, script: str, params: Mapping[str, Any] | None = None) -> list[Summary]:
        """Run every ``;``-separated statement of ``script`` in order (a ``;`` inside a string or a
        comment ends nothing), each as ``execute`` would; stops at the first error. Returns the summaries."""
        if self._closed:
            raise TransactionError("the connection is closed")
        from .shell.statements import split_statements      # the shell's splitter (no UI imports)
        summaries = []
        for piece in split_statements(script):
            if piece.kind != "cypher":
                raise ClientError(f"line {piece.line}: {piece.text.strip()!r} is a shell command, not Cypher")
            summaries.append(self._run(piece.text, params, {}).consume())
        return summaries

    def begin(self, *, read_only: bool = False) -> Transaction:
        """Open a transaction; ``read_only=True`` makes it a READ one, whose writing statements raise
        AccessModeError (as ``execute_read``'s do)."""
        self._session.begin(read_only)
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
        """Like execute_write, in a READ transaction: a statement that writes raises AccessModeError."""
        from .driver._sync.managed import run_managed
        return run_managed(self, work, args, kwargs, max_retry_time=self.max_retry_time, read_only=True)

    @property
    def in_transaction(self) -> bool:
        return self._session.in_transaction

    def progress(self) -> dict[str, Any] | None:
        """How far this connection's running statement has got, from another thread (the shell's
        progress bar): ``{operation, url, line, bytesRead, bytesTotal, percent}`` while a LOAD CSV
        reads a file, else None."""
        return self._session.progress()

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
