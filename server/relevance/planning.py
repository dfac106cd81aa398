"""What the planner asks about relevance joins and label declarations (small hooks in
planner/patterns.py and planner/builder.py call these)."""
from __future__ import annotations

import dataclasses

from relate.protocol.errors import CypherSemanticError
from relate.server.query import ast
from relate.server.query.exec.functions.registry import function
from relate.server.query.refs import NodeRef, PathRef, RelRef

from . import catalog as C

SCOPE_FUNCTION = " scope"      # a name no statement can spell: the session's scope, never a parameter


@function(SCOPE_FUNCTION, 1, pure=False)
def _session_scope(ctx, key):
    scope = getattr(ctx, "scope", None) or {}
    return scope.get(key)


VISIBLE_FUNCTION = " visible"  # fail-closed guard on every node a MATCH reaches once any label is declared


@function(VISIBLE_FUNCTION, 2, pure=False)
def _visible(ctx, value, active_only):
    """True when ``value`` (a node, a relationship's endpoints, or each of a list of them) passes the
    scope and lifecycle of every declared label it carries (scope.node_filter): never-answered statuses
    and missing statuses never pass; other inactive ones only when not ``active_only``."""
    if value is None:
        return True
    cached = ctx.visible
    if cached is None or cached[0] is not ctx.tx:
        cached = ctx.visible = (ctx.tx, {})
    check = cached[1].get(active_only)
    if check is None:
        from .scope import node_filter
        check = cached[1][active_only] = node_filter(ctx, active_only=active_only) or (lambda nid: True)
    items = value.nodes + value.rels if type(value) is PathRef else \
        value if isinstance(value, (list, tuple)) else (value,)
    for item in items:
        t = type(item)
        if t is NodeRef:
            if not check(item.id):
                return False
        elif t is RelRef:
            start, end = ctx.tx.rel_endpoints(item.id)[:2]
            if not (check(start) and check(end)):
                return False
    return True


def catalog(tx) -> C.RelevanceCatalog:
    try:
        return C.of(tx)
    except Exception:          # a planning catalog without a schema (never fails a plan)
        return C.RelevanceCatalog()


def is_relevance(rc: C.RelevanceCatalog, rel) -> bool:
    """True for a single-hop relationship pattern whose one type a relevance join answers (a quantified
    path pattern never is: its inner hops are refused by ``refuse_unsupported``)."""
    return (not rc.empty and isinstance(rel, ast.RelPattern) and rel.length is None and len(rel.types) == 1
            and rel.types[0] in rc.rel_types)


def _unsupported_hops(rc, elements):
    """Relationship patterns naming a relevance type in a form no join can answer: variable length,
    a type alternative (``:RELEVANT_TO|MENTIONS``), or inside a quantified path pattern."""
    for element in elements[1::2]:
        if isinstance(element, ast.QuantifiedPath):
            for inner in element.elements[1::2]:
                if isinstance(inner, ast.RelPattern) and set(inner.types) & rc.rel_types:
                    yield inner, "inside a quantified path pattern"
            yield from _unsupported_hops(rc, element.elements)
        elif isinstance(element, ast.RelPattern) and set(element.types) & rc.rel_types:
            if element.length is not None:
                yield element, "with a variable length"
            elif len(element.types) > 1:
                yield element, "as one of several type alternatives"


def refuse_unsupported(rc, parts) -> None:
    """A relevance type can only be matched as one hop of its own type: anything else would silently
    match nothing (no such relationship is stored), so it is a CypherSemanticError instead."""
    if not rc.rel_types:
        return
    for part in parts:
        for rel, how in _unsupported_hops(rc, part.elements):
            found = sorted(set(rel.types) & rc.rel_types)[0]
            raise CypherSemanticError(
                f"`{found}` is answered by relevance join(s) at query time and can only be matched as a single "
                f"hop of that one type, not {how}", detail="UnsupportedRelevancePattern", phase="compile time")


# The edge's ``ai`` map holds directives to the engine, not a property to match (spec 001 6.7).
AI_KEY = "ai"


def edge_selectors(rel: ast.RelPattern, status_read=None):
    """(via, intent, relaxed, statuses, ai) for a relevance hop: the via, intent and ai expressions written
    in the relationship's property map, and what its source reads of the target's lifecycle
    (``status_reads``: relaxed None when the target has none, False for the active statuses, True for the
    statuses the query names in the ``statuses`` list expression, or every one but the never-answered
    when that is None)."""
    via = intent = ai = None
    if isinstance(rel.properties, ast.MapLiteral):
        for key, value in rel.properties.entries:
            if key == "via":
                via = value
            elif key == "intent":
                intent = value
            elif key == AI_KEY:
                ai = value
    relaxed, statuses = status_read if status_read is not None else (None, None)
    return via, intent, relaxed, statuses, ai


def _constant(expr) -> bool:
    if isinstance(expr, ast.ListLiteral):
        return all(_constant(item) for item in expr.items)
    return isinstance(expr, (ast.Literal, ast.Parameter))


