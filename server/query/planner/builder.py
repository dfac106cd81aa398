"""Clauses to logical operators: one method per clause, in query order.

Updating queries keep Cypher's clause-at-a-time meaning with Eager barriers: before a write that
follows a graph read, and before a graph read that follows a write.
"""
from __future__ import annotations

from .. import ast
from . import logical as L
from .patterns import PatternPlanner, property_predicates
from .projection import plan_projection
from ..semantic.walk import legacy_imports
from relate.server.relevance import planning as relevance_planning

READS = (ast.Match, ast.Merge, ast.CallSubquery, ast.CallProcedure)
WRITES = (ast.Create, ast.Merge, ast.Set, ast.Remove, ast.Delete, ast.Foreach)


class Builder:
    """Builds the logical plan of one statement; ``catalog`` answers index and count questions."""

    def __init__(self, catalog, procedures=None):
        self.catalog = catalog
        self.procedures = procedures
        self.patterns = PatternPlanner(self, catalog)
        self._hidden = 0

    def hidden(self, prefix: str) -> str:
        self._hidden += 1
        return f"{prefix}{self._hidden}"

    # ------------------------------------------------------------ queries
    def plan_query(self, query: ast.Query, arg: tuple[str, ...], role: str,
                   outer: tuple[str, ...] = ()) -> tuple[L.LogicalOp, list[str]]:
        """(root op, columns). role: top | call | exists (a subquery may end without RETURN); ``outer``:
        the argument's names that stay bound past the subquery's WITHs."""
        if len(query.parts) == 1:
            return self.plan_single(query.parts[0], arg, role, outer)
        parts, columns = [], None
        for part in query.parts:
            op, cols = self.plan_single(part, arg, role="call" if role == "top" else role, outer=outer)
            parts.append(op)
            columns = columns or cols
        distinct = not all(query.union_all)
        op = L.Union(parts, distinct, tuple(columns))
        if role == "top":
            op = L.ProduceResults(op, tuple(columns))
        return op, columns

    def plan_single(self, query: ast.SingleQuery, arg: tuple[str, ...], role: str, outer: tuple[str, ...] = ()):
        state = _State(L.Argument(tuple(arg)), list(arg))
        state.outer = outer
        state.standalone = len(query.clauses) == 1
        for clause in query.clauses:
            self._barrier(state, clause)
            getattr(self, "_" + type(clause).__name__.lower())(clause, state)
        last = query.clauses[-1] if query.clauses else None
        if isinstance(last, ast.Return):
            if role == "top":
                state.op = L.ProduceResults(state.op, tuple(state.columns))
            return state.op, state.columns
        if isinstance(last, ast.CallProcedure) and len(query.clauses) == 1 and role == "top":
            state.op = L.ProduceResults(state.op, tuple(state.columns))
            return state.op, state.columns
        if role in ("top", "call"):
            state.op = L.EmptyResult(state.op)
            return state.op, []
        return state.op, [b for b in state.bound if not b.startswith(" ")]

    def _barrier(self, state: "_State", clause) -> None:
        reads = isinstance(clause, READS)
        writes = isinstance(clause, WRITES) or (isinstance(clause, ast.CallSubquery) and _subquery_writes(clause))
        if (writes and state.read_since_eager and not (state.rel_blind and _creates_only_rels(clause, state))) \
                or (reads and state.wrote_since_eager):
            state.op = L.Eager(state.op)
            state.read_since_eager = state.wrote_since_eager = False
            state.rel_blind = True
        state.read_since_eager |= reads
        state.wrote_since_eager |= writes
        if state.rel_blind and not _rel_blind(clause):
            state.rel_blind = False

    # ------------------------------------------------------------ reading clauses
    def _match(self, clause: ast.Match, state: "_State"):
        if clause.search is not None:
            return self._search(clause, state)
        bound = set(state.bound)
        if clause.optional:
            inner = self.patterns.plan(L.Argument(tuple(state.bound)), bound, clause.pattern, clause.where,
                                       repeatable=clause.repeatable)
            new = tuple(v for v in _pattern_vars(clause.pattern) if v not in state.bound)
            state.op = L.Optional_(state.op, inner, new)
        else:
            state.op = self.patterns.plan(state.op, bound, clause.pattern, clause.where, repeatable=clause.repeatable)
        state.bind(_pattern_vars(clause.pattern))

    def _search(self, clause: ast.Match, state: "_State"):
        search = clause.search
        part = clause.pattern[0]
        var = search.variable
        predicates: list[ast.Expr] = []
        if len(part.elements) == 1:
            node = part.elements[0]
            entity, duplicate = "node", False
            if node.labels is not None:
                predicates.append(ast.LabelCheck(ast.Variable(var), node.labels, args=node.label_args))
            if node.properties is not None:
                predicates.extend(property_predicates(ast.Variable(var), node.properties))
            if node.where is not None:
                predicates.append(node.where)
            # scope and lifecycle of declared labels (docs/relevance.md), as a MATCH gets them
            predicates.extend(relevance_planning.curation_predicates(
                relevance_planning.catalog(self.catalog), [part], predicates + [clause.where] if clause.where
                is not None else predicates))
        else:
            rel = part.elements[1]
            entity, duplicate = "relationship", rel.direction == "both"
            if rel.types:
                labels = ast.LabelOr([ast.LabelName(t) for t in rel.types]) if len(rel.types) > 1 \
                    else ast.LabelName(rel.types[0])
                predicates.append(ast.LabelCheck(ast.Variable(var), labels))
            elif rel.type_labels is not None:
                predicates.append(ast.LabelCheck(ast.Variable(var), rel.type_labels, args=rel.type_args))
            if rel.properties is not None:
                predicates.extend(property_predicates(ast.Variable(var), rel.properties))
        op = L.Search(state.op, var, entity, search.spec, search.score_variable, duplicate)
        if clause.optional:
            raise_unsupported("OPTIONAL MATCH with SEARCH")
        for term in predicates + ([clause.where] if clause.where is not None else []):
            op = L.Filter(op, term)
        state.op = op
        state.bind([var] + ([search.score_variable] if search.score_variable else []))

    def _unwind(self, clause: ast.Unwind, state: "_State"):
        state.op = L.Unwind(state.op, clause.expr, clause.variable)
        state.bind([clause.variable])

    def _loadcsv(self, clause: ast.LoadCsv, state: "_State"):
        state.op = L.LoadCsv(state.op, clause.url, clause.variable, clause.headers, clause.terminator)
        state.bind([clause.variable])

    def _with(self, clause: ast.With, state: "_State"):
        _finish_writes_before_limit(clause.projection, state)
        state.op, columns = plan_projection(state.op, state.bound, clause.projection, clause.where)
        state.bound = list(columns)
        missing = tuple(name for name in state.outer if name not in columns)
        if missing:                      # a subquery's outer variables outlive its WITHs
            state.op = L.Reimport(state.op, missing)
            state.bound += missing

    def _finish(self, clause: ast.Finish, state: "_State"):
        """FINISH: the rows run to the end of the plan (EmptyResult drains them), none is returned."""

    def _return(self, clause: ast.Return, state: "_State"):
        _finish_writes_before_limit(clause.projection, state)
        state.op, columns = plan_projection(state.op, state.bound, clause.projection)
        state.columns = columns
        state.bound = list(columns)

    # ------------------------------------------------------------ calls
    def _callsubquery(self, clause: ast.CallSubquery, state: "_State"):
        names = legacy_imports(clause.query) if clause.imports is None else clause.imports
        if names is None or names == ["*"]:
            imports, arg = None, tuple(state.bound)
        else:
            imports = tuple(name for name in names if name in state.bound)
            arg = imports
        inner, columns = self.plan_query(clause.query, arg, role="call", outer=() if clause.imports is None else arg)
        unit = not columns
        state.op = L.Apply(state.op, inner, imports, tuple(columns), unit, clause.optional,
                           clause.in_transactions, clause.batch_size, clause.on_error, clause.retry_for,
                           clause.retry_then, clause.report_status)
        state.bind(columns if clause.report_status is None else [*columns, clause.report_status])

    def _callprocedure(self, clause: ast.CallProcedure, state: "_State"):
        proc = self.procedures.get(clause.name) if self.procedures is not None else None
        outputs = proc.output_names if proc is not None else []
        if clause.yields is None or clause.yield_star:
            yields = [(o, o) for o in outputs]
        else:
            yields = [(y.name, y.alias or y.name) for y in clause.yields]
        state.op = L.ProcedureCall(state.op, clause.name, clause.args, yields, getattr(clause, "optional", False),
                                   writes=proc is not None and proc.mode == "WRITE",
                                   # a void procedure passes its rows on, the one row of a query's start
                                   # included (CALL p() RETURN 1); called on its own it returns none
                                   pass_through=proc is not None and not outputs and not state.standalone,
                                   mode=proc.mode if proc is not None else "READ")
        if clause.where is not None:
            state.op = L.Filter(state.op, clause.where)
        state.bind([v for _, v in yields])
        state.columns = [v for _, v in yields]

    # ------------------------------------------------------------ updating clauses
    def _create(self, clause: ast.Create, state: "_State"):
        rc = relevance_planning.catalog(self.catalog)
        parts = [relevance_planning.part_with_ancestors(rc, self.patterns.name_part(p)) for p in clause.pattern]
        state.op = L.Create(state.op, parts)
        state.bind(_pattern_vars(parts))

    def _merge(self, clause: ast.Merge, state: "_State"):
        part = relevance_planning.part_with_ancestors(relevance_planning.catalog(self.catalog),
                                                      self.patterns.name_part(clause.part))
        matcher = self.patterns.plan(L.Argument(tuple(state.bound)), set(state.bound), [part], None)
        new = tuple(v for v in _pattern_vars([part]) if v not in state.bound)
        state.op = L.Merge(state.op, part, matcher, clause.on_create, clause.on_match, new)
        state.bind(_pattern_vars([part]))

    def _set(self, clause: ast.Set, state: "_State"):
        rc = relevance_planning.catalog(self.catalog)
        items = [ast.SetLabels(i.variable, list(dict.fromkeys(
                     i.labels + [a for label in i.labels for a in rc.ancestors(label)])), pos=i.pos)
                 if isinstance(i, ast.SetLabels) and rc.labels else i for i in clause.items]
        state.op = L.SetItems(state.op, items)

    def _remove(self, clause: ast.Remove, state: "_State"):
        state.op = L.RemoveItems(state.op, clause.items)

    def _delete(self, clause: ast.Delete, state: "_State"):
        state.op = L.Delete(state.op, clause.exprs, clause.detach)

    def _foreach(self, clause: ast.Foreach, state: "_State"):
        inner_state = _State(L.Argument(tuple(state.bound) + (clause.variable,)),
                             list(state.bound) + [clause.variable])
        for sub in clause.clauses:
            getattr(self, "_" + type(sub).__name__.lower())(sub, inner_state)
        state.op = L.Foreach(state.op, clause.variable, clause.source, inner_state.op)


