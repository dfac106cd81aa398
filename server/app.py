"""The server process: opens the database, listens, serves sessions, and shuts down cleanly."""
from __future__ import annotations

import asyncio
import errno
import functools
import json
import os
import signal
import ssl
import time

import structlog

from relate.protocol.errors import ClientError, RelateError

from .auth import Authenticator, UserStore
from .auth_tokens import TokenStore
from .config import DEFAULT_BOLT_LISTEN, Config, Serving, split_address
from .net.bolt_connection import BoltConnection
from .net.connection import ClientConnection
from .net.preauth import PreAuthGate
from .startup import NO_USER, StartupError, describe

_log = structlog.get_logger("relate.server")
INITIAL_USER = "neo4j"


def user_store_for(database) -> UserStore | None:
    """The engine's user store (the engine may create one), else one over its storage."""
    users = getattr(database, "users", None)
    if isinstance(users, UserStore):
        return users
    store = getattr(database, "store", None)
    return UserStore(store) if store is not None else None


class RelateServer:
    def __init__(self, config: Config, database=None):
        self.config = config
        self.database = database          # normally opened by start(); tests may pass their own
        self.authenticator: Authenticator | None = None
        self._connections: set[ClientConnection] = set()
        self.preauth = PreAuthGate(config.max_unauthenticated, config.login_timeout)
        self._tasks: set[asyncio.Task] = set()
        self._listeners: list[asyncio.AbstractServer] = []
        self._http = None                 # the HTTP listener (Query API, console, /health)
        self._stopping = asyncio.Event()
        self._started = time.monotonic()

    # -- start ----------------------------------------------------------------------------------

    async def start(self) -> None:
        config = self.config
        if self.database is None:
            from relate.server.engine import Database   # the engine loads only in the server process
            from relate.server.index.sharded import cluster
            cluster.configure(config.ray_address)       # joined when a sharded index needs it
            try:
                self.database = await asyncio.to_thread(
                    Database.open, config.data, fulltext_engine=config.fulltext_engine,
                    import_dir=config.import_dir, max_statement_bytes=config.max_statement_bytes,
                    max_string_chars=config.max_string_chars, max_list_items=config.max_list_items,
                    recover_truncate=config.recover_truncate)
            except (RelateError, OSError) as exc:
                raise StartupError(describe(exc, f"open the database at {config.data}")) from None
        users = user_store_for(self.database)
        if not config.auth:
            _log.warning("authentication is disabled (--no-auth): every client that can reach the port "
                         "has full access")
        if config.password_on_command_line:
            _log.warning("--init-password is visible to every local user in the process list; "
                         "prefer RELATE_PASSWORD or --init-password-file")
        if config.auth:
            if users is None:
                raise SystemExit("relate-server: this engine keeps no users; run with --no-auth")
            await asyncio.to_thread(self._create_initial_user, users)
        self.authenticator = Authenticator(users, enabled=config.auth, tokens=TokenStore(users))
        host, port = split_address(config.listen)
        try:
            tls = self._tls_context()
        except (OSError, ssl.SSLError) as exc:
            raise StartupError(describe(exc, f"load the TLS certificate {config.tls_cert}")) from None
        try:
            main = await asyncio.start_server(self._on_client, host, port, ssl=tls, limit=2 ** 20,
                                              backlog=min(config.max_connections, 4096))
        except OSError as exc:
            raise StartupError(describe(exc, f"listen on {config.listen}")) from None
        self._listeners.append(main)
        bound = {"listen": _address(main), "pid": os.getpid(), "tls": tls is not None}
        bolt = await self._start_bolt(tls)
        if bolt is not None:
            self._listeners.append(bolt)
            bound["bolt"] = _address(bolt)
        if config.http_listen:
            from .http.listener import HttpListener   # Starlette/uvicorn load only when HTTP is on
            self._http = HttpListener(self, *split_address(config.http_listen))
            try:
                bound["http"] = await self._http.start()
            except OSError as exc:
                raise StartupError(describe(exc, f"listen on {config.http_listen}")) from None
            except SystemExit:      # uvicorn exits when it cannot bind; say so in our one line
                self._http = None
                raise StartupError(f"cannot listen on {config.http_listen}: the address is in use or not "
                                   "available (pick another with --http-listen)") from None
        try:          # what SHOW SETTINGS and dbms.routing.getRoutingTable report (config.Serving)
            self.database.serving = Serving(config, bound["listen"], bound.get("bolt"), bound.get("http"))
        except AttributeError:
            pass      # an engine that keeps no attributes (tests' scripted ones)
        _log.info("listening", **bound, data=config.data or ":memory:", auth=config.auth,
                  loop=type(asyncio.get_running_loop()).__module__.split(".")[0])
        if config.ready_file:
            temporary = config.ready_file + ".tmp"
            with open(temporary, "w") as file:
                json.dump(bound, file)
            os.replace(temporary, config.ready_file)

    async def _start_bolt(self, tls: ssl.SSLContext | None) -> asyncio.AbstractServer | None:
        """The Bolt listener (same users, TLS and limits). The default port already taken is a
        warning, not a failure: another local server or Neo4j may hold 7687."""
        if not self.config.bolt_listen:
            return None
        host, port = split_address(self.config.bolt_listen)
        try:
            return await asyncio.start_server(functools.partial(self._on_client, kind=BoltConnection), host, port,
                                              ssl=tls, limit=2 ** 20, backlog=min(self.config.max_connections, 4096))
        except OSError as exc:
            if exc.errno != errno.EADDRINUSE or self.config.bolt_listen != DEFAULT_BOLT_LISTEN:
                raise StartupError(describe(exc, f"listen on {self.config.bolt_listen} (Bolt)")) from None
            _log.warning("bolt listener not started: address in use", address=self.config.bolt_listen)
            return None

    def _create_initial_user(self, users: UserStore) -> None:
        if users.has_users():
            return
        if not self.config.init_password:
            raise StartupError(NO_USER)      # a server nobody can log in to is of no use
        try:
            users.create_user(INITIAL_USER, self.config.init_password, roles=["admin"])
        except ClientError as exc:          # too short: a setting the operator must change, not a crash
            raise StartupError(f"cannot create the initial user {INITIAL_USER}: {exc.message}") from None
        _log.info("created the initial user", user=INITIAL_USER)

    def _tls_context(self) -> ssl.SSLContext | None:
        if not self.config.tls_cert:
            return None
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.minimum_version = ssl.TLSVersion.TLSv1_2
        context.load_cert_chain(self.config.tls_cert, self.config.tls_key)
        return context

    def _health(self) -> dict:
        if self._stopping.is_set():
            raise RuntimeError("shutting down")
        return {"status": "ok", "connections": len(self._connections),
                "uptime_s": round(time.monotonic() - self._started, 1)}

    # -- serve ----------------------------------------------------------------------------------

    async def _on_client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                         kind: type[ClientConnection] = ClientConnection) -> None:
        if self._stopping.is_set() or len(self._connections) >= self.config.max_connections:
            _log.warning("connection refused", reason="shutting down" if self._stopping.is_set() else "too many")
            writer.close()
            return
        connection = kind(reader, writer, self)
        if not self.preauth.admit(connection):
            _log.warning("connection refused", reason="too many unauthenticated", peer=connection.peer)
            writer.close()
            return
        self._connections.add(connection)
        try:
            await connection.serve()
        finally:
            self._connections.discard(connection)
            self.preauth.release(connection)

    async def run(self) -> None:
        """Start, serve until SIGTERM/SIGINT, then shut down. A failed start raises StartupError
        after closing what it opened."""
        try:
            await self.start()
        except BaseException:
            for listener in self._listeners:
                listener.close()
            if self._http is not None:
                await self._http.close()
            if self.database is not None:
                await asyncio.to_thread(self.database.close)
            raise
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(signum, self._stopping.set)
        await self._stopping.wait()
        await self.shutdown()

    async def shutdown(self) -> None:
        """Stop accepting, let running requests finish (up to shutdown_timeout), close every session,
        checkpoint and close the database."""
        self._stopping.set()
        _log.info("shutting down", connections=len(self._connections))
        for listener in self._listeners:
            listener.close()
        if self._http is not None:
            await self._http.close()
        deadline = time.monotonic() + self.config.shutdown_timeout
        while any(c.busy for c in self._connections) and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
        for connection in list(self._connections):
            connection.stop()
        while self._connections and time.monotonic() < deadline + 5:
            await asyncio.sleep(0.02)
        if self.database is not None:
            await asyncio.to_thread(self._close_database)
        _log.info("stopped")

    def _close_database(self) -> None:
        try:
            self.database.checkpoint()
        except Exception:
            _log.exception("checkpoint at shutdown failed")
        self.database.close()


def _address(server: asyncio.AbstractServer) -> str:
    host, port = server.sockets[0].getsockname()[:2]
    return f"{host}:{port}"
