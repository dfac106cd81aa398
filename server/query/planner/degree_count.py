"""Planner rule: counting a node's expansions reads its degree.

    MATCH (e:Entity)<-[:MENTIONS]-(c) RETURN e.name, count(c) AS n ORDER BY n DESC LIMIT 10

aggregates one row per relationship. When the counts are all the aggregate computes (``count(*)``,
``count(c)`` or ``count(r)`` of the hop's far node or relationship, not DISTINCT) and nothing else reads
them, each input row stands for as many rows as its node has relationships of the types: the Expand
becomes Expand(Degree), which yields the row once with that number (rows of degree 0 yield nothing, as
the expansion did) and the counts become its sum. Far-end labels, a relationship to differ from, a
variable length or a relevance join keep the plain Expand.
"""
from __future__ import annotations

import dataclasses

from .. import ast
from ..semantic.walk import free_variables
from . import logical as L
from .rules import map_children


def degree_count(op: L.LogicalOp, catalog=None) -> L.LogicalOp:
    op = map_children(op, lambda child: degree_count(child, catalog))
    if not isinstance(op, L.Aggregate) or op.order is not None or not op.aggregates:
        return op
    expand = op.source
    if not (isinstance(expand, L.Expand) and not expand.into and expand.length is None
            and expand.end_labels is None and expand.rel_props is None and not expand.unique_with
            and expand.relevance is None and expand.best is None and expand.degree is None):
        return op
    hop = {expand.rel, expand.end}
    if any(free_variables(e) & hop for _, e in op.grouping):
        return op
    if not all(_counts_the_hop(call, hop) for _, call in op.aggregates):
        return op
    degree = f" degree {expand.rel.strip()}"
    total = ast.FunctionCall("sum", [ast.Variable(degree)])
    return dataclasses.replace(op, source=dataclasses.replace(expand, degree=degree),
                               aggregates=[(name, total) for name, _ in op.aggregates])


def _counts_the_hop(call: ast.Expr, hop: set) -> bool:
    """``count(*)``, or ``count(x)`` of the far node or the relationship (never null on a row)."""
    if isinstance(call, ast.CountStar):
        return True
    return (isinstance(call, ast.FunctionCall) and call.name.lower() == "count" and not call.distinct
            and len(call.args) == 1 and isinstance(call.args[0], ast.Variable) and call.args[0].name in hop)
