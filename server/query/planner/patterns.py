"""Plan a MATCH pattern: choose an anchor per pattern part, expand along the chain, add predicates.

Predicates (WHERE terms, property maps, extra labels) are added as Filters above the pattern; the
``push_filters_down`` rule then moves each to the first operator where its variables are bound, and
``utilize_index`` turns a label scan under an equality/range filter into an index seek.
"""
from __future__ import annotations

import dataclasses
from typing import Optional

from .. import ast
from ..semantic.walk import and_terms, free_variables
from . import logical as L
from relate.server.relevance import planning as relevance

REVERSE = {"out": "in", "in": "out", "both": "both"}
# What a relationship type scan pays per relationship against a label scan per node: it reads the
# relationship and tests the labels of both ends.
REL_SCAN_COST = 2.0


class PatternPlanner:
    """Plans pattern parts for one MATCH (or MERGE matcher, pattern predicate, comprehension)."""

    def __init__(self, builder, catalog):
        self.builder = builder
        self.catalog = catalog
        self._status_reads: dict = {}
        self._repeatable = False

    def plan(self, source: L.LogicalOp, bound: set[str], parts: list[ast.PatternPart],
             where: Optional[ast.Expr], *, maybe_bound: frozenset = frozenset(),
             repeatable: bool = False) -> L.LogicalOp:
        """Ops binding every variable of ``parts`` on top of ``source``, filtered by ``where``;
        ``repeatable``: MATCH REPEATABLE ELEMENTS (walks: no relationship uniqueness)."""
        outer, self._repeatable = self._repeatable, repeatable
        try:
            return self._plan(source, bound, parts, where)
        finally:
            self._repeatable = outer

    def _unique(self, rels_in_match: list[str]) -> tuple[str, ...]:
        """The relationship variables a new one must differ from (none for REPEATABLE ELEMENTS)."""
        return () if self._repeatable else tuple(rels_in_match)

    def _plan(self, source: L.LogicalOp, bound: set[str], parts: list[ast.PatternPart],
              where: Optional[ast.Expr]) -> L.LogicalOp:
        parts = [lift_dynamic_names(self.name_part(p), self.builder.hidden) for p in parts]
        bound = set(bound)
        predicates: list[ast.Expr] = []
        for i, part in enumerate(parts):
            terms = self._element_predicates(part, bound) + and_terms(part.where)
            if part.shortest and part.selector:
                # A GQL selector picks among the paths that pass the pattern's own filters (inline and in its
                # parentheses); the MATCH's WHERE filters what it picked (Neo4j's pre- and post-filters). A
                # term on the ends alone is the same either way (paths are picked per pair of ends), so it
                # stays with the MATCH's to choose the scans.
                ends = bound | {part.elements[0].variable, part.elements[-1].variable}
                predicates.extend(t for t in terms if free_variables(t) <= ends)
                parts[i] = dataclasses.replace(part, where=_conjunction(
                    [t for t in terms if not free_variables(t) <= ends]))
            else:
                predicates.extend(terms)
        predicates.extend(and_terms(where))
        rc = self.relevance = relevance.catalog(self.catalog)
        parts = [piece for part in parts for piece in relevance.split_convergent(rc, part)]
        # what each relevance hop's source reads of its target's lifecycle, from the query's own predicates
        self._status_reads = relevance.status_reads(rc, parts, predicates)
        predicates.extend(relevance.curation_predicates(rc, parts, predicates))
        rels_in_match: list[str] = []
        op = source
        remaining = [p for p in parts if not p.shortest]
        shortest = [p for p in parts if p.shortest]
        while remaining:
            part = self._next_part(remaining, bound, predicates)
            remaining.remove(part)
            op = self._plan_part(op, part, bound, predicates, rels_in_match)
        for part in shortest:
            op = self._plan_shortest(op, part, bound, predicates)
        for term in predicates:
            op = L.Filter(op, term)
        return op

    # ------------------------------------------------------------ naming
    def name_part(self, part: ast.PatternPart) -> ast.PatternPart:
        """Give anonymous nodes and relationships hidden names (`` n3``) so rows can hold them."""
        elements = []
        changed = False
        for element in part.elements:
            if isinstance(element, ast.QuantifiedPath):
                inner = self.name_part(ast.PatternPart(None, element.elements))
                element = dataclasses.replace(element, elements=inner.elements,
                                              variable=element.variable or self.builder.hidden(" q"))
                changed = True
            elif element.variable is None:
                prefix = " n" if isinstance(element, ast.NodePattern) else " r"
                element = dataclasses.replace(element, variable=self.builder.hidden(prefix))
                changed = True
            elements.append(element)
        return dataclasses.replace(part, elements=elements) if changed else part

    # ------------------------------------------------------------ predicates from the pattern
    def _element_predicates(self, part: ast.PatternPart, bound: set[str]) -> list[ast.Expr]:
        out = []
        for element in part.elements:
            var = ast.Variable(element.variable)
            if element.properties is not None:
                if isinstance(element, ast.RelPattern) and element.length is not None:
                    pass     # var-length: every relationship must match; Expand checks rel_props
                elif isinstance(element, ast.RelPattern) and isinstance(element.properties, ast.MapLiteral) \
                        and relevance.is_relevance(self._relevance(), element):
                    # a relevance edge's ``ai`` map directs the engine (RelevanceExpand), matches nothing
                    entries = [(k, v) for k, v in element.properties.entries if k != relevance.AI_KEY]
                    out.extend(property_predicates(var, ast.MapLiteral(entries)))
                else:
                    out.extend(property_predicates(var, element.properties))
            if element.where is not None:
                out.extend(and_terms(element.where))
        return out

    # ------------------------------------------------------------ ordering of parts
    def _next_part(self, remaining, bound, predicates):
        for part in remaining:
            if any(e.variable in bound for e in part.elements):
                return part
        return min(remaining, key=lambda p: self._anchor(p, bound, predicates)[1])

    def _anchor(self, part, bound, predicates) -> tuple[int, float]:
        """(index of the node to start from, its estimated cost)."""
        nodes = part.elements[0::2]
        best = (0, float("inf"))
        allowed = relevance.allowed_anchors(self._relevance(), part)
        for i, node in enumerate(nodes):
            if allowed is not None and i * 2 not in allowed:
                continue            # a relevance hop runs from its anchor only
            if node.variable in bound:
                return (i * 2, 0.0)
            cost = self._node_cost(node, bound, predicates)
            if cost < best[1]:
                best = (i * 2, cost)
        return best

    def _node_cost(self, node: ast.NodePattern, bound, predicates) -> float:
        labels = positive_labels(node.labels)
        var = node.variable
        total = self.catalog.count_nodes()
        if not labels:
            return float(total) + 1.0
        compared = False             # an equality on a property without an index: the scan compares it
        for label in labels:
            for term in predicates:
                key = seekable_key(term, var, bound)
                if key is not None and self.catalog.has_property_index("node", label, key[0]):
                    return 1.0 if key[1] == "=" else 10.0
                compared = compared or (key is not None and key[1] in ("=", "IN"))
        count = float(min(self.catalog.count_nodes(label) for label in labels))
        # Few nodes pass such a scan, and it reads each at a fraction of a row's cost (prefilter_scans):
        # Neo4j's default equality selectivity, 0.1, as the rows it gives.
        return count * EQUALITY_SELECTIVITY if compared else count

    # ------------------------------------------------------------ one part
    def _plan_part(self, op, part: ast.PatternPart, bound: set[str], predicates, rels_in_match) -> L.LogicalOp:
        elements = part.elements
        if len(elements) == 3 and not any(e.variable in bound for e in elements) and \
                self._rel_scan_is_better(elements, bound, predicates):
            op = self._rel_type_scan(op, elements, bound, predicates, rels_in_match)
        else:
            anchor, _ = self._anchor(part, bound, predicates)
            pin = None if elements[anchor].variable in bound else relevance.pinned(self._relevance(), part, anchor)
            if pin is not None:
                op = L.PinnedAnchor(op, elements[anchor].variable, pin[0], pin[1])
                bound.add(elements[anchor].variable)
            else:
                op = self._bind_node(op, elements[anchor], bound, predicates, first=True)
            for i in range(anchor + 1, len(elements), 2):      # rightwards
                op = self._expand(op, elements[i - 1], elements[i], elements[i + 1], False, bound,
                                  predicates, rels_in_match)
            for i in range(anchor - 1, 0, -2):                 # leftwards
                op = self._expand(op, elements[i + 1], elements[i], elements[i - 1], True, bound,
                                  predicates, rels_in_match)
        if part.variable is not None:
            op = L.NamedPath(op, part.variable, path_elements(part))
            bound.add(part.variable)
        return op

    def _relevance(self):
        rc = getattr(self, "relevance", None)
        if rc is None:
            rc = self.relevance = relevance.catalog(self.catalog)
        return rc

    def _rel_scan_is_better(self, elements, bound, predicates) -> bool:
        left, rel, right = elements
        if isinstance(rel, ast.QuantifiedPath) or relevance.is_relevance(self._relevance(), rel):
            return False
        if not rel.types or rel.length is not None or rel.variable in bound:
            return False
        seek = self._rel_seek_cost(rel, bound, predicates)
        if seek is not None:        # through an index on the relationship's property: cheaper than either end?
            return seek < min(self._node_cost(left, bound, predicates), self._node_cost(right, bound, predicates))
        if positive_labels(left.labels) or positive_labels(right.labels):
            # Labelled ends: start from the type when it has fewer relationships than the cheaper end has
            # nodes to expand from (Neo4j's relationship type scan); the scan tests both ends' labels.
            rels = sum(self.catalog.count_rels(t) for t in rel.types)
            ends = min(self._node_cost(left, bound, predicates), self._node_cost(right, bound, predicates))
            return rels * REL_SCAN_COST < ends
        return True

    def _rel_seek_cost(self, rel: ast.RelPattern, bound, predicates) -> Optional[float]:
        """The cost of finding ``rel`` through a property index every one of its types has (as an indexed
        node's: 1 for an equality, 10 for a range), or None when no predicate can use one."""
        best = None
        for term in predicates:
            key = seekable_key(term, rel.variable, bound)
            if key is not None and all(self.catalog.has_property_index("relationship", t, key[0]) for t in rel.types):
                cost = 1.0 if key[1] == "=" else 10.0
                best = cost if best is None else min(best, cost)
        return best

    def _rel_type_scan(self, op, elements, bound, predicates, rels_in_match):
        left, rel, right = elements
        rel_var = rel.variable
        op = L.RelTypeScan(op, left.variable, rel_var, right.variable, tuple(rel.types), rel.direction,
                           left.labels, right.labels, unique_with=self._unique(rels_in_match))
        if left.variable == right.variable:
            # (a)-[r]->(a): the scan binds a fresh end and a filter ties it to the start.
            hidden = self.builder.hidden(" n")
            op.end = hidden
            predicates.insert(0, ast.BinaryOp("=", ast.Variable(hidden), ast.Variable(left.variable)))
        bound.update((left.variable, rel_var, right.variable))
        rels_in_match.append(rel_var)
        return op

    def _bind_node(self, op, node: ast.NodePattern, bound, predicates, first: bool):
        var = node.variable
        if var in bound:
            if node.labels is not None:
                predicates.insert(0, ast.LabelCheck(ast.Variable(var), node.labels))
            return op
        labels = positive_labels(node.labels)
        if labels:
            label = min(labels, key=lambda lb: self._label_cost(lb, var, bound, predicates))
            op = L.NodeByLabelScan(op, var, label)
            rest = label_rest(node.labels, label)
            if rest is not None:
                predicates.insert(0, ast.LabelCheck(ast.Variable(var), rest))
        else:
            op = L.AllNodesScan(op, var)
            if node.labels is not None:
                predicates.insert(0, ast.LabelCheck(ast.Variable(var), node.labels))
        bound.add(var)
        return op

    def _label_cost(self, label, var, bound, predicates) -> float:
        for term in predicates:
            key = seekable_key(term, var, bound)
            if key is not None and self.catalog.has_property_index("node", label, key[0]):
                return 0.0
        return float(self.catalog.count_nodes(label))

    def _expand(self, op, start: ast.NodePattern, rel: ast.RelPattern, end: ast.NodePattern, backwards: bool,
                bound, predicates, rels_in_match):
        if isinstance(rel, ast.QuantifiedPath):
            return self._expand_quantified(op, start, rel, end, backwards, bound, predicates, rels_in_match)
        direction = REVERSE[rel.direction] if backwards else rel.direction
        rel_var = rel.variable
        if rel_var in bound:
            # The relationship is bound by an earlier clause: expand into a fresh name, then require equality.
            fresh = self.builder.hidden(" r")
            predicates.insert(0, ast.BinaryOp("=", ast.Variable(fresh), ast.Variable(rel_var)))
            rel_var = fresh
        into = end.variable in bound
        length = None
        if rel.length is not None:
            lo, hi = rel.length
            length = (1 if lo is None else lo, hi)
        rel_props = rel.properties if rel.length is not None else None
        op = L.Expand(op, start.variable, rel_var, end.variable, tuple(rel.types), direction, into, length,
                      None if into else end.labels, rel_props, self._unique(rels_in_match),
                      backwards=backwards and length is not None, repeatable=self._repeatable,
                      relevance=relevance.edge_selectors(rel, self._status_reads.get(rel.variable))
                      if relevance.is_relevance(self._relevance(), rel) else None)
        if into and end.labels is not None:
            predicates.insert(0, ast.LabelCheck(ast.Variable(end.variable), end.labels))
        bound.update((rel_var, end.variable))
        rels_in_match.append(rel_var)
        return op

    def _expand_quantified(self, op, start: ast.NodePattern, qpp: ast.QuantifiedPath, end: ast.NodePattern,
                           backwards: bool, bound, predicates, rels_in_match, selector=None):
        """A quantified path pattern, walked from ``start`` (its inner path reversed when planned
        right to left); the outer nodes' own predicates stay with the pattern's."""
        inner = lift_dynamic_names(ast.PatternPart(None, qpp.elements), self.builder.hidden).elements
        checks: list[ast.Expr] = []
        for element in inner:
            var = ast.Variable(element.variable)
            if element.properties is not None:
                checks.extend(property_predicates(var, element.properties))
            if element.where is not None:
                checks.extend(and_terms(element.where))
            if isinstance(element, ast.NodePattern) and element.labels is not None:
                checks.append(ast.LabelCheck(var, element.labels))
        checks.extend(and_terms(qpp.inner_where))
        if backwards:
            inner = [dataclasses.replace(e, direction=REVERSE[e.direction]) if isinstance(e, ast.RelPattern) else e
                     for e in reversed(inner)]
        into = end.variable in bound
        groups = tuple(e.variable for e in qpp.elements if not e.variable.startswith(" "))
        op = L.QuantifiedExpand(op, start.variable, end.variable, inner, checks, qpp.min, qpp.max, qpp.variable,
                                groups, into, self._unique(rels_in_match), backwards, repeatable=self._repeatable)
        if selector is not None:
            op.shortest_k, op.by_length, op.path, op.predicate = selector
            bound.update(v for v in (op.path,) if v)
        if end.labels is not None:
            predicates.insert(0, ast.LabelCheck(ast.Variable(end.variable), end.labels))
        bound.update((qpp.variable, end.variable, *groups))
        rels_in_match.append(qpp.variable)
        return op

    # ------------------------------------------------------------ shortest paths
    def _plan_shortest(self, op, part: ast.PatternPart, bound: set[str], predicates):
        if len(part.elements) != 3 or (isinstance(part.elements[1], ast.RelPattern) and (
                relevance.is_relevance(self._relevance(), part.elements[1]) or part.elements[1].variable in bound
                or part.where is not None)):
            # (a GQL selector's own filter on one relationship pattern may need a path that passes a node
            # twice, e.g. an even length: the breadth-first search visits each node once)
            return self._plan_selected(op, part, bound, predicates)
        start, rel, end = part.elements[0], part.elements[1], part.elements[-1]
        if isinstance(rel, ast.QuantifiedPath):
            return self._plan_shortest_quantified(op, part, bound, predicates)
        for node in (start, end):
            op = self._bind_node(op, node, bound, predicates, first=False)
        lo, hi = rel.length if rel.length is not None else (1, 1)
        path_var = part.variable
        own = {v for v in (path_var, rel.variable) if v}
        predicate = _conjunction(self._searched_terms(part, own, predicates))
        op = L.ShortestPath(op, start.variable, end.variable, rel.variable, path_var, tuple(rel.types),
                            rel.direction, (1 if lo is None else lo, hi), part.shortest == "all", part.shortest_k,
                            rel.properties, predicate)
        bound.update(own)
        return op

    def _plan_shortest_quantified(self, op, part: ast.PatternPart, bound: set[str], predicates):
        """SHORTEST k [GROUPS] (a) ((x)-[r]->(y) WHERE ...)+ (b): walks by increasing iteration count
        between the bound ends; terms that read the path or the group variables are checked per walk."""
        start, qpp, end = part.elements
        for node in (start, end):
            op = self._bind_node(op, node, bound, predicates, first=False)
        own = {v for v in (part.variable, *(e.variable for e in qpp.elements)) if v}
        predicate = _conjunction(self._searched_terms(part, own, predicates))
        return self._expand_quantified(op, start, qpp, end, False, bound, predicates, [],
                                       selector=(part.shortest_k, part.shortest == "all", part.variable, predicate))

    @staticmethod
    def _searched_terms(part: ast.PatternPart, own: set[str], predicates) -> list[ast.Expr]:
        """The terms a shortest-path search checks on each path it walks: for shortestPath() every WHERE
        term reading the path (taken out of ``predicates``), for a GQL selector the pattern's own filters."""
        if part.selector:
            return and_terms(part.where)
        inside = [t for t in predicates if own & free_variables(t)]
        for term in inside:
            predicates.remove(term)
        return inside

    def _plan_selected(self, op, part: ast.PatternPart, bound: set[str], predicates):
        """A selector over any other path pattern (``SHORTEST 1 (a)-->(m)-->+(b)``, several quantified
        parts, ...): its ends are bound first, then per pair every path it matches is walked (trails, as
        in a MATCH), its own filters applied, and the selector keeps the shortest."""
        elements = part.elements
        for node in (elements[0], elements[-1]):
            op = self._bind_node(op, node, bound, predicates, first=False)
        outer = set(bound)
        path_var = part.variable or self.builder.hidden(" p")
        inner_bound = set(bound)
        inner_predicates = and_terms(part.where)
        if not part.selector:            # shortestPath() over such a pattern: its WHERE terms are searched
            inner_predicates += self._searched_terms(part, {path_var, *(e.variable for e in elements[1:-1])},
                                                     predicates)
        inner = self._plan_part(L.Argument(tuple(sorted(outer))),
                                dataclasses.replace(part, variable=path_var, shortest=None, where=None),
                                inner_bound, inner_predicates, [])
        for term in inner_predicates:
            inner = L.Filter(inner, term)
        inner = L.SelectPaths(inner, path_var, part.shortest_k, part.shortest == "all")
        new = tuple(sorted(inner_bound - outer))
        bound.update(new)
        return L.Apply(op, inner, None, new)


