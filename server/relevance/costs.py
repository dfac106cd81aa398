"""Spend control for relevance joins: the configured budget and the typed TOO_EXPENSIVE refusal.

The budget is a map {semanticCalls, llmCalls, apiCalls} (absent key = unlimited) from, in order:
the session (``session.ai_budget``, embedded ``connect(..., ai_budget=...)``), the database
(``db.ai_budget``), or the environment (``RELATE_AI_BUDGET`` as JSON)."""
from __future__ import annotations

import json
import os

from relate.protocol.errors import ClientError

TOO_EXPENSIVE = "Neo.ClientError.Statement.TooExpensive"
KEYS = ("semanticCalls", "llmCalls", "apiCalls")


def too_expensive(message: str) -> ClientError:
    return ClientError(message, code=TOO_EXPENSIVE, detail="TOO_EXPENSIVE", phase="runtime")


def budget_of(ctx) -> dict | None:
    found = getattr(ctx, "budget", None)
    if found is None:
        found = getattr(ctx.db, "ai_budget", None) if ctx.db is not None else None
    if found is None:
        raw = os.environ.get("RELATE_AI_BUDGET")
        if raw:
            try:
                found = json.loads(raw)
            except ValueError:
                found = None
    return found if isinstance(found, dict) else None


def check(ctx, planned: dict) -> None:
    """Refuse, before anything is spent, when what has been spent plus ``planned`` exceeds the budget."""
    budget = budget_of(ctx)
    if not budget:
        return
    for key in KEYS:
        limit = budget.get(key)
        if limit is None:
            continue
        want = ctx.costs.get(key, 0) + planned.get(key, 0)
        if want > limit:
            raise too_expensive(f"The statement would spend {want} {key} (budget {limit}); narrow the anchor "
                                f"set, use a cached relevance join, raise the budget, or opt the edge in with "
                                f"{{ai: {{materialize: true}}}}")
