"""Neo4j-style Query API v2: ``POST /db/{db}/query/v2`` and explicit transactions under ``.../tx``.

Each statement runs on a ``SessionCore`` (see ``sessions.py``). The first batch of rows is fetched
before the response starts, so early errors get a proper status; later batches stream, one
``batch_size`` at a time, so a large result never sits in server memory.
"""
from __future__ import annotations

import asyncio
import json
import time
import weakref
from datetime import datetime, timedelta, timezone
from typing import AsyncIterator, Awaitable, Callable

from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse

from relate.protocol.errors import ClientError, RelateError
from relate.protocol import messages as m
from relate.protocol.json_values import from_plain, to_plain, to_typed, typed_parameters

from . import requests as rq
from .sessions import RequestFailed, Transaction, ask

DATABASES = ("neo4j", "relate")
Done = Callable[[bool], Awaitable[None]]
After = Callable[[], Awaitable[dict]]


# -- errors -----------------------------------------------------------------------------------------

def status_for(code: str) -> int:
    if code.startswith("Neo.ClientError.Security.Unauthorized") or code.endswith("CredentialsExpired"):
        return 401
    if code.startswith("Neo.ClientError.Security"):
        return 403
    if code in ("Neo.ClientError.Transaction.TransactionNotFound", "Neo.ClientError.Database.DatabaseNotFound"):
        return 404
    if code.startswith("Neo.ClientError"):
        return 400
    if code.startswith("Neo.TransientError"):
        return 503
    return 500


def error_body(meta: dict) -> dict:
    error = {"code": meta.get("code", "Neo.DatabaseError.General.UnknownError"), "message": meta.get("message", "")}
    for key in ("line", "column"):
        if key in meta:
            error[key] = meta[key]
    return {"errors": [error]}


def error_response(meta: dict, challenge: bool = False) -> JSONResponse:
    status = status_for(meta.get("code", ""))
    # The Basic challenge only when no credentials were sent: browsers answer it with a login
    # dialog, which must not pop up over the console after a failed login.
    headers = {"WWW-Authenticate": 'Basic realm="Relate"'} if status == 401 and challenge else None
    return JSONResponse(error_body(meta), status_code=status, headers=headers)


def failure(exc: BaseException, request: Request | None = None) -> JSONResponse:
    challenge = request is not None and "authorization" not in request.headers
    if isinstance(exc, RequestFailed):
        return error_response(exc.metadata, challenge)
    if isinstance(exc, rq.BodyTooLarge):
        return JSONResponse(error_body(exc.to_metadata()), status_code=413)
    if isinstance(exc, RelateError):
        return error_response(exc.to_metadata(), challenge)
    raise exc


# -- results ----------------------------------------------------------------------------------------

# Every counter, zeros included, in the Query API's order (clients index them without a default).
_COUNTERS = ("nodes_created", "nodes_deleted", "properties_set", "relationships_created", "relationships_deleted",
             "labels_added", "labels_removed", "indexes_added", "indexes_removed", "constraints_added",
             "constraints_removed")


def _counters(meta: dict) -> dict:
    stats = meta.get("stats", {})
    out = {"containsUpdates": any(v for k, v in stats.items() if k != "system_updates")}
    out.update({_camel(k): stats.get(k, 0) for k in _COUNTERS})
    out.update({_camel(k): v for k, v in stats.items() if k not in _COUNTERS and k != "system_updates"})
    out["containsSystemUpdates"] = bool(stats.get("system_updates"))
    out["systemUpdates"] = stats.get("system_updates", 0)
    return out


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


def _summary(meta: dict) -> dict:
    out = {"counters": _counters(meta), "bookmarks": [meta["bookmark"]] if meta.get("bookmark") else []}
    if meta.get("notifications"):
        out["notifications"] = meta["notifications"]
    if meta.get("plan") is not None:
        out["queryPlan"] = meta["plan"]
    out["queryType"] = meta.get("type", "r")
    if meta.get("costs"):           # AI spend and the call log (docs/relevance.md), when there was any
        out["costs"] = meta["costs"]
    if meta.get("calls"):
        out["calls"] = meta["calls"]
    last = meta.get("t_last")
    out["timings"] = {"firstMs": meta.get("t_first"), "lastMs": round(last, 3) if isinstance(last, float) else last}
    return out


