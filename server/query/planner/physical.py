"""Logical plan -> physical operators, compiling every expression once; and the CompileScope.

The CompileScope lets the expression compiler plan what expressions contain: EXISTS / COUNT /
COLLECT subqueries and pattern predicates / comprehensions. Those are planned on first use, once
per set of outer variables present in the row (comprehension variables included), and cached.
"""
from __future__ import annotations

from typing import Callable

from .. import ast
from ..exec.operators import base as P
from ..exec.operators import best as PB
from ..exec.operators import load as PL
from ..exec.operators import paths as PP
from ..exec.operators import quantified as PQ
from ..exec.operators import rows as PR
from ..exec.operators import search as PS
from ..exec.operators import subplans as PU
from ..exec.operators import transactions as PT
from ..exec.operators import write as PW
from ..exec.expressions import compile_expression
from ..exec.functions.lists import range_values
from ..semantic.walk import and_terms, query_free_variables
from . import logical as L
from .bound import introduced
from .explain import expr_text
from .rules import optimize

FLIP = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "=": "="}


class CompileScope:
    """What compile_expression calls back into for subqueries and patterns."""

    def __init__(self, physical: "PhysicalBuilder"):
        self.physical = physical

    def compile_subquery(self, query: ast.Query, use: str = "rows") -> Callable:
        """``run(row, ctx)``: the subquery's rows for ``row`` (``use`` "exists": whether there is one,
        "count": how many, each asked of the plan, which may answer without building rows)."""
        physical = self.physical
        return _planned(frozenset(query_free_variables(query)),
                        lambda key, ctx: physical.plan_subquery(query, key, ctx), use)

    def compile_pattern(self, part: ast.PatternPart, where, use: str = "rows") -> Callable:
        """As compile_subquery, for a pattern (a predicate or comprehension) and its WHERE."""
        names = {e.variable for e in part.elements if e.variable}
        if part.variable:
            names.add(part.variable)
        if where is not None:
            names |= query_free_variables(ast.Query([ast.SingleQuery([ast.Match([part], where)])]))
        physical = self.physical
        return _planned(frozenset(names), lambda key, ctx: physical.plan_pattern(part, where, key, ctx), use)


def _planned(names: frozenset, plan_for: Callable, use: str) -> Callable:
    """``run(row, ctx)`` asking ``use`` of a plan made per set of ``names`` the row binds."""
    plans: dict = {}
    if len(names) == 1:                 # the usual case, (n)-[:T]->(): no set built per row
        (name,), none = names, frozenset()

        def run_one(row, ctx):
            key = names if name in row else none
            plan = plans.get(key)
            if plan is None:
                plan = plans[key] = plan_for(key, ctx)
            return getattr(plan, use)(ctx, row)
        return run_one

    def run(row, ctx):
        key = frozenset(n for n in names if n in row)
        plan = plans.get(key)
        if plan is None:
            plan = plans[key] = plan_for(key, ctx)
        return getattr(plan, use)(ctx, row)
    return run


