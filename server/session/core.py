"""SessionCore: one client session's state machine over an engine session.

It receives decoded request messages, enforces ``relate.protocol.states``, runs engine calls on the
session's own thread, streams PULL n rows through the ``ReplySink`` (which applies backpressure), and
stops running work on RESET, on a dropped connection or at the query deadline.
"""
from __future__ import annotations

import asyncio
import re
import time
from typing import Any, Protocol

import structlog

from relate.protocol.errors import (AuthenticationError, ClientConfiguredTimeout, DatabaseError, ProtocolError,
                                    QueryTimeout, RelateError, Terminated)
from relate.protocol import ProtocolViolation
from relate.protocol import messages as m
from relate.protocol.secrets import redact
from relate.protocol.states import IGNORING_STATES, State, server_transition

from ..inline import INLINE_UNTIL, ON_LOOP, MustNotWait, OverInlineBudget
from . import bookmarks
from .worker import SessionWorker

SERVER_AGENT = "Relate/0.1.0"
SLOW_QUERY_S = 1.0
# Inline statements: an auto-commit read that ran to its summary in under INLINE_MAX_S of CPU runs on
# the event loop thread from then on, instead of hopping to the session thread and back (a hop costs
# ~50-100 us where idle vCPUs poll, ~1 ms measured for a 1.2 ms vector search on a 2-vCPU VM that halts
# them: two cross-thread wake-ups of cold CPUs; so statements up to 2 ms qualify), until a run takes INLINE_DEMOTE_S of CPU or more (CPU time,
# and the gap, keep a busy machine's preemptions from flapping it). A run still going after
# INLINE_BUDGET_S (wall clock) stops at its next check (OverInlineBudget, relate.server.inline) and runs
# again on the session thread: no watchdog thread, whose wake-ups would compete for the GIL.
# Procedures never run inline: they may wait on other threads where cancellation cannot reach. An
# index search may: a step that would wait (a model call, an index populating, catching up on commits,
# locked by a writer, or remote) raises MustNotWait on the loop, and the statement runs on the session
# thread instead (relate.server.inline); its next runs go there directly (1, 2, 4, ... up to
# INLINE_HOLD_MAX of them in a row), so a statement that always meets such a step does not run twice.
READ_MODE = "r"            # RUN's / BEGIN's ``mode``: a READ transaction (writing statements are refused)
INLINE_MAX_S = 0.002
INLINE_DEMOTE_S = 0.003
INLINE_BUDGET_S = 0.005
INLINE_MEMO_SIZE = 512
INLINE_HOLD_MAX = 64
_NOT_INLINE = re.compile(r"\b(CALL|LOAD|PROFILE|EXPLAIN|USE)\b", re.IGNORECASE)
_log = structlog.get_logger("relate.session")


class ReplySink(Protocol):
    """Where the core's replies go; the transport encodes them."""

    async def success(self, metadata: dict) -> None: ...
    async def records(self, rows: list) -> None: ...   # returns once the peer can take more
    async def failure(self, metadata: dict) -> None: ...
    async def ignored(self) -> None: ...


class _Interrupted(Exception):
    """The request was cut short by a RESET; it is answered IGNORED."""


class _OpenResult:
    __slots__ = ("result", "deadline", "query", "started", "prefetched")

    def __init__(self, result, deadline: float | None, query: str, started: float, prefetched=None):
        self.result = result
        self.deadline = deadline
        self.query = query
        self.started = started
        self.prefetched = prefetched     # (rows, summary, error) fetched along with the RUN


def _fetch(result, n: int) -> tuple[list, Any]:
    """Up to n rows; the summary too once the result is exhausted (one thread hop per batch)."""
    rows = list(result.fetch(n))
    while len(rows) < n:
        more = result.fetch(n - len(rows))
        if not more:
            return rows, result.summary or result.consume()
        rows.extend(more)
    return rows, None


def _metadata(extra: dict) -> dict:
    """The transaction metadata a driver sent with BEGIN or an auto-commit RUN (SHOW TRANSACTIONS)."""
    found = extra.get("tx_metadata")
    return dict(found) if isinstance(found, dict) else {}


def _run_prefetch(session, query: str, params: dict, n: int):
    """RUN and the first batch of the PULL pipelined behind it, in one thread hop. A failure while
    fetching is kept for the PULL, so errors surface where they would in embedded mode."""
    result = session.run(query, params)
    try:
        rows, summary = _fetch(result, n)
    except Exception as exc:
        return result, ([], None, exc)
    return result, (rows, summary, None)


