"""The blocking remote connection: ``relate.Connection`` over a generated ``WireSession``, plus
managed transactions that retry retryable errors."""
from __future__ import annotations

from relate.connection import Connection

from ._sync.managed import DEFAULT_MAX_RETRY_TIME
from ._sync.session import WireSession


class RemoteConnection(Connection):
    """A Connection to a server; the same API as embedded."""

    def __init__(self, session: WireSession, *, target: str, max_retry_time: float = DEFAULT_MAX_RETRY_TIME):
        super().__init__(session, target=target)
        self.max_retry_time = max_retry_time

    @property
    def server_info(self) -> dict:
        return self._session.server_info

    @property
    def broken(self) -> bool:
        """True when the connection was lost (the next statement reconnects)."""
        return self._session.state.value == "DEFUNCT"


def open_remote_connection(url: str, *, auth=None, max_retry_time: float = DEFAULT_MAX_RETRY_TIME,
                           **options) -> RemoteConnection:
    session = WireSession(url, auth, **options).open()
    return RemoteConnection(session, target=url, max_retry_time=max_retry_time)
