"""Optimizer rules: pure functions from plan to plan, applied in the order of RULES.

    push_filters_down   Filter(Expand(Scan(a)), a.x = 1)  ->  Expand(Filter(Scan(a), a.x = 1))
    utilize_index       Filter(NodeByLabelScan(n:Note), n.id = $id)  ->  NodeIndexSeek(n:Note.id = $id)
                        (ranges, STARTS WITH, ENDS WITH, CONTAINS: NodeIndexRange; relationships:
                        RelTypeScan, indexed)
    top_first           Top(Project(x, text = n.text), ORDER BY n.ts)  ->  Project(Top(x, ...))  (top_first.py)
    order_from_index    Top(NodeIndexRange(n.key > $x), ORDER BY n.key)  ->  Limit(the seek, in the key's order)
                        (also a label scan under n.key IS NOT NULL: the index's keys, in order)
    seek_by_id          Filter(AllNodesScan(n), id(n) = $x)  ->  NodeByIdSeek(n, $x)
    prefilter_scans     Filter(NodeByLabelScan(n:P), n.id = $x)  ->  the same, the scan comparing n.id itself
                        (also IN, <, <=, >, >=, STARTS WITH, ENDS WITH, CONTAINS)
    best_per_row        ordered head(collect(r.x)) over Expand(r)  ->  Expand(Best) (best_per_row.py)
    degree_count        count(c) per e over Expand(e)-[r]-(c)  ->  the sum of Expand(Degree)'s numbers (degree_count.py)

``optimize(plan, catalog, enabled=False)`` skips them all, so tests can compare both ways.
"""
from __future__ import annotations

import dataclasses

from .. import ast
from ..semantic.walk import children, free_variables
from . import logical as L
from .bound import bound_vars

# Operators a filter may sink below when they do not bind what it reads.
TRANSPARENT = (L.Filter, L.Expand, L.NodeByLabelScan, L.AllNodesScan, L.NodeIndexSeek, L.NodeIndexRange,
               L.NodeByIdSeek, L.RelTypeScan, L.NamedPath, L.Optional_, L.Unwind, L.ShortestPath)


def map_children(op: L.LogicalOp, fn) -> L.LogicalOp:
    """``op`` with ``fn`` applied to every child plan (sources, nested plans, union parts)."""
    changes = {}
    for f in dataclasses.fields(op):
        value = getattr(op, f.name)
        if isinstance(value, L.LogicalOp):
            new = fn(value)
            if new is not value:
                changes[f.name] = new
        elif isinstance(value, list) and value and isinstance(value[0], L.LogicalOp):
            new_list = [fn(v) for v in value]
            if any(a is not b for a, b in zip(new_list, value)):
                changes[f.name] = new_list
    return dataclasses.replace(op, **changes) if changes else op


# ---------------------------------------------------------------- push_filters_down
# Functions giving a new value per call: a filter calling them must stay evaluated per row.
VOLATILE = frozenset(("rand", "randomuuid", "datetime.realtime", "date.realtime", "time.realtime",
                      "localtime.realtime", "localdatetime.realtime"))


def push_filters_down(op: L.LogicalOp, catalog=None) -> L.LogicalOp:
    op = map_children(op, lambda child: push_filters_down(child, catalog))
    if isinstance(op, L.Filter) and not _volatile(op.predicate):
        needed = free_variables(op.predicate) & bound_vars(op.source)
        return _sink(op.source, op.predicate, needed)
    return op


def _volatile(expr) -> bool:
    if isinstance(expr, ast.FunctionCall) and expr.name.lower() in VOLATILE:
        return True
    return any(_volatile(child) for child in children(expr))


def _sink(op: L.LogicalOp, predicate: ast.Expr, needed) -> L.LogicalOp:
    if isinstance(op, TRANSPARENT) and needed <= bound_vars(op.source):
        return dataclasses.replace(op, source=_sink(op.source, predicate, needed))
    return L.Filter(op, predicate)


