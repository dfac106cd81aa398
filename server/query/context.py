"""ExecContext: what every operator and compiled expression sees while a statement runs."""
from __future__ import annotations

import time
from datetime import datetime, timezone
from typing import Any

from relate.errors import QueryTimeout, Terminated
from relate.summary import Counters

# check() looks at the clock only every this many calls: time.monotonic() is the costly part.
_CHECK_EVERY = 256


class ExecContext:
    """Per-statement state: transaction, parameters, counters, statement clock and cancellation."""

    __slots__ = ("tx", "params", "db", "counters", "now", "deadline", "cancelled", "_ticks",
                 "deleted_nodes", "deleted_rels", "pending_deletes", "touched_nodes", "touched_rels",
                 "writes")

    def __init__(self, tx, params: dict, db, *, deadline: float | None = None):
        self.tx = tx
        self.params = params
        self.db = db
        self.counters = Counters()
        self.now = datetime.now(timezone.utc)   # one clock reading per statement
        self.deadline = deadline                # time.monotonic() value, or None
        self.cancelled = False                  # set from another thread by Session.cancel()
        self._ticks = _CHECK_EVERY
        self.deleted_nodes: set[int] = set()    # deleted by this statement (access is an error)
        self.deleted_rels: set[int] = set()
        self.pending_deletes: dict[int, Any] = {}   # node id -> position of the DELETE, checked at the end
        self.touched_nodes: set[int] = set()    # created or changed: what constraints re-check
        self.touched_rels: set[int] = set()
        self.writes = False

    def check(self) -> None:
        """Raise Terminated or QueryTimeout when the statement was cancelled or ran out of time."""
        self._ticks -= 1
        if self._ticks > 0:
            return
        self._ticks = _CHECK_EVERY
        self.check_now()

    def check_now(self) -> None:
        if self.cancelled:
            raise Terminated("the statement was terminated", phase="runtime")
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise QueryTimeout("the statement ran past its timeout", phase="runtime")
