"""What the planner asks about relevance joins and label declarations (small hooks in
planner/patterns.py and planner/builder.py call these)."""
from __future__ import annotations

import dataclasses

from relate.protocol.errors import CypherSemanticError
from relate.server.query import ast
from relate.server.query.exec.functions.registry import function

from . import catalog as C

SCOPE_FUNCTION = " scope"      # a name no statement can spell: the session's scope, never a parameter


@function(SCOPE_FUNCTION, 1, pure=False)
def _session_scope(ctx, key):
    scope = getattr(ctx, "scope", None) or {}
    return scope.get(key)


def catalog(tx) -> C.RelevanceCatalog:
    try:
        return C.of(tx)
    except Exception:          # a planning catalog without a schema (never fails a plan)
        return C.RelevanceCatalog()


def is_relevance(rc: C.RelevanceCatalog, rel: ast.RelPattern) -> bool:
    return (not rc.empty and rel.length is None and len(rel.types) == 1 and rel.types[0] in rc.rel_types)


def edge_selectors(rel: ast.RelPattern):
    """(via expression, intent expression) written in the relationship's property map."""
    via = intent = None
    if isinstance(rel.properties, ast.MapLiteral):
        for key, value in rel.properties.entries:
            if key == "via":
                via = value
            elif key == "intent":
                intent = value
    return via, intent


def allowed_anchors(rc, part: ast.PatternPart) -> set[int] | None:
    """Element indexes a part may be anchored at so every relevance hop runs anchor -> target
    (None: any; the part has no relevance hop)."""
    elements = part.elements
    hops = [i for i in range(1, len(elements), 2) if is_relevance(rc, elements[i])]
    if not hops:
        return None
    allowed = set()
    for node in range(0, len(elements), 2):
        ok = True
        for i in hops:
            direction = elements[i].direction
            # rightwards expansion crosses hop i when node < i; leftwards when node > i
            if (node < i and direction != "out") or (node > i and direction != "in"):
                ok = False
        if ok:
            allowed.add(node)
    return allowed


def pinned(rc, part: ast.PatternPart, index: int):
    """(label, props expr) when element ``index`` anchors a relevance hop as ``(c:Label {key: ...})``."""
    elements = part.elements
    node = elements[index]
    if not isinstance(node.labels, ast.LabelName) or not isinstance(node.properties, ast.MapLiteral):
        return None
    label = node.labels.name
    for i, step in ((index + 1, 1), (index - 1, -1)):
        if 0 < i < len(elements) and is_relevance(rc, elements[i]):
            rel = elements[i]
            if (step == 1 and rel.direction != "out") or (step == -1 and rel.direction != "in"):
                continue
            keys = {k for k, _ in node.properties.entries}
            if any(label in j.anchor_labels and j.anchor_property in keys for j in rc.joins_for(rel.types[0])):
                return label, node.properties
    return None


def _labels(expr) -> list[str]:
    if isinstance(expr, ast.LabelName):
        return [expr.name]
    if isinstance(expr, ast.LabelAnd):
        return [n for item in expr.items for n in _labels(item)]
    return []


def _mentions(exprs, var: str, key: str) -> bool:
    from relate.server.query.semantic.walk import children
    todo = list(exprs)
    while todo:
        e = todo.pop()
        if isinstance(e, ast.Property) and e.key == key and isinstance(e.subject, ast.Variable) \
                and e.subject.name == var:
            return True
        todo.extend(children(e))
    return False


def curation_predicates(rc, parts, predicates) -> list[ast.Expr]:
    """Scope and lifecycle predicates for every node pattern naming a declared label (or a child)."""
    if not rc.labels:
        return []
    out = []
    for part in parts:
        for element in part.elements[0::2]:
            var = element.variable
            for label in _labels(element.labels):
                declared = rc.scope(label)
                if declared:            # a principal is required, though it never stands in for a data scope
                    out.append(ast.IsNull(ast.FunctionCall(SCOPE_FUNCTION, [ast.Literal("user")]), negated=True))
                for prop, key in declared:
                    out.append(ast.BinaryOp("=", ast.Property(ast.Variable(var), prop),
                                            ast.FunctionCall(SCOPE_FUNCTION, [ast.Literal(key)])))
                life = rc.lifecycle(label)
                if life is None:
                    continue
                status = ast.Property(ast.Variable(var), life.status_property)
                constrained = _mentions(predicates, var, life.status_property)
                if constrained or life.active is None:
                    # the query names its statuses: only the never-answered ones are removed
                    never = ast.ListLiteral([ast.Literal(s) for s in life.never])
                    out.append(ast.UnaryOp("NOT", ast.BinaryOp("IN", status, never)))
                else:
                    out.append(ast.BinaryOp("IN", status, ast.ListLiteral([ast.Literal(s) for s in life.active])))
    return out


def with_ancestors(rc, labels):
    """A CREATE/MERGE label expression with every declared ancestor added (a child implies its parents)."""
    if labels is None or not rc.labels:
        return labels
    names = _labels(labels)
    extra = [a for n in names for a in rc.ancestors(n) if a not in names]
    if not extra or not isinstance(labels, (ast.LabelName, ast.LabelAnd)):
        return labels
    items = [labels] if isinstance(labels, ast.LabelName) else list(labels.items)
    return ast.LabelAnd(items + [ast.LabelName(a) for a in dict.fromkeys(extra)])


def part_with_ancestors(rc, part: ast.PatternPart) -> ast.PatternPart:
    """A CREATE/MERGE pattern part with declared parent labels added; a relationship whose type a
    relevance join answers cannot be written (it would be stored but never read)."""
    for element in part.elements[1::2]:
        if is_relevance(rc, element):
            raise CypherSemanticError(
                f"`{element.types[0]}` is answered by relevance join(s) "
                f"{', '.join(sorted(j.name for j in rc.joins_for(element.types[0])))} at query time: its "
                f"relationships are virtual and cannot be created or merged", detail="VirtualEntityWrite",
                phase="compile time")
    if not rc.labels:
        return part
    elements = [dataclasses.replace(e, labels=with_ancestors(rc, e.labels)) if isinstance(e, ast.NodePattern)
                else e for e in part.elements]
    return dataclasses.replace(part, elements=elements)
