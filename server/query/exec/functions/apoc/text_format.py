"""Java's String.format for apoc.text.format: %s %d %f %e %g %x %o %c %b %n %%, argument indexes,
flags (- 0 + space , ( #), widths and precisions; %f rounds half up as Java does."""
from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

import regex

from relate.protocol.errors import ArgumentError
from relate.server.query.exec.values.ops import java_str

_SPEC = regex.compile(r"%(\d+\$)?([-#+ 0,(<]*)(\d+)?(\.\d+)?([a-zA-Z%])")


def _bad(message: str) -> ArgumentError:
    return ArgumentError(f"apoc.text.format(): {message}", detail="InvalidArgumentValue", phase="runtime")


def _text_of(value) -> str:
    if value is None:
        return "null"
    if type(value) is str:
        return value
    return java_str(value) or repr(value)


def _sign(text: str, negative: bool, flags: str) -> str:
    if negative:
        return f"({text})" if "(" in flags else "-" + text
    if "+" in flags:
        return "+" + text
    if " " in flags:
        return " " + text
    return text


def _pad(text: str, width: int | None, flags: str, numeric: bool) -> str:
    if width is None or len(text) >= width:
        return text
    if "-" in flags:
        return text.ljust(width)
    if "0" in flags and numeric:
        head = text[0] if text[:1] in "+- (" else ""
        return head + text[len(head):].rjust(width - len(head), "0")
    return text.rjust(width)


def _integer(value, conversion: str, flags: str) -> str:
    if type(value) is not int:
        raise _bad(f"%{conversion} needs an integer, not {_text_of(value)}")
    if conversion == "d":
        digits = f"{abs(value):,}" if "," in flags else str(abs(value))
        return _sign(digits, value < 0, flags)
    if value < 0:
        value &= 0xFFFFFFFFFFFFFFFF                  # Java prints negatives as two's complement
    digits = format(value, "x" if conversion in "xX" else "o")
    if "#" in flags:
        digits = ("0x" if conversion in "xX" else "0") + digits
    return digits.upper() if conversion == "X" else digits


def _floating(value, conversion: str, flags: str, precision: int | None) -> str:
    if type(value) not in (int, float):
        raise _bad(f"%{conversion} needs a number, not {_text_of(value)}")
    x = float(value)
    if x != x or x in (float("inf"), float("-inf")):
        return "NaN" if x != x else ("Infinity" if x > 0 else "-Infinity")
    digits = 6 if precision is None else precision
    if conversion == "f":
        try:
            rounded = Decimal(repr(abs(x))).quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP)
        except InvalidOperation:
            raise _bad("the number is too large for %f") from None
        text = f"{rounded:,f}" if "," in flags else f"{rounded:f}"
    else:
        text = format(abs(x), f".{digits}{conversion.lower()}")
        if conversion.isupper():
            text = text.upper()
    return _sign(text, x < 0 or (x == 0 and str(x).startswith("-")), flags)


def java_format(template: str, args: list) -> str:
    """``template`` filled from ``args`` as Java's String.format fills it."""
    out, position, next_arg, last = [], 0, 0, None
    for m in _SPEC.finditer(template):
        out.append(template[position:m.start()])
        position = m.end()
        index, flags, width, precision, conversion = m.groups()
        if conversion == "%":
            out.append(_pad("%", int(width) if width else None, flags, False))
            continue
        if conversion == "n":
            out.append("\n")
            continue
        if "<" in flags:
            arg_index = last
        elif index:
            arg_index = int(index[:-1]) - 1
        else:
            arg_index, next_arg = next_arg, next_arg + 1
        if arg_index is None or not 0 <= arg_index < len(args):
            raise _bad(f"missing an argument for '{m.group(0)}'")
        last = arg_index
        value = args[arg_index]
        prec = int(precision[1:]) if precision else None
        lower = conversion.lower()
        numeric = False
        if lower == "s":
            text = _text_of(value)
            text = text[:prec] if prec is not None else text
        elif lower == "b":
            text = "false" if value is None or value is False else "true"
        elif lower == "c":
            if type(value) is int and 0 <= value <= 0x10FFFF:
                text = chr(value)
            elif type(value) is str and len(value) == 1:
                text = value
            else:
                raise _bad(f"%c needs a character, not {_text_of(value)}")
        elif lower in "dxo":
            text, numeric = ("null", False) if value is None else (_integer(value, conversion, flags), True)
        elif lower in "feg":
            text, numeric = ("null", False) if value is None else (_floating(value, conversion, flags, prec), True)
        else:
            raise _bad(f"unknown conversion '%{conversion}'")
        if conversion.isupper() and lower not in "xeg":
            text = text.upper()
        out.append(_pad(text, int(width) if width else None, flags, numeric))
    out.append(template[position:])
    return "".join(out)
