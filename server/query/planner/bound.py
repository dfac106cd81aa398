"""Which variables a logical operator's output rows hold (used to place filters and compile scopes)."""
from __future__ import annotations

from . import logical as L


def bound_vars(op: L.LogicalOp) -> frozenset[str]:
    """Names present in every row ``op`` yields."""
    cached = getattr(op, "_bound", None)
    if cached is not None:
        return cached
    out = frozenset(_compute(op))
    op._bound = out
    return out


def introduced(op: L.LogicalOp) -> frozenset[str]:
    """Names ``op`` adds on top of its source's."""
    if isinstance(op, L.Argument):
        return frozenset(op.bound)
    sources = op.inputs()
    below = bound_vars(sources[0]) if sources else frozenset()
    return bound_vars(op) - below


def _compute(op) -> set[str]:
    t = type(op)
    if t is L.Argument:
        return set(op.bound)
    if t in (L.AllNodesScan, L.NodeByLabelScan, L.NodeIndexSeek, L.NodeIndexRange, L.NodeByIdSeek,
             L.PinnedAnchor):
        return set(bound_vars(op.source)) | {op.var}
    if t is L.RelTypeScan:
        return set(bound_vars(op.source)) | {op.start, op.rel, op.end}
    if t is L.Expand:
        return set(bound_vars(op.source)) | ({op.degree} if op.degree else {op.rel, op.end})
    if t is L.QuantifiedExpand:
        return set(bound_vars(op.source)) | {op.rels, op.end} | set(op.groups) | ({op.path} if op.path else set())
    if t is L.ShortestPath:
        extra = {v for v in (op.rel, op.path) if v}
        return set(bound_vars(op.source)) | extra
    if t is L.Reimport:
        return set(bound_vars(op.source)) | set(op.names)
    if t is L.NamedPath:
        return set(bound_vars(op.source)) | {op.var}
    if t is L.Optional_:
        return set(bound_vars(op.source)) | set(op.new_vars)
    if t is L.Apply:
        return set(bound_vars(op.source)) | set(op.columns)
    if t is L.Search:
        return set(bound_vars(op.source)) | {op.var} | ({op.score} if op.score else set())
    if t is L.Unwind or t is L.LoadCsv:
        return set(bound_vars(op.source)) | {op.var}
    if t is L.Project:
        names = {n for n, _ in op.items}
        return (set(bound_vars(op.source)) | names) if op.keep else names
    if t is L.Aggregate:
        return {n for n, _ in op.grouping} | {n for n, _ in op.aggregates}
    if t in (L.Distinct, L.Select, L.Union, L.ProduceResults):
        return set(op.columns)
    if t is L.ProcedureCall:
        return set(bound_vars(op.source)) | {v for _, v in op.yields}
    if t is L.Create:
        names = set()
        for part in op.parts:
            if part.variable:
                names.add(part.variable)
            names.update(e.variable for e in part.elements if e.variable)
        return set(bound_vars(op.source)) | names
    if t is L.Merge:
        return set(bound_vars(op.source)) | set(op.new_vars)
    if t is L.EmptyResult:
        return set()
    sources = op.inputs()
    return set(bound_vars(sources[0])) if sources else set()
