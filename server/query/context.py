"""ExecContext: what every operator and compiled expression sees while a statement runs.

Cancellation rule: every loop that walks storage, a list, a range or a buffer counts its items through
``ctx.check()`` (one item) or walks ``checked(items, ctx)``; a loop over a source operator's rows needs
no check of its own, since each of those rows was counted where it was made. Every item counts against
one budget per statement, so nested loops cannot multiply the work done between two checks.
"""
from __future__ import annotations

import time
from contextlib import contextmanager
from datetime import datetime, timezone
from typing import Any, Callable, Iterator, Optional

from relate.protocol.errors import QueryTimeout, Terminated
from relate.protocol.summary import Counters

from ..inline import INLINE_UNTIL, OverInlineBudget

# check() looks at the clock only every this many calls: time.monotonic() is the costly part.
_CHECK_EVERY = 256
# ... and more often for a statement running on the server's event loop (a few ms budget, see inline.py)
_INLINE_CHECK_EVERY = 32
# checked() leaves lists up to this long alone and checks once per this many items of longer ones.
CHUNK = 1024


class Costs(dict):
    """The statement's {semanticCalls, llmCalls, apiCalls}; ``ai_used`` is set by any AI work (an
    embedding, a relevance search, even a cached one), so the server never runs it inline. ``log`` is
    the call log: one entry per model or API call, by purpose and source, never by the text sent."""
    ai_used = False
    log: tuple | list = ()   # the statement's own list is set by ExecContext (a summary holds it from the start)

    def spend(self, counter: str, purpose: str, source: str | None = None) -> dict:
        """Count one call on ``counter`` (when it is asked, so a failed call still counts) and log it;
        the entry is returned so the caller can mark it ``ok: False`` when the call fails."""
        self[counter] += 1
        entry = {"counter": counter, "purpose": purpose, "source": source, "ok": True}
        if type(self.log) is not list:      # a Costs made outside a statement: a list of its own
            self.log = []
        self.log.append(entry)
        return entry

    @contextmanager
    def call(self, counter: str, purpose: str, source: str | None = None) -> Iterator[dict]:
        """``spend`` around one call: its log entry says ``ok: False`` when the call raises."""
        entry = self.spend(counter, purpose, source)
        try:
            yield entry
        except BaseException:
            entry["ok"] = False
            raise


_NO_COSTS = {"semanticCalls": 0, "llmCalls": 0, "apiCalls": 0}    # copied per statement (cheaper than keywords)


class ExecContext:
    """Per-statement state: transaction, parameters, counters, statement clock and cancellation."""

    __slots__ = ("tx", "params", "db", "counters", "_now", "deadline", "cancelled", "_ticks",
                 "deleted_nodes", "deleted_rels", "pending_deletes", "touched_nodes", "touched_rels",
                 "writes", "commit_batch", "check_batch", "ai", "costs", "notifications", "scope",
                 "budget", "load_position", "load_progress", "visible", "memo", "_every", "principal",
                 "session")

    def __init__(self, tx, params: dict, db, *, deadline: float | None = None, scope: dict | None = None,
                 budget: Optional[dict] = None):
        self.tx = tx
        self.params = params
        self.db = db
        self.principal: str | None = None       # the logged-in user running the statement (None: embedded)
        self.session = None                     # the engine Session running it (tx.setMetaData), if any
        self.counters = Counters()
        self._now: datetime | None = None       # the statement's clock, read on first use (see now)
        self.deadline = deadline                # time.monotonic() value, or None
        self.cancelled = False                  # set from another thread by Session.cancel()
        self._every = _CHECK_EVERY if INLINE_UNTIL.get() is None else _INLINE_CHECK_EVERY
        self._ticks = self._every
        self.deleted_nodes: set[int] = set()    # deleted by this statement (access is an error)
        self.deleted_rels: dict[int, str] = {}  # id -> type: type(r) still answers after DELETE r (Neo4j)
        self.pending_deletes: dict[int, Any] = {}   # node id -> position of the DELETE, checked at the end
        self.touched_nodes: set[int] = set()    # created or changed: what constraints re-check
        self.touched_rels: set[int] = set()
        self.writes = False
        # CALL { ... } IN TRANSACTIONS and apoc.periodic.* commit each batch through this (set by the
        # engine for auto-commit updating statements; None elsewhere, where batches are not committed apart).
        self.commit_batch: Optional[Callable[[], None]] = None
        self.check_batch: Optional[Callable[[], None]] = None    # its checks alone (ON ERROR ...)
        # AI state (embedding cache, relevance searches) made on first use by relate.server.ai.statement;
        # costs and notifications are the summary's own dict/list, filled while the rows stream.
        self.ai = None
        self.costs = Costs(_NO_COSTS)
        self.costs.log = []
        self.notifications: list[dict] = []
        self.scope = {} if scope is None else scope   # the session's bound scope (user, context): never a parameter
        self.budget = budget                # the session's AI budget (relevance/costs.py)
        self.load_position: Optional[tuple[str, int]] = None   # (url, line) of LOAD CSV's current row
        self.load_progress = None           # LOAD CSV: the file being read (relate.server.load.progress)
        self.visible = None                 # (tx, node-id predicate) of declared labels' scope (relevance)
        self.memo: dict = {}                # per-statement values of parameter-only expressions (expressions.py)

    @property
    def now(self) -> datetime:
        """One clock reading per statement (most statements never read it: it costs ~0.2 us)."""
        now = self._now
        if now is None:
            now = self._now = datetime.now(timezone.utc)
        return now

    def check(self) -> None:
        """Raise Terminated or QueryTimeout when the statement was cancelled or ran out of time."""
        self._ticks -= 1
        if self._ticks > 0:
            return
        self._ticks = self._every
        self.check_now()

    def check_now(self) -> None:
        if self.cancelled:
            raise Terminated("the statement was terminated", phase="runtime")
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise QueryTimeout("the statement ran past its timeout", phase="runtime")
        until = INLINE_UNTIL.get()
        if until is not None:
            if time.monotonic() > until:
                raise OverInlineBudget("the statement outlived its budget on the event loop", phase="runtime")
        elif self._every != _CHECK_EVERY:
            self._every = _CHECK_EVERY          # its remaining rows stream on the session thread

    def charge(self, n: int) -> None:
        """Count ``n`` items of work at once (a list about to be walked); check when they use up the budget."""
        self._ticks -= n
        if self._ticks <= 0:
            self._ticks = self._every
            self.check_now()

    def cancel(self) -> None:
        """Called from another thread: the next check() raises Terminated."""
        self.cancelled = True
        self._ticks = 1


def checked(items, ctx):
    """``items`` (a list or range) to walk, counted against the budget; long ones in checked chunks."""
    if ctx is None:                      # constant folding at plan time
        return items
    try:
        n = len(items)
    except OverflowError:                # a range longer than sys.maxsize
        n = CHUNK + 1
    if n <= CHUNK:
        ctx.charge(n)
        return items
    return _in_checked_chunks(items, ctx)


def _in_checked_chunks(items, ctx):
    charge = ctx.charge
    start = 0
    while True:
        chunk = items[start:start + CHUNK]
        if not chunk:
            return
        charge(CHUNK)
        yield from chunk
        start += CHUNK