class PhysicalBuilder:
    """Maps logical operators to physical ones; ``profile`` wraps each in a Profiled counter."""

    def __init__(self, procedures=None, *, profile: bool = False, optimize_plans: bool = True):
        self.procedures = procedures
        self.profile = profile
        self.optimize_plans = optimize_plans
        self.scope = CompileScope(self)

    def compile(self, expr: ast.Expr):
        return compile_expression(expr, self.scope)

    def compile_items(self, expr: ast.Expr):
        """What UNWIND / FOREACH walk: ``range(...)`` gives a lazy Python range, never a built list."""
        compiled = self.compile(expr)            # compile-time errors; small constant ranges fold
        if not (isinstance(expr, ast.FunctionCall) and expr.name.lower() == "range") or _is_constant(compiled):
            return compiled
        args = [self.compile(a) for a in expr.args]

        def lazy_range(row, ctx):
            return range_values(*[a(row, ctx) for a in args])
        return lazy_range

    # ------------------------------------------------------------ nested plans
    def plan_subquery(self, query: ast.Query, bound: frozenset, ctx) -> P.Operator:
        from .builder import Builder
        builder = Builder(ctx.tx, self.procedures)
        names = tuple(sorted(bound))
        root, _ = builder.plan_query(query, names, role="exists", outer=names)
        return self.build(optimize(root, ctx.tx, self.optimize_plans))

    def plan_pattern(self, part: ast.PatternPart, where, bound: frozenset, ctx) -> P.Operator:
        from .builder import Builder
        builder = Builder(ctx.tx, self.procedures)
        root = builder.patterns.plan(L.Argument(tuple(sorted(bound))), set(bound), [part], where)
        return self.build(optimize(root, ctx.tx, self.optimize_plans))

    # ------------------------------------------------------------ mapping
    def build(self, op: L.LogicalOp) -> P.Operator:
        method = getattr(self, "_" + type(op).__name__.rstrip("_"))
        built = method(op)
        return P.Profiled(built) if self.profile else built

    def _Argument(self, op):
        return P.Argument(op.bound)

    def _compared(self, op):
        """(key, compiled value) of a scan that compares a property as it reads (prefilter_scans), or
        (None, None): PROFILE counts what Neo4j shows, a scan's rows being every entity it reads, so a
        profiled plan scans plainly and its filters count what passes."""
        if op.value is None or self.profile:
            return None, None
        return op.key, self.compile(op.value)

    def _also(self, op):
        """The scan's other equalities, compiled, for its transient lookup (none when profiled)."""
        return () if self.profile else tuple((key, self.compile(value)) for key, value in op.also)

    def _AllNodesScan(self, op):
        key, value = self._compared(op)
        return P.AllNodesScan(self.build(op.source), op.var, key, value, op.compare, op.transform, self._also(op))

    def _NodeByLabelScan(self, op):
        key, value = self._compared(op)
        return P.NodeByLabelScan(self.build(op.source), op.var, op.label, key, value, op.compare, op.transform,
                                 self._also(op))

    def _NodeIndexSeek(self, op):
        return P.NodeIndexSeek(self.build(op.source), op.var, op.label, op.key, self.compile(op.value), op.many,
                               expr_text(op.value))

    def _NodeIndexRange(self, op):
        return P.NodeIndexRange(self.build(op.source), op.var, op.label, op.key, op.compare, self.compile(op.value),
                                self._upper(op), self._range_text(op), op.descending)

    def _upper(self, op):
        return None if op.upper is None else (op.upper[0], self.compile(op.upper[1]))

    @staticmethod
    def _range_text(op) -> str:
        """``<compare> value`` of an index seek (``>= 1 AND < 5`` with an upper bound), for EXPLAIN."""
        if op.compare == "IS NOT NULL":
            return "IS NOT NULL"
        text = f"{op.compare} {expr_text(op.value)}"
        return text if op.upper is None else f"{text} AND {op.upper[0]} {expr_text(op.upper[1])}"

    def _NodeByIdSeek(self, op):
        return P.NodeByIdSeek(self.build(op.source), op.var, self.compile(op.ids), op.many)

    def _RelTypeScan(self, op):
        if op.indexed:              # an index seek, profiled or not: its rows are what the index gives
            return P.RelTypeScan(self.build(op.source), op.start, op.rel, op.end, op.types, op.direction,
                                 op.start_labels, op.end_labels, op.unique_with, op.key, self.compile(op.value),
                                 op.compare, None, indexed=True, upper=self._upper(op), range_text=self._range_text(op))
        key, value = self._compared(op)
        return P.RelTypeScan(self.build(op.source), op.start, op.rel, op.end, op.types, op.direction,
                             op.start_labels, op.end_labels, op.unique_with, key, value, op.compare, op.transform,
                             also=self._also(op))

    def _Expand(self, op):
        source = self.build(op.source)
        if op.relevance is not None:
            from relate.server.relevance.operator import RelevanceExpand
            via, intent, relaxed, statuses, ai = op.relevance
            return RelevanceExpand(source, op.start, op.rel, op.end, op.types[0], op.end_labels, op.into,
                                   None if via is None else self.compile(via),
                                   None if intent is None else self.compile(intent),
                                   relaxed, None if statuses is None else self.compile(statuses),
                                   None if ai is None else self.compile(ai))
        if op.degree is not None:
            return P.ExpandDegree(source, op.start, op.types, op.direction, op.degree)
        if op.best is not None:
            return PB.ExpandBest(source, op.start, op.rel, op.end, op.types, op.direction, op.end_labels,
                              op.unique_with, op.best)
        if op.length is None:
            return P.Expand(source, op.start, op.rel, op.end, op.types, op.direction, op.into, op.end_labels,
                            op.unique_with)
        rel_props = self.compile(op.rel_props) if op.rel_props is not None else None
        return PP.VarExpand(source, op.start, op.rel, op.end, op.types, op.direction, op.into, op.length,
                            op.end_labels, rel_props, op.unique_with, op.backwards, op.repeatable)

    def _QuantifiedExpand(self, op):
        nodes = [e.variable for e in op.inner[0::2]]
        hops = [(e.variable, tuple(e.types) or None, e.direction) for e in op.inner[1::2]]
        return PQ.QuantifiedExpand(self.build(op.source), op.start, op.end, nodes, hops,
                                   [self.compile(p) for p in op.predicates], op.min, op.max, op.rels, op.groups,
                                   op.into, op.unique_with, op.backwards, op.shortest_k, op.by_length, op.path,
                                   None if op.predicate is None else self.compile(op.predicate), op.repeatable)

    def _PinnedAnchor(self, op):
        from relate.server.relevance.operator import PinnedAnchor
        return PinnedAnchor(self.build(op.source), op.var, op.label, self.compile(op.props))

    def _ShortestPath(self, op):
        rel_props = self.compile(op.rel_props) if op.rel_props is not None else None
        predicate = self.compile(op.predicate) if op.predicate is not None else None
        return PP.ShortestPath(self.build(op.source), op.start, op.end, op.rel, op.path, op.types, op.direction,
                               op.length, op.all_paths, rel_props, predicate, op.k)

    def _Reimport(self, op):
        return PU.Reimport(self.build(op.source), op.names)

    def _SelectPaths(self, op):
        return PP.SelectPaths(self.build(op.source), op.path, op.k, op.groups)

    def _NamedPath(self, op):
        return PP.NamedPath(self.build(op.source), op.var, op.elements)

    def _Filter(self, op):
        return P.Filter(self.build(op.source), self.compile(op.predicate), expr_text(op.predicate))

    def _Optional(self, op):
        return PU.Optional(self.build(op.source), self.build(op.inner), op.new_vars)

    def _Apply(self, op):
        source, inner = self.build(op.source), self.build(op.inner)
        if op.in_transactions:
            batch = self.compile(op.batch) if op.batch is not None else None
            retry_for = self.compile(op.retry_for) if op.retry_for is not None else None
            return PT.TransactionApply(source, inner, op.imports, op.columns, op.unit, op.optional, batch,
                                       op.on_error, retry_for, op.retry_then, op.report_status)
        return PU.Apply(source, inner, op.imports, op.columns, op.unit, op.optional)

    def _Search(self, op):
        return PS.Search(self.build(op.source), op.var, op.entity, self._search_spec(op.spec, op.var), op.score,
                         op.duplicate)

    def _search_spec(self, spec, var: str):
        def opt(expr):
            return None if expr is None else self.compile(expr)
        if isinstance(spec, ast.CombineSearch):
            sources = [self._search_spec(s, var) for s in spec.sources]
            if self.profile:
                for source in sources:
                    if isinstance(source, PS.IndexSource):
                        source.stats = PS.ArmStats(source)
            return PS.CombineSource(sources, opt(spec.constant), opt(spec.limit), opt(spec.weight))
        filters = []
        for term in and_terms(spec.where):
            left, right, op = term.left, term.right, term.op
            if op == "IN" and isinstance(left, ast.Variable) and left.name == var:
                filters.append((None, "IN", self.compile(right)))      # the candidate set
                continue
            if not (isinstance(left, ast.Property) and isinstance(left.subject, ast.Variable)
                    and left.subject.name == var):
                left, right, op = right, left, FLIP[op]
            filters.append((left.key, op, self.compile(right)))
        return PS.IndexSource(spec.kind.upper(), spec.index, self.compile(spec.query), filters, opt(spec.skip),
                              opt(spec.limit), opt(spec.weight))

    def _Unwind(self, op):
        return PR.Unwind(self.build(op.source), self.compile_items(op.expr), op.var)

    def _LoadCsv(self, op):
        return PL.LoadCsv(self.build(op.source), self.compile(op.url), op.var, op.headers, op.terminator)

    def _Project(self, op):
        return PR.Project(self.build(op.source), [(n, self.compile(e)) for n, e in op.items], op.keep)

    def _Aggregate(self, op):
        grouping = [(n, self.compile(e)) for n, e in op.grouping]
        aggregates = []
        for name, call in op.aggregates:
            if isinstance(call, ast.CountStar):
                aggregates.append((name, "count(*)", False, []))
            else:
                aggregates.append((name, call.name.lower(), call.distinct, [self.compile(a) for a in call.args]))
        if op.order is not None:
            plain = [e.name for _, e in op.grouping if isinstance(e, ast.Variable)]
            return PR.OrderedHeadAggregate(self.build(op.source), grouping,
                                           [(name, self.compile(call.args[0])) for name, call in op.aggregates],
                                           self._keys(op.order), plain if len(plain) == len(grouping) else None,
                                           [call.args[0].subject.name if isinstance(call.args[0], ast.Property)
                                            and isinstance(call.args[0].subject, ast.Variable) else None
                                            for _, call in op.aggregates])
        counting = not grouping and all(_counts_rows(call, op.source) for _, call in op.aggregates)
        return PR.Aggregate(self.build(op.source), grouping, aggregates, counting)

    def _Distinct(self, op):
        return PR.Distinct(self.build(op.source), op.columns)

    def _keys(self, keys):
        return [(self.compile(e), d) for e, d in keys]

    def _Sort(self, op):
        return PR.Sort(self.build(op.source), self._keys(op.keys), _order_text(op.keys))

    def _Top(self, op):
        skip = self.compile(op.skip) if op.skip is not None else None
        text = _order_text(op.keys) + (f" SKIP {expr_text(op.skip)}" if op.skip is not None else "") + \
            f" LIMIT {expr_text(op.limit)}"
        return PR.Top(self.build(op.source), self._keys(op.keys), self.compile(op.limit), skip, op.exhaustive, text,
                      None if self.profile else _by_props(op))

    def _Skip(self, op):
        return PR.Skip(self.build(op.source), self.compile(op.count))

    def _Limit(self, op):
        return PR.Limit(self.build(op.source), self.compile(op.count), op.exhaustive)

    def _Select(self, op):
        return PR.Select(self.build(op.source), op.columns)

    def _Union(self, op):
        return PU.Union([self.build(p) for p in op.parts], op.distinct, op.columns)

    def _Eager(self, op):
        return PU.Eager(self.build(op.source))

    def _ProcedureCall(self, op):
        proc = self.procedures.get(op.name)
        args = None if op.args is None else [self.compile(a) for a in op.args]
        return PU.ProcedureCall(self.build(op.source), proc, args, op.yields, op.optional, op.pass_through)

    def _ProduceResults(self, op):
        source = op.source
        if isinstance(source, L.Project) and not source.keep and not self.profile:
            by_name = dict(source.items)
            if all(c in by_name for c in op.columns):
                return PR.ProjectResults(self.build(source.source), op.columns,
                                         [self.compile(by_name[c]) for c in op.columns])
        return PR.ProduceResults(self.build(source), op.columns)

    def _EmptyResult(self, op):
        return PR.EmptyResult(self.build(op.source))

    # ------------------------------------------------------------ updates
    def _part_spec(self, part: ast.PatternPart) -> PW.PartSpec:
        from .patterns import path_elements
        elements = []
        for element in part.elements:
            props = self.compile(element.properties) if element.properties is not None else None
            if isinstance(element, ast.NodePattern):
                labels = [label if isinstance(label, str) else self.compile(element.label_args[label.index])
                          for label in _label_names(element.labels)]
                elements.append(PW.NodeSpec(element.variable, labels, props))
            else:
                rel_type = element.types[0] if element.types else \
                    self.compile(element.type_args[element.type_labels.index])
                elements.append(PW.RelSpec(element.variable, rel_type, props, element.direction))
        return PW.PartSpec(elements, part.variable, path_elements(part) if part.variable else None)

    def _Create(self, op):
        return PW.Create(self.build(op.source), [self._part_spec(p) for p in op.parts])

    def _Merge(self, op):
        return PW.Merge(self.build(op.source), self._part_spec(op.part), self.build(op.matcher),
                        self._set_specs(op.on_create), self._set_specs(op.on_match))

    def _set_specs(self, items) -> list[PW.SetSpec]:
        out = []
        for item in items:
            if isinstance(item, ast.SetProperty) and isinstance(item.target, ast.Subscript):
                out.append(PW.SetSpec("dynamic_property", self.compile(item.target.subject),
                                      self.compile(item.target.index), self.compile(item.value)))
            elif isinstance(item, ast.SetProperty):
                out.append(PW.SetSpec("property", self.compile(item.target.subject), item.target.key,
                                      self.compile(item.value)))
            elif isinstance(item, ast.SetVariable):
                out.append(PW.SetSpec("merge" if item.merge else "replace", self.compile(ast.Variable(item.variable)),
                                      value=self.compile(item.value)))
            elif isinstance(item, ast.SetLabels):
                labels = tuple(label if isinstance(label, str) else self.compile(label) for label in item.labels)
                kind = "labels" if all(isinstance(label, str) for label in labels) else "dynamic_labels"
                out.append(PW.SetSpec(kind, self.compile(ast.Variable(item.variable)), labels=labels))
            elif isinstance(item, ast.RemoveProperty) and isinstance(item.target, ast.Subscript):
                out.append(PW.SetSpec("dynamic_property", self.compile(item.target.subject),
                                      self.compile(item.target.index)))
            elif isinstance(item, ast.RemoveProperty):
                out.append(PW.SetSpec("property", self.compile(item.target.subject), item.target.key))
            elif isinstance(item, ast.RemoveLabels):
                labels = tuple(label if isinstance(label, str) else self.compile(label) for label in item.labels)
                kind = "labels" if all(isinstance(label, str) for label in labels) else "dynamic_labels"
                out.append(PW.SetSpec(kind, self.compile(ast.Variable(item.variable)), labels=labels))
        return out

    def _SetItems(self, op):
        return PW.SetItems(self.build(op.source), self._set_specs(op.items))

    def _RemoveItems(self, op):
        return PW.RemoveItems(self.build(op.source), self._set_specs(op.items))

    def _Delete(self, op):
        return PW.Delete(self.build(op.source), [self.compile(e) for e in op.exprs], op.detach)

    def _Foreach(self, op):
        return PU.Foreach(self.build(op.source), op.var, self.compile_items(op.list_expr), self.build(op.inner))


