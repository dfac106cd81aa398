"""The function library: one registry (``registry.py``) that every function module fills with
``@function`` / ``@aggregate``; importing this package imports them all.

Modules by theme: ``convert``, ``graph``, ``lists``, ``math``, ``strings``, ``text_similarity``,
``vector``, ``misc``, ``load`` (LOAD CSV), ``temporal/`` and ``aggregates``; the server-side embedding functions register
from ``relate.server.ai.functions``.
"""
from __future__ import annotations

from relate.server.query.exec.functions import (aggregates, convert, graph, lists, load, math,  # noqa: F401
                                                misc, strings, temporal, text_similarity, vector)
from relate.server.query.exec.functions.registry import ARITY, CATALOG, FUNCTIONS, PURE, FunctionInfo, function

__all__ = ["FUNCTIONS", "ARITY", "PURE", "CATALOG", "FunctionInfo", "function", "lookup", "arity", "catalog"]


def lookup(name: str):
    """The scalar function registered as ``name`` (case-insensitive), or None."""
    return FUNCTIONS.get(name.lower())


def arity(name: str) -> tuple[int, int | None] | None:
    """(min, max) argument counts (max None = any), or None when unknown."""
    return ARITY.get(name.lower())


def catalog() -> list[FunctionInfo]:
    """Every function users can call (scalar and aggregate), by name."""
    return sorted((info for key, info in CATALOG.items() if not key.startswith(" ") and "(" not in key),
                  key=lambda info: info.name.lower())


from relate.server.ai import functions as _ai_functions  # noqa: E402,F401  (ai.text.embed, genai.vector.encode)