def _filter_run(op: L.Filter) -> tuple[list[L.Filter], L.LogicalOp]:
    """The run of filters from ``op`` down (top first) and the operator under it."""
    filters = []
    bottom: L.LogicalOp = op
    while isinstance(bottom, L.Filter):
        filters.append(bottom)
        bottom = bottom.source
    return filters, bottom


def _over(filters: list[L.Filter], bottom: L.LogicalOp) -> L.LogicalOp:
    """``filters`` (top first) stacked again over ``bottom``, each copied only when its source changed."""
    for f in reversed(filters):
        bottom = dataclasses.replace(f, source=bottom) if f.source is not bottom else f
    return bottom


# ---------------------------------------------------------------- utilize_index
# Comparisons a property index answers, the most selective first (the one a seek takes).
_SEEK_RANK = {"=": 0, "IN": 1, "STARTS WITH": 2, "<": 3, "<=": 3, ">": 3, ">=": 3, "ENDS WITH": 4, "CONTAINS": 4}


def utilize_index(op: L.LogicalOp, catalog) -> L.LogicalOp:
    """A label or relationship-type scan under filters, one of them comparing a property that has an
    index with a value known before the scan: the index finds the candidates. A node equality (``=``,
    ``IN``) becomes a NodeIndexSeek and its filter goes (the index answers it); a node range, prefix or
    substring (``<``, ``>=``, ``STARTS WITH``, ``CONTAINS``, ...) a NodeIndexRange under its filter; a relationship scan seeks
    through each type's index, its filters staying."""
    if not isinstance(op, L.Filter):
        return map_children(op, lambda child: utilize_index(child, catalog))
    filters, bottom = _filter_run(op)   # the whole run of filters, handled at its top
    bottom = utilize_index(bottom, catalog)
    if isinstance(bottom, L.NodeByLabelScan) and bottom.key is None:
        var, entity, labels = bottom.var, "node", (bottom.label,)
    elif isinstance(bottom, L.RelTypeScan) and bottom.key is None:
        var, entity, labels = bottom.rel, "relationship", bottom.types
    else:
        var = None
    if var is not None:
        found = [(f, c) for f in filters
                 if (c := _indexed(f.predicate, var, bottom.source, entity, labels, catalog)) is not None]
        if found:
            chosen, (key, value, compare) = min(found, key=lambda fc: _SEEK_RANK[fc[1][2]])
            upper = None            # a lower bound takes an upper bound on the same key along: one range
            if compare in (">", ">="):
                upper = next(((c, v) for _, (k, v, c) in found if k == key and c in ("<", "<=")), None)
            elif compare in ("<", "<="):
                lower = next(((c, v) for _, (k, v, c) in found if k == key and c in (">", ">=")), None)
                if lower is not None:
                    upper, (compare, value) = (compare, value), lower
            if isinstance(bottom, L.RelTypeScan):
                bottom = dataclasses.replace(bottom, key=key, value=value, compare=compare, indexed=True, upper=upper)
            elif compare in ("=", "IN"):
                bottom = L.NodeIndexSeek(bottom.source, var, bottom.label, key, value, many=compare == "IN")
                filters.remove(chosen)
            else:
                bottom = L.NodeIndexRange(bottom.source, var, bottom.label, key, compare, value, upper)
    return _over(filters, bottom)


def _indexed(term: ast.Expr, var: str, source: L.LogicalOp, entity: str, labels, catalog):
    """(key, value, comparison) when ``term`` compares ``var.key`` as an index can answer and every one
    of ``labels`` (or types) has a property index on ``key``."""
    found = _compared(term, var, source)
    if found is None or found[3] is not None or found[2] not in _SEEK_RANK:
        return None
    if not all(catalog.has_property_index(entity, label, found[0]) for label in labels):
        return None
    return found[:3]


def _prop_of(expr, var) -> bool:
    return isinstance(expr, ast.Property) and isinstance(expr.subject, ast.Variable) and expr.subject.name == var