def _is_constant(compiled) -> bool:
    return hasattr(compiled, "constant_value")      # folded by the expression compiler


def _counts_rows(call, source: L.LogicalOp) -> bool:
    """``count(*)``, or ``count(v)`` of a variable the source binds and never leaves null."""
    if isinstance(call, ast.CountStar):
        return True
    if not (isinstance(call, ast.FunctionCall) and call.name.lower() == "count" and not call.distinct
            and len(call.args) == 1 and isinstance(call.args[0], ast.Variable)):
        return False
    never_null = (L.Expand, L.AllNodesScan, L.NodeByLabelScan, L.NodeIndexSeek, L.NodeIndexRange, L.RelTypeScan)
    return isinstance(source, never_null) and call.args[0].name in introduced(source)


def _label_names(labels) -> list:
    """The labels a CREATE / MERGE gives a node: names, and ``$(e)`` atoms (LabelDynamic) in place."""
    if labels is None:
        return []
    if isinstance(labels, ast.LabelName):
        return [labels.name]
    if isinstance(labels, ast.LabelDynamic) and labels.mode == "all":
        return [labels]
    if isinstance(labels, ast.LabelAnd):
        out = []
        for item in labels.items:
            out.extend(_label_names(item))
        return out
    from relate.protocol.errors import CypherSyntaxError
    raise CypherSyntaxError("Only plain labels joined by ':' or '&' can be created", detail="InvalidLabelExpression",
                            phase="compile time")