class ResultStream:
    """One statement's result: fields, the first batch, and a way to pull the rest."""

    def __init__(self, core, fields: list, first: list, meta: dict | None, batch: int, t_first):
        self.core, self.fields, self.first, self.meta, self.batch = core, fields, first, meta, batch
        self.t_first = t_first

    @property
    def complete(self) -> bool:
        return self.meta is not None and not self.meta.get("has_more")

    async def rest(self) -> AsyncIterator[list]:
        while not self.complete:
            sink = await ask(self.core, m.Pull(self.batch))
            self.meta = sink.meta or {}
            yield sink.rows


async def start(core, statement: str, params: dict, batch: int, extra: dict | None = None) -> ResultStream:
    """RUN and the first PULL (one engine call); RequestFailed when either fails. ``extra``: the RUN's
    metadata (``{"mode": "r"}`` for accessMode READ)."""
    run = await ask(core, m.Run(statement, params, extra or {}), m.Pull(batch))
    first = await ask(core, m.Pull(batch))
    meta = first.meta or {}
    if not meta.get("has_more"):
        meta = {**meta, "t_first": (run.meta or {}).get("t_first")}
    return ResultStream(core, (run.meta or {}).get("fields", []), first.rows, meta,
                        batch, (run.meta or {}).get("t_first"))


def _encoder(fmt: str):
    return to_plain if fmt == "plain" else to_typed


def _dumps(value) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


async def respond(result: ResultStream, fmt: str, done: Done, extra: dict | None = None,
                  after: After | None = None) -> Response:
    """The HTTP response for a started result; ``done(ok)`` runs once the result is read: at once for
    a complete one (its rows are all here), else when the stream ends or the client leaves. ``after``
    (a commit) runs once every row is out; its fields join the summary, its RequestFailed is the error."""
    encode = _encoder(fmt)
    extra = extra or {}

    def finish_meta() -> dict:
        meta = dict(result.meta or {})
        meta.setdefault("t_first", result.t_first)
        return meta

    if result.complete and fmt != "jsonl":
        try:
            extra = {**extra, **(await after() if after is not None else {})}
        except RequestFailed as exc:
            await done(False)
            return failure(exc)
        except BaseException:
            await done(False)
            raise
        body = {"data": {"fields": result.fields, "values": [[encode(v) for v in row] for row in result.first]},
                **_summary(finish_meta()), **extra}
        await done(True)
        return Response(_dumps(body), status_code=202, media_type=_media(fmt))
    guarded = _once(done)
    body = _stream(result, fmt, encode, guarded, extra, finish_meta, after)
    _release_if_never_run(body, guarded)
    return StreamingResponse(body, status_code=202, media_type=_media(fmt))


def _once(done: Done) -> Done:
    """``done`` that runs at most once, however many paths call it."""
    called = False

    async def wrapper(ok: bool) -> None:
        nonlocal called
        if not called:
            called = True
            await done(ok)
    wrapper.called = lambda: called
    return wrapper


def _release_if_never_run(body, done: Done) -> None:
    """A client that leaves before the body starts never runs the generator's ``finally``: release
    the core when the generator is collected instead."""
    loop = asyncio.get_running_loop()

    def collected() -> None:
        if not done.called() and not loop.is_closed():
            loop.call_soon_threadsafe(lambda: asyncio.ensure_future(done(False)))
    weakref.finalize(body, collected)


def _media(fmt: str) -> str:
    return {"plain": "application/json", "typed": "application/vnd.neo4j.query.v1.1",
            "jsonl": rq.JSONL}[fmt]


