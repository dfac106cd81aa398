"""The blocking remote connection: ``relate.Connection`` over a generated ``WireSession``, plus
managed transactions that retry retryable errors."""
from __future__ import annotations

import threading

from relate.connection import Connection

from ._sync.managed import DEFAULT_MAX_RETRY_TIME
from ._sync.session import WireSession


class RemoteConnection(Connection):
    """A Connection to a server; the same API as embedded."""

    def __init__(self, session: WireSession, *, target: str, max_retry_time: float = DEFAULT_MAX_RETRY_TIME,
                 reopen=None):
        super().__init__(session, target=target)
        self.max_retry_time = max_retry_time
        self._reopen = reopen                   # a second connection, same address and credentials
        self._monitor: RemoteConnection | None = None
        self._monitor_lock = threading.Lock()

    def progress(self) -> dict | None:
        """The running statement's progress, asked through a second connection (this one is busy
        with the statement): the server's SHOW TRANSACTIONS row for this connection (admin users)."""
        connection_id = self._session.server_info.get("connection_id")
        if connection_id is None or self._reopen is None:
            return None
        with self._monitor_lock:
            if self._monitor is None or self._monitor.closed:
                self._monitor = self._reopen()
            row = self._monitor.execute(_PROGRESS, id=connection_id).fetchone()
        return None if row is None else row[0]

    def close(self) -> None:
        try:
            super().close()
        finally:
            with self._monitor_lock:
                if self._monitor is not None:
                    self._monitor.close()
                    self._monitor = None

    @property
    def server_info(self) -> dict:
        return self._session.server_info

    @property
    def broken(self) -> bool:
        """True when the connection was lost (the next statement reconnects)."""
        return self._session.state.value == "DEFUNCT"


_PROGRESS = "SHOW TRANSACTIONS YIELD connectionId, progress WHERE connectionId = $id RETURN progress"


def open_remote_connection(url: str, *, auth=None, max_retry_time: float = DEFAULT_MAX_RETRY_TIME,
                           **options) -> RemoteConnection:
    session = WireSession(url, auth, **options).open()
    return RemoteConnection(session, target=url, max_retry_time=max_retry_time,
                            reopen=lambda: open_remote_connection(url, auth=auth, **options))