def _order_text(keys) -> str:
    """ORDER BY keys as Cypher (``n.ts DESC, n.id``), for EXPLAIN."""
    return ", ".join(expr_text(expr) + (" DESC" if descending else "") for expr, descending in keys)


def _by_props(op: L.Top):
    """(var, label, keys, present) when ``op`` ranks one row's label scan by properties of its node
    alone, the scan maybe under filters ``n.key IS NOT NULL`` (``present``: those keys; Neo4j's way of
    asking for an index's order): the Top can rank the nodes from their properties (PR.Top). Else None."""
    scan, present = op.source, []
    while isinstance(scan, L.Filter):
        term = scan.predicate
        if not (isinstance(term, ast.IsNull) and term.negated and isinstance(term.operand, ast.Property)
                and isinstance(term.operand.subject, ast.Variable)):
            return None
        present.append((term.operand.subject.name, term.operand.key))
        scan = scan.source
    if not (isinstance(scan, L.NodeByLabelScan) and scan.key is None and not scan.also
            and isinstance(scan.source, L.Argument)) or any(var != scan.var for var, _ in present):
        return None
    names = []
    for key, _ in op.keys:
        if not (isinstance(key, ast.Property) and isinstance(key.subject, ast.Variable) and key.subject.name == scan.var):
            return None
        names.append(key.key)
    return scan.var, scan.label, tuple(names), tuple(key for _, key in present)

