"""APOC utility functions: hashes (apoc.util.md5/sha*), compression, validatePredicate, UUIDs
(apoc.create.uuid*), apoc.version and the apoc.math constants and curves."""
from __future__ import annotations

import base64
import gzip
import hashlib
import math
import uuid
import zlib

from relate.protocol.errors import ArgumentError, ProcedureCallFailed
from relate.server.query.exec.functions.apoc.args import as_list, as_map, as_number, as_str, invalid, utf8
from relate.server.query.exec.functions.apoc.text_format import java_format
from relate.server.query.exec.functions.registry import function, type_error
from relate.server.query.exec.values.ops import java_str

APOC_VERSION = "5.26.0"         # the APOC release whose functions and procedures these follow


@function("apoc.version", 0, description="The APOC version Relate's APOC functions and procedures follow (APOC).")
def version(ctx):
    return APOC_VERSION


def _hash_input(name: str, values) -> bytes:
    """The values' text concatenated (null as nothing), as APOC hashes them."""
    parts = []
    for value in as_list(name, values):
        if value is None:
            continue
        text = java_str(value)
        if text is None:
            raise type_error(name, value, "a List of Strings, numbers, booleans or temporal values")
        parts.append(text)
    return utf8(name, "".join(parts))


def _register_hash(name: str, algorithm: str) -> None:
    @function(name, 1, description=f"The {algorithm.upper()} hex digest of the values' concatenated text (APOC).")
    def digest(ctx, values):
        if values is None:
            return None
        return hashlib.new(algorithm, _hash_input(name, values)).hexdigest()


for _name, _algorithm in (("apoc.util.md5", "md5"), ("apoc.util.sha1", "sha1"), ("apoc.util.sha256", "sha256"),
                          ("apoc.util.sha384", "sha384"), ("apoc.util.sha512", "sha512")):
    _register_hash(_name, _algorithm)


_COMPRESSIONS = ("GZIP", "DEFLATE", "NONE")


def _compression(name: str, config) -> tuple[str, str]:
    config = {} if config is None else as_map(name, config)
    kind = str(config.get("compression", "GZIP")).upper()
    if kind not in _COMPRESSIONS:
        raise invalid(name, f"unsupported compression {kind!r} (one of {', '.join(_COMPRESSIONS)})")
    return kind, str(config.get("charset", "UTF-8"))


@function("apoc.util.compress", 1, 2, description="A string compressed to bytes ({compression: 'GZIP' | 'DEFLATE' | "
                                                  "'NONE', charset: 'UTF-8'}) (APOC).")
def compress(ctx, text, config=None):
    if text is None:
        return None
    kind, charset = _compression("apoc.util.compress", config)
    try:
        raw = as_str("apoc.util.compress", text).encode(charset)
    except (LookupError, UnicodeError):
        raise invalid("apoc.util.compress", f"cannot encode the text in {charset}") from None
    if kind == "GZIP":
        return gzip.compress(raw, mtime=0)
    return zlib.compress(raw) if kind == "DEFLATE" else raw


@function("apoc.util.decompress", 1, 2, description="The string that compressed bytes hold (same config as "
                                                    "apoc.util.compress) (APOC).")
def decompress(ctx, data, config=None):
    if data is None:
        return None
    kind, charset = _compression("apoc.util.decompress", config)
    if type(data) is list and all(type(b) is int and -128 <= b <= 255 for b in data):
        data = bytes(b & 0xFF for b in data)
    if type(data) not in (bytes, bytearray):
        raise type_error("apoc.util.decompress", data, "a ByteArray")
    try:
        raw = gzip.decompress(data) if kind == "GZIP" else (zlib.decompress(data) if kind == "DEFLATE" else bytes(data))
        return raw.decode(charset)
    except (OSError, EOFError, zlib.error, LookupError, UnicodeError):
        raise invalid("apoc.util.decompress", f"the bytes are not {kind} compressed {charset} text") from None


