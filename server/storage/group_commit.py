"""Group commit: committers wait for durability together; one of them (the leader) fsyncs the WAL
once for every record written so far, publishes those commits to new snapshots and runs the commit
listeners in commit order, then wakes the rest.
"""
from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Callable

from relate.protocol.errors import DatabaseError

if TYPE_CHECKING:
    from .versions import Change

    # (commit_ts, changes) of one commit waiting for durability.
    Pending = tuple[int, list[Change]]


class GroupCommit:
    """Orders and batches the durability step of commits (records are already in the WAL file)."""

    def __init__(self, sync: Callable[[], None] | None, publish: Callable[[list[Pending]], None]):
        self._sync = sync                    # fsync of the WAL, or None (in memory / sync=False)
        self._publish = publish              # publish(batch of (commit_ts, changes)), in order
        self._cond = threading.Condition(threading.Lock())
        self._queued: list[Pending] = []
        self._durable_ts = 0
        self._flushing = False
        self.failure: BaseException | None = None

    def reset(self, ts: int) -> None:
        self._durable_ts = ts

    def enqueue(self, commit_ts: int, changes: list[Change]) -> None:
        """Register a commit whose record was just written (called under the writer lock)."""
        with self._cond:
            self._queued.append((commit_ts, changes))

    def wait(self, commit_ts: int) -> None:
        """Return once ``commit_ts`` and every earlier commit are durable and published."""
        cond = self._cond
        with cond:
            while self._durable_ts < commit_ts:
                if self.failure is not None:
                    raise DatabaseError(_unsynced(self.failure)) from self.failure
                if self._flushing:
                    cond.wait()
                    continue
                self._flushing = True
                batch, self._queued = self._queued, []
                cond.release()
                try:
                    self._flush(batch)
                finally:
                    cond.acquire()
                    self._flushing = False
                    cond.notify_all()

    def _flush(self, batch: list[Pending]) -> None:
        try:
            if self._sync is not None and batch:
                self._sync()
        except BaseException as exc:
            self.failure = exc
            raise DatabaseError(_unsynced(exc)) from exc
        if batch:
            self._publish(batch)
            self._durable_ts = batch[-1][0]


def _unsynced(exc: BaseException) -> str:
    """What a committer is told after a failed fsync: the record was written, so whether it survives is
    not known (it may be there after a restart); the store takes no more writes until it is reopened."""
    return (f"the WAL could not be synced ({exc}): this commit's outcome is unknown (it may be durable after "
            "a restart); the database accepts no more writes until it is reopened")
