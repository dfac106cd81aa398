"""Users and logins. Users live in the durable schema catalog as ``user:NAME`` entries holding a
salted scrypt hash, so they survive restarts and travel with the WAL like any schema change.

``UserStore`` is what CREATE/ALTER/DROP USER and SHOW USERS call (inside the statement's write
transaction when given ``tx``); ``Authenticator`` checks LOGON credentials and slows repeated failures.
"""
from __future__ import annotations

import hashlib
import hmac
import os
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from relate.protocol.errors import AuthenticationError, ClientError

from .login_throttle import LoginThrottle, client_ip
from .privileges import DEFAULT_ROLES, roles_of

USER_PREFIX = "user:"
_SCRYPT = {"n": 2 ** 14, "r": 8, "p": 1}          # ~16 MiB and some tens of ms per check
_INVALID_ARGUMENTS = "Neo.ClientError.General.InvalidArguments"


MIN_PASSWORD_LENGTH = 8


def hash_password(password: str) -> dict[str, Any]:
    """A fresh salted scrypt record for ``password`` (what the catalog stores; never the password)."""
    if not isinstance(password, str) or len(password) < MIN_PASSWORD_LENGTH:
        raise ClientError(f"A password must be a string of at least {MIN_PASSWORD_LENGTH} characters.",
                          code=_INVALID_ARGUMENTS)
    salt = os.urandom(16)
    digest = hashlib.scrypt(password.encode(), salt=salt, dklen=32, maxmem=64 * 1024 * 1024, **_SCRYPT)
    return {"algorithm": "scrypt", **_SCRYPT, "salt": salt.hex(), "hash": digest.hex()}


def check_password(record: dict[str, Any], password: str) -> bool:
    if record.get("algorithm") != "scrypt" or not isinstance(password, str):
        return False
    digest = hashlib.scrypt(password.encode(), salt=bytes.fromhex(record["salt"]), n=record["n"],
                            r=record["r"], p=record["p"], dklen=32, maxmem=64 * 1024 * 1024)
    return hmac.compare_digest(digest.hex(), record["hash"])


class UserStore:
    """Users on top of ``store.put_schema('user:NAME', {...})``; every method takes an optional
    open transaction (the engine passes the statement's), else it runs its own."""

    def __init__(self, store):
        self._store = store

    def _write(self, tx, action):
        if tx is not None:
            return action(tx)
        own = self._store.begin_write()
        try:
            out = action(own)
        except BaseException:
            own.rollback()
            raise
        own.commit()
        return out

    def _read(self, tx) -> dict[str, dict]:
        if tx is not None:
            return tx.schema()
        own = self._store.begin_read()
        try:
            return dict(own.schema())
        finally:
            own.close()

    def get(self, name: str, tx=None) -> dict[str, Any] | None:
        return self._read(tx).get(USER_PREFIX + name)

    def entry_now(self, name: str) -> dict[str, Any] | None:
        """The user's latest committed entry, without opening a transaction (per-statement checks)."""
        return self._store._schema.entries.get(USER_PREFIX + name)

    def create_user(self, name: str, password: str, *, change_required: bool = False,
                    suspended: bool = False, if_not_exists: bool = False, roles: list[str] | None = None,
                    home: str | None = None, replace: bool = False, tx=None) -> bool:
        """Add a user (``replace``: in place of one of that name); False when it exists and
        ``if_not_exists``, else an error. True when created."""
        def action(t):
            if USER_PREFIX + name in t.schema() and not replace:
                if if_not_exists:
                    return False
                raise ClientError(f"User '{name}' already exists.", code=_INVALID_ARGUMENTS)
            entry = {"kind": "user", "name": name, "password": hash_password(password),
                     "change_required": change_required, "suspended": suspended,
                     "roles": list(DEFAULT_ROLES if roles is None else roles)}
            if home:
                entry["home"] = home
            t.put_schema(USER_PREFIX + name, entry)
            return True
        return self._write(tx, action)

    def rename_user(self, old: str, new: str, *, if_exists: bool = False, tx=None) -> bool:
        """Give user ``old`` the name ``new`` (password, roles and flags kept); False when ``old`` is missing
        and ``if_exists``."""
        def action(t):
            entry = t.schema().get(USER_PREFIX + old)
            if entry is None:
                if if_exists:
                    return False
                raise ClientError(f"Failed to rename the specified user '{old}' to '{new}': "
                                  f"The user '{old}' does not exist.", code=_INVALID_ARGUMENTS)
            if USER_PREFIX + new in t.schema():
                raise ClientError(f"Failed to rename the specified user '{old}' to '{new}': "
                                  f"User '{new}' already exists.", code=_INVALID_ARGUMENTS)
            t.drop_schema(USER_PREFIX + old)
            t.put_schema(USER_PREFIX + new, {**entry, "name": new})
            return True
        return self._write(tx, action)

    def alter_user(self, name: str, *, password: str | None = None, change_required: bool | None = None,
                   suspended: bool | None = None, home: str | None = None, if_exists: bool = False,
                   tx=None) -> bool:
        """Change a user's password or flags; False when missing and ``if_exists``."""
        def action(t):
            entry = t.schema().get(USER_PREFIX + name)
            if entry is None:
                if if_exists:
                    return False
                raise ClientError(f"User '{name}' does not exist.", code=_INVALID_ARGUMENTS)
            entry = dict(entry)
            if password is not None:
                entry["password"] = hash_password(password)
            if change_required is not None:
                entry["change_required"] = change_required
            if suspended is not None:
                entry["suspended"] = suspended
            if home is not None:                 # "" : REMOVE HOME DATABASE
                entry["home"] = home or None
            t.put_schema(USER_PREFIX + name, entry)
            return True
        return self._write(tx, action)

    def set_roles(self, name: str, roles: list[str], tx=None) -> None:
        """Replace a user's roles (see ``relate.server.privileges``)."""
        def action(t):
            entry = t.schema().get(USER_PREFIX + name)
            if entry is None:
                raise ClientError(f"User '{name}' does not exist.", code=_INVALID_ARGUMENTS)
            t.put_schema(USER_PREFIX + name, {**entry, "roles": list(roles)})
        self._write(tx, action)

    def drop_user(self, name: str, *, if_exists: bool = False, tx=None) -> bool:
        def action(t):
            if USER_PREFIX + name not in t.schema():
                if if_exists:
                    return False
                raise ClientError(f"User '{name}' does not exist.", code=_INVALID_ARGUMENTS)
            t.drop_schema(USER_PREFIX + name)
            return True
        return self._write(tx, action)

    def list_users(self, tx=None) -> list[dict[str, Any]]:
        """Rows for SHOW USERS: user, roles, passwordChangeRequired, suspended, home (sorted by name)."""
        rows = []
        for key, entry in self._read(tx).items():
            if key.startswith(USER_PREFIX):
                rows.append({"user": entry["name"], "roles": roles_of(entry),
                             "passwordChangeRequired": bool(entry.get("change_required")),
                             "suspended": bool(entry.get("suspended")), "home": entry.get("home")})
        return sorted(rows, key=lambda row: row["user"])

    def verify(self, name: str, password: str) -> bool:
        """True when ``name`` exists, is not suspended and ``password`` matches."""
        entry = self.get(name)
        if entry is None:
            check_password(_DUMMY_RECORD, password)   # same cost, so timing does not reveal names
            return False
        return check_password(entry["password"], password) and not entry.get("suspended")

    def has_users(self) -> bool:
        return any(key.startswith(USER_PREFIX) for key in self._read(None))