def validation_error(message, params) -> ProcedureCallFailed:
    """The error apoc.util.validate / validatePredicate raise: the message formatted with the params."""
    text = java_format(as_str("apoc.util.validate", message), as_list("apoc.util.validate", params or [])) \
        if message is not None else "Validation failed"
    return ProcedureCallFailed(text, detail="ValidationFailed", phase="runtime")


@function("apoc.util.validatePredicate", 3, pure=False,
          description="True when the predicate is false; raises the formatted message when it is true (APOC).")
def validate_predicate(ctx, predicate, message, params):
    if predicate is True:
        raise validation_error(message, params)
    if predicate is not None and type(predicate) is not bool:
        raise type_error("apoc.util.validatePredicate", predicate, "a Boolean")
    return True


@function("apoc.create.uuid", 0, pure=False, description="A random UUID as a string (APOC; randomUUID() in Cypher).")
def create_uuid(ctx):
    return str(uuid.uuid4())


@function("apoc.create.uuidBase64", 0, pure=False, description="A random UUID as 22 characters of URL-safe Base64 (APOC).")
def create_uuid_base64(ctx):
    return base64.urlsafe_b64encode(uuid.uuid4().bytes).decode("ascii").rstrip("=")


@function("apoc.create.uuidBase64ToHex", 1, description="A Base64 UUID as its hex form (APOC).")
def uuid_base64_to_hex(ctx, text):
    if text is None:
        return None
    text = as_str("apoc.create.uuidBase64ToHex", text)
    try:
        raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
        return str(uuid.UUID(bytes=raw))
    except (ValueError, TypeError):
        raise invalid("apoc.create.uuidBase64ToHex", f"{text!r} is not a Base64 UUID") from None


@function("apoc.create.uuidHexToBase64", 1, description="A hex UUID as 22 characters of URL-safe Base64 (APOC).")
def uuid_hex_to_base64(ctx, text):
    if text is None:
        return None
    text = as_str("apoc.create.uuidHexToBase64", text)
    try:
        return base64.urlsafe_b64encode(uuid.UUID(text).bytes).decode("ascii").rstrip("=")
    except ValueError:
        raise invalid("apoc.create.uuidHexToBase64", f"{text!r} is not a UUID") from None


# -- apoc.math ---------------------------------------------------------------------------------------

for _name, _value in (("maxLong", 2 ** 63 - 1), ("minLong", -2 ** 63), ("maxInt", 2 ** 31 - 1), ("minInt", -2 ** 31),
                      ("maxByte", 127), ("minByte", -128), ("maxDouble", 1.7976931348623157e308),
                      ("minDouble", 5e-324)):
    function(f"apoc.math.{_name}", 0, description=f"Java's {_name[:3]} {_name[3:]} value ({_value}) (APOC).")(
        lambda ctx, _v=_value: _v)


def _curve(name: str, op, description: str) -> None:
    @function(name, 1, description=description)
    def fn(ctx, value):
        if value is None:
            return None
        try:
            return float(op(float(as_number(name, value))))
        except (OverflowError, ZeroDivisionError, ValueError):
            raise ArgumentError(f"{name}(): no result for {value}", detail="NumberOutOfRange", phase="runtime") from None


def _sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x)) if x >= -700 else 0.0


for _name, _op, _text in (
        ("apoc.math.sigmoid", _sigmoid, "The sigmoid 1 / (1 + e^-x) (APOC)."),
        ("apoc.math.sigmoidPrime", lambda x: _sigmoid(x) * (1 - _sigmoid(x)), "The sigmoid's derivative (APOC)."),
        ("apoc.math.tanh", math.tanh, "The hyperbolic tangent (APOC)."),
        ("apoc.math.sinh", math.sinh, "The hyperbolic sine (APOC)."),
        ("apoc.math.cosh", math.cosh, "The hyperbolic cosine (APOC)."),
        ("apoc.math.coth", lambda x: math.cosh(x) / math.sinh(x), "The hyperbolic cotangent (APOC)."),
        ("apoc.math.sech", lambda x: 1 / math.cosh(x), "The hyperbolic secant (APOC)."),
        ("apoc.math.csch", lambda x: 1 / math.sinh(x), "The hyperbolic cosecant (APOC).")):
    _curve(_name, _op, _text)
