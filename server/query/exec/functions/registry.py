"""The function registry: every scalar and aggregate function registers the same way, with its
name as users spell it, its arity, its purity and a one-line description (SHOW FUNCTIONS reads them).

    @function("toUpper", 1, description="The string in upper case.")   # fn(ctx, *args)
    @aggregate("percentileCont", 2, description="...")                 # factory() -> accumulator
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from relate.protocol.errors import CypherTypeError
from relate.server.query.exec.values.ops import type_name

FUNCTIONS: dict[str, Callable[..., Any]] = {}      # scalar functions by lower-case name: fn(ctx, *args)
AGGREGATES: dict[str, Callable[[], Any]] = {}      # aggregate accumulator factories by lower-case name
ARITY: dict[str, tuple[int, int | None]] = {}      # (min, max); max None = variadic
PURE: set[str] = set()                             # same arguments -> same result, no ctx needed


@dataclass(frozen=True)
class FunctionInfo:
    """What SHOW FUNCTIONS says about one function."""
    name: str                   # as users spell it (toUpper, date.truncate)
    min_args: int
    max_args: int | None
    pure: bool
    aggregating: bool
    description: str

    # SHOW FUNCTIONS' Neo4j columns; the text lives in catalog_docs.py (one table for every function)
    @property
    def signature(self) -> str:
        """Neo4j's form: ``toUpper(input :: STRING) :: STRING``."""
        from relate.server.query.catalog_docs import function_signature
        fn = None if self.aggregating else FUNCTIONS.get(self.name.lower())
        return function_signature(self.name, fn, (self.min_args, self.max_args))

    @property
    def argument_description(self) -> list[dict[str, Any]]:
        """``[{name, description, type, isDeprecated}]``, one per argument."""
        from relate.server.query.catalog_docs import function_arguments
        return function_arguments(self.signature)

    @property
    def return_description(self) -> str:
        from relate.server.query.catalog_docs import function_return
        return function_return(self.signature)

    @property
    def is_builtin(self) -> bool:
        """False for library functions (APOC), as Neo4j reports them."""
        from relate.server.query.catalog_docs import is_builtin_function
        return is_builtin_function(self.name)


CATALOG: dict[str, FunctionInfo] = {}              # every function (scalar and aggregate) by lower-case name


def _describe(fn, description: str | None) -> str:
    if description:
        return description
    doc = (getattr(fn, "__doc__", None) or "").strip()
    return doc.splitlines()[0] if doc else ""


def _record(name: str, min_args: int, max_args: int | None, pure: bool, aggregating: bool, fn,
            description: str | None) -> str:
    key = name.lower()
    high = min_args if max_args == -1 else max_args
    ARITY[key] = (min_args, high)
    if pure:
        PURE.add(key)
    else:
        PURE.discard(key)
    CATALOG[key] = FunctionInfo(name, min_args, high, pure, aggregating, _describe(fn, description))
    return key


def function(name: str, min_args: int, max_args: int | None = -1, *, pure: bool = True,
             description: str | None = None):
    """Register scalar ``fn(ctx, *args)`` under ``name`` (case-insensitive); max_args -1 means = min_args,
    None any number; ``pure`` functions of constants are folded at compile time. The description
    defaults to the first line of the docstring."""
    def register(fn):
        FUNCTIONS[_record(name, min_args, max_args, pure, False, fn, description)] = fn
        return fn
    return register


def aggregate(name: str, min_args: int = 1, max_args: int | None = -1, *, description: str | None = None):
    """Register an aggregate's accumulator ``factory()`` (``.add(*args)``, ``.result()``) under ``name``."""
    def register(factory):
        AGGREGATES[_record(name, min_args, max_args, False, True, factory, description)] = factory
        return factory
    return register


def type_error(fn_name: str, value: Any, expected: str, detail: str = "InvalidArgumentType"):
    """The runtime error for a wrong argument type."""
    return CypherTypeError(
        f"Invalid input for function '{fn_name}()': Expected {expected}, got {type_name(value)}",
        detail=detail, phase="runtime")
