"""Adaptive busy polling: after a reply, the event loop keeps polling its sockets (epoll without a
timeout) for a short window instead of going to sleep, so that a client's next request is read at once.

Why: a process that sleeps longer than the kernel's idle polling lets its CPU halt; on a virtual
machine the next wake-up then costs an inter-processor interrupt through the hypervisor (paid by the
sender's ``write``) and a cold CPU for the request (measured on a 2-vCPU VM: ~100 us more per
sub-millisecond statement). A client that answers within the window never meets a sleeping server.

The window adapts as a hypervisor's halt polling does: a poll that a request ends keeps it; one that
runs out halves it (to nothing below ``MIN_WINDOW_S``), so an idle or slow client costs a few
milliseconds of CPU and then none; a request arriving within the full window of a reply restores it.
The loop does not poll while a statement runs on a session thread (that thread needs the GIL). With
many clients a request soon ends each poll, so polling costs them little (16 client processes on 2
CPUs: the same throughput within noise); the clients' own polling is what backs off there.
Only the standalone server enables it (``relate-server --busy-poll-us``): a server run inside another
program's process would take the GIL from that program's threads.
"""
from __future__ import annotations

import asyncio
import os
import time

from ..session.worker import SWITCH_POLICY, SwitchIntervalPolicy

MIN_WINDOW_S = 20e-6


class BusyPoll:
    """One per process (the event loop is one): connections call ``replied`` after flushing a reply
    with nothing queued behind it, and ``received`` when request bytes arrive."""

    def __init__(self, policy: SwitchIntervalPolicy = SWITCH_POLICY) -> None:
        self._policy = policy         # knows whether a session thread runs a statement
        self.max_s = 0.0              # 0: disabled
        self.window_s = 0.0
        self._until = 0.0
        self._last_reply = 0.0
        self._polling = False
        self._ended_by_request = False
        self._loop: asyncio.AbstractEventLoop | None = None

    def enable(self, max_us: int) -> None:
        self.max_s = self.window_s = max(0, max_us) / 1e6

    def replied(self) -> None:
        if not self.max_s:
            return
        now = time.perf_counter()
        self._last_reply = now
        if self.window_s < MIN_WINDOW_S or self._policy.busy:
            return
        self._until = now + self.window_s
        if not self._polling:
            self._polling, self._ended_by_request = True, False
            self._loop = loop = asyncio.get_running_loop()     # the loop of the reply being sent
            loop.call_soon(self._poll)

    def received(self) -> None:
        if not self.max_s:
            return
        if self._polling:
            self._ended_by_request, self._until = True, 0.0
        elif self.window_s < self.max_s and time.perf_counter() - self._last_reply <= self.max_s:
            self.window_s = self.max_s        # a fast client is back: poll for it again

    @property
    def polling(self) -> bool:
        """Whether the loop polls now."""
        return self._polling

    def _poll(self) -> None:
        # A ready callback makes the loop poll its sockets without sleeping; this one re-arms itself,
        # yielding the CPU at every turn to any other task runnable on it (a client on the same CPU
        # would otherwise wait for the scheduler's next tick: replies ~5x slower, measured).
        if time.perf_counter() < self._until and not self._policy.busy:
            os.sched_yield()
            assert self._loop is not None
            self._loop.call_soon(self._poll)
            return
        self._polling = False
        if not self._ended_by_request:
            self.window_s /= 2


BUSY_POLL = BusyPoll()
