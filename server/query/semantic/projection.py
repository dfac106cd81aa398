"""How a WITH/RETURN projection splits into grouping keys, aggregates and post-aggregation outputs.

Shared by semantic analysis (which raises the TCK's errors) and the planner (which builds
operators from the rewritten expressions). Example: ``RETURN n.x AS x, sum(n.y) / count(*) AS r``
groups by ``n.x`` (alias ``x``), aggregates `` agg0 = sum(n.y)``, `` agg1 = count(*)`` and outputs
``r = " agg0" / " agg1"`` over the aggregated row.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from relate.protocol.errors import CypherSyntaxError

from .. import ast
from .walk import contains_aggregate, free_variables, is_aggregate_call, iter_aggregates, transform


@dataclass
class ProjectionShape:
    items: list[tuple[str, ast.Expr]]                 # (column, expression) as written
    aggregating: bool = False
    grouping: list[tuple[str, ast.Expr]] = field(default_factory=list)    # evaluated per input row
    aggregates: list[tuple[str, ast.Expr]] = field(default_factory=list)  # (hidden name, call)
    outputs: list[tuple[str, ast.Expr]] = field(default_factory=list)     # over the aggregated row
    order_by: list[tuple[ast.Expr, bool]] = field(default_factory=list)   # (expr, descending), rewritten
    where: Optional[ast.Expr] = None                                      # rewritten WITH ... WHERE
    sees_previous: bool = True     # ORDER BY / WHERE may read variables from before the projection

    @property
    def columns(self) -> list[str]:
        return [name for name, _ in self.items]


def error(message: str, detail: str, pos=None) -> CypherSyntaxError:
    line, column = pos if pos else (None, None)
    return CypherSyntaxError(message, detail=detail, phase="compile time", line=line, column=column)


def shape_projection(items: list[tuple[str, ast.Expr]], projection: ast.Projection,
                     where: Optional[ast.Expr] = None) -> ProjectionShape:
    """Split ``items`` (star already expanded) and rewrite ORDER BY / WHERE over the outputs."""
    shape = ProjectionShape(items=items)
    order = [(s.expr, s.descending) for s in projection.order_by]
    if where is not None and contains_aggregate(where):
        raise error("Invalid use of aggregating function in this context", "InvalidAggregation",
                    getattr(where, "pos", None))
    aggregating = any(contains_aggregate(expr) for _, expr in items)
    shape.aggregating = aggregating
    if not aggregating:
        for expr, _ in order:
            if contains_aggregate(expr):
                raise error("Invalid use of aggregating function in ORDER BY: the projection does not "
                            "aggregate", "InvalidAggregation", getattr(expr, "pos", None))
        shape.outputs = list(items)
        if projection.distinct:
            # After DISTINCT only the projected columns exist; expressions equal to one read it.
            by_expr = _expr_aliases(items)
            shape.sees_previous = False
            shape.order_by = [(_replace_exprs(e, by_expr), d) for e, d in order]
            shape.where = None if where is None else _replace_exprs(where, by_expr)
        else:
            shape.order_by = order
            shape.where = where
        return shape

    shape.sees_previous = False
    simple: dict = {}        # grouping expression (variable or property) -> alias
    complex_: list = []      # other grouping expressions: not reusable inside aggregate items
    for name, expr in items:
        if contains_aggregate(expr):
            continue
        shape.grouping.append((name, expr))
        if isinstance(expr, ast.Variable) or (isinstance(expr, ast.Property) and _is_var_path(expr)):
            simple.setdefault(_key(expr), name)
        else:
            complex_.append(_key(expr))
    aliases = {name for name, _ in shape.grouping}
    aggs: dict = {}          # aggregate call -> hidden name

    complex_alias = {key: name for name, e in shape.grouping if (key := _key(e)) in complex_}

    def rewrite(expr: ast.Expr, allowed: set[str], undefined_detail: str) -> ast.Expr:
        # An aggregate-free ORDER BY / WHERE expression may read any grouping expression whole.
        reuse_complex = undefined_detail == "UndefinedVariable" and not contains_aggregate(expr)

        def fn(node):
            if is_aggregate_call(node):
                _check_aggregate_args(node)
                key = _key(node)
                if key not in aggs and undefined_detail == "UndefinedVariable":
                    # A new aggregate in ORDER BY can only read what the projection keeps.
                    for name in free_variables(node):
                        if name not in allowed:
                            raise error(f"Variable `{name}` not defined", "UndefinedVariable",
                                        getattr(node, "pos", None))
                if key not in aggs:
                    aggs[key] = (f" agg{len(aggs)}", node)
                return ast.Variable(aggs[key][0], pos=getattr(node, "pos", None))
            key = _key(node)
            if key in simple:
                return ast.Variable(simple[key], pos=getattr(node, "pos", None))
            if key in complex_:
                if reuse_complex:
                    return ast.Variable(complex_alias[key], pos=getattr(node, "pos", None))
                raise error("Aggregation expressions must not reuse complex grouping expressions",
                            "AmbiguousAggregationExpression", getattr(node, "pos", None))
            return None
        out = transform(expr, fn)
        for name in free_variables(out):
            if not name.startswith(" ") and name not in allowed:
                if undefined_detail == "UndefinedVariable":
                    raise error(f"Variable `{name}` not defined", "UndefinedVariable", getattr(expr, "pos", None))
                raise error("Aggregation column contains implicit grouping expressions",
                            "AmbiguousAggregationExpression", getattr(expr, "pos", None))
        return out

    for name, expr in items:
        if contains_aggregate(expr):
            shape.outputs.append((name, rewrite(expr, aliases, "AmbiguousAggregationExpression")))
        else:
            shape.outputs.append((name, ast.Variable(name)))
    all_names = {name for name, _ in items}
    shape.order_by = [(rewrite(e, all_names, "UndefinedVariable"), d) for e, d in order]
    if where is not None:
        shape.where = rewrite(where, all_names, "UndefinedVariable")
    shape.aggregates = list(aggs.values())
    return shape


def _check_aggregate_args(call: ast.Expr) -> None:
    if isinstance(call, ast.CountStar):
        return
    for arg in call.args:
        if contains_aggregate(arg):
            raise error("Can't use aggregate functions inside of aggregate functions", "NestedAggregation",
                        getattr(call, "pos", None))
        if _calls_rand(arg):
            raise error("Can't use non-deterministic (random) functions inside of aggregate functions",
                        "NonConstantExpression", getattr(call, "pos", None))


def _calls_rand(expr: ast.Expr) -> bool:
    if isinstance(expr, ast.FunctionCall) and expr.name.lower() == "rand":
        return True
    from .walk import children
    return any(_calls_rand(c) for c in children(expr))


def _is_var_path(expr: ast.Expr) -> bool:
    while isinstance(expr, ast.Property):
        expr = expr.subject
    return isinstance(expr, ast.Variable)


def _key(expr: ast.Expr):
    """A hashable identity for structural equality (positions are excluded from dataclass eq)."""
    return _Key(expr)


class _Key:
    # Equal by repr (which leaves positions out, as eq does) and not by ==: Python's 1 == 1.0 == true
    # made the literals `true` and `1` one grouping key (wrong, and a KeyError: their hashes differ).
    __slots__ = ("expr", "_repr")

    def __init__(self, expr):
        self.expr = expr
        self._repr = repr(expr)

    def __eq__(self, other):
        return isinstance(other, _Key) and type(other.expr) is type(self.expr) and other._repr == self._repr

    def __hash__(self):
        return hash(self._repr)


def _expr_aliases(items):
    out = {}
    for name, expr in items:
        out.setdefault(_key(expr), name)
    return out


def _replace_exprs(expr: ast.Expr, by_expr: dict) -> ast.Expr:
    def fn(node):
        name = by_expr.get(_key(node))
        return ast.Variable(name, pos=getattr(node, "pos", None)) if name is not None else None
    return transform(expr, fn)


def aggregate_free(expr: ast.Expr) -> bool:
    return next(iter_aggregates(expr), None) is None