# ---------------------------------------------------------------- helpers
def _conjunction(terms: list[ast.Expr]) -> Optional[ast.Expr]:
    out = None
    for term in terms:
        out = term if out is None else ast.BinaryOp("AND", out, term)
    return out


def lift_dynamic_names(part: ast.PatternPart, hidden) -> ast.PatternPart:
    """Labels and types given as ``$(e)`` become predicates of the pattern's (named) elements: the
    static labels still choose the scan; ``-[:$(e)*]->`` checks each relationship of the path."""
    elements: list = []
    for element in part.elements:
        if isinstance(element, ast.NodePattern) and element.label_args:
            static, dynamic = split_dynamic(element.labels)
            check = ast.LabelCheck(ast.Variable(element.variable), dynamic, args=element.label_args)
            element = dataclasses.replace(element, labels=static, label_args=[], where=_and(check, element.where))
        elif isinstance(element, ast.RelPattern) and element.type_labels is not None:
            var = ast.Variable(element.variable)
            if element.length is None:
                check = ast.LabelCheck(var, element.type_labels, args=element.type_args)
            else:
                each = hidden(" t")
                check = ast.Quantifier("all", each, var, ast.LabelCheck(ast.Variable(each), element.type_labels,
                                                                        args=element.type_args))
            element = dataclasses.replace(element, type_labels=None, type_args=[], where=_and(check, element.where))
        elements.append(element)
    return dataclasses.replace(part, elements=elements)


