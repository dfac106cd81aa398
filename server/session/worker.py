"""One thread per session for engine calls, so the event loop never blocks on a query.

A session keeps its thread for its whole life: the engine's transaction state (writer lock, snapshot)
stays on one thread, and a session waiting for the writer lock cannot starve others of threads.

The handoff is a plain ``queue.SimpleQueue`` into a dedicated thread and ``call_soon_threadsafe``
back: about half the cost of ``loop.run_in_executor`` (no concurrent.futures.Future, no
``wrap_future`` chaining, no executor bookkeeping), which matters for sub-millisecond statements.
"""
from __future__ import annotations

import asyncio
import queue
import sys
import threading
from typing import Any, Callable

_STOP = None
_live: set = set()          # the job queues of workers not yet closed


def _stop_all() -> None:
    """At interpreter exit (before non-daemon threads are joined), as concurrent.futures does for its
    executors: idle workers end; one still running a call ends after it."""
    for jobs in list(_live):
        jobs.put(_STOP)
    _live.clear()


if hasattr(threading, "_register_atexit"):
    threading._register_atexit(_stop_all)


class SwitchIntervalPolicy:
    """The GIL switch interval follows how many engine calls run on session threads. While at most one
    does, a short interval: the event loop (and the cheap reads it runs inline) waits at most that long
    for the GIL a CPU-bound statement holds (0.5 ms made a RETURN 1 beside one take ~0.8 ms; 0.1 ms
    ~0.4 ms). With two or more, the longer one: CPU-bound statements switching among themselves every
    0.1 ms lose ~8% of their throughput. Only the server enables it (``enable``); counted on the loop."""

    def __init__(self) -> None:
        self.enabled = False
        self.short, self.long = 0.0001, 0.0005
        self._busy = 0

    @property
    def busy(self) -> bool:
        """Whether an engine call runs on a session thread now."""
        return self._busy > 0

    def enable(self, short: float, long: float) -> None:
        self.enabled, self.short, self.long = True, short, long
        sys.setswitchinterval(short)

    def started(self) -> None:
        self._busy += 1
        if self._busy == 2 and self.enabled:
            sys.setswitchinterval(self.long)

    def finished(self) -> None:
        self._busy -= 1
        if self._busy == 1 and self.enabled:
            sys.setswitchinterval(self.short)


SWITCH_POLICY = SwitchIntervalPolicy()


class SessionWorker:
    __slots__ = ("_name", "_jobs", "_thread")

    def __init__(self, name: str):
        self._name = name
        self._jobs: queue.SimpleQueue | None = None
        self._thread: threading.Thread | None = None

    async def call(self, fn: Callable[..., Any], *args: Any) -> Any:
        if self._jobs is None:
            self._jobs = queue.SimpleQueue()
            _live.add(self._jobs)
            self._thread = threading.Thread(target=_serve, args=(self._jobs,), name=f"{self._name}_0")
            self._thread.start()
        loop = asyncio.get_running_loop()
        future = loop.create_future()
        self._jobs.put((loop, future, fn, args))
        SWITCH_POLICY.started()
        try:
            return await future
        finally:
            SWITCH_POLICY.finished()

    def close(self) -> None:
        if self._jobs is not None:
            _live.discard(self._jobs)
            self._jobs.put(_STOP)           # the thread ends after the call it may be running
            self._jobs = self._thread = None


def _deliver(future: asyncio.Future, result: Any, error: BaseException | None) -> None:
    if future.done():                       # the awaiting task was cancelled meanwhile
        return
    if error is None:
        future.set_result(result)
    else:
        future.set_exception(error)


def _serve(jobs: queue.SimpleQueue) -> None:
    while True:
        job = jobs.get()
        if job is _STOP:
            return
        loop, future, fn, args = job
        try:
            result, error = fn(*args), None
        except BaseException as exc:        # noqa: BLE001 - handed to the awaiting coroutine
            result, error = None, exc
        job = None
        try:
            loop.call_soon_threadsafe(_deliver, future, result, error)
        except RuntimeError:                # the loop is closed: nobody waits any more
            pass
        del result, error, loop, future, fn, args
