"""EXPLAIN's price of relevance joins: ``~n semantic search(es)`` per RelevanceExpand and in total.

A first-stage hop (no relevance hop below it) is priced exactly: its anchor rows are computed from
the snapshot (reads only, no search) and their distinct keys counted, the pinned
``(c:Concept {value: '...'})`` shape included. Inside OPTIONAL MATCH or a CALL subquery the hop's
anchors come from the rows the subquery runs for, computed the same way (when nothing below them
searches). A later hop's anchors are an earlier search's results, so it is priced as a floor (one
search) and the total reads "at least".
"""
from __future__ import annotations

import dataclasses

from relate.protocol.errors import QueryTimeout, Terminated
from relate.server.ai.statement import for_ctx
from relate.server.query import ast
from relate.server.query.context import ExecContext
from relate.server.query.exec.operators.base import Profiled
from relate.server.query.exec.operators.subplans import Apply, Optional

from . import catalog as C
from . import costs

from .operator import RelevanceExpand, planned_calls



def _below(op) -> list:
    out = []
    for child in list(op.children()) + list(op.nested()):
        out.append(child)
        out.extend(_below(child))
    return out


def _searches(op) -> bool:
    return isinstance(op, RelevanceExpand) or any(isinstance(o, RelevanceExpand) for o in _below(op))


def _price(op, ctx, rc, args, gated: bool = False) -> tuple[dict, bool]:
    """The hop's price for the argument rows ``args`` (a callable; None: they cannot be known); ``gated``:
    only what the budget gates (not the rows whose edge opts in)."""
    floor = _floor(op, rc)
    if args is None or any(isinstance(o, RelevanceExpand) for o in _below(op)):
        return floor, False
    try:
        work = [w for arg in args() for row in op.source.rows(ctx, arg)
                if not (gated and op.opted_in(row, ctx)) for w in op._work(ctx, rc, row)]
    except (Terminated, QueryTimeout):
        raise
    except Exception:           # e.g. a parameter EXPLAIN was not given: the floor is one search
        return floor, False
    return planned_calls(ctx, rc, work), True


def _inner_args(op, ctx, args):
    """The argument rows an Optional's or Apply's subquery runs for, as a callable; None when they
    cannot be computed without searching (a relevance hop feeds them) or for another operator."""
    op = op.inner if isinstance(op, Profiled) else op
    if args is None or not isinstance(op, (Optional, Apply)) or _searches(op.source):
        return None
    if isinstance(op, Optional):
        return lambda: [row for arg in args() for row in op.source.rows(ctx, arg)]
    imports = op.imports
    return lambda: [row if imports is None else {name: row[name] for name in imports}
                    for arg in args() for row in op.source.rows(ctx, arg)]


def _floor(op, rc) -> dict:
    return _type_floor(op.rel_type, rc)


def _type_floor(rel_type: str, rc) -> dict:
    """One search's price when the anchors cannot be counted: an API call when every join that may
    answer the hop's type searches a remote store, else a semantic search."""
    joins = rc.joins_for(rel_type)
    remote = bool(joins) and all(join.remote for join in joins)
    return {"semanticCalls": 0 if remote else 1, "llmCalls": 0, "apiCalls": 1 if remote else 0}


def _text(price: dict, exact: bool) -> str:
    """'~n semantic search(es)', '~n API call(s)' or both, each 'at least' when it is a floor (a later
    stage; concept mode's API calls), then the model calls and how many of them are expansions."""
    parts = []
    n, api, llm = price["semanticCalls"], price.get("apiCalls", 0), price.get("llmCalls", 0)
    floor = "" if exact else "at least "
    if n or not api:
        parts.append(f"{floor}~{n} semantic search{'' if n == 1 else 'es'}")
    if api:
        api_floor = "at least " if floor or price.get("expansions") else ""
        parts.append(f"{api_floor}~{api} API call{'' if api == 1 else 's'}")
    if llm:
        expansions = price.get("expansions", 0)
        parts.append(f"~{llm} model call(s)" + (f" ({expansions} expansion{'' if expansions == 1 else 's'})"
                                               if expansions else ""))
    return ", ".join(parts)


_EXPRESSION_SUBQUERIES = (ast.ExistsSubquery, ast.CountSubquery, ast.CollectSubquery, ast.PatternComprehension,
                          ast.PatternPredicate)


def _nodes(value, depth: int = 0):
    """Every AST node under ``value`` (dataclass fields, lists and tuples), depth-first."""
    if depth > 500:
        return
    if isinstance(value, (list, tuple)):
        for item in value:
            yield from _nodes(item, depth + 1)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        yield value
        for field in dataclasses.fields(value):
            yield from _nodes(getattr(value, field.name), depth + 1)