# ---------------------------------------------------------------- order_from_index
def order_from_index(op: L.LogicalOp, catalog=None) -> L.LogicalOp:
    """``ORDER BY n.key [DESC] [SKIP s] LIMIT l`` over a range or prefix seek on ``n.key`` (through
    projections and filters, which keep the order): the seek yields in the key's order, so the first rows
    are the answer and a Skip/Limit replaces the Top that read them all (Neo4j's index-provided order)."""
    op = map_children(op, lambda child: order_from_index(child, catalog))
    if not isinstance(op, L.Top) or len(op.keys) != 1 or op.exhaustive:
        return op
    key, descending = op.keys[0]
    path = []                          # the operators between the Top and the seek
    below = op.source
    while isinstance(below, (L.Project, L.Filter)):
        if isinstance(below, L.Project):
            key = _before_projection(key, below)
            if key is None:
                return op
        path.append(below)
        below = below.source
    if isinstance(below, L.NodeByLabelScan) and below.key is None and _prop_of(key, below.var) \
            and catalog is not None and catalog.has_property_index("node", below.label, key.key) \
            and any(_is_not_null(step, below.var, key.key) for step in path):
        # WHERE n.key IS NOT NULL: every node with the key, from its index (Neo4j's NodeIndexScan)
        below = L.NodeIndexRange(below.source, below.var, below.label, key.key, "IS NOT NULL", ast.Literal(None))
    if not (isinstance(below, L.NodeIndexRange) and below.descending is None and _prop_of(key, below.var)
            and key.key == below.key):
        return op
    rebuilt: L.LogicalOp = dataclasses.replace(below, descending=descending)
    for step in reversed(path):
        rebuilt = dataclasses.replace(step, source=rebuilt)
    if op.skip is not None:
        rebuilt = L.Skip(rebuilt, op.skip)
    return L.Limit(rebuilt, op.limit)


def _is_not_null(step: L.LogicalOp, var: str, key: str) -> bool:
    term = step.predicate if isinstance(step, L.Filter) else None
    return isinstance(term, ast.IsNull) and term.negated and _prop_of(term.operand, var) and term.operand.key == key


def _before_projection(key: ast.Expr, project: L.Project):
    """``key`` (a variable or ``var.prop``) as the projection's input names it, or None when it is computed."""
    if project.keep and not any(name == _name_of(key) for name, _ in project.items):
        return key                     # passed through unchanged
    items = dict(project.items)
    if isinstance(key, ast.Variable):
        source = items.get(key.name)
        return source if isinstance(source, (ast.Variable, ast.Property)) else None
    if isinstance(key, ast.Property) and isinstance(key.subject, ast.Variable):
        source = items.get(key.subject.name)
        if isinstance(source, ast.Variable):
            return ast.Property(source, key.key)
    return None


def _name_of(key: ast.Expr):
    if isinstance(key, ast.Variable):
        return key.name
    if isinstance(key, ast.Property) and isinstance(key.subject, ast.Variable):
        return key.subject.name
    return None


# ---------------------------------------------------------------- seek_by_id
def seek_by_id(op: L.LogicalOp, catalog=None) -> L.LogicalOp:
    op = map_children(op, lambda child: seek_by_id(child, catalog))
    if isinstance(op, L.Filter) and isinstance(op.source, L.AllNodesScan):
        scan, term = op.source, op.predicate
        if isinstance(term, ast.BinaryOp) and term.op in ("=", "IN"):
            left, right = term.left, term.right
            if _is_id_of(right, scan.var) and term.op == "=":
                left, right = right, left
            if _is_id_of(left, scan.var) and free_variables(right) <= bound_vars(scan.source):
                return L.NodeByIdSeek(scan.source, scan.var, right, many=term.op == "IN")
    return op


def _is_id_of(expr, var) -> bool:
    return (isinstance(expr, ast.FunctionCall) and expr.name.lower() == "id" and len(expr.args) == 1
            and isinstance(expr.args[0], ast.Variable) and expr.args[0].name == var)


