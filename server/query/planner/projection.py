"""Plan WITH / RETURN: projection or aggregation, DISTINCT, ORDER BY, SKIP, LIMIT, WITH ... WHERE.

Operator order: Project | Aggregate+Project -> Distinct -> Sort | Top -> Skip -> Limit -> Filter
-> Select. ORDER BY + LIMIT becomes one Top (heap-based, stable among ties).
"""
from __future__ import annotations

from typing import Optional

from .. import ast
from ..semantic.projection import ProjectionShape, shape_projection
from ..semantic.walk import SUBQUERY_EXPRS, children, free_variables
from . import logical as L


def expand_items(projection: ast.Projection, bound: list[str]) -> list[tuple[str, ast.Expr]]:
    """Projection items with ``*`` expanded to the visible variables (sorted, as Neo4j orders them)."""
    items: list[tuple[str, ast.Expr]] = []
    explicit = {item.name for item in projection.items}
    if projection.star:
        items.extend((n, ast.Variable(n)) for n in sorted(b for b in bound if not b.startswith(" "))
                     if n not in explicit)
    items.extend((item.name, item.expr) for item in projection.items)
    return items


def plan_projection(op: L.LogicalOp, bound: list[str], projection: ast.Projection,
                    where: Optional[ast.Expr] = None) -> tuple[L.LogicalOp, list[str]]:
    """Ops computing the projection over ``op``; returns them and the new column names."""
    items = expand_items(projection, bound)
    shape = shape_projection(items, projection, where)
    columns = shape.columns
    if shape.aggregating:
        if isinstance(op, L.Sort) and _heads_of_collects(shape):
            source = op.source
            if (isinstance(source, L.Project) and not source.keep
                    and all(isinstance(e, ast.Variable) and e.name == n for n, e in source.items)):
                source = source.source     # only passes variables on: the aggregate reads just those
            op = L.Aggregate(source, shape.grouping, shape.aggregates, op.keys)
        else:
            op = L.Aggregate(op, shape.grouping, shape.aggregates)
        computed = [(n, e) for n, e in shape.outputs if not (isinstance(e, ast.Variable) and e.name == n)]
        if computed:
            op = L.Project(op, computed, keep=True)
        needs_select = True
    elif projection.distinct:
        op = L.Project(op, items, keep=False)
        op = L.Distinct(op, tuple(columns))
        needs_select = False
    else:
        reads_previous = _reads_previous(shape, columns)
        if reads_previous:
            computed = [(n, e) for n, e in items if not _same_var(n, e)]
            if computed:
                op = L.Project(op, computed, keep=True)
            needs_select = True
        else:
            op = L.Project(op, items, keep=False)
            needs_select = False
    op = _order_skip_limit(op, shape, projection)
    if shape.where is not None:
        op = L.Filter(op, shape.where)
    if needs_select:
        op = L.Select(op, tuple(columns))
    return op, columns


def _heads_of_collects(shape: ProjectionShape) -> bool:
    """Whether every aggregate is a plain ``collect(x)`` whose result is read only as ``head(...)``:
    ``WITH ... ORDER BY k WITH g, head(collect(x)) AS y`` needs only the first non-null x per group."""
    hidden = set()
    for name, call in shape.aggregates:
        if not (isinstance(call, ast.FunctionCall) and call.name.lower() == "collect" and not call.distinct
                and len(call.args) == 1):
            return False
        hidden.add(name)
    exprs = [e for _, e in shape.outputs] + [e for e, _ in shape.order_by]
    if shape.where is not None:
        exprs.append(shape.where)
    return bool(hidden) and all(_only_under_head(e, hidden) for e in exprs)


def _only_under_head(expr: ast.Expr, hidden: set) -> bool:
    if isinstance(expr, ast.Variable):
        return expr.name not in hidden
    if (isinstance(expr, ast.FunctionCall) and expr.name.lower() == "head" and len(expr.args) == 1
            and isinstance(expr.args[0], ast.Variable)):
        return True
    if isinstance(expr, SUBQUERY_EXPRS):
        return False                   # nested queries: not looked into, so not known to be safe
    return all(_only_under_head(c, hidden) for c in children(expr))


def _order_skip_limit(op, shape: ProjectionShape, projection: ast.Projection):
    # A LIMIT stops pulling its input early (LIMIT 0 never starts it) unless that input writes.
    exhaustive = projection.limit is not None and L.is_updating(op)
    if shape.order_by and projection.limit is not None:
        return L.Top(op, shape.order_by, projection.limit, projection.skip, exhaustive)
    if shape.order_by:
        op = L.Sort(op, shape.order_by)
    if projection.skip is not None:
        op = L.Skip(op, projection.skip)
    if projection.limit is not None:
        op = L.Limit(op, projection.limit, exhaustive)
    return op


def _reads_previous(shape: ProjectionShape, columns: list[str]) -> bool:
    names = set(columns)
    exprs = [e for e, _ in shape.order_by] + ([shape.where] if shape.where is not None else [])
    return any(not free_variables(e) <= names for e in exprs)


def _same_var(name: str, expr: ast.Expr) -> bool:
    return isinstance(expr, ast.Variable) and expr.name == name

