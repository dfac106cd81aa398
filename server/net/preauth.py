"""Connections that have not logged in yet: at most ``limit`` at once (apart from
``--max-connections``), each given ``deadline_s`` from accept to a successful LOGON, so idle or
slow unauthenticated sockets cannot lock real clients out."""
from __future__ import annotations

import asyncio

import structlog

_log = structlog.get_logger("relate.net")


class PreAuthGate:
    def __init__(self, limit: int, deadline_s: float | None):
        self.limit = limit
        self.deadline_s = deadline_s
        self._timers: dict = {}          # connection -> its login-deadline timer (None: no deadline)

    def __len__(self) -> int:
        return len(self._timers)

    def admit(self, connection) -> bool:
        """Count a new connection as unauthenticated; False when too many already are."""
        if len(self._timers) >= self.limit:
            return False
        timer = None
        if self.deadline_s:
            timer = asyncio.get_running_loop().call_later(self.deadline_s, self._expire, connection)
        self._timers[connection] = timer
        return True

    def release(self, connection) -> None:
        """The connection logged in or closed: it no longer counts, and its deadline is off."""
        timer = self._timers.pop(connection, None)
        if timer is not None:
            timer.cancel()

    def _expire(self, connection) -> None:
        if connection in self._timers:
            del self._timers[connection]
            _log.info("login deadline passed", conn=connection.id, peer=connection.peer,
                      deadline_s=self.deadline_s)
            connection.expire()
