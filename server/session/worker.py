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
        return await future

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
