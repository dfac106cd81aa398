"""Session cores for HTTP requests: a pool of logged-in cores per credential, and explicit
transactions that live across requests until commit, rollback or expiry."""
from __future__ import annotations

import asyncio
import hashlib
import hmac
import itertools
import os
import secrets
import time
from dataclasses import dataclass, field

import structlog

from relate.protocol.errors import AuthenticationError, ClientError, RelateError, TransientError
from relate.protocol import messages as m

from ..session import SessionCore

POOL_IDLE_S = 60.0          # an idle pooled core is closed after this long
POOL_PER_KEY = 8            # idle cores kept per credential
POOL_TOTAL = 64             # idle cores kept in all (each holds a session thread)
_ids = itertools.count(1)
_log = structlog.get_logger("relate.http")
TX_NOT_FOUND = "Neo.ClientError.Transaction.TransactionNotFound"


class Sink:
    """A ReplySink collecting one request's replies."""

    def __init__(self):
        self.meta: dict | None = None
        self.rows: list = []
        self.error: dict | None = None

    async def success(self, metadata: dict) -> None:
        self.meta = metadata

    async def records(self, rows: list) -> None:
        self.rows.extend(rows)

    async def failure(self, metadata: dict) -> None:
        self.error = metadata

    async def ignored(self) -> None:
        self.error = {"code": "Neo.TransientError.Transaction.Terminated", "message": "The request was interrupted"}


class RequestFailed(Exception):
    """A core answered FAILURE; ``metadata`` is the error (code, message, ...)."""

    def __init__(self, metadata: dict):
        super().__init__(metadata.get("message", ""))
        self.metadata = metadata


async def ask(core: SessionCore, message, next_request=None) -> Sink:
    """Send one request to ``core``; the replies, or RequestFailed (the core is RESET after it)."""
    sink = Sink()
    await core.handle(message, sink, next_request)
    if sink.error is not None:
        if core.user is not None:                 # logged in: clear FAILED so the core is reusable
            await core.handle(m.Reset(), Sink())
        raise RequestFailed(sink.error)
    return sink


def _error_meta(exc: RelateError) -> dict:
    return exc.to_metadata()


@dataclass
class _Idle:
    core: SessionCore
    since: float


@dataclass
class Transaction:
    id: str
    key: str
    core: SessionCore
    timeout_s: float
    expires: float = 0.0
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    def touch(self) -> None:
        self.expires = time.monotonic() + self.timeout_s