async def _stream(result: ResultStream, fmt: str, encode, done: Done, extra: dict, finish_meta,
                  after: After | None = None):
    ok = False
    try:
        if fmt == "jsonl":
            yield _dumps({"$event": "Header", "_body": {"fields": result.fields}}) + "\n"
            for row in result.first:
                yield _dumps({"$event": "Record", "_body": [encode(v) for v in row]}) + "\n"
        else:
            yield '{"data":{"fields":' + _dumps(result.fields) + ',"values":['
            yield ",".join(_dumps([encode(v) for v in row]) for row in result.first)
        sent = len(result.first)
        error = None
        try:
            async for rows in result.rest():
                if not rows:
                    continue
                if fmt == "jsonl":
                    yield "".join(_dumps({"$event": "Record", "_body": [encode(v) for v in row]}) + "\n"
                                  for row in rows)
                else:
                    yield ("," if sent else "") + ",".join(_dumps([encode(v) for v in row]) for row in rows)
                sent += len(rows)
            if after is not None:
                extra = {**extra, **await after()}
        except RequestFailed as exc:
            error = exc.metadata
        if fmt == "jsonl":
            if error is not None:
                yield _dumps({"$event": "Error", "_body": error_body(error)["errors"]}) + "\n"
            else:
                yield _dumps({"$event": "Summary", "_body": {**_summary(finish_meta()), **extra}}) + "\n"
        else:
            tail = error_body(error) if error is not None else {**_summary(finish_meta()), **extra}
            yield "]}," + _dumps(tail)[1:]
        ok = error is None
    finally:
        # Runs on normal completion and when the client goes away (the generator is closed).
        await asyncio.shield(done(ok))


# -- endpoints --------------------------------------------------------------------------------------

