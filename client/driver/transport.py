"""Byte transports for the driver: an asyncio one and a blocking-socket one with the same methods.

These are the only hand-written I/O of the driver; everything above them is written once in
``_async/`` and generated into ``_sync/`` (``AsyncTransport`` becomes ``Transport``,
``async_sleep`` becomes ``sleep``).
"""
from __future__ import annotations

import asyncio
import os
import socket
import ssl
import threading
import time
from urllib.parse import parse_qsl, urlsplit

from relate.errors import ServiceUnavailable

READ_SIZE = 256 * 1024
DEFAULT_PORT = 7688
# The blocking transport polls for a reply this long before it sleeps in recv() (adaptive, see
# Transport.recv); ``?busy_poll_us=0`` in the URL or RELATE_DRIVER_BUSY_POLL_US=0 turns it off.
DEFAULT_BUSY_POLL_US = 2000
MIN_POLL_S = 20e-6
# Polling that got less than half the CPU over at least CONTENDED_AFTER_S (other tasks want this CPU)
# stops for a back-off that doubles from BACKOFF_MIN_S to BACKOFF_MAX_S while that keeps happening.
CONTENDED_AFTER_S = 100e-6
BACKOFF_MIN_S, BACKOFF_MAX_S = 0.01, 1.0
async_sleep = asyncio.sleep
sleep = time.sleep


class Address:
    """A parsed ``relate://``, ``relate+s://`` (TLS, verified) or ``relate+ssc://`` (TLS, self-signed) URL."""

    def __init__(self, url: str):
        parts = urlsplit(url)
        if parts.scheme not in ("relate", "relate+s", "relate+ssc"):
            raise ValueError(f"not a Relate URL: {url!r}")
        self.scheme = parts.scheme
        self.host = parts.hostname or "127.0.0.1"
        self.port = parts.port or DEFAULT_PORT
        self.options = dict(parse_qsl(parts.query))
        self.auth = (parts.username, parts.password or "") if parts.username else None

    def ssl_context(self, trusted_certificates: str | None = None) -> ssl.SSLContext | None:
        if self.scheme == "relate":
            return None
        context = ssl.create_default_context(cafile=trusted_certificates)
        if self.scheme == "relate+ssc":
            context.check_hostname = False
            context.verify_mode = ssl.CERT_NONE
        return context

    def __str__(self) -> str:
        return f"{self.host}:{self.port}"


def _unavailable(address, exc: BaseException) -> ServiceUnavailable:
    return ServiceUnavailable(f"cannot reach the Relate server at {address}: {exc}")


class AsyncTransport:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter):
        self._reader = reader
        self._writer = writer

    @classmethod
    async def connect(cls, address: Address, *, ssl_context, timeout: float) -> "AsyncTransport":
        try:
            reader, writer = await asyncio.wait_for(
                asyncio.open_connection(address.host, address.port, ssl=ssl_context,
                                        server_hostname=address.host if ssl_context else None), timeout)
        except (OSError, asyncio.TimeoutError) as exc:
            raise _unavailable(address, exc) from None
        return cls(reader, writer)

    async def send(self, data: bytes) -> None:
        self._writer.write(data)
        await self._writer.drain()

    async def recv(self) -> bytes:
        return await self._reader.read(READ_SIZE)

    async def recv_exactly(self, size: int) -> bytes:
        try:
            return await self._reader.readexactly(size)
        except asyncio.IncompleteReadError:
            raise ConnectionError("connection closed") from None

    async def close(self) -> None:
        try:
            self._writer.close()
            await asyncio.wait_for(self._writer.wait_closed(), 1.0)
        except (OSError, asyncio.TimeoutError):
            pass


def busy_poll_seconds(address: Address) -> float:
    """The polling window for ``address``: its URL's ``busy_poll_us``, else RELATE_DRIVER_BUSY_POLL_US, else
    the default."""
    text = address.options.get("busy_poll_us", os.environ.get("RELATE_DRIVER_BUSY_POLL_US"))
    try:
        micros = int(text) if text is not None else DEFAULT_BUSY_POLL_US
    except ValueError:
        raise ValueError(f"busy_poll_us must be a whole number of microseconds, not {text!r}") from None
    return max(0, micros) / 1e6


