"""Bolt 5.x/6.0 messages: decode request Structures into the session core's request messages
(``relate.protocol.messages``) plus the Bolt-only LOGOFF, ROUTE and TELEMETRY; build replies."""
from __future__ import annotations

from typing import Any, ClassVar, NamedTuple

from .. import messages as m
from ..errors import ProtocolViolation
from .packstream import Structure

HELLO, GOODBYE, RESET, RUN, BEGIN, COMMIT, ROLLBACK = 0x01, 0x02, 0x0F, 0x10, 0x11, 0x12, 0x13
DISCARD, PULL, TELEMETRY, ROUTE, LOGON, LOGOFF = 0x2F, 0x3F, 0x54, 0x66, 0x6A, 0x6B
SUCCESS, RECORD, IGNORED, FAILURE = 0x70, 0x71, 0x7E, 0x7F
AUTH_KEYS = ("scheme", "principal", "credentials")


class MalformedBoltMessage(ProtocolViolation):
    """A structure that is not a known Bolt request of the right shape."""


# As in ``relate.protocol.messages``: the fields as a NamedTuple, the ``signature`` on a subclass.
class _LogoffFields(NamedTuple):
    pass


class Logoff(_LogoffFields):
    __slots__ = ()
    signature: ClassVar[int] = LOGOFF


class _RouteFields(NamedTuple):
    routing: dict[str, Any]       # the routing context the client was given (address, ...)
    bookmarks: list[Any]
    extra: dict[str, Any]         # db, imp_user


class Route(_RouteFields):
    __slots__ = ()
    signature: ClassVar[int] = ROUTE


class _TelemetryFields(NamedTuple):
    api: int                      # which driver API ran the work (accepted, not stored)


class Telemetry(_TelemetryFields):
    __slots__ = ()
    signature: ClassVar[int] = TELEMETRY


# What a Bolt request decodes to: a session-core request or one of the Bolt-only ones above.
BoltRequest = m.Request | Logoff | Route | Telemetry


def _map(value: Any, what: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise MalformedBoltMessage(f"{what} must be a map")
    return value


def _arity(fields: list[Any], low: int, high: int, name: str) -> None:
    if not low <= len(fields) <= high:
        raise MalformedBoltMessage(f"{name} takes {low if low == high else f'{low} to {high}'} field(s), "
                                   f"not {len(fields)}")


def _stream_extra(fields: list[Any], name: str) -> tuple[int, int]:
    _arity(fields, 1, 1, name)
    extra = _map(fields[0], f"{name} extra")
    n, qid = extra.get("n", m.ALL), extra.get("qid", m.LAST_QUERY)
    if type(n) is not int or type(qid) is not int or n == 0 or n < m.ALL or qid < m.LAST_QUERY:
        raise MalformedBoltMessage(f"{name} needs n > 0 or n = -1, and qid >= -1")
    return n, qid


def decode_request(message: Structure) -> BoltRequest:
    """The request a Bolt message Structure carries; MalformedBoltMessage if it is none."""
    tag, fields = message.tag, message.fields
    if tag == RUN:
        _arity(fields, 3, 3, "RUN")
        if not isinstance(fields[0], str):
            raise MalformedBoltMessage("RUN takes a query string")
        return m.Run(fields[0], _map(fields[1], "RUN parameters"), _map(fields[2], "RUN extra"))
    if tag == PULL:
        return m.Pull(*_stream_extra(fields, "PULL"))
    if tag == DISCARD:
        return m.Discard(*_stream_extra(fields, "DISCARD"))
    if tag == BEGIN:
        _arity(fields, 1, 1, "BEGIN")
        return m.Begin(_map(fields[0], "BEGIN extra"))
    if tag == HELLO:
        _arity(fields, 1, 1, "HELLO")
        return m.Hello(_map(fields[0], "HELLO extra"))
    if tag == LOGON:
        _arity(fields, 1, 1, "LOGON")
        return m.Logon(_map(fields[0], "LOGON auth"))
    if tag == ROUTE:
        _arity(fields, 3, 3, "ROUTE")
        bookmarks = fields[1] if fields[1] is not None else []
        if not isinstance(bookmarks, list):
            raise MalformedBoltMessage("ROUTE bookmarks must be a list")
        extra = fields[2] if fields[2] is not None else {}
        return Route(_map(fields[0], "ROUTE routing context"), bookmarks, _map(extra, "ROUTE extra"))
    if tag == TELEMETRY:
        _arity(fields, 1, 1, "TELEMETRY")
        if type(fields[0]) is not int:
            raise MalformedBoltMessage("TELEMETRY takes an integer")
        return Telemetry(fields[0])
    simple: dict[int, type[m.Goodbye | m.Reset | m.Commit | m.Rollback | Logoff]]
    simple = {GOODBYE: m.Goodbye, RESET: m.Reset, COMMIT: m.Commit, ROLLBACK: m.Rollback, LOGOFF: Logoff}
    cls = simple.get(tag)
    if cls is None:
        raise MalformedBoltMessage(f"unknown Bolt request signature 0x{tag:02X}")
    _arity(fields, 0, 0, cls.__name__.upper())
    return cls()


def split_hello_auth(hello: m.Hello) -> tuple[m.Hello, dict[str, Any] | None]:
    """Bolt 5.0 carries the credentials in HELLO; later versions send them in LOGON."""
    if not any(key in hello.extra for key in AUTH_KEYS):
        return hello, None
    extra = {k: v for k, v in hello.extra.items() if k not in AUTH_KEYS}
    return m.Hello(extra), {k: hello.extra[k] for k in AUTH_KEYS if k in hello.extra}


def success(metadata: dict[str, Any]) -> Structure:
    return Structure(SUCCESS, [metadata])


def failure(metadata: dict[str, Any]) -> Structure:
    return Structure(FAILURE, [metadata])


def record(values: list[Any]) -> Structure:
    return Structure(RECORD, [values])


def ignored() -> Structure:
    return Structure(IGNORED, [])


def encode_request(request: BoltRequest) -> Structure:
    """A request as its Bolt Structure (the client's side; used by tests and the benchmark)."""
    if isinstance(request, m.Run):
        return Structure(RUN, [request.query, request.params, request.extra])
    if isinstance(request, (m.Pull, m.Discard)):
        return Structure(PULL if isinstance(request, m.Pull) else DISCARD, [{"n": request.n, "qid": request.qid}])
    if isinstance(request, (m.Hello, m.Begin)):
        return Structure(HELLO if isinstance(request, m.Hello) else BEGIN, [request.extra])
    if isinstance(request, m.Logon):
        return Structure(LOGON, [request.auth])
    if isinstance(request, Route):
        return Structure(ROUTE, [request.routing, request.bookmarks, request.extra])
    if isinstance(request, Telemetry):
        return Structure(TELEMETRY, [request.api])
    tags = {m.Goodbye: GOODBYE, m.Reset: RESET, m.Commit: COMMIT, m.Rollback: ROLLBACK, Logoff: LOGOFF}
    return Structure(tags[type(request)], [])
