"""Reading HTTP requests safely: credentials from the Authorization header, a size-limited JSON body,
and the response format the client asked for."""
from __future__ import annotations

import base64
import binascii
import json
import re

from starlette.requests import ClientDisconnect, Request

from relate.protocol.errors import AuthenticationError, ClientError

INVALID_FORMAT = "Neo.ClientError.Request.InvalidFormat"
INVALID = "Neo.ClientError.Request.Invalid"
TYPED = "application/vnd.neo4j.query"          # typed JSON (also ...query.v1.0 / v1.1)
JSONL = "application/vnd.neo4j.query.v1.0+jsonl"


# A lone UTF-16 surrogate can only come from a \\uD800-\\uDFFF escape; the engine never stores one
# and the response encoder cannot write one, so a body that escapes one is refused up front.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_SURROGATE = re.compile("[\ud800-\udfff]")
INT64 = range(-2 ** 63, 2 ** 63)


class BodyTooLarge(ClientError):
    code = "Neo.ClientError.Request.Invalid"


def credentials(request: Request, auth_enabled: bool) -> dict:
    """The LOGON auth map for this request (``basic``, ``bearer`` or ``none``)."""
    header = request.headers.get("authorization", "")
    scheme, _, value = header.partition(" ")
    scheme = scheme.lower()
    if scheme == "basic":
        try:
            user, sep, password = base64.b64decode(value.strip(), validate=True).decode("utf-8").partition(":")
        except (binascii.Error, UnicodeDecodeError):
            raise AuthenticationError("The Authorization header is not valid Basic credentials") from None
        if not sep:
            raise AuthenticationError("The Authorization header is not valid Basic credentials")
        return {"scheme": "basic", "principal": user, "credentials": password}
    if scheme == "bearer":
        return {"scheme": "bearer", "credentials": value.strip()}
    if header:
        raise AuthenticationError("Unsupported Authorization scheme; use Basic or Bearer")
    if auth_enabled:
        raise AuthenticationError("No authentication header supplied.")
    return {"scheme": "none"}


async def read_body(request: Request, limit: int) -> bytes:
    """The request body, refusing (BodyTooLarge) anything over ``limit`` bytes before reading it all."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise BodyTooLarge(f"The request body of {int(declared)} bytes exceeds the limit of {limit} bytes")
    chunks, size = [], 0
    try:
        async for chunk in request.stream():
            size += len(chunk)
            if size > limit:
                raise BodyTooLarge(f"The request body exceeds the limit of {limit} bytes")
            chunks.append(chunk)
    except ClientDisconnect:        # nobody reads the answer; a typed error keeps the log quiet
        raise ClientError("The client closed the connection before the request body arrived",
                          code=INVALID) from None
    return b"".join(chunks)


def parse_json(body: bytes, *, optional: bool = False) -> dict:
    """The body as a JSON object; ClientError (400) with a clear message otherwise."""
    if not body.strip():
        if optional:
            return {}
        raise ClientError("The request body is empty; send a JSON object such as {\"statement\": \"RETURN 1\"}",
                          code=INVALID_FORMAT)
    try:
        text = body.decode("utf-8-sig")        # RFC 8259: JSON on the wire is UTF-8 (a BOM is tolerated)
        value = json.loads(text)
    except UnicodeDecodeError:
        raise ClientError("The request body is not UTF-8 text", code=INVALID_FORMAT) from None
    except json.JSONDecodeError as exc:
        raise ClientError(f"The request body is not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}",
                          code=INVALID_FORMAT) from None
    except RecursionError:
        raise ClientError("The request body is nested too deeply", code=INVALID_FORMAT) from None
    except ValueError:              # an integer literal beyond Python's digit limit (4300)
        raise ClientError("The request body holds a number with too many digits", code=INVALID_FORMAT) from None
    if not isinstance(value, dict):
        raise ClientError("The request body must be a JSON object", code=INVALID_FORMAT)
    if _SURROGATE_ESCAPE.search(text) and any(isinstance(x, str) and _SURROGATE.search(x) for x in leaves(value)):
        raise ClientError("The request body escapes a lone UTF-16 surrogate (\\uD800-\\uDFFF), which is not "
                          "Unicode text", code=INVALID_FORMAT)
    return value


def leaves(value) -> list:
    """Every scalar and map key inside a parsed JSON value, walked without recursion (any depth)."""
    out, stack = [], [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            out.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        else:
            out.append(item)
    return out


def plain_parameters(raw: dict) -> dict:
    """Plain JSON parameters whose integers fit Cypher's 64 bits (typed ones are checked by their decoder)."""
    for leaf in leaves(raw):
        if type(leaf) is int and leaf not in INT64:
            raise ClientError(f"The parameter integer {str(leaf)[:40]} does not fit in 64 bits; send it as a "
                              "typed Float or String", code=INVALID_FORMAT)
    return raw


def parameters_of(body: dict) -> dict:
    """The body's ``parameters`` (an object; absent or null means none)."""
    raw = body.get("parameters")
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise ClientError("\"parameters\" must be a JSON object", code=INVALID_FORMAT)
    return raw


def check_bookmarks(body: dict) -> None:
    """``bookmarks``, when given, is a list of strings (the session core checks what they name)."""
    marks = body.get("bookmarks")
    if marks is not None and (not isinstance(marks, list) or not all(isinstance(m, str) for m in marks)):
        raise ClientError("\"bookmarks\" must be a list of bookmark strings", code=INVALID)


def statement_of(body: dict, *, optional: bool = False) -> str | None:
    statement = body.get("statement")
    if statement is None and optional:
        return None
    if not isinstance(statement, str) or not statement.strip():
        raise ClientError("The request needs a non-empty string \"statement\"", code=INVALID)
    return statement


def access_mode(body: dict) -> dict:
    """RUN/BEGIN metadata for the body's ``accessMode`` (Neo4j's Query API: ``READ`` or ``WRITE``, the
    default): a READ transaction refuses statements that write."""
    mode = body.get("accessMode", "WRITE")
    if not isinstance(mode, str) or mode.upper() not in ("READ", "WRITE"):
        raise ClientError(f"\"accessMode\" must be READ or WRITE, not {str(mode)[:40]!r}", code=INVALID)
    return {"mode": "r"} if mode.upper() == "READ" else {}


def wants(request: Request) -> str:
    """``jsonl``, ``typed`` or ``plain``: the result format the Accept header asks for."""
    accept = request.headers.get("accept", "").lower()
    if "jsonl" in accept or "json-seq" in accept or "ndjson" in accept:
        return "jsonl"
    if TYPED in accept:
        return "typed"
    return "plain"


def typed_input(request: Request) -> bool:
    return TYPED in request.headers.get("content-type", "").lower()
