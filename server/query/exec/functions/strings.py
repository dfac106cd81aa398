"""String functions: case, trimming, replace, split, substring, left/right, normalize, lengths."""
from __future__ import annotations

import re
import unicodedata

from relate.protocol.errors import ArgumentError
from relate.server.query.exec.functions.registry import ARITY, FUNCTIONS, PURE, function, type_error
from relate.server.query import limits


def _str(fn_name, v):
    if type(v) is str:
        return v
    raise type_error(fn_name, v, "a String")


def _int(fn_name, v):
    if type(v) is int:
        return v
    raise type_error(fn_name, v, "an Integer")


def _non_negative(fn_name, n, what):
    if n < 0:
        raise ArgumentError(f"'{what}' of {fn_name}() cannot be negative: {n}",
                            detail="NegativeIntegerArgument", phase="runtime")
    return n


def _string_fn(name, op, description):
    @function(name, 1, description=description)
    def fn(ctx, v):
        return None if v is None else op(_str(name, v))
    fn.__name__ = name
    return fn


for _name, _op, _text in [("toLower", str.lower, "A string in lower case."),
                          ("lower", str.lower, "A string in lower case."),
                          ("toUpper", str.upper, "A string in upper case."),
                          ("upper", str.upper, "A string in upper case."),
                          ("char_length", len, "The number of characters of a string."),
                          ("character_length", len, "The number of characters of a string.")]:
    _string_fn(_name, _op, _text)


def _trim_fn(name, strip, description):
    @function(name, 1, 2, description=description)
    def fn(ctx, v, chars=" "):
        if v is None or chars is None:
            return None
        text = _str(name, v)
        if chars == " ":
            return strip(text, None)    # default: whitespace
        return strip(text, _str(name, chars))
    fn.__name__ = name
    return fn


_trim_fn("trim", str.strip, "A string without leading and trailing whitespace (or the given characters).")
_trim_fn("btrim", str.strip, "A string without leading and trailing whitespace (or the given characters).")
_trim_fn("ltrim", str.lstrip, "A string without leading whitespace (or the given characters).")
_trim_fn("rtrim", str.rstrip, "A string without trailing whitespace (or the given characters).")


@function("replace", 3, description="A string with every occurrence of a search string replaced.")
def replace(ctx, original, search, replacement):
    if original is None or search is None or replacement is None:
        return None
    text, search, replacement = _str("replace", original), _str("replace", search), _str("replace", replacement)
    if len(replacement) > len(search):      # growing: bound the result before building it
        occurrences = text.count(search) if search else len(text) + 1
        limits.check_string(len(text) + occurrences * (len(replacement) - len(search)))
    return text.replace(search, replacement)


@function("split", 2, description="A string split at a delimiter (or any of a list of delimiters).")
def split(ctx, original, delimiter):
    if original is None or delimiter is None:
        return None
    text = _str("split", original)
    if type(delimiter) is list:
        delimiters = [_str("split", d) for d in delimiter if d is not None]
    else:
        delimiters = [_str("split", delimiter)]
    delimiters = [d for d in delimiters if d]
    if not delimiters:
        return list(text) if text else [""]
    if len(delimiters) == 1:
        return text.split(delimiters[0])
    pattern = "|".join(re.escape(d) for d in sorted(delimiters, key=len, reverse=True))
    return re.split(pattern, text)


@function("substring", 2, 3, description="Part of a string from a start offset, with an optional length.")
def substring(ctx, original, start, *length):
    if original is None:
        return None
    text = _str("substring", original)
    if start is None:
        raise type_error("substring", start, "an Integer start")
    begin = _non_negative("substring", _int("substring", start), "start")
    if not length:
        return text[begin:]
    length, = length
    if length is None:              # Neo4j: a null length is an error, as a null start is
        raise type_error("substring", length, "an Integer length")
    count = _non_negative("substring", _int("substring", length), "length")
    return text[begin:begin + count]


@function("left", 2, description="The leftmost characters of a string.")
def left(ctx, original, length):
    if original is None:
        return None
    if length is None:
        raise type_error("left", length, "an Integer length")
    n = _non_negative("left", _int("left", length), "length")
    return _str("left", original)[:n]


@function("right", 2, description="The rightmost characters of a string.")
def right(ctx, original, length):
    if original is None:
        return None
    if length is None:
        raise type_error("right", length, "an Integer length")
    n = _non_negative("right", _int("right", length), "length")
    text = _str("right", original)
    return text[len(text) - n:] if n else ""


_NORMAL_FORMS = {"NFC", "NFD", "NFKC", "NFKD"}


@function("normalize", 1, 2, description="A string in a Unicode normal form (NFC by default).")
def normalize(ctx, v, form="NFC"):
    if v is None:
        return None
    form_name = _str("normalize", form).upper() if form is not None else "NFC"
    if form_name not in _NORMAL_FORMS:
        raise ArgumentError(f"Unknown normal form: {form}", detail="InvalidArgumentValue",
                            phase="runtime")
    return unicodedata.normalize(form_name, _str("normalize", v))


# What the syntax desugars to (parser/build_expressions.py): ``s IS [form] NORMALIZED`` and
# ``trim([BOTH|LEADING|TRAILING] [c] FROM s)``. Registered unlisted, under names no statement can spell.
def _is_normalized(ctx, v, form):
    """For a string, whether it equals its normal form; null for any other value (Neo4j's manual)."""
    if type(v) is not str:
        return None
    return unicodedata.is_normalized(form, v)


_TRIM_SIDES = {"BOTH": str.strip, "LEADING": str.lstrip, "TRAILING": str.rstrip}


def _trim_from(ctx, side, *chars_and_text):
    """(side, text): whitespace trimmed; (side, c, text): the single character c (null: null)."""
    *given, v = chars_and_text
    if v is None or (given and given[0] is None):
        return None
    text = _str("trim", v)
    if not given:
        return _TRIM_SIDES[side](text, None)
    chars = _str("trim", given[0])
    if len(chars) != 1:
        raise ArgumentError(f"trim() takes a single character to trim, not '{chars}'",
                            detail="InvalidArgumentValue", phase="runtime")
    return _TRIM_SIDES[side](text, chars)


for _hidden, _fn, _low, _high in ((" isnormalized", _is_normalized, 2, 2), (" trimfrom", _trim_from, 2, 3)):
    FUNCTIONS[_hidden] = _fn
    ARITY[_hidden] = (_low, _high)
    PURE.add(_hidden)
