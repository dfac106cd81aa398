"""Planner rule: ORDER BY ... LIMIT before the projection it does not need.

    MATCH (m:Memory) RETURN m.text AS text ORDER BY m.ts DESC LIMIT 10

plans as Top(Project(scan, text = m.text), m.ts DESC): every node's text is read to keep ten. A
projection computes each row alone and keeps their number, so the Top can run first when its keys can
be read below the projection: a key the projection passes on (``m.ts`` with ``m`` kept), or one naming
a projected item (``ORDER BY ts`` of ``m.ts AS ts``, computed twice for the rows kept, hence only for
deterministic items). Neo4j plans the same (Projection over Top); like it, a projected value that would
fail is computed for the kept rows only.
"""
from __future__ import annotations

import dataclasses

from .. import ast
from ..semantic.walk import SUBQUERY_EXPRS, children, free_variables
from . import logical as L
from .rules import _volatile, map_children


def top_first(op: L.LogicalOp, catalog=None) -> L.LogicalOp:
    op = map_children(op, lambda child: top_first(child, catalog))
    if not isinstance(op, L.Top) or not isinstance(op.source, L.Project):
        return op
    project = op.source
    keys = [(_below(key, project), descending) for key, descending in op.keys]
    if any(key is None for key, _ in keys):
        return op
    return dataclasses.replace(project, source=dataclasses.replace(op, source=project.source, keys=keys))


def _below(key: ast.Expr, project: L.Project) -> ast.Expr | None:
    """``key`` as it reads below ``project`` (the same value for every row), or None when it cannot."""
    items = dict(project.items)
    free = free_variables(key)
    if not free & items.keys():
        # reads only what the projection passes on unchanged (it extends the row, or names the variable again)
        if project.keep or all(_passed(name, items) for name in free):
            return key
        return None
    if isinstance(key, ast.Variable):
        return _copyable(items[key.name])
    if isinstance(key, ast.Property) and isinstance(key.subject, ast.Variable):
        source = items[key.subject.name]
        if isinstance(source, ast.Variable):
            return ast.Property(source, key.key)
    return None


def _passed(name: str, items: dict) -> bool:
    expr = items.get(name)
    return isinstance(expr, ast.Variable) and expr.name == name


def _copyable(expr: ast.Expr) -> ast.Expr | None:
    """``expr`` when computing it once more per kept row gives the same value (no rand(), no subquery)."""
    if _volatile(expr) or _has_subquery(expr):
        return None
    return expr


def _has_subquery(expr: ast.Expr) -> bool:
    if isinstance(expr, SUBQUERY_EXPRS) or isinstance(expr, (ast.PatternComprehension, ast.PatternPredicate)):
        return True
    return any(_has_subquery(child) for child in children(expr))
