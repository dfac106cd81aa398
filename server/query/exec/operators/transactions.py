"""CALL { ... } IN TRANSACTIONS: the subquery runs in batches of input rows, each committed on its own.

ON ERROR FAIL (the default) streams: a failure rolls back the batch it happens in and ends the statement
(earlier batches stay committed). ON ERROR CONTINUE / BREAK / RETRY hold a batch's output rows until the
batch passed its checks, so that a failed batch can be rolled back and its rows sent on with the
subquery's columns null: CONTINUE goes on with the next batch, BREAK starts no more (their rows pass
with nulls too), RETRY runs a batch again after a transient error (for up to ``FOR n SECONDS``, 30 by
default) and then does what its THEN says. ``REPORT STATUS AS s`` gives every row its batch's status:
``{started, committed, transactionId, errorMessage}``.
"""
from __future__ import annotations

import itertools
import time

from relate.protocol.errors import (ArgumentError, CypherTypeError, QueryTimeout, RelateError, Terminated,
                                    TransientError)

from ....inline import MustNotWait
from .subplans import Apply

DEFAULT_BATCH_ROWS = 1000       # Neo4j's default for IN TRANSACTIONS without OF n ROWS
DEFAULT_RETRY_S = 30.0          # Neo4j's default for ON ERROR RETRY without FOR n SECONDS
RETRY_PAUSE_S = (0.01, 0.5)     # first and largest pause between two tries of a batch
_transaction_ids = itertools.count(1)


def _recoverable(exc: BaseException) -> bool:
    """An error of the batch's own work, which ON ERROR handles; a statement that was stopped (timed
    out, terminated, or moved off the event loop) stops whatever ON ERROR says."""
    return isinstance(exc, RelateError) and not isinstance(exc, (Terminated, QueryTimeout, MustNotWait))


def batch_rows(fn, ctx, arg) -> int:
    """The n of ``OF n ROWS``: a positive integer."""
    if fn is None:
        return DEFAULT_BATCH_ROWS
    value = fn(arg, ctx)
    if type(value) is not int or value < 1:
        raise ArgumentError(f"OF ... ROWS: {value!r} is not a valid value, it must be a positive integer",
                            detail="InvalidArgumentType" if type(value) is not int else "NumberOutOfRange",
                            phase="runtime")
    return value


def retry_seconds(fn, ctx, arg) -> float:
    """The n of ``RETRY FOR n SECONDS``: a number >= 0."""
    if fn is None:
        return DEFAULT_RETRY_S
    value = fn(arg, ctx)
    if type(value) not in (int, float) or value != value or value < 0:
        raise CypherTypeError(f"ON ERROR RETRY FOR ...: {value!r} is not a valid duration, it must be a "
                              "number of seconds (0 or more)", detail="InvalidArgumentType", phase="runtime")
    return float(value)


def _status(started: bool, committed: bool, transaction_id: str | None, error: str | None) -> dict:
    return {"started": started, "committed": committed, "transactionId": transaction_id, "errorMessage": error}


_NOT_STARTED = _status(False, False, None, None)


