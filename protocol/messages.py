"""Requests and replies. On the wire each message is a msgpack array ``[signature, field...]``.

Requests: HELLO, LOGON, RUN, PULL, DISCARD, BEGIN, COMMIT, ROLLBACK, RESET, ACK_FAILURE, GOODBYE.
Replies: SUCCESS, RECORD, RECORDS (version 1.1: several rows in one message), IGNORED, FAILURE.
Signatures follow Bolt's where Bolt has the message.
"""
from __future__ import annotations

from typing import Any, ClassVar, NamedTuple

from .errors import ProtocolViolation

HELLO, GOODBYE, ACK_FAILURE, RESET = 0x01, 0x02, 0x0E, 0x0F
RUN, BEGIN, COMMIT, ROLLBACK = 0x10, 0x11, 0x12, 0x13
DISCARD, PULL, LOGON = 0x2F, 0x3F, 0x6A
SUCCESS, RECORD, IGNORED, FAILURE = 0x70, 0x71, 0x7E, 0x7F
RECORDS = 0x72      # [RECORDS, [row, ...]]: a batch of rows in one message (protocol 1.1)

ALL = -1            # PULL/DISCARD n meaning "every remaining row"
LAST_QUERY = -1     # qid meaning "the most recent RUN"


class MalformedMessage(ProtocolViolation):
    """A frame that is valid msgpack but not a known message of the right shape."""


# Each message is a NamedTuple of its fields (``_HelloFields``, ...) and a subclass that adds the
# class-level ``signature``: a NamedTuple body may hold fields only (for type checkers), and the empty
# ``__slots__`` keeps instances plain tuples.
class _HelloFields(NamedTuple):
    extra: dict[str, Any] = {}          # user_agent, ...


class Hello(_HelloFields):
    __slots__ = ()
    signature: ClassVar[int] = HELLO


class _LogonFields(NamedTuple):
    auth: dict[str, Any] = {}           # scheme ("basic" | "none"), principal, credentials


class Logon(_LogonFields):
    __slots__ = ()
    signature: ClassVar[int] = LOGON


class _RunFields(NamedTuple):
    query: str
    params: dict[str, Any] = {}
    extra: dict[str, Any] = {}          # tx_timeout (ms), mode ("r" | "w"), ...


class Run(_RunFields):
    __slots__ = ()
    signature: ClassVar[int] = RUN


class _StreamFields(NamedTuple):
    n: int = ALL
    qid: int = LAST_QUERY


class Pull(_StreamFields):
    __slots__ = ()
    signature: ClassVar[int] = PULL


class Discard(_StreamFields):
    __slots__ = ()
    signature: ClassVar[int] = DISCARD


class _ExtraFields(NamedTuple):
    extra: dict[str, Any] = {}          # mode, tx_timeout (ms), bookmarks, metadata


class Begin(_ExtraFields):
    __slots__ = ()
    signature: ClassVar[int] = BEGIN


class _NoFields(NamedTuple):
    pass


class Commit(_NoFields):
    __slots__ = ()
    signature: ClassVar[int] = COMMIT


class Rollback(_NoFields):
    __slots__ = ()
    signature: ClassVar[int] = ROLLBACK


class Reset(_NoFields):
    __slots__ = ()
    signature: ClassVar[int] = RESET


class AckFailure(_NoFields):
    __slots__ = ()
    signature: ClassVar[int] = ACK_FAILURE


class Goodbye(_NoFields):
    __slots__ = ()
    signature: ClassVar[int] = GOODBYE


class _MetadataFields(NamedTuple):
    metadata: dict[str, Any] = {}


class Success(_MetadataFields):
    __slots__ = ()
    signature: ClassVar[int] = SUCCESS


class _RecordFields(NamedTuple):
    values: list[Any]


class Record(_RecordFields):
    __slots__ = ()
    signature: ClassVar[int] = RECORD


class Ignored(_NoFields):
    __slots__ = ()
    signature: ClassVar[int] = IGNORED


class _FailureFields(NamedTuple):
    metadata: dict[str, Any]            # code, message, and optionally detail, line, column, excerpt, phase


class Failure(_FailureFields):
    __slots__ = ()
    signature: ClassVar[int] = FAILURE


Request = Hello | Logon | Run | Pull | Discard | Begin | Commit | Rollback | Reset | AckFailure | Goodbye
Reply = Success | Record | Ignored | Failure


REQUESTS: dict[int, type[Request]] = {cls.signature: cls for cls in (Hello, Logon, Run, Pull, Discard, Begin, Commit, Rollback,
                                           Reset, AckFailure, Goodbye)}
REPLIES: dict[int, type[Reply]] = {cls.signature: cls for cls in (Success, Record, Ignored, Failure)}


def encode(message: Request | Reply) -> list[Any]:
    """The message as the array that goes through the codec."""
    if isinstance(message, (Pull, Discard)):
        return [message.signature, {"n": message.n, "qid": message.qid}]
    return [message.signature, *message]


def _check_map(value: Any, what: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise MalformedMessage(f"{what} must be a map")
    return value


def decode_request(value: Any) -> Request:
    """An unpacked array as a request message; MalformedMessage if it is not one."""
    if not isinstance(value, list) or not value or not isinstance(value[0], int):
        raise MalformedMessage("a message is an array starting with its signature")
    cls = REQUESTS.get(value[0])
    if cls is None:
        raise MalformedMessage(f"unknown request signature 0x{value[0]:02X}")
    fields = value[1:]
    if cls is Run:
        if not 1 <= len(fields) <= 3 or not isinstance(fields[0], str):
            raise MalformedMessage("RUN takes a query string, a parameter map and an extra map")
        return Run(fields[0], _check_map(fields[1] if len(fields) > 1 else {}, "RUN parameters"),
                   _check_map(fields[2] if len(fields) > 2 else {}, "RUN extra"))
    if cls is Pull or cls is Discard:
        extra = _check_map(fields[0] if fields else {}, f"{cls.__name__.upper()} extra")
        n, qid = extra.get("n", ALL), extra.get("qid", LAST_QUERY)
        if type(n) is not int or type(qid) is not int or n == 0 or n < ALL or qid < LAST_QUERY:
            raise MalformedMessage(f"{cls.__name__.upper()} needs n > 0 or n = -1, and qid >= -1")
        return cls(n, qid)
    if len(fields) > len(cls._fields):
        raise MalformedMessage(f"{cls.__name__.upper()} takes {len(cls._fields)} field(s)")
    for field in fields:
        _check_map(field, f"{cls.__name__.upper()} field")
    return cls(*fields)


def decode_reply(value: Any) -> Reply:
    """An unpacked array as a reply message; MalformedMessage if it is not one."""
    if not isinstance(value, list) or not value or not isinstance(value[0], int):
        raise MalformedMessage("a message is an array starting with its signature")
    signature = value[0]
    if signature == RECORD and len(value) == 2 and isinstance(value[1], list):
        return Record(value[1])
    if signature in (SUCCESS, FAILURE) and len(value) == 2 and isinstance(value[1], dict):
        return REPLIES[signature](value[1])  # type: ignore[call-arg, arg-type]  # SUCCESS or FAILURE: one map
    if signature == IGNORED and len(value) == 1:
        return Ignored()
    raise MalformedMessage(f"not a valid reply: signature 0x{signature:02X} with {len(value) - 1} field(s)")
