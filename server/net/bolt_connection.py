"""One Bolt client connection: the native ``ClientConnection`` (request queue, reader/processor split,
limits, timeouts, shutdown, the same SessionCore, users and logging) with Bolt's handshake and its
wire-format hooks: PackStream requests, Bolt replies. Bolt-only requests (LOGOFF, ROUTE, TELEMETRY)
are answered here; everything else goes through the core."""
from __future__ import annotations

import asyncio

import structlog

from relate.protocol import ProtocolViolation
from relate.protocol import messages as m
from relate.protocol.bolt import handshake as hs
from relate.protocol.bolt import messages as bm
from relate.protocol.bolt.connection import BoltServerConnection
from relate.protocol.bolt.packstream import Packer, Unpacker
from relate.protocol.bolt.states import bolt_transition, ignores
from relate.protocol.states import TX_STATES, State

from ..session import SessionCore, bookmarks
from . import bolt_access
from .bolt_output import DATABASE, BoltOutput
from .bolt_values import Patches, dehydrator, hydrator
from . import websocket
from .connection import HANDSHAKE_TIMEOUT_S, ClientConnection, RequestQueue

ROUTING_TTL_S = 300
_log = structlog.get_logger("relate.bolt")
_DATABASES = (None, "", DATABASE, bolt_access.SYSTEM)


class DatabaseNotFound(ProtocolViolation):
    code = "Neo.ClientError.Database.DatabaseNotFound"