def _is_status(expr, var: str, props) -> bool:
    return isinstance(expr, ast.Property) and expr.key in props and isinstance(expr.subject, ast.Variable) \
        and expr.subject.name == var


def _named_statuses(predicates, var: str, props):
    """A list expression of the statuses a conjunct ``var.status = x`` / ``var.status IN [...]`` names
    (constants or parameters only), else None."""
    for term in predicates:
        if not isinstance(term, ast.BinaryOp):
            continue
        if term.op == "IN" and _is_status(term.left, var, props) and _constant(term.right):
            return term.right
        if term.op == "=":
            for side, other in ((term.left, term.right), (term.right, term.left)):
                if _is_status(side, var, props) and _constant(other) and not isinstance(other, ast.ListLiteral):
                    return ast.ListLiteral([other])
    return None


def status_reads(rc, parts, predicates) -> dict:
    """{relationship variable: (relaxed, statuses)} for each relevance hop whose target has a lifecycle:
    whether the query's own ``predicates`` (before curation adds any) constrain the target's status, and
    to which statuses (a list expression, when it names them with ``=`` / ``IN``)."""
    status_props = {d.status_property for d in rc.labels.values() if d.active is not None or d.never}
    if not rc.joins or not status_props:
        return {}
    out = {}
    for part in parts:
        elements = part.elements
        for i in range(1, len(elements), 2):
            if not is_relevance(rc, elements[i]):
                continue
            target = elements[i + 1] if orientation(rc, elements, i) == "out" else elements[i - 1]
            var = target.variable
            if var is None or elements[i].variable is None:
                continue
            relaxed = any(_mentions(predicates, var, p) for p in status_props)
            out[elements[i].variable] = (relaxed, _named_statuses(predicates, var, status_props) if relaxed else None)
    return out


def orientation(rc, elements, i: int) -> str:
    """The direction relevance hop ``i`` runs in: as written, or for an undirected hop (``-[:R]-``)
    from the side whose labels anchor one of the type's joins (the left one when both or neither do)."""
    rel = elements[i]
    if rel.direction != "both":
        return rel.direction
    anchors = {label for j in rc.joins_for(rel.types[0]) for label in j.anchor_labels}
    if not set(_labels(elements[i - 1].labels)) & anchors and set(_labels(elements[i + 1].labels)) & anchors:
        return "in"
    return "out"


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
            direction = orientation(rc, elements, i)
            # rightwards expansion crosses hop i when node < i; leftwards when node > i
            if (node < i and direction != "out") or (node > i and direction != "in"):
                ok = False
        if ok:
            allowed.add(node)
    return allowed


def split_convergent(rc, part: ast.PatternPart) -> list[ast.PatternPart]:
    """``part`` as pieces that can each be anchored so their relevance hops run anchor -> target: a
    chain converging on a target (``(a)-[:R]->(t)<-[:R]-(g)``) has no such anchor, so it is split where a
    relevance hop pointing left follows one pointing right; the pieces share the node between them (they
    join on its variable) and keep the MATCH's relationship uniqueness."""
    if part.variable is not None or part.shortest or allowed_anchors(rc, part) != set():
        return [part]
    elements, pieces, start, after_out = part.elements, [], 0, False
    for i in range(1, len(elements), 2):
        if not is_relevance(rc, elements[i]):
            continue
        direction = orientation(rc, elements, i)
        if direction == "in" and after_out:
            pieces.append(ast.PatternPart(None, elements[start:i], pos=part.pos))    # up to the node before hop i
            start = i - 1
        after_out = direction == "out"
    pieces.append(ast.PatternPart(None, elements[start:], pos=part.pos))
    return pieces


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
            direction = orientation(rc, elements, i)
            if (step == 1 and direction != "out") or (step == -1 and direction != "in"):
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
    """Scope and lifecycle predicates for every node pattern naming a declared label (or a child); a
    relevance type in a form no join answers is refused here, where every MATCH's parts pass."""
    refuse_unsupported(rc, parts)
    if not rc.labels:
        return []
    out = []
    status_props = {d.status_property for d in rc.labels.values() if d.active is not None or d.never}
    for part in parts:
        # fail closed: every node however reached (no label, an undeclared label, an expand's end, an id
        # lookup, a var-length hop's inner nodes) passes the scope and never-lifecycle of declared labels
        # (only active statuses unless the query reads the node's status; a path's inner nodes: not never)
        for element in part.elements:
            if element.variable is None:
                continue
            if isinstance(element, ast.NodePattern):
                active_only = not any(_mentions(predicates, element.variable, p) for p in status_props)
            elif isinstance(element, ast.QuantifiedPath) or element.length is not None:
                active_only = False         # a path's inner nodes (its variable holds the hops walked)
            else:
                continue
            out.append(ast.FunctionCall(VISIBLE_FUNCTION, [ast.Variable(element.variable), ast.Literal(active_only)]))
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
