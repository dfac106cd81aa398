"""Decoding of literal tokens: integers, floats, strings, escaped names and parameters."""
from __future__ import annotations

import math
import re


INT64_MAX = (1 << 63) - 1

_SIMPLE_ESCAPES = {"\\": "\\", "'": "'", '"': '"', "n": "\n", "t": "\t", "b": "\b", "f": "\f",
                   "r": "\r"}


def decode_integer(text: str, negate: bool) -> tuple[int | None, str | None]:
    """The value of an INTEGER token (negated when ``negate``), or (None, detail) when invalid."""
    text = text.replace("_", "")
    if len(text) > 1 and text[0] == "0":
        marker = text[1].lower()
        if marker == "x":
            value = int(text[2:], 16)
        elif marker == "o":
            value = int(text[2:], 8)
        else:
            value = int(text[1:], 8)        # legacy octal: 0 followed by octal digits
    else:
        value = int(text)
    if negate:
        value = -value
    if value > INT64_MAX or value < -INT64_MAX - 1:
        return None, "IntegerOverflow"
    return value, None


def decode_float(text: str, negate: bool) -> tuple[float | None, str | None]:
    """The value of a FLOAT token, or (None, "FloatingPointOverflow") when it is out of range."""
    value = float(text.replace("_", ""))
    if math.isinf(value):
        return None, "FloatingPointOverflow"
    return (-value if negate else value), None


def decode_string(token_text: str) -> str:
    """The value of a quoted STRING token with Cypher escapes resolved.

    Raises ValueError(position) for a malformed unicode escape (position is the offset of the
    backslash inside the token), so the caller can point at it.
    """
    body = token_text[1:-1]
    if "\\" not in body:
        return body
    out = []
    i, n = 0, len(body)
    while i < n:
        ch = body[i]
        if ch != "\\":
            out.append(ch)
            i += 1
            continue
        esc = body[i + 1]
        simple = _SIMPLE_ESCAPES.get(esc)
        if simple is not None:
            out.append(simple)
            i += 2
        elif esc == "u" or esc == "U":
            width = 4 if esc == "u" else 8
            digits = body[i + 2:i + 2 + width]
            if len(digits) != width or not all(c in "0123456789abcdefABCDEF" for c in digits):
                raise ValueError(i + 1)
            code = int(digits, 16)
            i += 2 + width
            if 0xD800 <= code <= 0xDBFF:
                # A UTF-16 surrogate pair written as two escapes, as Java-based clients send them.
                low = body[i + 2:i + 6] if body.startswith("\\u", i) else ""
                if len(low) == 4 and all(c in "0123456789abcdefABCDEF" for c in low) \
                        and 0xDC00 <= int(low, 16) <= 0xDFFF:
                    code = 0x10000 + ((code - 0xD800) << 10) + (int(low, 16) - 0xDC00)
                    i += 6
                else:
                    raise ValueError(i - 2 - width + 1)
            elif 0xDC00 <= code <= 0xDFFF or code > 0x10FFFF:
                raise ValueError(i - 2 - width + 1)
            out.append(chr(code))
        else:
            # Unknown escapes keep their backslash, as Neo4j does.
            out.append("\\")
            out.append(esc)
            i += 2
    return "".join(out)


_NAME_UNICODE_ESCAPE = re.compile(r"\\u([0-9a-fA-F]{4})")


def decode_name(text: str) -> str:
    """An identifier as written, or the content of a backtick-quoted one (``` `` ``` is a backtick,
    ``\\uxxxx`` a UTF-16 code unit, as Neo4j's naming rules say)."""
    if text[0] == "`":
        name = text[1:-1].replace("``", "`")
        if "\\u" in name:
            name = _NAME_UNICODE_ESCAPE.sub(lambda m: chr(int(m.group(1), 16)), name)
            name = name.encode("utf-16", "surrogatepass").decode("utf-16", "replace")   # join surrogate pairs
        return name
    return text


def decode_parameter(text: str) -> str:
    """A PARAMETER token's name without the dollar sign."""
    return decode_name(text[1:])
