"""APOC string functions (apoc.text.*): case styles, padding, regular expressions, formatting, encodings,
edit distances. Regular expressions are Java's syntax, run with the engine's time-limited matcher."""
from __future__ import annotations

import base64
import binascii
import codecs
import random
import time
import unicodedata
from urllib.parse import unquote_plus

import regex
from rapidfuzz.distance import Levenshtein

from relate.server.query.exec.functions.apoc.args import as_int, as_list, as_str, invalid, sized_string, utf8
from relate.server.query.exec.functions.apoc.text_format import java_format
from relate.server.query.exec.functions.registry import function, type_error
from relate.server.query.exec.regex_match import MATCH_TIME_LIMIT_S, compile_regex

_WORDS = regex.compile(r"\p{Lu}?[\p{Ll}\p{Lo}\p{N}]+|\p{Lu}+(?!\p{Ll})|\p{N}+")


def _text(name: str, value) -> str:
    return as_str(name, value)


def _string_fn(name: str, description: str):
    """Register ``op(text)`` as a one-argument string function that maps null to null."""
    def register(op):
        @function(name, 1, description=description)
        def fn(ctx, text):
            return None if text is None else op(_text(name, text))
        return op
    return register


def _words(text: str) -> list[str]:
    """Words split at separators and lower-to-upper case changes: 'fooBar baz-22' -> foo, Bar, baz, 22."""
    return _WORDS.findall(text)


@_string_fn("apoc.text.capitalize", "The string with its first letter in upper case (APOC).")
def capitalize(text: str) -> str:
    return text[:1].upper() + text[1:]


@_string_fn("apoc.text.decapitalize", "The string with its first letter in lower case (APOC).")
def decapitalize(text: str) -> str:
    return text[:1].lower() + text[1:]


def _each_word(text: str, op) -> str:
    return regex.sub(r"(?<!\S)\S", lambda m: op(m.group(0)), text)


@_string_fn("apoc.text.capitalizeAll", "The string with the first letter of each word in upper case (APOC).")
def capitalize_all(text: str) -> str:
    return _each_word(text, str.upper)


@_string_fn("apoc.text.decapitalizeAll", "The string with the first letter of each word in lower case (APOC).")
def decapitalize_all(text: str) -> str:
    return _each_word(text, str.lower)


@_string_fn("apoc.text.swapCase", "The string with upper and lower case swapped (APOC).")
def swap_case(text: str) -> str:
    return text.swapcase()


@_string_fn("apoc.text.camelCase", "The string in camelCase: 'FOO_BAR' -> 'fooBar' (APOC).")
def camel_case(text: str) -> str:
    words = _words(text)
    return "".join([w.lower() if i == 0 else w[:1].upper() + w[1:].lower() for i, w in enumerate(words)])


@_string_fn("apoc.text.upperCamelCase", "The string in UpperCamelCase: 'foo-bar' -> 'FooBar' (APOC).")
def upper_camel_case(text: str) -> str:
    return "".join(w[:1].upper() + w[1:].lower() for w in _words(text))


@_string_fn("apoc.text.snakeCase", "The string in lower case words joined by '-': 'fooBar' -> 'foo-bar' (APOC).")
def snake_case(text: str) -> str:
    return "-".join(w.lower() for w in _words(text))


@_string_fn("apoc.text.toUpperCase", "The string in upper case words joined by '_': 'fooBar' -> 'FOO_BAR' (APOC).")
def to_upper_case(text: str) -> str:
    return "_".join(w.upper() for w in _words(text))


@_string_fn("apoc.text.clean", "The string in lower case, without accents and anything but letters and digits (APOC).")
def clean(text: str) -> str:
    stripped = "".join(c for c in unicodedata.normalize("NFD", text) if not unicodedata.combining(c))
    return "".join(c for c in stripped if c.isalnum()).lower()


@function("apoc.text.compareCleaned", 2, description="Whether two strings are equal once cleaned (apoc.text.clean) (APOC).")
def compare_cleaned(ctx, a, b):
    if a is None or b is None:
        return False
    return clean(_text("apoc.text.compareCleaned", a)) == clean(_text("apoc.text.compareCleaned", b))


