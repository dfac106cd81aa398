"""Bearer tokens for the HTTP listeners: issued after a Basic login, kept in memory only.

Only a SHA-256 of each token is held (a token is 32 random bytes, so no salt is needed); a token
names a user and expires. Tokens of a user that was dropped or suspended stop working at once.
"""
from __future__ import annotations

import hashlib
import secrets
import threading
import time

from relate.protocol.errors import AuthenticationError

DEFAULT_TTL_S = 3600.0
MAX_TOKENS = 10_000


class TokenStore:
    def __init__(self, users=None, ttl_s: float = DEFAULT_TTL_S):
        self.users = users
        self.ttl_s = ttl_s
        self._tokens: dict[str, tuple[str, float]] = {}     # sha256(token) -> (user, expires monotonic)
        self._lock = threading.Lock()

    def issue(self, user: str) -> tuple[str, float]:
        """A new token for ``user`` and its lifetime in seconds."""
        token = secrets.token_urlsafe(32)
        now = time.monotonic()
        with self._lock:
            if len(self._tokens) >= MAX_TOKENS:
                self._tokens = {k: v for k, v in self._tokens.items() if v[1] > now}
                if len(self._tokens) >= MAX_TOKENS:      # still full: the oldest go first
                    for key in sorted(self._tokens, key=lambda k: self._tokens[k][1])[:MAX_TOKENS // 10]:
                        del self._tokens[key]
            self._tokens[_digest(token)] = (user, now + self.ttl_s)
        return token, self.ttl_s

    def user(self, token) -> str:
        """The user a live token names; AuthenticationError otherwise."""
        if not isinstance(token, str) or not token or len(token) > 200:
            raise AuthenticationError("The client is unauthorized due to authentication failure.")
        with self._lock:
            entry = self._tokens.get(_digest(token))
        if entry is None or entry[1] < time.monotonic():
            raise AuthenticationError("The client is unauthorized due to authentication failure.")
        user = entry[0]
        if self.users is not None:
            record = self.users.get(user)
            if record is None or record.get("suspended"):
                raise AuthenticationError("The client is unauthorized due to authentication failure.")
        return user

    def revoke(self, token: str) -> None:
        with self._lock:
            self._tokens.pop(_digest(token), None)


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()
