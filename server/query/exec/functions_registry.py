"""The scalar function registry: ``FUNCTIONS[lower_name] = fn(ctx, *args)`` plus arity and purity.

Function modules register with ``@function("name", min_args, max_args)``; ``functions.py`` imports
them all and merges the temporal functions in.
"""
from __future__ import annotations

from typing import Any, Callable

from relate.protocol.errors import CypherTypeError
from relate.server.query.exec.values_ops import type_name

FUNCTIONS: dict[str, Callable[..., Any]] = {}
ARITY: dict[str, tuple[int, int | None]] = {}      # (min, max); max None = variadic
PURE: set[str] = set()                             # same arguments -> same result, no ctx needed


def function(name: str, min_args: int, max_args: int | None = -1, *, pure: bool = True):
    """Register ``fn(ctx, *args)`` under ``name`` (lower-cased); max_args -1 means = min_args."""
    def register(fn):
        key = name.lower()
        FUNCTIONS[key] = fn
        ARITY[key] = (min_args, min_args if max_args == -1 else max_args)
        if pure:
            PURE.add(key)
        return fn
    return register


def type_error(fn_name: str, value: Any, expected: str, detail: str = "InvalidArgumentType"):
    """The runtime error for a wrong argument type."""
    return CypherTypeError(
        f"Invalid input for function '{fn_name}()': Expected {expected}, got {type_name(value)}",
        detail=detail, phase="runtime")
