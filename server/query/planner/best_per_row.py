"""Planner rule: an ORDER BY feeding ``head(collect(r.x))`` per group needs only the best relationships
of each expansion, not all of them.

    OPTIONAL MATCH (t)<-[d:DECIDED]-()
    WITH n, t, d ORDER BY d.ts DESC
    WITH n, t, head(collect(d.text)) AS decided

plans as an ordered head aggregate (``projection._heads_of_collects``) over ``Optional(Expand)``; the
aggregate keeps, per group, the first non-null ``d.text`` in ``d.ts DESC`` order. When every ORDER BY
key and every collected value is a property of the expanded relationship, and the grouping reads
neither the relationship nor the far node, the Expand can hand on, per input row, only the
relationships that can matter: the first in key order, and for each collected property the first
in key order whose value is not null. They come out in expansion order, so ties resolve as before
(the sort was stable), and the aggregate's answer is the one it gave over every row. EXPLAIN shows
the Expand as ``Expand(Best)``.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from .. import ast
from ..semantic.walk import free_variables
from . import logical as L
from .rules import map_children


@dataclass(frozen=True)
class Best:
    """What an Expand keeps per input row: ``keys`` [(relationship property, descending)] of the
    ORDER BY, ``values`` the relationship properties collected and read through head()."""
    keys: tuple[tuple[str, bool], ...]
    values: tuple[str, ...]


def best_per_row(op: L.LogicalOp, catalog=None) -> L.LogicalOp:
    op = map_children(op, lambda child: best_per_row(child, catalog))
    if not isinstance(op, L.Aggregate) or op.order is None:
        return op
    source = op.source
    if isinstance(source, L.Optional_):
        expand = source.inner
        if not (isinstance(expand, L.Expand) and isinstance(expand.source, L.Argument)
                and expand.rel in source.new_vars and set(source.new_vars) <= {expand.rel, expand.end}):
            return op
    elif isinstance(source, L.Expand):
        expand = source
    else:
        return op
    best = _best_of(op, expand)
    if best is None:
        return op
    new_expand = dataclasses.replace(expand, best=best)
    if isinstance(source, L.Optional_):
        return dataclasses.replace(op, source=dataclasses.replace(source, inner=new_expand))
    return dataclasses.replace(op, source=new_expand)


def _best_of(agg: L.Aggregate, expand: L.Expand) -> Best | None:
    if expand.into or expand.length is not None or expand.relevance is not None or expand.best is not None:
        return None
    rel, end = expand.rel, expand.end
    hidden = {rel, end}
    if any(free_variables(e) & hidden for _, e in agg.grouping):
        return None
    keys = []
    for expr, descending in agg.order:
        key = _rel_property(expr, rel)
        if key is None:
            return None
        keys.append((key, bool(descending)))
    values = []
    for _, call in agg.aggregates:
        if not (isinstance(call, ast.FunctionCall) and len(call.args) == 1):
            return None
        key = _rel_property(call.args[0], rel)
        if key is None:
            return None
        values.append(key)
    return Best(tuple(keys), tuple(values))


def _rel_property(expr, rel: str) -> str | None:
    if (isinstance(expr, ast.Property) and isinstance(expr.subject, ast.Variable)
            and expr.subject.name == rel):
        return expr.key
    return None