def split_dynamic(labels: ast.LabelExpr) -> tuple[Optional[ast.LabelExpr], ast.LabelExpr]:
    """(the static conjuncts of a label expression, the rest, which holds every ``$(e)``)."""
    items = labels.items if isinstance(labels, ast.LabelAnd) else [labels]
    static = [i for i in items if not has_dynamic(i)]
    dynamic = [i for i in items if has_dynamic(i)]
    return (None if not static else static[0] if len(static) == 1 else ast.LabelAnd(static),
            dynamic[0] if len(dynamic) == 1 else ast.LabelAnd(dynamic))


def has_dynamic(labels: Optional[ast.LabelExpr]) -> bool:
    if isinstance(labels, ast.LabelDynamic):
        return True
    if isinstance(labels, (ast.LabelAnd, ast.LabelOr)):
        return any(has_dynamic(i) for i in labels.items)
    return isinstance(labels, ast.LabelNot) and has_dynamic(labels.item)


def _and(term: ast.Expr, rest: Optional[ast.Expr]) -> ast.Expr:
    return term if rest is None else ast.BinaryOp("AND", term, rest)


def property_predicates(var: ast.Expr, properties: ast.Expr) -> list[ast.Expr]:
    """``(n {a: 1})`` -> ``n.a = 1``; a parameter map -> one check per key at runtime."""
    if isinstance(properties, ast.MapLiteral):
        return [ast.BinaryOp("=", ast.Property(var, key), value) for key, value in properties.entries]
    key = ast.Variable(" k")
    return [ast.Quantifier("all", " k", ast.FunctionCall("keys", [properties]), ast.BinaryOp(
        "=", ast.Subscript(var, key), ast.Subscript(properties, key)))]