class BoltConnection(ClientConnection):
    answers_now = False       # Bolt's RUN/PULL carry other metadata (bookmarks, db): the usual path

    def __init__(self, reader, writer, server):
        super().__init__(reader, writer, server)
        self.id = "bolt-" + self.id
        self.version: hs.BoltVersion | None = None
        self._patches: Patches | None = None        # Bolt 4.4: what HELLO's patch_bolt asked for
        self._databases = bolt_access.TransactionDatabase()

    async def _handshake(self) -> bool:
        first = await asyncio.wait_for(self._reader.readexactly(len(websocket.HTTP_PREFIX)), HANDSHAKE_TIMEOUT_S)
        if first == websocket.HTTP_PREFIX:
            if not self._server.config.bolt_websocket:
                return False
            upgraded = await websocket.upgrade(first, self._reader, self._writer, timeout_s=HANDSHAKE_TIMEOUT_S,
                                               max_frame=self._server.config.max_message_size)
            if upgraded is None:
                _log.info("websocket upgrade refused", conn=self.id, peer=self.peer)
                return False
            self._reader, self._writer = upgraded     # type: ignore[assignment]   # the Bolt stream inside
            self.id = self.id.replace("bolt-", "bolt-ws-", 1)
            first = b""
        read = lambda n: asyncio.wait_for(self._reader.readexactly(n), HANDSHAKE_TIMEOUT_S)  # noqa: E731
        data = first + await read(hs.CLIENT_HANDSHAKE_SIZE - len(first))
        try:
            slots = hs.parse_client_handshake(data)
        except hs.BoltHandshakeError as exc:
            _log.info("handshake refused", conn=self.id, peer=self.peer, error=str(exc))
            return False
        if hs.wants_manifest(slots):
            self._writer.write(hs.manifest_offer())
            await self._writer.drain()
            answer = await read(5)
            try:
                while (choice := hs.parse_manifest_choice(answer)) is None:
                    answer += await read(1)
            except hs.BoltHandshakeError as exc:
                _log.info("handshake refused", conn=self.id, peer=self.peer, error=str(exc))
                return False
            self.version = choice[0]
            return True
        self.version = hs.choose_version(slots)
        self._writer.write(hs.version_bytes(self.version))
        await self._writer.drain()
        if self.version is None:
            _log.info("handshake refused", conn=self.id, peer=self.peer, error="no common Bolt version")
        return self.version is not None

    def _last_bookmark(self) -> str | None:
        """An auto-commit statement's bookmark (inside a transaction COMMIT gives it instead)."""
        if self.core is not None and self.core.state in TX_STATES:
            return None
        ts = getattr(getattr(self._server.database, "store", None), "last_commit_ts", None)
        return bookmarks.bookmark(ts) if isinstance(ts, int) else None

    # -- the wire format hooks of ClientConnection -----------------------------------------------

    def _connection(self):
        self._patches = Patches(self.version)
        return BoltServerConnection(Packer(dehydrator(self.version, self._patches)),
                                    Unpacker(hydrator(self.version, self._patches)),
                                    max_message_size=self._server.config.max_message_size)

    def _output(self, protocol):
        _log.debug("bolt session", conn=self.id, version=str(self.version))
        return BoltOutput(self._writer, protocol.packer, self.version, connection_id=self.id,
                          bookmark=self._last_bookmark)

    async def _handle(self, request, out: BoltOutput, queue: RequestQueue) -> None:
        core = self.core
        state = core.state
        if bolt_transition(state, request.signature) is None:
            out.answering(None)
            if ignores(state):
                await out.ignored()
            else:
                await core.reject(ProtocolViolation(
                    f"{type(request).__name__.upper()} cannot be handled by a session in the {state.value} state"), out)
            return
        db = getattr(request, "extra", {}).get("db") if isinstance(getattr(request, "extra", None), dict) else None
        if isinstance(db, str):
            request.extra["db"] = db.lower()      # database names are case-insensitive, as in Neo4j
        if isinstance(request, (bm.Route, bm.Telemetry, bm.Logoff)):
            await self._bolt_only(request, core, out)
            return
        extra = getattr(request, "extra", None)
        if isinstance(request, (m.Run, m.Begin)) and extra.get("db") not in _DATABASES:
            out.answering(None)
            await core.reject(DatabaseNotFound(
                f"Database does not exist. Database name: '{extra.get('db')}' (Relate serves one database, "
                f"'{DATABASE}')"), out)
            return
        if isinstance(request, m.Begin):
            self._databases.begin(extra)
        elif isinstance(request, m.Run) and (refused := await self._refusal(request, state)) is not None:
            out.answering(None)
            await core.reject(refused, out)
            return
        out.answering(request)
        if isinstance(request, m.Hello) and self.version < hs.BoltVersion(5, 1):
            if self.version < hs.BoltVersion(5, 0) and "utc" in (request.extra.get("patch_bolt") or ()):
                self._patches.utc = out.patched_utc = True      # 4.4 + utc: DateTimes as in 5.x
            hello, auth = bm.split_hello_auth(request)
            out.hold_hello = auth is not None
            try:
                await core.handle(hello, out)
            finally:
                out.hold_hello = False
            if auth is not None and core.state is State.AUTHENTICATION:
                out.answering(m.Logon(auth))
                await core.handle(m.Logon(auth), out)
            return
        await core.handle(request, out, queue.peek())

    async def _refusal(self, run: m.Run, state: State) -> ProtocolViolation | None:
        """Why ``run`` may not run: a graph statement on the system database (prepared off the event
        loop: a first parse may take a while; the plan is cached for the run)."""
        if not self._databases.is_system(run.extra, in_tx=state in TX_STATES):
            return None
        return await asyncio.to_thread(bolt_access.refusal, self._server.database, run.query)

    async def _bolt_only(self, request, core: SessionCore, out: BoltOutput) -> None:
        out.answering(request)
        if isinstance(request, bm.Telemetry):
            await out.success({})
        elif isinstance(request, bm.Logoff):
            await core.logoff(out)
        else:
            if request.extra.get("db") not in _DATABASES:
                await core.reject(DatabaseNotFound(f"Database does not exist. Database name: "
                                                   f"'{request.extra.get('db')}'"), out)
                return
            address = request.routing.get("address") or self._local_address()
            servers = [{"addresses": [address], "role": role} for role in ("ROUTE", "READ", "WRITE")]
            database = request.extra.get("db") or DATABASE
            await out.success({"rt": {"ttl": ROUTING_TTL_S, "db": database, "servers": servers}})

    def _local_address(self) -> str:
        host, port = self._writer.get_extra_info("sockname")[:2]
        return f"{host}:{port}"
