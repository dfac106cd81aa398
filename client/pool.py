"""Small connection pools for one server: ``Pool`` (threads) and ``AsyncPool`` (asyncio).

``with pool.connection() as conn: ...`` borrows a connection (rolled back and returned afterwards);
``pool.execute_write(work)`` runs a managed, retried transaction on a borrowed one.
"""
from __future__ import annotations

import asyncio
import threading
from contextlib import asynccontextmanager, contextmanager

from .errors import RelateError, ServiceUnavailable

__all__ = ["Pool", "AsyncPool"]


def _reusable(conn) -> bool:
    return not conn.closed and not conn.broken


class Pool:
    def __init__(self, url: str, auth: tuple[str, str] | None = None, *, max_size: int = 10,
                 acquire_timeout: float = 30.0, **options):
        self.url, self._auth, self._options = url, auth, options
        self.max_size = max_size
        self.acquire_timeout = acquire_timeout
        self._slots = threading.BoundedSemaphore(max_size)
        self._idle: list = []
        self._lock = threading.Lock()
        self._closed = False

    def _acquire(self, timeout: float | None):
        if self._closed:
            raise ServiceUnavailable("the pool is closed")
        if not self._slots.acquire(timeout=self.acquire_timeout if timeout is None else timeout):
            raise ServiceUnavailable(f"no pooled connection became free within {self.acquire_timeout:g} s")
        with self._lock:
            conn = self._idle.pop() if self._idle else None
        if conn is not None and _reusable(conn):
            return conn
        try:
            from .driver import connect_remote
            return connect_remote(self.url, auth=self._auth, **self._options)
        except BaseException:
            self._slots.release()
            raise

    def _release(self, conn) -> None:
        try:
            if conn.in_transaction:
                conn.rollback()
        except RelateError:
            conn.close()
        with self._lock:
            if _reusable(conn) and not self._closed:
                self._idle.append(conn)
            else:
                conn.close()
        self._slots.release()

    @contextmanager
    def connection(self, timeout: float | None = None):
        conn = self._acquire(timeout)
        try:
            yield conn
        finally:
            self._release(conn)

    def execute_write(self, work, *args, **kwargs):
        with self.connection() as conn:
            return conn.execute_write(work, *args, **kwargs)

    def execute_read(self, work, *args, **kwargs):
        with self.connection() as conn:
            return conn.execute_read(work, *args, **kwargs)

    def close(self) -> None:
        self._closed = True
        with self._lock:
            idle, self._idle = self._idle, []
        for conn in idle:
            conn.close()

    def __enter__(self) -> "Pool":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class AsyncPool:
    def __init__(self, url: str, auth: tuple[str, str] | None = None, *, max_size: int = 10,
                 acquire_timeout: float = 30.0, **options):
        self.url, self._auth, self._options = url, auth, options
        self.max_size = max_size
        self.acquire_timeout = acquire_timeout
        self._slots = asyncio.Semaphore(max_size)
        self._idle: list = []
        self._closed = False

    async def _acquire(self, timeout: float | None):
        if self._closed:
            raise ServiceUnavailable("the pool is closed")
        try:
            await asyncio.wait_for(self._slots.acquire(), self.acquire_timeout if timeout is None else timeout)
        except asyncio.TimeoutError:
            raise ServiceUnavailable(f"no pooled connection became free within {self.acquire_timeout:g} s") from None
        while self._idle:
            conn = self._idle.pop()
            if not conn.closed and not conn._session.state.value == "DEFUNCT":
                return conn
        try:
            from .aio import connect
            return await connect(self.url, auth=self._auth, **self._options)
        except BaseException:
            self._slots.release()
            raise

    async def _release(self, conn) -> None:
        try:
            if conn.in_transaction:
                await conn.rollback()
        except RelateError:
            await conn.close()
        if not conn.closed and not self._closed:
            self._idle.append(conn)
        else:
            await conn.close()
        self._slots.release()

    @asynccontextmanager
    async def connection(self, timeout: float | None = None):
        conn = await self._acquire(timeout)
        try:
            yield conn
        finally:
            await self._release(conn)

    async def execute_write(self, work, *args, **kwargs):
        async with self.connection() as conn:
            return await conn.execute_write(work, *args, **kwargs)

    async def execute_read(self, work, *args, **kwargs):
        async with self.connection() as conn:
            return await conn.execute_read(work, *args, **kwargs)

    async def close(self) -> None:
        self._closed = True
        idle, self._idle = self._idle, []
        for conn in idle:
            await conn.close()

    async def __aenter__(self) -> "AsyncPool":
        return self

    async def __aexit__(self, *exc) -> None:
        await self.close()
