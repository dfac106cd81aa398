"""ExplicitTx: a session's explicit transaction, which reads from a snapshot until its first write.

A transaction that only reads never holds the storage writer lock, so it never blocks writers. Its
first write takes the lock (waiting for the current writer). If the transaction has already read and
another one committed since its snapshot, writing now could build on what it read stale (snapshot
isolation would allow a lost update), so the write fails instead with a retryable TransientError
(``Neo.TransientError.Transaction.Outdated``): the transaction is over; roll it back and run it again.
"""
from __future__ import annotations

from typing import Optional

from relate.protocol.errors import RelateError, Terminated, TransientError

OUTDATED = "Neo.TransientError.Transaction.Outdated"


class ExplicitTx:
    """``tx`` is a ReadTx until ``writer()`` swaps in the WriteTx; ``catalog`` is the schema as this
    transaction changed it (None while unchanged)."""

    __slots__ = ("_store", "tx", "writing", "has_read", "failure", "catalog")

    def __init__(self, store):
        self._store = store
        self.tx = store.begin_read()
        self.writing = False
        self.has_read = False                  # a statement ran on the snapshot
        self.failure: Optional[RelateError] = None
        self.catalog = None

    def require_usable(self) -> None:
        """Raise when the transaction already failed for good (only rollback clears it)."""
        if isinstance(self.failure, Terminated):
            raise Terminated(f"{self.failure.message}; roll it back")
        if self.failure is not None:
            raise TransientError(f"{self.failure.message}; roll it back and run it again", code=OUTDATED)

    def reader(self):
        """The transaction a read-only statement runs on."""
        self.require_usable()
        self.has_read = True
        return self.tx

    def writer(self, begin_write=None):
        """The WriteTx: taken at the first write, unless that would write on top of stale reads.
        ``begin_write`` (default the store's) takes the writer lock; the engine passes a cancellable one."""
        self.require_usable()
        if self.writing:
            return self.tx
        snapshot = self.tx
        writer = (begin_write or self._store.begin_write)()
        if self.has_read and writer.ts != snapshot.ts:
            writer.rollback()
            snapshot.close()
            self.failure = TransientError(
                "The transaction read data that another transaction has changed since; it cannot write "
                "on top of those reads", code=OUTDATED)
            raise self.failure
        snapshot.close()
        self.tx, self.writing = writer, True
        return writer

    def commit(self) -> int:
        """Commit the writes (if any); returns the commit timestamp (the snapshot's, for a reader)."""
        self.require_usable()
        if self.writing:
            return self.tx.commit()
        self.tx.close()
        return self.tx.ts

    def rollback(self) -> None:
        if self.failure is not None and not isinstance(self.failure, Terminated):
            return                              # already released when it failed (outdated reads)
        if self.writing:
            self.tx.rollback()
        else:
            self.tx.close()