class Transport:
    def __init__(self, sock: socket.socket, busy_poll_s: float = 0.0):
        self._sock = sock
        # recv() into one reused buffer: socket.recv(256 KiB) allocates (and shrinks) 256 KiB per
        # call, ~17 us on its own, more than a whole small reply takes to arrive on loopback.
        self._buffer = bytearray(READ_SIZE)
        self._view = memoryview(self._buffer)
        # TLS sockets take no recv flags: they always wait in the kernel.
        self._poll_max = 0.0 if isinstance(sock, ssl.SSLSocket) else busy_poll_s
        self._poll = self._poll_max
        self._resume_at = 0.0          # no polling before this time.perf_counter(): the CPU was contended
        self._backoff = BACKOFF_MIN_S

    @classmethod
    def connect(cls, address: Address, *, ssl_context, timeout: float) -> "Transport":
        busy_poll_s = busy_poll_seconds(address)
        try:
            sock = socket.create_connection((address.host, address.port), timeout=timeout)
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            if ssl_context is not None:
                sock = ssl_context.wrap_socket(sock, server_hostname=address.host)
            sock.settimeout(None)
        except OSError as exc:
            raise _unavailable(address, exc) from None
        return cls(sock, busy_poll_s)

    def send(self, data: bytes) -> None:
        self._sock.sendall(data)

    def recv(self) -> bytes:
        """The next bytes from the server. Before sleeping in the kernel it polls for up to its window:
        a process that sleeps lets its CPU halt, and waking a halted (virtual) CPU costs the sender an
        interrupt and this side a cold CPU (~50-100 us per sub-millisecond reply on a VM). A window that
        runs out is halved (to nothing); a reply that comes within the full window restores it. Only
        while this is the process's one Python thread (polling keeps the GIL from any other), and not
        while other work wants this CPU: polling yields it at every turn, and once it got less than half
        of it, it stops for a while (many clients on few CPUs would only slow the server down)."""
        poll = self._poll
        if poll >= MIN_POLL_S and threading.active_count() == 1:
            clock, cpu_clock, yield_cpu = time.perf_counter, time.thread_time, os.sched_yield
            recv_into, buffer = self._sock.recv_into, self._buffer
            started, cpu_started = clock(), cpu_clock()
            until = started + poll
            while True:
                try:
                    size = recv_into(buffer, 0, socket.MSG_DONTWAIT)
                    elapsed = clock() - started
                    if elapsed <= CONTENDED_AFTER_S or cpu_clock() - cpu_started >= elapsed / 2:
                        self._backoff = BACKOFF_MIN_S      # an uncontended poll
                    return self._view[:size].tobytes()
                except (BlockingIOError, InterruptedError):
                    now = clock()
                    if now >= until:
                        self._poll = poll / 2
                        break
                    yield_cpu()
                    elapsed = now - started
                    if elapsed > CONTENDED_AFTER_S and cpu_clock() - cpu_started < elapsed / 2:
                        self._poll, self._resume_at = 0.0, now + self._backoff
                        self._backoff = min(BACKOFF_MAX_S, self._backoff * 2)
                        break
        elif self._poll_max and poll < self._poll_max:
            started = time.perf_counter()
            size = self._sock.recv_into(self._buffer)
            finished = time.perf_counter()
            if finished - started <= self._poll_max and finished >= self._resume_at:
                self._poll = self._poll_max
            return self._view[:size].tobytes()
        size = self._sock.recv_into(self._buffer)
        return self._view[:size].tobytes()

    def recv_exactly(self, size: int) -> bytes:
        data = b""
        while len(data) < size:
            chunk = self._sock.recv(size - len(data))
            if not chunk:
                raise ConnectionError("connection closed")
            data += chunk
        return data

    def close(self) -> None:
        try:
            self._sock.close()
        except OSError:
            pass
