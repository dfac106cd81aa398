"""Generic traversal of AST expressions: children, rewriting, free variables, aggregate calls."""
from __future__ import annotations

import dataclasses
from typing import Callable, Iterator, Optional

from .. import ast

# Expressions that open a nested query scope; their inner queries are not plain children.
SUBQUERY_EXPRS = (ast.ExistsSubquery, ast.CountSubquery, ast.CollectSubquery)


def _is_aggregate_name(name: str) -> bool:
    from ..exec.values.ops import is_aggregate   # the expression engineer's registry
    return is_aggregate(name)


def children(expr: ast.Expr) -> Iterator[ast.Expr]:
    """Direct sub-expressions of ``expr`` (pattern property maps and WHERE included)."""
    if isinstance(expr, (ast.PatternPredicate, ast.PatternComprehension)):
        yield from pattern_exprs(expr.pattern)
        if isinstance(expr, ast.PatternComprehension):
            if expr.where is not None:
                yield expr.where
            yield expr.projection
        return
    if isinstance(expr, SUBQUERY_EXPRS):
        return
    for f in dataclasses.fields(expr):
        value = getattr(expr, f.name)
        if isinstance(value, ast.Expr):
            yield value
        elif isinstance(value, list):
            for item in value:
                if isinstance(item, ast.Expr):
                    yield item
                elif isinstance(item, tuple):
                    for part in item:
                        if isinstance(part, ast.Expr):
                            yield part
                elif isinstance(item, ast.MapProjectionItem) and item.expr is not None:
                    yield item.expr


def pattern_exprs(part: ast.PatternPart) -> Iterator[ast.Expr]:
    """Expressions inside a pattern: property maps and inline WHERE predicates."""
    for element in part.elements:
        if element.properties is not None:
            yield element.properties
        if element.where is not None:
            yield element.where
        yield from getattr(element, "label_args", None) or getattr(element, "type_args", None) or ()


def transform(expr: ast.Expr, fn: Callable[[ast.Expr], Optional[ast.Expr]]) -> ast.Expr:
    """Rewrite top-down: ``fn`` returns a replacement (not descended into) or None to recurse."""
    replaced = fn(expr)
    if replaced is not None:
        return replaced
    if isinstance(expr, SUBQUERY_EXPRS) or isinstance(expr, (ast.PatternPredicate, ast.PatternComprehension)):
        if isinstance(expr, ast.PatternComprehension):
            return dataclasses.replace(
                expr, where=None if expr.where is None else transform(expr.where, fn),
                projection=transform(expr.projection, fn))
        return expr
    changes = {}
    for f in dataclasses.fields(expr):
        value = getattr(expr, f.name)
        if isinstance(value, ast.Expr):
            new = transform(value, fn)
            if new is not value:
                changes[f.name] = new
        elif isinstance(value, list) and value:
            new_list = [_transform_item(item, fn) for item in value]
            if any(a is not b for a, b in zip(new_list, value)):
                changes[f.name] = new_list
    if not changes:
        return expr
    return dataclasses.replace(expr, **changes)


def _transform_item(item, fn):
    if isinstance(item, ast.Expr):
        return transform(item, fn)
    if isinstance(item, tuple):
        new = tuple(transform(p, fn) if isinstance(p, ast.Expr) else p for p in item)
        return item if all(a is b for a, b in zip(new, item)) else new
    if isinstance(item, ast.MapProjectionItem) and item.expr is not None:
        new = transform(item.expr, fn)
        return item if new is item.expr else dataclasses.replace(item, expr=new)
    return item


def local_names(expr: ast.Expr) -> tuple[str, ...]:
    """Variables an expression introduces for its sub-expressions (comprehensions, reduce)."""
    if isinstance(expr, (ast.ListComprehension, ast.Quantifier)):
        return (expr.variable,)
    if isinstance(expr, ast.Reduce):
        return (expr.accumulator, expr.variable)
    if isinstance(expr, ast.PatternComprehension):
        names = [expr.path_variable] if expr.path_variable else []
        for element in expr.pattern.elements:
            if element.variable:
                names.append(element.variable)
        return tuple(names)
    return ()


def free_variables(expr: ast.Expr, bound: frozenset = frozenset()) -> set[str]:
    """Variables ``expr`` reads from its row (locals of comprehensions excluded)."""
    out: set[str] = set()
    _free(expr, bound, out)
    return out


