"""The function library: one registry (``registry.py``) that every function module fills with
``@function`` / ``@aggregate``; importing this package imports them all.

Modules by theme: ``collections`` (coll.*), ``convert``, ``graph``, ``lists``, ``math``, ``strings``, ``text_similarity``,
``vector``, ``spatial`` (points), ``misc``, ``load`` (LOAD CSV), ``temporal/`` and ``aggregates``; ``apoc/`` holds the
APOC library (apoc.coll.*, apoc.map.*, apoc.text.*, apoc.convert.*, apoc.date.*, apoc.agg.*, ...); the server-side
embedding functions register from ``relate.server.ai.functions``.
"""
from __future__ import annotations

import inspect

from relate.server.query.exec.functions import (aggregates, collections, convert, graph, lists,  # noqa: F401
                                                load, math, misc, spatial, strings, temporal, text_similarity,
                                                vector)
from relate.server.query.exec.functions import apoc  # noqa: F401,E402  (after the core: it extends their tables)
from relate.server.query.exec.functions.registry import ARITY, CATALOG, FUNCTIONS, PURE, FunctionInfo, function

__all__ = ["FUNCTIONS", "ARITY", "PURE", "CATALOG", "FunctionInfo", "function", "lookup", "arity", "catalog"]


def lookup(name: str):
    """The scalar function registered as ``name`` (case-insensitive), or None."""
    return FUNCTIONS.get(name.lower())


def arity(name: str) -> tuple[int, int | None] | None:
    """(min, max) argument counts (max None = any): as registered, else read from the function's
    signature ``fn(ctx, ...)``, so a wrong count is a compile-time error rather than a TypeError
    from inside the call. None when the signature cannot be read."""
    key = name.lower()
    bounds = ARITY.get(key)
    if bounds is None:
        fn = lookup(key)
        bounds = _signature_arity(fn) if fn is not None else None
        if bounds is not None:
            ARITY[key] = bounds
    return bounds


def _signature_arity(fn) -> tuple[int, int | None] | None:
    try:
        parameters = list(inspect.signature(fn).parameters.values())[1:]     # after ctx
    except (TypeError, ValueError):
        return None
    low = high = 0
    for parameter in parameters:
        if parameter.kind is inspect.Parameter.VAR_POSITIONAL:
            return low, None
        if parameter.kind in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD):
            high += 1
            if parameter.default is inspect.Parameter.empty:
                low += 1
    return low, high


def catalog() -> list[FunctionInfo]:
    """Every function users can call (scalar and aggregate), by name."""
    return sorted((info for key, info in CATALOG.items() if not key.startswith(" ") and "(" not in key),
                  key=lambda info: info.name.lower())


from relate.server.ai import functions as _ai_functions  # noqa: E402,F401  (ai.text.embed, genai.vector.encode)
