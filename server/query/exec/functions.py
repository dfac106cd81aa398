"""The scalar function library: ``FUNCTIONS[lower_name] = fn(ctx, *args)`` (arguments evaluated).

The functions live in ``functions_*.py`` by theme; importing this module registers them all and
merges in the temporal functions of ``exec/temporal_functions.py``.
"""
from __future__ import annotations

import uuid

from relate.server.query.exec import (functions_convert, functions_graph, functions_lists,  # noqa: F401
                                      functions_math, functions_strings, functions_text_similarity,
                                      functions_vector)
from relate.server.query.exec.functions_registry import ARITY, FUNCTIONS, PURE, function

__all__ = ["FUNCTIONS", "ARITY", "PURE", "lookup", "arity"]


@function("timestamp", 0, pure=False)
def timestamp(ctx):
    """Milliseconds since the epoch at the statement's clock (stable within a statement)."""
    return int(ctx.now.timestamp() * 1000)


@function("randomUUID", 0, pure=False)
def random_uuid(ctx):
    return str(uuid.uuid4())


@function("linenumber", 0, pure=False)
def linenumber(ctx):
    """The line (row, for Parquet/Arrow) of LOAD CSV's current record; null outside LOAD CSV."""
    position = ctx.load_position
    return None if position is None else position[1]


@function("file", 0, pure=False)
def file(ctx):
    """The URL LOAD CSV's current record comes from; null outside LOAD CSV."""
    position = ctx.load_position
    return None if position is None else position[0]


_temporal_merged = False


def _merge_temporal() -> None:
    global _temporal_merged
    try:
        from relate.server.query.exec.temporal_functions import TEMPORAL_FUNCTIONS
    except ImportError:         # not written yet: lookup() tries again later
        return
    _temporal_merged = True
    for name, fn in TEMPORAL_FUNCTIONS.items():
        FUNCTIONS.setdefault(name.lower(), fn)


def lookup(name: str):
    """The function registered as ``name`` (case-insensitive), or None."""
    key = name.lower()
    fn = FUNCTIONS.get(key)
    if fn is None and not _temporal_merged:
        _merge_temporal()
        fn = FUNCTIONS.get(key)
    return fn


def arity(name: str) -> tuple[int, int | None] | None:
    """(min, max) argument counts (max None = any), or None when unknown (temporal functions)."""
    return ARITY.get(name.lower())


_merge_temporal()   # so FUNCTIONS is complete for callers that read it directly

from relate.server.ai import functions as _ai_functions  # noqa: E402,F401  (ai.text.embed, genai.vector.encode)
