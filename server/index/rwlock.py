"""A readers-writer lock: searches share it, mutations (FAISS adds, engine commits) take it alone."""
from __future__ import annotations

import threading
from contextlib import contextmanager
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Iterator


class RWLock:
    """Many readers or one writer; a waiting writer blocks new readers so it cannot starve."""

    def __init__(self) -> None:
        self._cond = threading.Condition(threading.Lock())
        self._readers = 0
        self._writer = False
        self._writers_waiting = 0

    def busy(self) -> bool:
        """Whether a writer holds or awaits the lock (a reader arriving now would wait); a hint."""
        return self._writer or self._writers_waiting > 0

    @contextmanager
    def read(self) -> Iterator[None]:
        with self._cond:
            while self._writer or self._writers_waiting:
                self._cond.wait()
            self._readers += 1
        try:
            yield
        finally:
            with self._cond:
                self._readers -= 1
                if not self._readers:
                    self._cond.notify_all()

    @contextmanager
    def write(self) -> Iterator[None]:
        with self._cond:
            self._writers_waiting += 1
            while self._writer or self._readers:
                self._cond.wait()
            self._writers_waiting -= 1
            self._writer = True
        try:
            yield
        finally:
            with self._cond:
                self._writer = False
                self._cond.notify_all()


class NoLock:
    """Stands in for an RWLock around a structure only one thread uses (an index on its own, a scratch)."""

    @contextmanager
    def read(self) -> Iterator[None]:
        yield

    write = read
