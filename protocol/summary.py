"""Result summaries: update counters, notifications, plans, timings (shared by embedded and network)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["COUNTER_KEYS", "Counters", "Summary"]

COUNTER_KEYS = (
    "nodes_created", "nodes_deleted", "relationships_created", "relationships_deleted",
    "properties_set", "labels_added", "labels_removed", "indexes_added", "indexes_removed",
    "constraints_added", "constraints_removed", "system_updates",
)

ZERO_COSTS = {"semanticCalls": 0, "llmCalls": 0, "apiCalls": 0}


class Counters(dict[str, int]):
    """Update counters keyed by COUNTER_KEYS; missing keys read as 0."""

    def __missing__(self, key: str) -> int:
        if key not in COUNTER_KEYS:
            raise KeyError(key)
        return 0

    def __getattr__(self, key: str) -> int:
        try:
            value: int = self[key]
            return value
        except KeyError:
            raise AttributeError(key) from None

    def add(self, key: str, amount: int = 1) -> None:
        self[key] = self.get(key, 0) + amount

    @property
    def contains_updates(self) -> bool:
        return any(self.get(k, 0) for k in COUNTER_KEYS if k != "system_updates")

    def __str__(self) -> str:
        """As the cookbook prints them: ``nodes created: 46, relationships created: 56``."""
        return ", ".join(f"{k.replace('_', ' ')}: {self[k]}" for k in COUNTER_KEYS if self.get(k, 0))


class Plan(dict[str, Any]):
    """An EXPLAIN / PROFILE plan: the dict ``{operator, details, estimated_rows, children[, rows,
    time_ms]}`` (children are dicts alike); ``str(plan)`` is the indented operator tree."""

    def lines(self) -> list[str]:
        return _plan_lines(self, 0)

    def __str__(self) -> str:
        return "\n".join(self.lines())


def _plan_lines(plan: dict[str, Any], depth: int) -> list[str]:
    line = "  " * depth + "+ " + str(plan.get("operator", "?"))
    if plan.get("details"):
        line += "  " + str(plan["details"])
    figures = []
    if plan.get("estimated_rows") is not None:
        figures.append(f"estimated rows: {plan['estimated_rows']:g}")
    if plan.get("rows") is not None:
        figures.append(f"rows: {plan['rows']}")
    if plan.get("time_ms") is not None:
        figures.append(f"{plan['time_ms']:.3f} ms")
    if figures:
        line += "  (" + ", ".join(figures) + ")"
    lines = [line]
    for child in plan.get("children", ()):
        lines.extend(_plan_lines(child, depth + 1))
    return lines


def _as_plan(plan: dict[str, Any] | None) -> "Plan | None":
    """A plan dict as the printable Plan (None stays None)."""
    return None if plan is None or type(plan) is Plan else Plan(plan)


@dataclass
class Summary:
    """What a finished statement reports besides its rows."""
    counters: Counters = field(default_factory=Counters)
    notifications: list[dict[str, Any]] = field(default_factory=list)
    query_type: str = "r"            # r | w | rw | s (schema)
    plan: dict[str, Any] | None = None      # EXPLAIN / PROFILE: {operator, args, children, rows, ...}
    t_first_ms: float = 0.0          # time to the first row
    t_last_ms: float = 0.0           # time to the last row
    bookmark: str | None = None
    # AI spend: relevance searches, model calls and outside API calls (docs/relevance.md)
    costs: dict[str, int] = field(default_factory=lambda: dict(ZERO_COSTS))
    # The call log: one {counter, purpose, source, ok} per model or API call (never the text sent)
    calls: list[dict[str, Any]] = field(default_factory=list)

    def to_metadata(self) -> dict[str, Any]:
        meta: dict[str, Any] = {"type": self.query_type, "t_last": self.t_last_ms}
        stats = {k: v for k, v in self.counters.items() if v}
        if stats:
            meta["stats"] = stats
        if self.notifications:
            meta["notifications"] = self.notifications
        if self.plan is not None:
            meta["plan"] = dict(self.plan)
        if self.bookmark:
            meta["bookmark"] = self.bookmark
        if any(self.costs.values()):
            meta["costs"] = dict(self.costs)
        if self.calls:
            meta["calls"] = [dict(c) for c in self.calls]
        return meta

    @classmethod
    def from_metadata(cls, meta: dict[str, Any], t_first_ms: float = 0.0) -> "Summary":
        if len(meta) == 2 and "t_last" in meta and "type" in meta:
            # A read's summary (its type and timing only): once per statement on the driver's hot path.
            return cls(Counters(), [], meta["type"], None, t_first_ms, meta["t_last"], None, dict(ZERO_COSTS), [])
        return cls(counters=Counters(meta.get("stats", {})), notifications=list(meta.get("notifications", [])),
                   query_type=meta.get("type", "r"), plan=_as_plan(meta.get("plan")), t_first_ms=t_first_ms,
                   t_last_ms=meta.get("t_last", 0.0), bookmark=meta.get("bookmark"),
                   costs={**ZERO_COSTS, **meta.get("costs", {})},
                   calls=[dict(c) for c in meta.get("calls", []) if isinstance(c, dict)])