@function("apoc.text.join", 2, description="The strings of a list joined by a delimiter (a null element reads 'null') (APOC).")
def join(ctx, values, delimiter):
    if values is None or delimiter is None:
        return None
    parts = []
    for value in as_list("apoc.text.join", values):
        if value is not None and type(value) is not str:
            raise type_error("apoc.text.join", value, "a List of Strings")
        parts.append("null" if value is None else value)
    return _text("apoc.text.join", delimiter).join(parts)


def _pad(name: str, text, count, delim, left: bool):
    if text is None:
        return None
    text = _text(name, text) if type(text) is str else str(text)
    count = as_int(name, count)
    delim = " " if delim is None else _text(name, delim)
    if count <= len(text) or not delim:
        return text
    sized_string(count)
    fill = (delim * ((count - len(text)) // len(delim) + 1))[:count - len(text)]
    return fill + text if left else text + fill


@function("apoc.text.lpad", 2, 3, description="The string padded on the left to a width, with a delimiter (' ') (APOC).")
def lpad(ctx, text, count, delim=" "):
    return _pad("apoc.text.lpad", text, count, delim, True)


@function("apoc.text.rpad", 2, 3, description="The string padded on the right to a width, with a delimiter (' ') (APOC).")
def rpad(ctx, text, count, delim=" "):
    return _pad("apoc.text.rpad", text, count, delim, False)


@function("apoc.text.repeat", 2, description="The string repeated count times (APOC).")
def repeat(ctx, text, count):
    if text is None or count is None:
        return None
    text, count = _text("apoc.text.repeat", text), as_int("apoc.text.repeat", count)
    if not text or count <= 0:
        return ""
    sized_string(len(text) * count)
    return text * count


@function("apoc.text.format", 1, 3, description="A Java String.format: %s %d %f %.2f %x %b %e %n %% with flags and "
                                                "widths (APOC).")
def format_(ctx, text, params=None, language=None):
    if text is None:
        return None
    return java_format(_text("apoc.text.format", text), as_list("apoc.text.format", params) if params else [])


@function("apoc.text.slug", 1, 2, description="The string with runs of non-word characters replaced by a delimiter "
                                              "('-') (APOC).")
def slug(ctx, text, delim="-"):
    if text is None or delim is None:
        return None
    delim = _text("apoc.text.slug", delim)
    out = regex.sub(r"[\W_]+", lambda m: delim, _text("apoc.text.slug", text).strip())
    return out.strip(delim) if delim else out


def _charset(spec: str) -> str:
    """The characters of a set spelled with ranges: 'A-Za-z0-9'."""
    out, i = [], 0
    while i < len(spec):
        if i + 2 < len(spec) and spec[i + 1] == "-":
            low, high = ord(spec[i]), ord(spec[i + 2])
            out.extend(chr(c) for c in range(low, high + 1))
            i += 3
        else:
            out.append(spec[i])
            i += 1
    return "".join(dict.fromkeys(out))


@function("apoc.text.random", 1, 2, pure=False, description="A random string of a length, from the characters of "
                                                            "valid ('A-Za-z0-9') (APOC).")
def random_(ctx, length, valid="A-Za-z0-9"):
    if length is None:
        return None
    length = as_int("apoc.text.random", length)
    chars = _charset("A-Za-z0-9" if valid is None else _text("apoc.text.random", valid))
    if not chars or length <= 0:
        return ""
    sized_string(length)
    rng = random.SystemRandom()
    return "".join(rng.choice(chars) for _ in range(length))


# -- regular expressions -----------------------------------------------------------------------------

def _time_left(ctx) -> float:
    deadline = getattr(ctx, "deadline", None)
    limit = MATCH_TIME_LIMIT_S
    return limit if deadline is None else max(0.0, min(limit, deadline - time.monotonic()))


def _regex_call(name: str, ctx, call):
    """Run a regex operation within the time the statement has left (a typed error past it)."""
    from relate.protocol.errors import QueryTimeout
    try:
        return call(_time_left(ctx))
    except TimeoutError:
        raise QueryTimeout(f"{name}(): the regular expression ran past its time limit", phase="runtime") from None


def _java_replacement(name: str, replacement: str):
    """Java's replacement syntax ($1, ${name}, \\$ escapes) as a function of a match."""
    parts: list = []
    i, literal = 0, []
    while i < len(replacement):
        c = replacement[i]
        if c == "\\" and i + 1 < len(replacement):
            literal.append(replacement[i + 1])
            i += 2
        elif c == "$":
            m = regex.match(r"\{(\w+)\}|(\d)", replacement[i + 1:])
            if m is None:
                raise invalid(name, f"illegal group reference in the replacement {replacement!r}")
            if literal:
                parts.append("".join(literal))
                literal = []
            parts.append((m.group(1) if m.group(1) else int(m.group(2)),))
            i += 1 + m.end()
        else:
            literal.append(c)
            i += 1
    if literal:
        parts.append("".join(literal))

    def substitute(match):
        out = []
        for part in parts:
            if type(part) is tuple:
                try:
                    out.append(match.group(part[0]) or "")
                except (IndexError, regex.error):
                    raise invalid(name, f"no group {part[0]} in the pattern") from None
            else:
                out.append(part)
        return "".join(out)
    return substitute


def _replace(name: str, ctx, text, pattern, replacement):
    if text is None or pattern is None or replacement is None:
        return None
    compiled = compile_regex(_text(name, pattern))
    substitute = _java_replacement(name, _text(name, replacement))
    text = _text(name, text)
    return _regex_call(name, ctx, lambda limit: compiled.sub(substitute, text, timeout=limit))


@function("apoc.text.replace", 3, description="The string with every match of a regular expression replaced ($1 for "
                                              "groups) (APOC).")
def replace(ctx, text, pattern, replacement):
    return _replace("apoc.text.replace", ctx, text, pattern, replacement)


@function("apoc.text.regreplace", 3, description="The string with every match of a regular expression replaced (APOC, "
                                                 "as apoc.text.replace).")
def regreplace(ctx, text, pattern, replacement):
    return _replace("apoc.text.regreplace", ctx, text, pattern, replacement)


@function("apoc.text.split", 2, 3, description="The string split around matches of a regular expression, as Java's "
                                               "String.split with a limit (APOC).")
def split(ctx, text, pattern, limit=0):
    if text is None or pattern is None:
        return None
    text, compiled = _text("apoc.text.split", text), compile_regex(_text("apoc.text.split", pattern))
    limit = 0 if limit is None else as_int("apoc.text.split", limit)
    matches = _regex_call("apoc.text.split", ctx, lambda t: list(compiled.finditer(text, timeout=t)))
    pieces, start = [], 0
    for m in matches:
        if 0 < limit <= len(pieces) + 1:
            break
        if m.end() == 0:            # a zero-width match at the start makes no leading empty piece
            continue
        pieces.append(text[start:m.start()])
        start = m.end()
    pieces.append(text[start:])
    if limit == 0:
        while pieces and pieces[-1] == "" and len(pieces) > 1:
            pieces.pop()
    return pieces


@function("apoc.text.regexGroups", 2, description="For each match of a regular expression: the match and its groups (APOC).")
def regex_groups(ctx, text, pattern):
    if text is None or pattern is None:
        return None
    text, compiled = _text("apoc.text.regexGroups", text), compile_regex(_text("apoc.text.regexGroups", pattern))
    matches = _regex_call("apoc.text.regexGroups", ctx, lambda t: list(compiled.finditer(text, timeout=t)))
    return [[m.group(0), *m.groups()] for m in matches]


# -- searching, distances ----------------------------------------------------------------------------

def _window(name: str, text: str, start, end) -> tuple[int, int]:
    start = 0 if start is None else as_int(name, start)
    end = -1 if end is None else as_int(name, end)
    if end < 0 or end > len(text):
        end = len(text)
    return max(start, 0), end


@function("apoc.text.indexOf", 2, 4, description="The index of the first occurrence of a string from an index up to "
                                                 "another, -1 if none (APOC).")
def index_of(ctx, text, lookup, start=0, end=-1):
    if text is None:
        return None
    if lookup is None:
        return -1
    text, lookup = _text("apoc.text.indexOf", text), _text("apoc.text.indexOf", lookup)
    low, high = _window("apoc.text.indexOf", text, start, end)
    return text.find(lookup, low, high)


@function("apoc.text.indexesOf", 2, 4, description="The indexes of every occurrence of a string from an index up to "
                                                   "another (APOC).")
def indexes_of(ctx, text, lookup, start=0, end=-1):
    if text is None:
        return None
    if lookup is None:
        return []
    text, lookup = _text("apoc.text.indexesOf", text), _text("apoc.text.indexesOf", lookup)
    low, high = _window("apoc.text.indexesOf", text, start, end)
    out, i = [], text.find(lookup, low, high)
    while i >= 0:
        out.append(i)
        i = text.find(lookup, i + max(len(lookup), 1), high)
    return out


@function("apoc.text.distance", 2, description="The Levenshtein edit distance of two strings (APOC).")
def distance(ctx, a, b):
    if a is None or b is None:
        return None
    return Levenshtein.distance(_text("apoc.text.distance", a), _text("apoc.text.distance", b))


@function("apoc.text.fuzzyMatch", 2, description="Whether two strings are within an edit distance that grows with the "
                                                 "first's length (0 below 3, 1 below 5, else 2) (APOC).")
def fuzzy_match(ctx, a, b):
    if a is None or b is None:
        return False
    a, b = _text("apoc.text.fuzzyMatch", a), _text("apoc.text.fuzzyMatch", b)
    allowed = 0 if len(a) < 3 else (1 if len(a) < 5 else 2)
    return Levenshtein.distance(a, b) <= allowed


def _bigrams(text: str) -> set[str]:
    return {text[i:i + 2] for i in range(len(text) - 1)}


@function("apoc.text.sorensenDiceSimilarity", 2, 3, description="The Sørensen-Dice similarity of two strings' "
                                                                "character bigrams, from 0 to 1 (APOC).")
def sorensen_dice(ctx, a, b, language="en"):
    if a is None or b is None:
        return None
    a = _text("apoc.text.sorensenDiceSimilarity", a).lower()
    b = _text("apoc.text.sorensenDiceSimilarity", b).lower()
    if a == b:
        return 1.0
    x, y = _bigrams(a), _bigrams(b)
    return 2.0 * len(x & y) / (len(x) + len(y)) if x or y else 0.0


@function("apoc.text.hammingDistance", 2, description="The number of positions at which two equally long strings "
                                                      "differ (APOC).")
def hamming(ctx, a, b):
    if a is None or b is None:
        return None
    a, b = _text("apoc.text.hammingDistance", a), _text("apoc.text.hammingDistance", b)
    if len(a) != len(b):
        raise invalid("apoc.text.hammingDistance", "the strings must have the same length")
    return sum(1 for x, y in zip(a, b) if x != y)


# -- characters and encodings ------------------------------------------------------------------------

@function("apoc.text.code", 1, description="The character of a Unicode code point (APOC).")
def code(ctx, codepoint):
    if codepoint is None:
        return None
    n = as_int("apoc.text.code", codepoint)
    if not 0 <= n <= 0x10FFFF:
        raise invalid("apoc.text.code", f"{n} is not a Unicode code point")
    return chr(n)


@function("apoc.text.charAt", 2, description="The code point of the character at an index; null outside the string (APOC).")
def char_at(ctx, text, index):
    if text is None or index is None:
        return None
    text, index = _text("apoc.text.charAt", text), as_int("apoc.text.charAt", index)
    return ord(text[index]) if 0 <= index < len(text) else None


def hex_value(n: int) -> str:
    """Upper-case hex, zero-padded to 4, 8 or 16 digits as APOC pads it (negatives as 64-bit two's complement)."""
    n &= 0xFFFFFFFFFFFFFFFF
    width = 4 if n <= 0xFFFF else (8 if n <= 0xFFFFFFFF else 16)
    return format(n, "X").rjust(width, "0")


@function("apoc.text.hexValue", 1, description="The hex string of an integer, zero-padded: 10 -> '000A' (APOC).")
def hex_value_fn(ctx, value):
    return None if value is None else hex_value(as_int("apoc.text.hexValue", value))


@function("apoc.text.hexCharAt", 2, description="The hex string of the code point at an index of the string (APOC).")
def hex_char_at(ctx, text, index):
    point = char_at(ctx, text, index)
    return None if point is None else hex_value(point)


def _codec(name: str, charset) -> str:
    charset = "UTF-8" if charset is None else _text(name, charset)
    try:
        return codecs.lookup(charset).name
    except (LookupError, ValueError):          # unknown, or not a name at all (a NUL inside)
        raise invalid(name, f"unknown charset {charset!r}") from None


def _encoded(name: str, text: str, charset) -> bytes:
    try:
        return text.encode(_codec(name, charset))
    except UnicodeError:
        raise invalid(name, f"the string cannot be encoded in {charset}") from None


@function("apoc.text.byteCount", 1, 2, description="The number of bytes of the string in a charset (UTF-8) (APOC).")
def byte_count(ctx, text, charset="UTF-8"):
    return None if text is None else len(_encoded("apoc.text.byteCount", _text("apoc.text.byteCount", text), charset))


@function("apoc.text.bytes", 1, 2, description="The bytes (0-255) of the string in a charset (UTF-8) (APOC).")
def bytes_(ctx, text, charset="UTF-8"):
    return None if text is None else list(_encoded("apoc.text.bytes", _text("apoc.text.bytes", text), charset))


@function("apoc.text.base64Encode", 1, description="The string's UTF-8 bytes in Base64 (APOC).")
def base64_encode(ctx, text):
    if text is None:
        return None
    return base64.b64encode(utf8("apoc.text.base64Encode", _text("apoc.text.base64Encode", text))).decode("ascii")


def _base64_decode(name: str, text: str, url: bool) -> str:
    padded = text + "=" * (-len(text) % 4)
    try:
        raw = base64.urlsafe_b64decode(padded) if url else base64.b64decode(padded, validate=True)
        return raw.decode("utf-8")
    except (binascii.Error, ValueError):
        raise invalid(name, "the string is not valid Base64 of UTF-8 text") from None


@function("apoc.text.base64Decode", 1, description="The text of a Base64 string (APOC).")
def base64_decode(ctx, text):
    return None if text is None else _base64_decode("apoc.text.base64Decode", _text("apoc.text.base64Decode", text), False)


@function("apoc.text.base64UrlEncode", 1, description="The string's UTF-8 bytes in URL-safe Base64 (APOC).")
def base64_url_encode(ctx, text):
    if text is None:
        return None
    return base64.urlsafe_b64encode(utf8("apoc.text.base64UrlEncode", _text("apoc.text.base64UrlEncode", text))).decode("ascii")


@function("apoc.text.base64UrlDecode", 1, description="The text of a URL-safe Base64 string (APOC).")
def base64_url_decode(ctx, text):
    if text is None:
        return None
    return _base64_decode("apoc.text.base64UrlDecode", _text("apoc.text.base64UrlDecode", text), True)


_URL_SAFE = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-*_")


@function("apoc.text.urlencode", 1, description="The string form-encoded as Java's URLEncoder does (space -> '+') (APOC).")
def urlencode(ctx, text):
    if text is None:
        return None
    out = []
    for b in utf8("apoc.text.urlencode", _text("apoc.text.urlencode", text)):
        out.append(chr(b) if b in _URL_SAFE else ("+" if b == 0x20 else f"%{b:02X}"))
    return "".join(out)


@function("apoc.text.urldecode", 1, description="The text of a form-encoded string ('+' -> space) (APOC).")
def urldecode(ctx, text):
    if text is None:
        return None
    text = _text("apoc.text.urldecode", text)
    if regex.search(r"%(?![0-9A-Fa-f]{2})", text):
        raise invalid("apoc.text.urldecode", "the string has an incomplete % escape")
    try:
        return unquote_plus(text, errors="strict")
    except UnicodeDecodeError:
        raise invalid("apoc.text.urldecode", "the escapes are not UTF-8") from None