def _free(expr, bound, out):
    if isinstance(expr, ast.Variable):
        if expr.name not in bound:
            out.add(expr.name)
        return
    if isinstance(expr, ast.MapProjection):
        if expr.subject not in bound:
            out.add(expr.subject)
    if isinstance(expr, ast.PatternPredicate):
        for element in expr.pattern.elements:
            if element.variable and element.variable not in bound:
                out.add(element.variable)
    if isinstance(expr, SUBQUERY_EXPRS):
        out.update(v for v in query_free_variables(expr.query) if v not in bound)
        return
    locals_ = local_names(expr)
    if locals_:
        if isinstance(expr, (ast.ListComprehension, ast.Quantifier)):
            _free(expr.source, bound, out)
            inner = bound | set(locals_)
            for sub in (expr.where, getattr(expr, "projection", None)):
                if sub is not None:
                    _free(sub, inner, out)
            return
        if isinstance(expr, ast.Reduce):
            _free(expr.init, bound, out)
            _free(expr.source, bound, out)
            _free(expr.expression, bound | set(locals_), out)
            return
        if isinstance(expr, ast.PatternComprehension):
            # Pattern variables already bound outside stay references to the outer row.
            inner = bound | {n for n in locals_ if n == expr.path_variable}
            for sub in children(expr):
                _free(sub, inner, out)
            return
    for child in children(expr):
        _free(child, bound, out)


def query_free_variables(query: ast.Query) -> set[str]:
    """Every variable name a subquery mentions (an over-approximation of what it imports)."""
    names: set[str] = set()

    def visit(node):
        if isinstance(node, ast.Variable):
            names.add(node.name)
        elif isinstance(node, (ast.NodePattern, ast.RelPattern)) and node.variable:
            names.add(node.variable)
        elif isinstance(node, ast.MapProjection):
            names.add(node.subject)
        if dataclasses.is_dataclass(node):
            for f in dataclasses.fields(node):
                visit_value(getattr(node, f.name))

    def visit_value(value):
        if isinstance(value, list) or isinstance(value, tuple):
            for item in value:
                visit_value(item)
        elif dataclasses.is_dataclass(value):
            visit(value)

    visit(query)
    return names


def contains_aggregate(expr: ast.Expr) -> bool:
    """Whether an aggregate call occurs in ``expr`` outside nested subqueries."""
    return next(iter_aggregates(expr), None) is not None


def iter_aggregates(expr: ast.Expr) -> Iterator[ast.Expr]:
    """Top-most aggregate calls inside ``expr`` (``count(*)`` included)."""
    if isinstance(expr, ast.CountStar):
        yield expr
        return
    if isinstance(expr, ast.FunctionCall) and _is_aggregate_name(expr.name.lower()):
        yield expr
        return
    for child in children(expr):
        yield from iter_aggregates(child)


def is_aggregate_call(expr: ast.Expr) -> bool:
    return isinstance(expr, ast.CountStar) or (
        isinstance(expr, ast.FunctionCall) and _is_aggregate_name(expr.name.lower()))


def and_terms(expr: Optional[ast.Expr]) -> list[ast.Expr]:
    """Split ``a AND b AND c`` into its conjuncts."""
    if expr is None:
        return []
    if isinstance(expr, ast.BinaryOp) and expr.op == "AND":
        return and_terms(expr.left) + and_terms(expr.right)
    return [expr]


def conjoin(terms: list[ast.Expr]) -> Optional[ast.Expr]:
    """Join predicates with AND (None when empty)."""
    if not terms:
        return None
    out = terms[0]
    for term in terms[1:]:
        out = ast.BinaryOp("AND", out, term)
    return out


def importing_with(part: ast.SingleQuery) -> Optional[ast.With]:
    """The importing WITH of a legacy ``CALL { ... }`` part: its leading WITH when that reads outer variables.

    A leading WITH that reads none (``WITH 1 AS a``) imports nothing and is an ordinary clause (Neo4j).
    """
    lead = part.clauses[0] if part.clauses else None
    if type(lead) is not ast.With:
        return None
    projection = lead.projection
    if projection.star or any(free_variables(item.expr) for item in projection.items):
        return lead
    return None


def legacy_imports(query: ast.Query) -> Optional[list[str]]:
    """The outer variables a legacy ``CALL { ... }`` imports: those its importing WITHs name; None for all.

    Without an importing WITH a subquery sees no outer variable, so a name it binds is a new one.
    """
    names: list[str] = []
    for part in query.parts:
        lead = importing_with(part)
        if lead is None:
            continue
        if lead.projection.star:
            return None
        for item in lead.projection.items:
            if isinstance(item.expr, ast.Variable) and item.expr.name not in names:
                names.append(item.expr.name)
    return names