def _timed_prefetch(session, query: str, params: dict, n: int):
    """``_run_prefetch`` on the session thread, with the seconds it took (to learn cheap statements)."""
    started, cpu = time.perf_counter(), time.thread_time()
    result, prefetched = _run_prefetch(session, query, params, n)
    return result, prefetched, time.perf_counter() - started, time.thread_time() - cpu


def _skip(result, n: int) -> Any:
    """Drop up to n rows; the summary when that exhausts the result."""
    if n == m.ALL:
        return result.consume()
    rows, summary = _fetch(result, n)
    return summary


class SessionCore:
    def __init__(self, database, authenticator, *, connection_id: str, peer: str,
                 query_timeout: float | None = None, batch_size: int = 1000, transition=server_transition):
        self._db = database
        # The protocol's state table (its connection object's ``transition``): the native one by
        # default; another protocol (Bolt) plugs in its own without touching the engine.
        self._transition = transition
        self._auth = authenticator
        self.connection_id = connection_id
        self.peer = peer
        self._query_timeout = query_timeout
        self._batch = batch_size
        self._state = State.CONNECTED
        self._engine = None                    # engine session, opened by LOGON
        self._worker = SessionWorker(f"relate-{connection_id}")
        self._results: dict[int, _OpenResult] = {}
        self._next_qid = 0
        self._last_qid = m.LAST_QUERY
        self._tx_deadline: float | None = None
        self._pending_resets = 0
        self._protocol_failure = False         # FAILED by a violation: ACK_FAILURE is not enough
        self._running = False                  # an engine call is in flight on the worker
        self._cheap: dict[str, bool] = {}      # query text -> its last run was a cheap complete read
        self._held: dict[str, tuple[int, int]] = {}   # query text -> (runs left off the loop, streak)
        self._timed_out = False
        self._client_limited = False           # the last deadline was the client's tx_timeout
        self._closed = False
        self.user: str | None = None
        self.slow_query_s = SLOW_QUERY_S
        self.busy = False                      # inside handle(): used by the drain on shutdown
        self._left = asyncio.Event()           # set by abort(): the client is gone
        self._log = _log.bind(conn=connection_id, peer=peer)
        self._handlers = {m.HELLO: self._hello, m.LOGON: self._logon, m.RUN: self._run, m.PULL: self._pull,
                          m.DISCARD: self._discard, m.BEGIN: self._begin, m.COMMIT: self._commit,
                          m.ROLLBACK: self._rollback, m.RESET: self._reset, m.ACK_FAILURE: self._ack_failure,
                          m.GOODBYE: self._goodbye}

    @property
    def state(self) -> State:
        if self._pending_resets and self._state is not State.DEFUNCT:
            return State.INTERRUPTED
        return self._state

    def _in_tx(self) -> bool:
        return self._engine is not None and self._engine.in_transaction

    # -- entry points for the transport ---------------------------------------------------------

    async def handle(self, message, out: ReplySink, next_request=None) -> None:
        """Process one request and send its replies. ``next_request`` (already received) lets a RUN
        fetch the first rows of the PULL that follows it in the same engine call."""
        state = self.state
        transition = self._transition(state, message.signature)
        if transition is not None and message.signature == m.ACK_FAILURE and self._protocol_failure:
            transition = None                  # after a protocol violation only RESET clears FAILED
        if transition is None:
            if state in IGNORING_STATES:
                await out.ignored()
            else:
                await self.reject(ProtocolViolation(
                    f"{type(message).__name__.upper()} cannot be handled by a session in the {state.value} state"), out)
            return
        self.busy = True
        try:
            if message.signature == m.RUN:
                await self._run(message, out, next_request)
            else:
                await self._handlers[message.signature](message, out)
        except Exception as exc:
            await self._fail(exc, message, out)
            self._state = transition.failure
        else:
            if self._state is not State.DEFUNCT:
                self._state = transition.after(True, streaming=bool(self._results), in_tx=self._in_tx())
        finally:
            self.busy = False

    async def reject(self, violation: ProtocolViolation, out: ReplySink) -> None:
        """A malformed or misplaced request: FAILURE, then FAILED (DEFUNCT before authentication)."""
        if self.state in IGNORING_STATES:
            await out.ignored()
            return
        self._log.info("protocol violation", error=violation.message)
        await out.failure(violation.to_metadata())
        self._protocol_failure = True
        self._state = State.FAILED if self._engine is not None and not violation.fatal else State.DEFUNCT

    async def logoff(self, out: ReplySink) -> None:
        """Bolt's LOGOFF (from READY): close the engine session; a new LOGON may follow."""
        if self._engine is not None:
            await self._worker.call(self._close_engine)
        self._engine, self.user = None, None
        self._state = State.AUTHENTICATION
        await out.success({})

    def interrupt(self) -> None:
        """A RESET was received (it is queued behind earlier requests): stop what runs now.
        Before login nothing runs, and a RESET there is checked against the state table like any
        request (it must neither reach READY nor turn a pipelined HELLO/LOGON into IGNORED)."""
        if self._engine is None:
            return
        self._pending_resets += 1
        self._cancel_running()

    def abort(self) -> None:
        """The connection dropped: stop what runs now."""
        self._left.set()
        if self._engine is None:          # before login: nothing runs, nothing queued may proceed
            self._state = State.DEFUNCT
            return
        self._pending_resets += 1
        self._cancel_running()

    async def close(self) -> None:
        """Release everything: running work, open results, the transaction, the engine session."""
        if self._closed:
            return
        self._closed = True
        self._state = State.DEFUNCT
        self._cancel_running()
        try:
            if self._engine is not None:
                try:
                    await self._worker.call(self._close_engine)
                except Exception:
                    self._log.exception("closing the engine session failed")
        finally:
            self._worker.close()            # even when cancelled: the thread must not outlive us

    # -- engine calls ---------------------------------------------------------------------------

    def _cancel_running(self) -> None:
        if self._running and self._engine is not None:
            self._engine.cancel()

    def _on_deadline(self) -> None:
        self._timed_out = True
        self._cancel_running()

    async def _call(self, fn, *args, deadline: float | None = None):
        """Run an engine call on the session thread, cancelling it at ``deadline`` (monotonic)."""
        if self._pending_resets:
            raise _Interrupted()
        timer = None
        if deadline is not None:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise QueryTimeout(f"The query exceeded the time limit of {self._limit_text(deadline)}")
            timer = asyncio.get_running_loop().call_later(remaining, self._on_deadline)
        self._running, self._timed_out = True, False
        if self._engine is not None:
            self._engine.clear_cancel()     # here, on the thread that cancels: no cancel falls between
        try:
            return await self._worker.call(fn, *args)
        except Terminated:
            if self._timed_out:
                raise QueryTimeout("The query was terminated: it ran longer than its time limit") from None
            if self._pending_resets:
                raise _Interrupted() from None
            raise
        finally:
            self._running = False
            if timer is not None:
                timer.cancel()

    def _limit_text(self, deadline: float) -> str:
        return f"{self._query_timeout:g} s" if self._query_timeout else "the transaction"

    def _deadline(self, extra: dict) -> float | None:
        client = _seconds(extra.get("tx_timeout"))
        limits = [t for t in (self._query_timeout, client) if t]
        deadline = time.monotonic() + min(limits) if limits else None
        # whose limit binds: the client's (RUN's or BEGIN's tx_timeout) gets Neo4j's own timeout code
        self._client_limited = bool(client) and (not self._query_timeout or client <= self._query_timeout)
        if self._tx_deadline is not None and self._in_tx():
            if deadline is None or self._tx_deadline <= deadline:
                self._client_limited = True
            deadline = self._tx_deadline if deadline is None else min(deadline, self._tx_deadline)
        return deadline

    def _close_engine(self) -> None:
        for open_result in self._results.values():
            open_result.result.close()
        self._results.clear()
        try:
            if self._engine.in_transaction:
                self._engine.rollback()
        finally:
            self._engine.close()

    def _close_results(self) -> None:
        for open_result in self._results.values():
            open_result.result.close()
        self._results.clear()

    # -- failures -------------------------------------------------------------------------------

    async def _fail(self, exc: Exception, message, out: ReplySink) -> None:
        if isinstance(exc, _Interrupted) or (self._pending_resets and isinstance(exc, Terminated)):
            await out.ignored()
            return
        if isinstance(exc, RelateError):
            error = exc
            if type(exc) is QueryTimeout and self._client_limited:
                error = ClientConfiguredTimeout(exc.message, phase=exc.phase)
        elif isinstance(exc, ProtocolViolation):
            error = ProtocolError(exc.message)
        else:
            self._log.error("request failed unexpectedly", request=type(message).__name__, exc_info=exc)
            error = DatabaseError(f"{type(exc).__name__}: {exc}")
        if isinstance(message, (m.Pull, m.Discard)):
            # A result that failed mid-stream is gone; close it so its snapshot is released.
            qid = self._last_qid if message.qid == m.LAST_QUERY else message.qid
            failed = self._results.pop(qid, None)
            if failed is not None:
                await self._worker.call(failed.result.close)
        await out.failure(error.to_metadata())

    # -- request handlers -----------------------------------------------------------------------

    async def _hello(self, message: m.Hello, out: ReplySink) -> None:
        self._log = self._log.bind(agent=message.extra.get("user_agent"))
        await out.success({"server": SERVER_AGENT, "connection_id": self.connection_id,
                           "auth_required": self._auth.enabled})

    async def _logon(self, message: m.Logon, out: ReplySink) -> None:
        try:
            self.user = await self._worker.call(self._auth.authenticate, message.auth, self.peer,
                                                lambda: self._state is not State.DEFUNCT and not self._closed)
        except AuthenticationError:
            delay = self._auth.failure_delay(self.peer, message.auth.get("principal"))
            self._log.warning("login failed", user=message.auth.get("principal"), delay_s=delay)
            # The delay ends early when the client leaves: a connection nobody reads must not hold a
            # place among the unauthenticated ones (the failure is counted all the same).
            try:
                await asyncio.wait_for(self._left.wait(), delay)
            except asyncio.TimeoutError:
                pass
            raise
        self._auth.succeeded(self.peer, self.user)
        from relate.server.relevance.scope import bind
        scope = await self._worker.call(bind, self._auth, self.user, message.auth.get("context"))
        self._engine = await self._worker.call(self._db.session)
        self._engine.connection_id = self.connection_id     # SHOW TRANSACTIONS: which connection runs what
        self._engine.client_address = self.peer
        self._engine.external_cancel = True    # _call clears cancellation before each request
        self._engine.scope = scope
        if self._auth.enabled:
            self._engine.principal = self.user     # statements are checked against the user's roles
        self._log = self._log.bind(user=self.user)
        await out.success({})

    async def _run(self, message: m.Run, out: ReplySink, next_request=None) -> None:
        started = time.perf_counter()
        if not self._in_tx() and message.extra.get("bookmarks"):
            await bookmarks.reach(message.extra["bookmarks"], getattr(self._db, "store", None))
        deadline = self._deadline(message.extra)
        if not self._in_tx():           # an auto-commit statement's own access mode (a transaction has BEGIN's)
            self._engine.read_access = message.extra.get("mode") == READ_MODE
            self._engine.tx_metadata = _metadata(message.extra)
        prefetched = None
        if isinstance(next_request, m.Pull) and next_request.qid == m.LAST_QUERY:
            want = self._batch if next_request.n == m.ALL else min(next_request.n, self._batch)
            inline = None
            if message.query in self._cheap and not self._results and not self._pending_resets \
                    and not self._in_tx():
                inline = self._run_inline(message.query, message.params, want, deadline)
            if inline is not None:
                result, prefetched = inline
            else:
                result, prefetched, wall, cpu = await self._call(_timed_prefetch, self._engine, message.query,
                                                                 message.params, want, deadline=deadline)
                self._learn(message.query, prefetched, wall, cpu)
            if isinstance(prefetched[2], Terminated) and self._timed_out:
                prefetched = ([], None, QueryTimeout("The query was terminated: it ran longer than its time limit"))
        else:
            result = await self._call(self._engine.run, message.query, message.params, deadline=deadline)
        t_first = (time.perf_counter() - started) * 1000
        metadata = {"fields": list(result.columns), "t_first": round(t_first, 3)}
        if self._in_tx():
            qid = self._next_qid
            self._next_qid += 1
            metadata["qid"] = qid
        else:
            qid = 0
        self._results[qid] = _OpenResult(result, deadline, message.query, started, prefetched)
        self._last_qid = qid
        await out.success(metadata)

    def answer_now(self, run, pull, out) -> int:
        """The hot path: a known-cheap auto-commit read with its PULL pipelined behind it, answered
        synchronously on the loop thread by the transport's reader (no hand-over to the request
        processor, no await). ``out`` takes ``success_now``/``records_now``. Returns how many of the
        two requests were answered: 0 (neither: handle both the usual way, nothing was sent or
        changed), 1 (the RUN: its PULL goes the usual way) or 2."""
        if type(pull) is not m.Pull or pull.qid != m.LAST_QUERY or self._state is not State.READY \
                or self._results or self._pending_resets or run.query not in self._cheap or self._in_tx() \
                or run.extra.get("bookmarks"):
            return 0
        on_run = self._transition(State.READY, m.RUN)
        if on_run is None:
            return 0
        started = time.perf_counter()
        deadline = self._deadline(run.extra)
        self._engine.read_access = run.extra.get("mode") == READ_MODE
        self._engine.tx_metadata = _metadata(run.extra)
        want = self._batch if pull.n == m.ALL else min(pull.n, self._batch)
        try:
            inline = self._run_inline(run.query, run.params, want, deadline)
        except Exception:       # a statement error: the usual path runs it again and answers FAILURE
            return 0
        if inline is None:
            return 0
        result, prefetched = inline
        open_result = _OpenResult(result, deadline, run.query, started, prefetched)
        self._results[0] = open_result
        self._last_qid = 0
        out.success_now({"fields": list(result.columns), "t_first": round((time.perf_counter() - started) * 1000, 3)})
        self._state = on_run.after(True, streaming=True)
        rows, summary, error = prefetched
        on_pull = self._transition(self._state, m.PULL)
        if error is not None or summary is None or on_pull is None or (pull.n != m.ALL and len(rows) > pull.n):
            return 1
        try:
            out.records_now(rows)
        except Exception:       # a value that cannot be sent: the usual path answers FAILURE
            return 1
        del self._results[0]
        open_result.prefetched = None
        self._log_if_slow(open_result)
        out.success_now(summary.to_metadata())
        self._state = on_pull.after(True)
        return 2

    def _learn(self, query: str, prefetched, wall: float, cpu: float) -> None:
        """Remember whether ``query`` is cheap enough to run inline next time."""
        rows, summary, error = prefetched
        known = query in self._cheap
        cheap = (error is None and summary is not None and cpu < (INLINE_DEMOTE_S if known else INLINE_MAX_S)
                 and wall < INLINE_BUDGET_S and getattr(summary, "query_type", None) == "r" and not self._in_tx())
        if cheap and known:
            return
        held = self._held.get(query)
        if cheap and held is not None and held[0] > 0:    # met MustNotWait lately: not inline yet
            self._held[query] = (held[0] - 1, held[1])
            return
        # a statement that embeds or searches for relevance may call a model: never on the event loop
        if cheap and not _NOT_INLINE.search(query) and not getattr(getattr(summary, "costs", None), "ai_used", False):
            if len(self._cheap) >= INLINE_MEMO_SIZE:
                self._cheap.clear()
            self._cheap[query] = True
        else:
            self._cheap.pop(query, None)

    def _run_inline(self, query: str, params: dict, want: int, deadline: float | None):
        """Run a known-cheap auto-commit read and its first PULL batch on the loop thread, within its
        budget; None when it must run on the session thread instead (over budget, or it would wait)."""
        budget = INLINE_BUDGET_S
        if deadline is not None:
            budget = min(budget, deadline - time.monotonic())
            if budget <= 0:
                return None
        engine = self._engine
        started, cpu = time.perf_counter(), time.thread_time()
        engine.clear_cancel()
        on_loop, until = ON_LOOP.set(True), INLINE_UNTIL.set(time.monotonic() + budget)
        try:
            result, prefetched = _run_prefetch(engine, query, params, want)
        except MustNotWait as exc:
            self._off_loop(query, exc)
            return None
        finally:
            INLINE_UNTIL.reset(until)
            ON_LOOP.reset(on_loop)
        if isinstance(prefetched[2], MustNotWait):       # reached while fetching the first rows
            result.close()
            self._off_loop(query, prefetched[2])
            return None
        self._held.pop(query, None)
        self._learn(query, prefetched, time.perf_counter() - started, time.thread_time() - cpu)
        return result, prefetched

    def _off_loop(self, query: str, exc: MustNotWait) -> None:
        """``query`` could not finish on the loop: over its budget it is no longer cheap; a step that may
        wait holds it back: its next runs go to the session thread, twice as many each time this happens
        in a row (it may be passing: an index catching up, populating)."""
        self._cheap.pop(query, None)
        if isinstance(exc, OverInlineBudget):
            return
        streak = self._held.get(query, (0, 0))[1] + 1
        if len(self._held) >= INLINE_MEMO_SIZE:
            self._held.clear()
        self._held[query] = (min(2 ** (streak - 1), INLINE_HOLD_MAX), streak)

    def _open_result(self, qid: int) -> tuple[int, _OpenResult]:
        qid = self._last_qid if qid == m.LAST_QUERY else qid
        open_result = self._results.get(qid)
        if open_result is None:
            raise ProtocolError(f"no open result with qid {qid}")
        return qid, open_result

    async def _pull(self, message: m.Pull, out: ReplySink) -> None:
        qid, open_result = self._open_result(message.qid)
        remaining = None if message.n == m.ALL else message.n
        summary = None
        while True:
            want = self._batch if remaining is None else min(remaining, self._batch)
            if open_result.prefetched is not None:
                rows, summary, error = open_result.prefetched
                open_result.prefetched = None
                if error is not None:
                    raise error
                if len(rows) > want:
                    open_result.prefetched = (rows[want:], summary, None)
                    rows, summary = rows[:want], None
            else:
                rows, summary = await self._call(_fetch, open_result.result, want, deadline=open_result.deadline)
            if rows:
                await out.records(rows)
            if summary is not None:
                break
            if remaining is not None:
                remaining -= len(rows)
                if remaining <= 0:
                    break
        if summary is None:
            await out.success({"has_more": True})
            return
        del self._results[qid]
        self._log_if_slow(open_result)
        await out.success(summary.to_metadata())

    async def _discard(self, message: m.Discard, out: ReplySink) -> None:
        qid, open_result = self._open_result(message.qid)
        n, summary = message.n, None
        if open_result.prefetched is not None:
            rows, summary, error = open_result.prefetched
            open_result.prefetched = None
            if error is not None:
                raise error
            if n != m.ALL:
                if len(rows) > n:
                    open_result.prefetched, summary = (rows[n:], summary, None), None
                n = max(n - len(rows), 0)
        if summary is None and n != 0:
            summary = await self._call(_skip, open_result.result, n, deadline=open_result.deadline)
        if summary is None:
            await out.success({"has_more": True})
            return
        del self._results[qid]
        await out.success(summary.to_metadata())

    def _log_if_slow(self, open_result: _OpenResult) -> None:
        elapsed = time.perf_counter() - open_result.started
        if elapsed >= self.slow_query_s:
            self._log.info("slow query", seconds=round(elapsed, 3), query=redact(open_result.query)[:200])

    async def _begin(self, message: m.Begin, out: ReplySink) -> None:
        if message.extra.get("bookmarks"):
            await bookmarks.reach(message.extra["bookmarks"], getattr(self._db, "store", None))
        await self._call(self._engine.begin, message.extra.get("mode") == READ_MODE)
        self._engine.tx_metadata = _metadata(message.extra)
        timeout = _seconds(message.extra.get("tx_timeout"))
        self._tx_deadline = time.monotonic() + timeout if timeout else None
        self._next_qid = 0
        await out.success({})

    async def _commit(self, message: m.Commit, out: ReplySink) -> None:
        # Open results are consumed first, so their statements run to the end before the commit.
        for qid in list(self._results):
            open_result = self._results.pop(qid)
            await self._call(open_result.result.consume, deadline=open_result.deadline)
        committed = await self._call(self._engine.commit)
        self._tx_deadline = None
        metadata = {}
        bookmark = self._bookmark(committed)
        if bookmark:
            metadata["bookmark"] = bookmark
        await out.success(metadata)

    def _bookmark(self, committed: Any) -> str | None:
        if isinstance(committed, int) and not isinstance(committed, bool):
            return bookmarks.bookmark(committed)
        store = getattr(self._db, "store", None)
        ts = getattr(store, "last_commit_ts", None)
        return bookmarks.bookmark(ts) if isinstance(ts, int) else None

    async def _rollback(self, message: m.Rollback, out: ReplySink) -> None:
        await self._worker.call(self._close_results)
        await self._call(self._engine.rollback)
        self._tx_deadline = None
        await out.success({})

    async def _reset(self, message: m.Reset, out: ReplySink) -> None:
        self._pending_resets = max(0, self._pending_resets - 1)
        self._protocol_failure = False
        if self._engine is not None:
            await self._worker.call(self._reset_engine)
        self._tx_deadline = None
        await out.success({})

    def _reset_engine(self) -> None:
        self._close_results()
        if self._engine.in_transaction:
            self._engine.rollback()

    async def _ack_failure(self, message: m.AckFailure, out: ReplySink) -> None:
        await out.success({"in_transaction": self._in_tx()})

    async def _goodbye(self, message: m.Goodbye, out: ReplySink) -> None:
        await self.close()


def _seconds(milliseconds: Any) -> float | None:
    if isinstance(milliseconds, (int, float)) and not isinstance(milliseconds, bool) and milliseconds > 0:
        return milliseconds / 1000
    return None
