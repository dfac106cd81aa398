"""Numeric functions with Java's Math semantics (NaN and Infinity instead of exceptions)."""
from __future__ import annotations

import math
import random
from decimal import (ROUND_CEILING, ROUND_DOWN, ROUND_FLOOR, ROUND_HALF_DOWN, ROUND_HALF_EVEN,
                     ROUND_HALF_UP, ROUND_UP, Decimal, InvalidOperation)

from relate.protocol.errors import ArgumentError
from relate.server.query.exec.functions.registry import function, type_error
from relate.server.query.exec.values.ops import arithmetic_error

_INF = math.inf


def _num(fn_name, v):
    t = type(v)
    if t is int or t is float:
        return v
    raise type_error(fn_name, v, "a number")


def _unary(name, op, description):
    """Register a one-argument float function; ``op`` maps a float to a float."""
    @function(name, 1, description=description)
    def fn(ctx, v):
        if v is None:
            return None
        return op(float(_num(name, v)))
    fn.__name__ = name
    return fn


def _sqrt(x):
    return math.sqrt(x) if x >= 0 else math.nan


def _log(x):
    if x > 0:
        return math.log(x)
    return -_INF if x == 0 else math.nan


def _log10(x):
    if x > 0:
        return math.log10(x)
    return -_INF if x == 0 else math.nan


def _exp(x):
    try:
        return math.exp(x)
    except OverflowError:
        return _INF


def _guard(op):
    """NaN where Java returns NaN and Python raises (out-of-domain, infinite input)."""
    def safe(x):
        try:
            return op(x)
        except (ValueError, OverflowError):
            return math.nan
    return safe


def _cot(x):
    t = math.tan(x)
    return _INF if t == 0 else 1.0 / t


def _haversin(x):
    return (1.0 - math.cos(x)) / 2.0


def _ceil(x):
    return float(math.ceil(x)) if math.isfinite(x) else x


def _floor(x):
    return float(math.floor(x)) if math.isfinite(x) else x


for _name, _op, _text in [
        ("sqrt", _sqrt, "The square root of a number."), ("exp", _exp, "e raised to a number."),
        ("log", _log, "The natural logarithm of a number."), ("log10", _log10, "The base-10 logarithm of a number."),
        ("sin", _guard(math.sin), "The sine of an angle in radians."),
        ("cos", _guard(math.cos), "The cosine of an angle in radians."),
        ("tan", _guard(math.tan), "The tangent of an angle in radians."),
        ("asin", _guard(math.asin), "The arcsine of a number, in radians."),
        ("acos", _guard(math.acos), "The arccosine of a number, in radians."),
        ("atan", math.atan, "The arctangent of a number, in radians."),
        ("cot", _guard(_cot), "The cotangent of an angle in radians."),
        ("degrees", math.degrees, "Radians converted to degrees."),
        ("radians", math.radians, "Degrees converted to radians."),
        ("haversin", _guard(_haversin), "Half the versine of an angle in radians."),
        ("ceil", _ceil, "The smallest whole number not below a number."),
        ("floor", _floor, "The largest whole number not above a number.")]:
    _unary(_name, _op, _text)


@function("abs", 1, description="The absolute value of a number.")
def abs_(ctx, v):
    if v is None:
        return None
    v = _num("abs", v)
    r = abs(v)
    if type(r) is int and r >= 2 ** 63:
        raise arithmetic_error("long overflow")
    return r


@function("sign", 1, description="The sign of a number: -1, 0 or 1.")
def sign(ctx, v):
    if v is None:
        return None
    v = _num("sign", v)
    if v != v:
        return 0
    return 1 if v > 0 else (-1 if v < 0 else 0)


@function("atan2", 2, description="The arctangent of y/x in radians.")
def atan2(ctx, y, x):
    if y is None or x is None:
        return None
    return math.atan2(float(_num("atan2", y)), float(_num("atan2", x)))


@function("rand", 0, pure=False, description="A random float in [0, 1).")
def rand(ctx):
    return random.random()


@function("pi", 0, description="The number pi.")
def pi(ctx):
    return math.pi


@function("e", 0, description="Euler's number e.")
def e(ctx):
    return math.e


_POWERS_OF_TEN = [10.0 ** p for p in range(16)]       # exact doubles
_ROUNDING_MODES = {"UP": ROUND_UP, "DOWN": ROUND_DOWN, "CEILING": ROUND_CEILING,
                   "FLOOR": ROUND_FLOOR, "HALF_UP": ROUND_HALF_UP, "HALF_DOWN": ROUND_HALF_DOWN,
                   "HALF_EVEN": ROUND_HALF_EVEN, "UNNECESSARY": None}


@function("round", 1, 3, description="A number rounded, with an optional precision and rounding mode.")
def round_(ctx, v, precision=0, mode=None):
    """round(x) rounds half up toward +infinity (Java Math.round); with a precision or a mode it
    rounds the decimal form (BigDecimal semantics, HALF_UP = away from zero)."""
    if v is None or precision is None:
        return None
    x = float(_num("round", v))
    if type(precision) is not int:
        raise type_error("round", precision, "an Integer precision")
    if not math.isfinite(x):
        return x
    if mode is None:
        if precision == 0:
            return float(math.floor(x + 0.5))
        if 0 < precision <= 15:
            # Away from a tie (by more than the float error of x and of scaled) the nearest neighbour is
            # the same for x and for its decimal form; n / 10**p is correctly rounded as float(decimal) is.
            scale = _POWERS_OF_TEN[precision]
            scaled = x * scale
            if -1e12 < scaled < 1e12:
                low = math.floor(scaled)
                fraction = scaled - low
                if abs(fraction - 0.5) > 1e-9 + abs(scaled) * 1e-15:     # errors < 3 ulps of scaled
                    return (low + 1 if fraction > 0.5 else low) / scale + 0.0
        mode_name = "HALF_UP"
    else:
        if type(mode) is not str:
            raise type_error("round", mode, "a String rounding mode")
        mode_name = mode.upper()
        if mode_name not in _ROUNDING_MODES:
            raise ArgumentError(f"Unknown rounding mode: {mode}", detail="InvalidArgumentValue",
                                phase="runtime")
    rounding = _ROUNDING_MODES[mode_name]
    quantum = Decimal(1).scaleb(-precision)
    value = Decimal(repr(x))
    if rounding is None:
        rounded = value.quantize(quantum, rounding=ROUND_DOWN)
        if rounded != value:
            raise ArgumentError("Rounding necessary", detail="InvalidArgumentValue", phase="runtime")
    else:
        try:
            rounded = value.quantize(quantum, rounding=rounding)
        except InvalidOperation:
            return x            # precision beyond what the decimal context holds: already exact
    return float(rounded) + 0.0     # BigDecimal has no negative zero


@function("isNaN", 1, description="Whether a number is NaN.")
def is_nan(ctx, v):
    if v is None:
        return None
    v = _num("isNaN", v)
    return type(v) is float and v != v
