"""EXPLAIN / PROFILE output: the physical plan as nested dicts, and expressions printed as Cypher."""
from __future__ import annotations

from .. import ast


def describe_plan(op, catalog=None, profiled: bool = False) -> dict:
    """``{operator, details, estimated_rows, children[, rows, time_ms]}`` for ``op`` and below."""
    inner = getattr(op, "inner", op) if type(op).__name__ == "Profiled" else op
    children = [describe_plan(c, catalog, profiled) for c in op.children()]
    nested = [describe_plan(c, catalog, profiled) for c in op.nested()]
    out = {"operator": op.name, "details": op.details(), "children": children + nested}
    out["estimated_rows"] = _estimate(inner, children, catalog)
    if profiled:
        out["rows"] = op.row_count
        out["time_ms"] = round(op.seconds * 1000, 3)
    return out


def _estimate(op, children, catalog) -> float:
    """A rough cardinality estimate from label and type counts (what EXPLAIN shows)."""
    below = children[0]["estimated_rows"] if children else 1.0
    name = type(op).__name__
    if catalog is None:
        return below
    try:
        nodes = max(catalog.count_nodes(), 1)
        if name == "AllNodesScan":
            return below * nodes
        if name == "NodeByLabelScan":
            return below * catalog.count_nodes(op.label)
        if name in ("NodeIndexSeek", "NodeByIdSeek"):
            return below * 1.0
        if name == "NodeIndexRange":
            return below * max(1.0, catalog.count_nodes(op.label) * 0.3)
        if name == "RelTypeScan":
            rels = sum(catalog.count_rels(t) for t in op.types)
            if op.indexed:
                return below * (1.0 if op.compare in ("=", "IN") else max(1.0, rels * 0.3))
            return below * rels
        if name in ("Expand", "VarExpand"):
            rels = catalog.count_rels()
            return below * (rels / nodes) * (2 if op.direction == "both" else 1)
        if name == "Filter":
            return below * 0.5
        if name == "Aggregate":
            return 1.0 if not op.grouping else max(1.0, below * 0.5)
        if name == "Limit" or name == "Top":
            return below
    except Exception:              # estimates never fail a statement
        return below
    return below


_PRECEDENCE = {"OR": 1, "XOR": 2, "AND": 3, "=": 5, "<>": 5, "<": 5, "<=": 5, ">": 5, ">=": 5, "IN": 6,
               "STARTS WITH": 6, "ENDS WITH": 6, "CONTAINS": 6, "=~": 6, "+": 7, "-": 7, "||": 7, "*": 8, "/": 8,
               "%": 8, "^": 9}


def expr_text(expr) -> str:
    """Cypher text for an expression (for plan descriptions; hidden names show without their space)."""
    t = type(expr)
    if t is ast.Literal:
        v = expr.value
        if v is None:
            return "null"
        if v is True or v is False:
            return "true" if v else "false"
        if isinstance(v, str):
            return "'" + v.replace("\\", "\\\\").replace("'", "\\'") + "'"
        return repr(v)
    if t is ast.Parameter:
        return "$" + expr.name
    if t is ast.Variable:
        return expr.name.strip()
    if t is ast.Property:
        return f"{expr_text(expr.subject)}.{expr.key}"
    if t is ast.BinaryOp:
        return f"{_wrap(expr.left, expr.op)} {expr.op} {_wrap(expr.right, expr.op)}"
    if t is ast.UnaryOp:
        return f"{expr.op} {expr_text(expr.operand)}" if expr.op == "NOT" else f"{expr.op}{expr_text(expr.operand)}"
    if t is ast.IsNull:
        return f"{expr_text(expr.operand)} IS {'NOT ' if expr.negated else ''}NULL"
    if t is ast.TypePredicate:
        return f"{expr_text(expr.operand)} IS {'NOT ' if expr.negated else ''}:: {expr.type_name}"
    if t is ast.FunctionCall:
        distinct = "DISTINCT " if expr.distinct else ""
        return f"{expr.name}({distinct}{', '.join(expr_text(a) for a in expr.args)})"
    if t is ast.CountStar:
        return "count(*)"
    if t is ast.ListLiteral:
        return "[" + ", ".join(expr_text(i) for i in expr.items) + "]"
    if t is ast.MapLiteral:
        return "{" + ", ".join(f"{k}: {expr_text(v)}" for k, v in expr.entries) + "}"
    if t is ast.LabelCheck:
        return f"{expr_text(expr.subject)}:{_labels(expr.labels, expr.args)}"
    if t is ast.Subscript:
        return f"{expr_text(expr.subject)}[{expr_text(expr.index)}]"
    return t.__name__


def _wrap(expr, parent_op: str) -> str:
    text = expr_text(expr)
    if type(expr) is ast.BinaryOp and _PRECEDENCE.get(expr.op, 0) < _PRECEDENCE.get(parent_op, 0):
        return f"({text})"
    return text


def _labels(labels, args) -> str:
    t = type(labels)
    if t is ast.LabelName:
        return labels.name
    if t is ast.LabelAnd:
        return ":".join(_labels(i, args) for i in labels.items)
    if t is ast.LabelOr:
        return "|".join(_labels(i, args) for i in labels.items)
    if t is ast.LabelNot:
        return "!" + _labels(labels.item, args)
    if t is ast.LabelDynamic:
        return f"${'' if labels.mode == 'all' else labels.mode}({expr_text(args[labels.index])})"
    return "%"
