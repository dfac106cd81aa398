"""APOC number functions (apoc.number.*): Java DecimalFormat formatting and parsing, Roman numerals."""
from __future__ import annotations

import math
from decimal import ROUND_HALF_EVEN, Decimal, InvalidOperation

import regex

from relate.server.query.exec.functions.apoc.args import as_int, as_number, as_str, invalid
from relate.server.query.exec.functions.registry import function

_DEFAULT_PATTERN = "#,##0.###"
# (grouping, decimal) separators by language; English's for any other.
_SEPARATORS = {"en": (",", "."), "fr": ("\u202f", ","), "de": (".", ","), "it": (".", ","), "es": (".", ","),
               "pt": (".", ","), "nl": (".", ","), "da": (".", ","), "tr": (".", ","), "id": (".", ",")}
_NUMBER_PART = regex.compile(r"[#0,]*(?:\.[#0]*)?")


def _separators(name: str, lang) -> tuple[str, str]:
    if lang is None or lang == "":
        return _SEPARATORS["en"]
    return _SEPARATORS.get(as_str(name, lang).lower().split("-")[0].split("_")[0], _SEPARATORS["en"])


def _split_pattern(name: str, pattern: str) -> tuple[str, str, str]:
    """(prefix, number part, suffix) of a DecimalFormat pattern (the positive subpattern)."""
    pattern = pattern.split(";")[0]
    start = next((i for i, c in enumerate(pattern) if c in "#0,."), None)
    if start is None:
        raise invalid(name, f"the pattern {pattern!r} has no digits")
    m = _NUMBER_PART.match(pattern, start)
    number = m.group(0)
    suffix = pattern[m.end():]
    if "E" in suffix or "0" in suffix or "#" in suffix:
        raise invalid(name, f"unsupported number pattern {pattern!r}")
    return pattern[:start].replace("'", ""), number, suffix.replace("'", "")


def format_number(name: str, value, pattern: str, lang) -> str:
    prefix, number, suffix = _split_pattern(name, pattern or _DEFAULT_PATTERN)
    grouping_sep, decimal_sep = _separators(name, lang)
    whole, _, fraction = number.partition(".")
    grouping = len(whole) - whole.rfind(",") - 1 if "," in whole else 0
    min_int = whole.count("0")
    min_frac, max_frac = fraction.count("0"), len(fraction)
    x = Decimal(repr(value)) if type(value) is float else Decimal(value)
    if "%" in prefix + suffix:
        x *= 100
    elif "\u2030" in prefix + suffix:
        x *= 1000
    try:
        x = x.quantize(Decimal(1).scaleb(-max_frac), rounding=ROUND_HALF_EVEN)
    except InvalidOperation:
        raise invalid(name, "the number is too large for the pattern") from None
    negative = x < 0
    digits = f"{abs(x):f}"
    int_part, _, frac_part = digits.partition(".")
    frac_part = frac_part.rstrip("0")
    frac_part = frac_part.ljust(min_frac, "0")
    int_part = int_part.lstrip("0").rjust(min_int, "0")
    if grouping:
        groups = []
        while len(int_part) > grouping:
            groups.insert(0, int_part[-grouping:])
            int_part = int_part[:-grouping]
        int_part = grouping_sep.join([int_part] + groups) if int_part else grouping_sep.join(groups)
    text = int_part + (decimal_sep + frac_part if frac_part else "")
    if not text:
        text = "0"
    return ("-" if negative and text.strip("0" + grouping_sep + decimal_sep) else "") + prefix + text + suffix


@function("apoc.number.format", 1, 3, description="A number formatted with a Java DecimalFormat pattern ('#,##0.###') "
                                                  "and language (en) (APOC).")
def format_(ctx, value, pattern="", lang=""):
    if value is None:
        return None
    value = as_number("apoc.number.format", value)
    if value != value or value in (float("inf"), float("-inf")):
        return "NaN" if value != value else ("∞" if value > 0 else "-∞")
    pattern = "" if pattern is None else as_str("apoc.number.format", pattern)
    return format_number("apoc.number.format", value, pattern, lang)


def _parse(name: str, text, pattern, lang) -> Decimal | None:
    """The number at the start of ``text`` read as DecimalFormat reads it, or None when there is none."""
    text = as_str(name, text)
    prefix, _, suffix = _split_pattern(name, as_str(name, pattern) if pattern else _DEFAULT_PATTERN)
    grouping_sep, decimal_sep = _separators(name, lang)
    body = text.strip()
    if prefix and body.startswith(prefix):
        body = body[len(prefix):]
    m = regex.match(rf"([+-]?)((?:\d|{regex.escape(grouping_sep)}(?=\d))*)(?:{regex.escape(decimal_sep)}(\d*))?", body)
    if m is None or not (m.group(2) or m.group(3)):
        return None
    digits = m.group(2).replace(grouping_sep, "") or "0"
    number = Decimal(f"{m.group(1)}{digits}.{m.group(3) or '0'}")
    if "%" in prefix + suffix and body[m.end():].startswith("%"):
        number /= 100
    return number


@function("apoc.number.parseInt", 1, 3, description="The integer at the start of a text formatted with a DecimalFormat "
                                                    "pattern ('12,345' -> 12345); null if there is none (APOC).")
def parse_int(ctx, text, pattern="", lang=""):
    if text is None:
        return None
    number = _parse("apoc.number.parseInt", text, pattern, lang)
    if number is None:
        return None
    if isinstance(number, float) and not math.isfinite(number):
        return None
    n = int(number)
    return n if -2 ** 63 <= n < 2 ** 63 else None


@function("apoc.number.parseFloat", 1, 3, description="The number at the start of a text formatted with a DecimalFormat "
                                                      "pattern ('12,345.67' -> 12345.67); null if there is none (APOC).")
def parse_float(ctx, text, pattern="", lang=""):
    if text is None:
        return None
    number = _parse("apoc.number.parseFloat", text, pattern, lang)
    return None if number is None else float(number)


_ROMAN = [(1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"), (90, "XC"), (50, "L"), (40, "XL"),
          (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I")]


@function("apoc.number.arabicToRoman", 1, description="An integer from 1 to 3999 in Roman numerals (APOC).")
def arabic_to_roman(ctx, value):
    if value is None:
        return None
    n = as_int("apoc.number.arabicToRoman", value)
    if not 0 < n < 4000:
        return None
    out = []
    for amount, letters in _ROMAN:
        while n >= amount:
            out.append(letters)
            n -= amount
    return "".join(out)


@function("apoc.number.romanToArabic", 1, description="The integer Roman numerals spell; 0 when they spell none (APOC).")
def roman_to_arabic(ctx, text):
    if text is None:
        return None
    text = as_str("apoc.number.romanToArabic", text).upper()
    if not text or not regex.fullmatch(r"M{0,3}(CM|CD|D?C{0,3})(XC|XL|L?X{0,3})(IX|IV|V?I{0,3})", text):
        return 0
    values = {"M": 1000, "D": 500, "C": 100, "L": 50, "X": 10, "V": 5, "I": 1}
    total = 0
    for i, c in enumerate(text):
        v = values[c]
        total += -v if i + 1 < len(text) and values[text[i + 1]] > v else v
    return total