def positive_labels(labels: Optional[ast.LabelExpr]) -> list[str]:
    """Labels every match must carry (usable for a label scan)."""
    if labels is None:
        return []
    if isinstance(labels, ast.LabelName):
        return [labels.name]
    if isinstance(labels, ast.LabelAnd):
        out = []
        for item in labels.items:
            out.extend(positive_labels(item))
        return out
    return []


def label_rest(labels: ast.LabelExpr, used: str) -> Optional[ast.LabelExpr]:
    """What remains to check after a scan by ``used``."""
    if isinstance(labels, ast.LabelName):
        return None
    if isinstance(labels, ast.LabelAnd):
        rest = [i for i in labels.items if not (isinstance(i, ast.LabelName) and i.name == used)]
        if not rest:
            return None
        return rest[0] if len(rest) == 1 else ast.LabelAnd(rest)
    return labels


EQUALITY_SELECTIVITY = 0.1


def seekable_key(term: ast.Expr, var: str, bound) -> Optional[tuple[str, str]]:
    """(key, op) when ``term`` is ``var.key <op> value`` with a value computable before ``var``."""
    if not isinstance(term, ast.BinaryOp) or term.op not in ("=", "<", "<=", ">", ">=", "IN"):
        return None
    left, right, op = term.left, term.right, term.op
    if not _is_prop_of(left, var):
        if op in ("=", "<", "<=", ">", ">=") and _is_prop_of(right, var):
            left, right = right, left
        else:
            return None
    if not free_variables(right) <= set(bound):
        return None
    return (left.key, op)


def _is_prop_of(expr, var) -> bool:
    return isinstance(expr, ast.Property) and isinstance(expr.subject, ast.Variable) and expr.subject.name == var


def path_elements(part: ast.PatternPart) -> tuple[tuple[str, str], ...]:
    out = []
    for element in part.elements:
        if isinstance(element, ast.NodePattern):
            out.append(("node", element.variable))
        elif isinstance(element, ast.QuantifiedPath):
            out.append(("rels", element.variable))
        else:
            out.append(("rels" if element.length is not None else "rel", element.variable))
    return tuple(out)