_DUMMY_RECORD = {"algorithm": "scrypt", **_SCRYPT, "salt": "00" * 16, "hash": "00" * 32}


class Authenticator:
    """Checks LOGON credentials. Failures are counted per client IP and per user (``LoginThrottle``):
    each costs a growing delay (0.25 s doubling to 5 s) before the reply, and too many lock the user or
    IP out for a while, so guessing is slow while other sessions are unaffected. Password hashing runs
    on ``HASH_THREADS`` threads of its own: scrypt takes 16 MiB each, and hashing on every session's
    thread left that memory in a malloc arena per thread (a login flood kept ~500 MB)."""

    HASH_THREADS = 2

    def __init__(self, users: UserStore | None, *, enabled: bool = True, tokens=None):
        self.users = users
        self.enabled = enabled
        self.tokens = tokens            # a TokenStore (auth_tokens.py): scheme "bearer" logins
        self.throttle = LoginThrottle()
        self._hashing = ThreadPoolExecutor(self.HASH_THREADS, thread_name_prefix="relate-auth")

    def authenticate(self, auth: dict[str, Any], peer: str = "", wanted=None) -> str:
        """The user name for these credentials; AuthenticationError otherwise. Blocking (scrypt).
        ``wanted()`` is asked again when a hashing thread picks the login up: a client that left
        while queued costs no hash (a login flood must not starve the logins that follow it)."""
        scheme = auth.get("scheme", "none")
        if not self.enabled:
            return str(auth.get("principal") or "anonymous")
        if scheme == "bearer" and self.tokens is not None:
            return self.tokens.user(auth.get("credentials"))
        if scheme != "basic":
            raise AuthenticationError(f"unsupported authentication scheme {scheme!r}; use 'basic'")
        user, password = auth.get("principal"), auth.get("credentials")
        if not isinstance(user, str) or not isinstance(password, str):
            raise AuthenticationError("The client is unauthorized due to authentication failure.")
        locked = self.throttle.locked_for(client_ip(peer), user)
        if locked > 0:
            raise AuthenticationError(
                f"Too many failed logins: try again in {locked:.0f} s.",
                code="Neo.ClientError.Security.AuthenticationRateLimit")
        if not self._hashing.submit(self._verify, user, password, wanted).result():
            raise AuthenticationError("The client is unauthorized due to authentication failure.")
        return user

    def _verify(self, user: str, password: str, wanted) -> bool:
        if wanted is not None and not wanted():
            return False
        return self.users.verify(user, password)

    def failure_delay(self, peer: str, user: Any = None) -> float:
        """Record a failed login from ``peer`` (ip:port) for ``user``; the seconds to wait before answering."""
        return self.throttle.failed(client_ip(peer), user if isinstance(user, str) else None)

    def succeeded(self, peer: str, user: str | None = None) -> None:
        self.throttle.succeeded(client_ip(peer), user)