class TransactionApply(Apply):
    """CALL { ... } IN TRANSACTIONS [OF n ROWS] [ON ERROR ...] [REPORT STATUS AS s]."""
    __slots__ = ("batch", "on_error", "retry_for", "retry_then", "status")
    name = "TransactionApply"

    def __init__(self, source, inner, imports, columns, unit, optional, batch, on_error="FAIL", retry_for=None,
                 retry_then="FAIL", status=None):
        super().__init__(source, inner, imports, columns, unit, optional)
        self.batch, self.on_error, self.retry_for, self.retry_then, self.status = \
            batch, on_error, retry_for, retry_then, status

    def details(self):
        columns = ", ".join(self.columns)
        if self.on_error == "FAIL":
            return columns
        mode = f"ON ERROR {self.on_error}" + (f" THEN {self.retry_then}" if self.on_error == "RETRY" else "")
        return f"{columns}, {mode}" if columns else mode

    def rows(self, ctx, arg):
        size = batch_rows(self.batch, ctx, arg)
        if self.on_error == "FAIL":
            yield from self._streamed(ctx, arg, size)
            return
        retry_s = retry_seconds(self.retry_for, ctx, arg) if self.on_error == "RETRY" else 0.0
        broken = False
        batch: list = []
        for row in self.source.rows(ctx, arg):
            batch.append(row)
            if len(batch) == size:
                outputs, broken = self._batch(ctx, batch, broken, retry_s)
                batch = []
                yield from outputs
                self._commit(ctx)
        if batch:
            outputs, broken = self._batch(ctx, batch, broken, retry_s)
            yield from outputs

    def _streamed(self, ctx, arg, size):
        """ON ERROR FAIL: rows go downstream as they come; writes made for them there commit with the batch."""
        commit = ctx.commit_batch            # None: not an auto-commit write, nothing to commit apart
        pending = 0
        for row in self.source.rows(ctx, arg):
            yield from self.apply(ctx, row)
            pending += 1
            if pending == size:
                pending = 0
                if commit is not None:
                    commit()

    @staticmethod
    def _commit(ctx) -> None:
        if ctx.commit_batch is not None:
            ctx.commit_batch()

    def _batch(self, ctx, rows: list, broken: bool, retry_s: float) -> tuple[list, bool]:
        """One batch's output rows (the subquery's, or the input rows with its columns null when the
        batch failed or was not started), and whether later batches must not start (BREAK)."""
        if broken:
            return self._nulls(rows, _NOT_STARTED), True
        transaction_id = f"relate-transaction-{next(_transaction_ids)}"
        deadline = time.monotonic() + retry_s
        pause = RETRY_PAUSE_S[0]
        while True:
            mark = _Mark(ctx)
            try:
                outputs = [out for row in rows for out in self.apply(ctx, row)]
                if ctx.check_batch is not None:
                    ctx.check_batch()        # constraints and deletes, as the commit would check them
            except Exception as exc:
                if not _recoverable(exc):
                    raise
                mark.rollback(ctx)
                if self.on_error == "RETRY" and isinstance(exc, TransientError) and time.monotonic() < deadline:
                    time.sleep(min(pause, max(0.0, deadline - time.monotonic())))
                    pause = min(pause * 2, RETRY_PAUSE_S[1])
                    continue
                final = self.retry_then if self.on_error == "RETRY" else self.on_error
                if final == "FAIL":
                    raise
                failed = _status(True, False, transaction_id, getattr(exc, "message", None) or str(exc))
                return self._nulls(rows, failed), final == "BREAK"
            if self.status is not None:
                for out in outputs:       # a map per row: rows reach users, who may change what they get
                    out[self.status] = _status(True, True, transaction_id, None)
            return outputs, False

    def _nulls(self, rows: list, status: dict) -> list:
        """The input rows with the subquery's columns null (and the batch's status)."""
        outputs = []
        for row in rows:
            out = dict(row)
            for name in self.columns:
                out[name] = None
            if self.status is not None:
                out[self.status] = dict(status)
            outputs.append(out)
        return outputs


class BatchMark:
    """What a failed batch must undo: the transaction's writes (a savepoint, when it writes) and the
    statement's counters."""
    __slots__ = ("savepoint", "counters")

    def __init__(self, ctx, writable: bool):
        self.savepoint = ctx.tx.savepoint() if writable else None
        self.counters = dict(ctx.counters)

    def rollback(self, ctx) -> None:
        if self.savepoint is not None:
            ctx.tx.rollback_to(self.savepoint)
        ctx.counters.clear()
        ctx.counters.update(self.counters)


class _Mark(BatchMark):
    """A CALL IN TRANSACTIONS batch's mark; its rollback also forgets what the batch left to check."""
    __slots__ = ()

    def __init__(self, ctx):
        super().__init__(ctx, ctx.commit_batch is not None)

    def rollback(self, ctx) -> None:
        super().rollback(ctx)
        ctx.pending_deletes.clear()
        ctx.touched_nodes.clear()
        ctx.touched_rels.clear()
        ctx.writes = False
