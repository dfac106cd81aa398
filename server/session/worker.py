"""One thread per session for engine calls, so the event loop never blocks on a query.

A session keeps its thread for its whole life: the engine's transaction state (writer lock, snapshot)
stays on one thread, and a session waiting for the writer lock cannot starve others of threads.
"""
from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable


class SessionWorker:
    __slots__ = ("_executor", "_name")

    def __init__(self, name: str):
        self._name = name
        self._executor: ThreadPoolExecutor | None = None

    async def call(self, fn: Callable[..., Any], *args: Any) -> Any:
        if self._executor is None:
            self._executor = ThreadPoolExecutor(1, thread_name_prefix=self._name)
        return await asyncio.get_running_loop().run_in_executor(self._executor, fn, *args)

    def close(self) -> None:
        if self._executor is not None:
            self._executor.shutdown(wait=False)
            self._executor = None