class HttpSessions:
    """Cores for HTTP requests. ``key_for(auth)`` names a credential without keeping it; a pooled core
    is reused only for the same credential, so authentication runs once per core, not per request."""

    def __init__(self, server, *, tx_timeout_s: float = 30.0, max_transactions: int = 1000):
        self._server = server
        self.max_transactions = max_transactions   # each open transaction holds a session thread
        self._secret = os.urandom(32)
        self._pool: dict[str, list[_Idle]] = {}
        self._tx: dict[str, Transaction] = {}
        self.tx_timeout_s = tx_timeout_s
        self._reaper: asyncio.Task | None = None
        self._closed = False

    def start(self) -> None:
        self._reaper = asyncio.create_task(self._reap())

    def key_for(self, auth: dict) -> str:
        text = "\0".join(str(auth.get(k, "")) for k in ("scheme", "principal", "credentials"))
        return hmac.new(self._secret, text.encode(), hashlib.sha256).hexdigest()

    async def _new_core(self, auth: dict, peer: str) -> SessionCore:
        config = self._server.config
        core = SessionCore(self._server.database, self._server.authenticator, connection_id=f"h{next(_ids)}",
                           peer=peer, query_timeout=config.query_timeout, batch_size=config.batch_size)
        try:
            await ask(core, m.Hello({"user_agent": "http"}))
            await ask(core, m.Logon(auth))
        except BaseException:
            await core.close()
            raise
        _log.debug("http session opened", conn=core.connection_id, peer=peer, user=core.user)
        return core

    async def acquire(self, auth: dict, peer: str) -> tuple[str, SessionCore]:
        """A logged-in core for ``auth`` (RequestFailed with the auth error when the login fails)."""
        if self._closed:
            raise RequestFailed({"code": "Neo.TransientError.General.DatabaseUnavailable",
                                 "message": "The server is shutting down"})
        key = self.key_for(auth)
        idle = self._pool.get(key)
        if idle:
            entry = idle.pop()
            if not idle:
                del self._pool[key]
            if entry.core.user is not None and auth.get("scheme") == "bearer":
                try:       # a bearer token may have expired or its user been dropped since
                    self._server.authenticator.tokens.user(auth.get("credentials"))
                except AuthenticationError as exc:
                    await entry.core.close()
                    raise RequestFailed(_error_meta(exc)) from None
            return key, entry.core
        return key, await self._new_core(auth, peer)

    async def release(self, key: str, core: SessionCore, *, healthy: bool = True) -> None:
        """Give a core back after an auto-commit request (closed instead when it is not reusable)."""
        idle = self._pool.setdefault(key, [])
        if not healthy or self._closed or core.state.value not in ("READY",) or len(idle) >= POOL_PER_KEY:
            if not idle:
                del self._pool[key]
            await core.close()
            return
        idle.append(_Idle(core, time.monotonic()))
        if sum(len(entries) for entries in self._pool.values()) > POOL_TOTAL:
            await self._close_oldest_idle()

    async def _close_oldest_idle(self) -> None:
        key, entries = min(((k, e) for k, e in self._pool.items() if e), key=lambda item: item[1][0].since)
        oldest = entries.pop(0)
        if not entries:
            del self._pool[key]
        await oldest.core.close()

    # -- explicit transactions ------------------------------------------------------------------

    async def begin(self, auth: dict, peer: str, timeout_s: float | None = None, *,
                    extra: dict | None = None) -> Transaction:
        """A new explicit transaction on a session of its own; ``extra``: BEGIN's metadata (access mode)."""
        if len(self._tx) >= self.max_transactions:
            raise RequestFailed(TransientError(f"Too many open HTTP transactions ({self.max_transactions}); "
                                               "commit or roll back some first").to_metadata())
        key, core = await self.acquire(auth, peer)
        try:
            await ask(core, m.Begin(extra or {}))
        except BaseException:
            await core.close()
            raise
        tx = Transaction(secrets.token_hex(12), key, core, timeout_s or self.tx_timeout_s)
        tx.touch()
        self._tx[tx.id] = tx
        return tx

    def get(self, tx_id: str, auth: dict) -> Transaction:
        tx = self._tx.get(tx_id)
        if tx is None or not hmac.compare_digest(tx.key, self.key_for(auth)) or tx.expires < time.monotonic():
            raise RequestFailed(self.not_found(tx_id))
        return tx

    def alive(self, tx: Transaction) -> bool:
        return self._tx.get(tx.id) is tx

    @staticmethod
    def not_found(tx_id: str) -> dict:
        return ClientError(f"Transaction {tx_id[:40]} does not exist or has expired", code=TX_NOT_FOUND).to_metadata()

    async def finish(self, tx: Transaction) -> None:
        """The transaction is over (committed, rolled back or failed): forget it, close its core."""
        if self._tx.get(tx.id) is tx:
            del self._tx[tx.id]
        await tx.core.close()

    async def _reap(self) -> None:
        while not self._closed:
            await asyncio.sleep(0.5)
            now = time.monotonic()
            for tx in [t for t in self._tx.values() if t.expires < now and not t.lock.locked()]:
                _log.info("transaction expired", tx=tx.id, timeout_s=tx.timeout_s)
                await self.finish(tx)           # closing the core rolls the transaction back
            expired = []
            for key, idle in list(self._pool.items()):   # no await in here: acquire() shares the lists
                keep = [e for e in idle if now - e.since < POOL_IDLE_S]
                expired += [e for e in idle if e not in keep]
                if keep:
                    self._pool[key] = keep
                else:
                    del self._pool[key]
            for entry in expired:
                await entry.core.close()

    async def close(self) -> None:
        self._closed = True
        if self._reaper is not None:
            self._reaper.cancel()
        for tx in list(self._tx.values()):
            await self.finish(tx)
        for idle in self._pool.values():
            for entry in idle:
                await entry.core.close()
        self._pool.clear()
