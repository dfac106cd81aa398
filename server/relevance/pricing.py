"""EXPLAIN's price of relevance joins: ``~n semantic search(es)`` per RelevanceExpand and in total.

A first-stage hop (no relevance hop below it) is priced exactly: its anchor rows are computed from
the snapshot (reads only, no search) and their distinct keys counted, the pinned
``(c:Concept {value: '...'})`` shape included. A later hop's anchors are an earlier search's results,
so it is priced as a floor (one search) and the total reads "at least".
"""
from __future__ import annotations

from relate.server.ai.statement import for_ctx
from relate.server.query.context import ExecContext

from . import catalog as C
from .operator import RelevanceExpand, planned_calls


def _below(op) -> list:
    out = []
    for child in list(op.children()) + list(op.nested()):
        out.append(child)
        out.extend(_below(child))
    return out


def _price(op, ctx, rc) -> tuple[dict, bool]:
    floor = _floor(op, rc)
    if any(isinstance(o, RelevanceExpand) for o in _below(op)):
        return floor, False
    try:
        work = [w for row in op.source.rows(ctx, {}) for w in op._work(ctx, rc, row)]
    except Exception:           # e.g. a parameter EXPLAIN was not given: the floor is one search
        return floor, False
    return planned_calls(ctx, rc, work), True


def _floor(op, rc) -> dict:
    """One search's price when the anchors cannot be counted: an API call when every join that may
    answer the hop's type searches a remote store, else a semantic search."""
    joins = rc.joins_for(op.rel_type)
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


def price_plan(root, plan: dict, tx, session, params) -> None:
    """Annotate EXPLAIN's ``plan`` dict (the shape of describe_plan) in place."""
    ctx = ExecContext(tx, dict(params or {}), session.db)
    ctx.scope, ctx.budget = session.scope, session.ai_budget
    rc = C.of(tx)
    total = {"semanticCalls": 0, "llmCalls": 0, "apiCalls": 0, "expansions": 0}
    exact_all = True
    found = False

    def walk(op, node):
        nonlocal exact_all, found
        inner = getattr(op, "inner", op)
        if isinstance(inner, RelevanceExpand):
            found = True
            price, exact = _price(inner, ctx, rc)
            for_ctx(ctx).memo.clear()        # the stage's own count; repeated keys across stages count again
            exact_all = exact_all and exact
            node["costs"] = {key: price.get(key, 0) for key in ("semanticCalls", "llmCalls", "apiCalls")}
            node["costs"]["exact"] = exact
            node["details"] = f"{node['details']}; {_text(price, exact)}"
            for key in total:
                total[key] += price.get(key, 0)
        for child, sub in zip(list(op.children()) + list(op.nested()), node.get("children", [])):
            walk(child, sub)

    walk(root, plan)
    if found:
        plan["pricing"] = _text(total, exact_all)
        total.pop("expansions")
        plan["costs"] = {**total, "exact": exact_all}