class _State:
    """Where planning of one single query stands."""

    def __init__(self, op: L.LogicalOp, bound: list[str]):
        self.op = op
        self.bound = bound
        self.columns: list[str] = []
        self.read_since_eager = False
        self.wrote_since_eager = False
        # Since the last Eager only clauses whose rows cannot depend on relationships (see _rel_blind):
        # a CREATE of relationships alone then needs no Eager (it cannot change what they read).
        self.rel_blind = True
        self.standalone = False          # the query is this one clause (a standalone CALL)
        self.outer: tuple[str, ...] = ()  # a subquery's outer variables (kept bound past its WITHs)

    def bind(self, names) -> None:
        for name in names:
            if name not in self.bound:
                self.bound.append(name)


# Expressions that enumerate relationships (or run a query) when evaluated.
_GRAPH_READING = (ast.PatternPredicate, ast.PatternComprehension, ast.ExistsSubquery, ast.CountSubquery,
                  ast.CollectSubquery)


def _reads_graph(obj) -> bool:
    """Whether an AST fragment holds a relationship pattern or an expression that reads the graph."""
    if isinstance(obj, _GRAPH_READING) or isinstance(obj, ast.RelPattern):
        return True
    if isinstance(obj, (list, tuple)):
        return any(_reads_graph(item) for item in obj)
    if hasattr(obj, "__dataclass_fields__"):
        return any(_reads_graph(getattr(obj, name)) for name in obj.__dataclass_fields__)
    return False


