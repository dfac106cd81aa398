"""The planner: AST query -> logical plan -> optimizer rules -> physical operators.

    Builder (clauses, patterns, projections)  ->  rules.optimize (RULES, in order)
    ->  PhysicalBuilder (operators with compiled expressions)
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from .. import ast
from . import logical
from .builder import Builder
from .physical import CompileScope, PhysicalBuilder
from .rules import RULES, optimize


@dataclass
class Plan:
    """A compiled, reusable plan: run ``root.rows(ctx, {})``; rows are tuples in ``columns`` order."""
    root: object
    columns: list[str]
    updating: bool
    logical: logical.LogicalOp
    batched: bool = False          # CALL { ... } IN TRANSACTIONS: auto-commit statements only
    nested_relevance: Optional[bool] = None   # a relevance hop inside a subquery (set on first run)


def plan_query(query: ast.Query, catalog, procedures=None, *, profile: bool = False,
               optimize_plans: bool = True) -> Plan:
    """Plan a (union) query; ``catalog`` (a transaction) answers index and count questions."""
    builder = Builder(catalog, procedures)
    root, columns = builder.plan_query(query, (), role="top")
    root = optimize(root, catalog, optimize_plans)
    physical = PhysicalBuilder(procedures, profile=profile, optimize_plans=optimize_plans)
    return Plan(physical.build(root), list(columns), logical.is_updating(root), root, logical.is_batched(root))


__all__ = ["Plan", "plan_query", "Builder", "PhysicalBuilder", "CompileScope", "RULES", "optimize"]
