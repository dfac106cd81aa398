"""Reading HTTP requests safely: credentials from the Authorization header, a size-limited JSON body,
and the response format the client asked for."""
from __future__ import annotations

import base64
import binascii
import json

from starlette.requests import Request

from relate.protocol.errors import AuthenticationError, ClientError

INVALID_FORMAT = "Neo.ClientError.Request.InvalidFormat"
INVALID = "Neo.ClientError.Request.Invalid"
TYPED = "application/vnd.neo4j.query"          # typed JSON (also ...query.v1.0 / v1.1)
JSONL = "application/vnd.neo4j.query.v1.0+jsonl"


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
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise BodyTooLarge(f"The request body exceeds the limit of {limit} bytes")
        chunks.append(chunk)
    return b"".join(chunks)


def parse_json(body: bytes, *, optional: bool = False) -> dict:
    """The body as a JSON object; ClientError (400) with a clear message otherwise."""
    if not body.strip():
        if optional:
            return {}
        raise ClientError("The request body is empty; send a JSON object such as {\"statement\": \"RETURN 1\"}",
                          code=INVALID_FORMAT)
    try:
        value = json.loads(body)
    except UnicodeDecodeError:
        raise ClientError("The request body is not UTF-8 text", code=INVALID_FORMAT) from None
    except json.JSONDecodeError as exc:
        raise ClientError(f"The request body is not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}",
                          code=INVALID_FORMAT) from None
    except RecursionError:
        raise ClientError("The request body is nested too deeply", code=INVALID_FORMAT) from None
    if not isinstance(value, dict):
        raise ClientError("The request body must be a JSON object", code=INVALID_FORMAT)
    return value


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