class QueryApi:
    def __init__(self, server, sessions):
        self.server = server
        self.sessions = sessions

    @property
    def _limit(self) -> int:
        return self.server.config.max_message_size

    @property
    def _batch(self) -> int:
        return self.server.config.batch_size

    def _auth(self, request: Request) -> dict:
        return rq.credentials(request, self.server.config.auth)

    @staticmethod
    def _peer(request: Request) -> str:
        client = request.client
        return f"{client.host}:{client.port}" if client else "http"

    @staticmethod
    def _check_db(request: Request) -> None:
        name = request.path_params.get("db", "")
        if name.lower() not in DATABASES:        # case-insensitive, as in Neo4j
            raise ClientError(f"Database does not exist. Database name: '{name[:60]}'.",
                              code="Neo.ClientError.Database.DatabaseNotFound")

    async def _body(self, request: Request, *, optional: bool) -> tuple[str | None, dict]:
        statement, params, _ = await self._request(request, optional=optional)
        return statement, params

    async def _request(self, request: Request, *, optional: bool) -> tuple[str | None, dict, dict]:
        """The statement, its parameters and the RUN/BEGIN metadata its ``accessMode`` asks for."""
        body = rq.parse_json(await rq.read_body(request, self._limit), optional=optional)
        statement = rq.statement_of(body, optional=optional)
        extra = rq.access_mode(body)
        rq.check_bookmarks(body)
        if body.get("bookmarks"):          # the session core waits for them (or refuses them)
            extra["bookmarks"] = body["bookmarks"]
        raw = rq.parameters_of(body)
        params = _typed(raw) if rq.typed_input(request) else from_plain(rq.plain_parameters(raw))
        return statement, params, extra

    async def query(self, request: Request) -> Response:
        """Auto-commit: one statement in its own transaction."""
        try:
            self._check_db(request)
            auth = self._auth(request)
            statement, params, extra = await self._request(request, optional=False)
            key, core = await self.sessions.acquire(auth, self._peer(request))
        except Exception as exc:
            return failure(exc, request)

        async def done(ok: bool) -> None:
            await self.sessions.release(key, core, healthy=ok)
        try:
            result = await start(core, statement, params, self._batch, extra)
        except RequestFailed as exc:
            await done(True)
            return failure(exc)
        except BaseException:
            await done(False)
            raise
        return await respond(result, rq.wants(request), done)

    async def begin(self, request: Request) -> Response:
        try:
            self._check_db(request)
            auth = self._auth(request)
            statement, params, extra = await self._request(request, optional=True)
            tx = await self.sessions.begin(auth, self._peer(request), extra=extra)
        except Exception as exc:
            return failure(exc, request)
        await tx.lock.acquire()
        return await self._in_tx(request, tx, statement, params)

    async def run(self, request: Request) -> Response:
        try:
            self._check_db(request)
            statement, params = await self._body(request, optional=False)
            tx = self.sessions.get(request.path_params["tx"], self._auth(request))
        except Exception as exc:
            return failure(exc, request)
        await tx.lock.acquire()
        return await self._in_tx(request, tx, statement, params)

    async def _in_tx(self, request: Request, tx: Transaction, statement: str | None, params: dict) -> Response:
        """Run a statement in ``tx`` (the caller holds its lock); a failure ends the transaction."""
        if not self.sessions.alive(tx):           # ended while this request waited for the lock
            tx.lock.release()
            return failure(RequestFailed(self.sessions.not_found(tx.id)), request)
        tx.touch()

        async def done(ok: bool) -> None:
            tx.touch()
            tx.lock.release()
            if not ok:
                await self.sessions.finish(tx)
        extra = {"transaction": {"id": tx.id, "expires": _expires(tx)}}
        if statement is None:
            await done(True)
            return JSONResponse(extra, status_code=202)
        try:
            result = await start(tx.core, statement, params, self._batch)
        except RequestFailed as exc:
            await done(False)
            return failure(exc)
        except BaseException:
            await done(False)
            raise
        return await respond(result, rq.wants(request), done, extra)

    async def commit(self, request: Request) -> Response:
        """Commit, after running the body's statement if any; its rows stream like any result's and
        the commit runs once the last row is out (a client that leaves first rolls it back)."""
        try:
            self._check_db(request)
            statement, params = await self._body(request, optional=True)
            tx = self.sessions.get(request.path_params["tx"], self._auth(request))
        except Exception as exc:
            return failure(exc, request)
        await tx.lock.acquire()
        if not self.sessions.alive(tx):
            tx.lock.release()
            return failure(RequestFailed(self.sessions.not_found(tx.id)), request)

        async def done(ok: bool) -> None:
            tx.lock.release()
            await self.sessions.finish(tx)          # committed or not, the transaction is over

        async def commit_now() -> dict:
            committed = await ask(tx.core, m.Commit())
            bookmark = (committed.meta or {}).get("bookmark")
            return {"bookmarks": [bookmark] if bookmark else []}
        try:
            if statement is None:
                body = await commit_now()
                await done(True)
                return JSONResponse(body, status_code=202)
            result = await start(tx.core, statement, params, self._batch)
        except RequestFailed as exc:
            await done(False)
            return failure(exc)
        except BaseException:
            await done(False)
            raise
        return await respond(result, rq.wants(request), done, after=commit_now)

    async def rollback(self, request: Request) -> Response:
        try:
            self._check_db(request)
            tx = self.sessions.get(request.path_params["tx"], self._auth(request))
        except Exception as exc:
            return failure(exc, request)
        async with tx.lock:
            if not self.sessions.alive(tx):
                return failure(RequestFailed(self.sessions.not_found(tx.id)), request)
            try:
                await ask(tx.core, m.Rollback())
            except RequestFailed as exc:
                await self.sessions.finish(tx)
                return failure(exc)
            await self.sessions.finish(tx)
        return JSONResponse({}, status_code=202)

    async def login(self, request: Request) -> Response:
        """``POST /login`` with Basic credentials: a bearer token for later requests."""
        try:
            auth = self._auth(request)
            if auth.get("scheme") != "basic":
                raise ClientError("Log in with Basic credentials", code="Neo.ClientError.Security.Unauthorized")
            key, core = await self.sessions.acquire(auth, self._peer(request))
        except Exception as exc:
            return failure(exc, request)
        user = core.user
        await self.sessions.release(key, core)
        tokens = self.server.authenticator.tokens
        token, ttl = tokens.issue(user)
        return JSONResponse({"token": token, "user": user, "expires_in": int(ttl)})


def _typed(raw: dict) -> dict:
    """Typed JSON parameters; a value the decoder chokes on (an INT8 coordinate of 300) is a bad request."""
    try:
        return typed_parameters(raw)
    except (ValueError, TypeError, OverflowError) as exc:
        raise ClientError(f"invalid typed parameter: {str(exc)[:200]}", code=rq.INVALID_FORMAT) from None


def _expires(tx: Transaction) -> str:
    left = max(0.0, tx.expires - time.monotonic())
    return (datetime.now(timezone.utc) + timedelta(seconds=left)).isoformat(timespec="seconds")