# ---------------------------------------------------------------- prefilter_scans
_SCANS = (L.NodeByLabelScan, L.AllNodesScan, L.RelTypeScan)
# Comparisons a scan can make as it reads a property, the most selective first (the one chosen).
_PREFILTER_RANK = {"=": 0, "IN": 1, "STARTS WITH": 2, "<": 3, "<=": 3, ">": 3, ">=": 3, "ENDS WITH": 4,
                   "CONTAINS": 4}
_FLIPPED = {"=": "=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}


def prefilter_scans(op: L.LogicalOp, catalog=None) -> L.LogicalOp:
    """A label, type or all-nodes scan under filters, one of them comparing a property of what it scans
    with a value known before the scan (``n.key = value``, ``IN list``, ``<``/``>``, ``STARTS WITH``,
    ...; no index took it): the scan compares the property itself and yields only what may pass (MERGE
    and MATCH by a property without an index: ~4-6x fewer steps per entity). The filters stay."""
    if not isinstance(op, L.Filter):
        return map_children(op, lambda child: prefilter_scans(child, catalog))
    filters, bottom = _filter_run(op)   # the whole run of filters, handled at its top
    bottom = prefilter_scans(bottom, catalog)
    if isinstance(bottom, _SCANS) and bottom.key is None:
        var = bottom.rel if isinstance(bottom, L.RelTypeScan) else bottom.var
        found = [c for c in (_compared(f.predicate, var, bottom.source) for f in filters) if c is not None]
        if found:
            key, value, compare, transform = min(found, key=lambda c: _PREFILTER_RANK[c[2]])
            also: dict[str, ast.Expr] = {}
            if compare == "=" and transform is None:
                for other, other_value, other_compare, other_transform in found:
                    if other_compare == "=" and other_transform is None and other != key:
                        also.setdefault(other, other_value)
            bottom = dataclasses.replace(bottom, key=key, value=value, compare=compare, transform=transform,
                                         also=tuple(also.items()))
    return _over(filters, bottom)


def _compared(term: ast.Expr, var: str, source: L.LogicalOp):
    """(key, value, comparison, transform) when ``term`` compares ``var.key`` (or ``toLower(var.key)``,
    ``toUpper(...)``: the transform) with a value its scan can compute."""
    if not isinstance(term, ast.BinaryOp) or term.op not in _PREFILTER_RANK or _volatile(term):
        return None
    left, right, compare = term.left, term.right, term.op
    read = _read_of(left, var)
    if read is None:
        read = _read_of(right, var) if compare in _FLIPPED else None
        if read is None:
            return None
        left, right, compare = right, left, _FLIPPED[compare]
    if not free_variables(right) <= bound_vars(source):
        return None
    return read[0], right, compare, read[1]


_CASE_FUNCTIONS = {"tolower": "lower", "lower": "lower", "toupper": "upper", "upper": "upper"}


def _read_of(expr, var):
    """(key, transform) when ``expr`` is ``var.key`` (transform None) or ``toLower(var.key)`` and kin."""
    if _prop_of(expr, var):
        return expr.key, None
    if isinstance(expr, ast.FunctionCall) and len(expr.args) == 1 and not getattr(expr, "distinct", False) \
            and expr.name.lower() in _CASE_FUNCTIONS and _prop_of(expr.args[0], var):
        return expr.args[0].key, _CASE_FUNCTIONS[expr.name.lower()]
    return None


from .best_per_row import best_per_row  # noqa: E402  (it imports map_children from here)
from .top_first import top_first  # noqa: E402  (likewise)
from .degree_count import degree_count  # noqa: E402  (likewise)

RULES = (push_filters_down, top_first, utilize_index, order_from_index, seek_by_id, prefilter_scans, best_per_row,
         degree_count)


def optimize(root: L.LogicalOp, catalog, enabled: bool = True) -> L.LogicalOp:
    if not enabled:
        return root
    for rule in RULES:
        root = rule(root, catalog)
    return root