def _subquery_writes(clause: ast.CallSubquery) -> bool:
    """A CALL subquery with an updating clause inside (at any depth of nested CALLs): the clauses after
    it read what all its runs wrote (an Eager), as in Neo4j."""
    for part in clause.query.parts:
        for inner in part.clauses:
            if isinstance(inner, WRITES) or (isinstance(inner, ast.CallSubquery) and _subquery_writes(inner)):
                return True
    return False


def _rel_blind(clause) -> bool:
    """Rows of this clause depend on node labels and properties at most, never on relationships:
    a MATCH of single-node patterns, an UNWIND or a WITH, none with a pattern or subquery inside."""
    if isinstance(clause, ast.Match):
        return clause.search is None and not _reads_graph(clause)
    if isinstance(clause, (ast.Unwind, ast.With, ast.LoadCsv)):
        return not _reads_graph(clause)
    return False


def _creates_only_rels(clause, state: "_State") -> bool:
    """A CREATE of relationships between already bound nodes (it adds no node, label or property
    that a node-only read could see), with no graph-reading expression."""
    if not isinstance(clause, ast.Create):
        return False
    for part in clause.pattern:
        if part.shortest is not None:
            return False
        for element in part.elements:
            if isinstance(element, ast.NodePattern):
                if element.variable not in state.bound or element.labels is not None \
                        or element.properties is not None or element.where is not None:
                    return False
            elif element.properties is not None and _reads_graph(element.properties):
                return False
    return True


def _finish_writes_before_limit(projection: ast.Projection, state: _State) -> None:
    """SKIP / LIMIT stop pulling rows early; earlier writes must still happen for every row."""
    if state.wrote_since_eager and (projection.limit is not None or projection.skip is not None):
        state.op = L.Eager(state.op)
        state.read_since_eager = state.wrote_since_eager = False


def _pattern_vars(parts: list[ast.PatternPart]) -> list[str]:
    out = []
    for part in parts:
        for element in part.elements:
            if element.variable and element.variable not in out:
                out.append(element.variable)
            if isinstance(element, ast.QuantifiedPath):      # its group variables
                out.extend(e.variable for e in element.elements if e.variable and e.variable not in out)
        if part.variable and part.variable not in out:
            out.append(part.variable)
    return out


def raise_unsupported(what: str):
    from relate.protocol.errors import CypherSemanticError
    raise CypherSemanticError(f"{what} is not supported", phase="compile time")