def _expression_hops(body, rc) -> list[str]:
    """The relevance types searched inside subquery expressions (EXISTS/COUNT/COLLECT {...}, pattern
    comprehensions and predicates): one entry per outermost such expression. Their plans are made
    while the statement runs, for the variables then bound, so EXPLAIN can price them only as a floor."""
    found, inside = [], set()
    for node in _nodes(body):
        if id(node) in inside or not isinstance(node, _EXPRESSION_SUBQUERIES):
            continue
        below = list(_nodes(node))
        inside.update(id(n) for n in below)
        types = [t for n in below if isinstance(n, ast.RelPattern) for t in n.types if t in rc.rel_types]
        if types:
            found.append(types[0])
    return found


def _hops(op, node, args, ctx, rc, visit, gated: bool = False) -> None:
    """Call ``visit(node, price, exact)`` for every RelevanceExpand under ``op`` (``node``: its entry in
    the described plan, or None), priced for the argument rows ``args``."""
    inner = op.inner if isinstance(op, Profiled) else op
    if isinstance(inner, RelevanceExpand):
        price, exact = _price(inner, ctx, rc, args, gated)
        for_ctx(ctx).memo.clear()        # the stage's own count; repeated keys across stages count again
        visit(node, price, exact)
    nested = list(op.nested())
    inner_args = _inner_args(op, ctx, args) if nested else None
    children = list(op.children())
    subs = node.get("children", []) if node is not None else []
    for i, child in enumerate(children + nested):
        _hops(child, subs[i] if i < len(subs) else None, inner_args if i >= len(children) else args, ctx, rc,
              visit, gated)


def price_plan(root, plan: dict, tx, session, params, body=None) -> None:
    """Annotate EXPLAIN's ``plan`` dict (the shape of describe_plan) in place; ``body`` (the statement's
    AST) adds the floor of relevance hops inside subquery expressions."""
    ctx = ExecContext(tx, dict(params or {}), session.db)
    ctx.scope, ctx.budget = session.scope, session.ai_budget
    rc = C.of(tx)
    total = {"semanticCalls": 0, "llmCalls": 0, "apiCalls": 0, "expansions": 0}
    exact_all = True
    found = False

    def visit(node, price, exact):
        nonlocal exact_all, found
        found = True
        exact_all = exact_all and exact
        if node is not None:
            node["costs"] = {key: price.get(key, 0) for key in ("semanticCalls", "llmCalls", "apiCalls")}
            node["costs"]["exact"] = exact
            node["details"] = f"{node['details']}; {_text(price, exact)}"
        for key in total:
            total[key] += price.get(key, 0)

    _hops(root, plan, lambda: [{}], ctx, rc, visit)
    for rel_type in _expression_hops(body, rc) if body is not None and rc.rel_types else ():
        found, exact_all = True, False
        for key, value in _type_floor(rel_type, rc).items():
            total[key] += value
    if found:
        plan["pricing"] = _text(total, exact_all)
        total.pop("expansions")
        plan["costs"] = {**total, "exact": exact_all}


def nested_hop(root) -> bool:
    """Whether a relevance hop runs inside an OPTIONAL MATCH or a CALL subquery of the plan ``root``
    (walked without recursion: a plan may chain thousands of operators)."""
    stack = [(root, False)]
    while stack:
        op, inside = stack.pop()
        real = op.inner if isinstance(op, Profiled) else op
        if inside and isinstance(real, RelevanceExpand):
            return True
        nested = isinstance(real, (Optional, Apply))
        stack.extend((child, inside) for child in op.children())
        stack.extend((child, inside or nested) for child in op.nested())
    return False


def check_budget(root, ctx) -> None:
    """Before a statement runs, refuse it as TOO_EXPENSIVE when the exact price of its first-stage
    relevance hops exceeds the budget. A hop inside OPTIONAL MATCH or a CALL subquery otherwise checks
    one run of the subquery at a time, and could spend before the statement is refused; rows whose edge
    opts in (``ai: {materialize: true}``) are not counted, as the hop itself does not."""
    if not costs.budget_of(ctx):
        return
    rc = C.of(ctx.tx)
    total = {"semanticCalls": 0, "llmCalls": 0, "apiCalls": 0}

    def visit(node, price, exact):
        if exact:
            for key in total:
                total[key] += price.get(key, 0)

    _hops(root, None, lambda: [{}], ctx, rc, visit, gated=True)
    costs.check(ctx, total)
