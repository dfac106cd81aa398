"""Semantic analysis: scopes and the openCypher compile-time rules, clause by clause.

Errors are raised with the TCK's detail names (UndefinedVariable, VariableAlreadyBound, ...), as
CypherSyntaxError (Neo4j reports these under ``Neo.ClientError.Statement.SyntaxError``).
"""
from __future__ import annotations

from typing import Callable, Optional

from relate.protocol.errors import CypherSyntaxError

from .. import ast
from . import search_rules
from .projection import shape_projection
from .scope import ANY, NODE, PATH, REL, VALUE, Scope, infer_kind
from .walk import (children, contains_aggregate, importing_with, is_aggregate_call, legacy_imports,
                   local_names)

# Functions whose first argument cannot be a variable of these kinds (a compile-time type error).
_REJECTED_KINDS = {"type": (NODE, PATH), "labels": (PATH,), "length": (NODE, REL), "size": (PATH,)}

UPDATING = (ast.Create, ast.Merge, ast.Set, ast.Remove, ast.Delete, ast.Foreach)


def _check_aggregate_arity(call: ast.FunctionCall) -> None:
    """Wrong argument counts to an aggregate are compile-time errors (before anything runs)."""
    from ..exec.functions.aggregates import AGGREGATE_ARITY    # the expression engineer's registry
    low, high = AGGREGATE_ARITY.get(call.name.lower(), (0, None))
    if len(call.args) < low:
        raise error(f"Insufficient parameters for function '{call.name}'", "InvalidNumberOfArguments", call)
    if high is not None and len(call.args) > high:
        raise error(f"Too many parameters for function '{call.name}'", "InvalidNumberOfArguments", call)


def error(message: str, detail: str, node=None) -> CypherSyntaxError:
    pos = getattr(node, "pos", None)
    line, column = pos if pos else (None, None)
    return CypherSyntaxError(message, detail=detail, phase="compile time", line=line, column=column)


def _in_transactions(clause) -> bool:
    return isinstance(clause, ast.CallSubquery) and clause.in_transactions


def _writes(clause) -> bool:
    """An updating clause, or a subquery call with one inside."""
    if isinstance(clause, UPDATING):
        return True
    return isinstance(clause, ast.CallSubquery) and any(
        _writes(c) for part in clause.query.parts for c in part.clauses)


def _check_in_transactions(clause: ast.CallSubquery, role: str, wrote: bool) -> None:
    """Neo4j's rules: only in the outermost query, and not after a write that it would commit."""
    if role != "top":
        raise error("Nested CALL { ... } IN TRANSACTIONS is not supported", "InvalidClauseComposition", clause)
    if wrote:
        raise error("CALL { ... } IN TRANSACTIONS after a write clause is not supported",
                    "InvalidClauseComposition", clause)


class Analyzer:
    """Checks one statement. ``functions``: name -> known; ``procedures``: a ProcedureRegistry;
    ``search_index``: name -> index description dict (kind, entity, filter properties) or None."""

    def __init__(self, *, function_known: Optional[Callable[[str], bool]] = None, procedures=None,
                 search_index: Optional[Callable[[str], Optional[dict]]] = None):
        self.function_known = function_known
        self.procedures = procedures
        self.search_index = search_index

    # ---------------------------------------------------------------- queries
    def statement(self, statement: ast.Statement) -> Optional[list[str]]:
        body = statement.body
        if isinstance(body, ast.Query):
            return self.query(body, Scope(), role="top")
        return None

    def query(self, query: ast.Query, scope: Scope, role: str) -> list[str]:
        """Check a (union) query; returns its columns. role: top | call | exists | collect."""
        if len(set(query.union_all)) > 1:
            raise error("Invalid combination of UNION and UNION ALL", "InvalidClauseComposition", query)
        columns = None
        if len(query.parts) > 1:
            for part in query.parts:
                batched = next((c for c in part.clauses if _in_transactions(c)), None)
                if batched is not None:
                    raise error("CALL { ... } IN TRANSACTIONS in a UNION is not supported",
                                "InvalidClauseComposition", batched)
        for part in query.parts:
            cols = self.single(part, scope.copy(), role)
            if columns is None:
                columns = cols
            elif cols != columns:
                raise error("All sub queries in an UNION must have the same return column names",
                            "DifferentColumnsInUnion", part)
        return columns or []

    def single(self, query: ast.SingleQuery, scope: Scope, role: str) -> list[str]:
        clauses = query.clauses
        columns: list[str] = []
        wrote = False
        for i, clause in enumerate(clauses):
            if _in_transactions(clause):
                _check_in_transactions(clause, role, wrote)
            else:
                wrote = wrote or _writes(clause)
            last = i == len(clauses) - 1
            if isinstance(clause, ast.Return) and not last:
                raise error("RETURN can only be used at the end of the query", "InvalidClauseComposition", clause)
            handler = getattr(self, "_" + type(clause).__name__.lower())
            result = handler(clause, scope, standalone=len(clauses) == 1) if isinstance(
                clause, ast.CallProcedure) else handler(clause, scope)
            if isinstance(clause, ast.Return):
                columns = result
            elif isinstance(clause, ast.CallProcedure) and len(clauses) == 1:
                columns = result
        last = clauses[-1] if clauses else None
        if role in ("top", "call", "collect") and last is not None and not (
                isinstance(last, (ast.Return, ast.Finish, *UPDATING))
                or (isinstance(last, ast.CallProcedure) and (last.yields is None or role == "top"))
                or (isinstance(last, ast.CallSubquery) and role != "collect")):
            name = type(last).__name__.upper().replace("CALLSUBQUERY", "CALL")
            raise error(f"Query cannot conclude with {name} (must be a RETURN clause, an update clause, "
                        "a unit subquery call, or a procedure call with no YIELD)",
                        "InvalidClauseComposition", last)
        if role == "collect" and len(columns) != 1:
            raise error("A COLLECT subquery must end with a RETURN of exactly one column",
                        "InvalidClauseComposition", last)
        return columns

    def _finish(self, clause: ast.Finish, scope: Scope):
        """FINISH: nothing to check (the parser keeps it last)."""

    # ---------------------------------------------------------------- reading clauses
    def _match(self, clause: ast.Match, scope: Scope):
        if clause.repeatable:
            for part in clause.pattern:
                unbounded = next((e for e in part.elements if not part.shortest and (
                    (isinstance(e, ast.QuantifiedPath) and e.max is None)
                    or (isinstance(e, ast.RelPattern) and e.length is not None and e.length[1] is None))), None)
                if unbounded is not None:
                    raise error("The quantified path pattern may yield an infinite number of rows under match mode "
                                "'REPEATABLE ELEMENTS'. Add an upper bound to the quantified path pattern",
                                "InvalidQuantifier", unbounded)
        self._pattern(clause.pattern, scope, "MATCH")
        if clause.search is not None:
            search_rules.check(clause, scope, self.search_index, self._expr)
        if clause.where is not None:
            self._predicate(clause.where, scope)

    def _unwind(self, clause: ast.Unwind, scope: Scope):
        self._expr(clause.expr, scope)
        if clause.variable in scope:
            raise error(f"Variable `{clause.variable}` already declared", "VariableAlreadyBound", clause)
        scope.kinds[clause.variable] = ANY

    def _loadcsv(self, clause: ast.LoadCsv, scope: Scope):
        self._expr(clause.url, scope)
        if clause.variable in scope:
            raise error(f"Variable `{clause.variable}` already declared", "VariableAlreadyBound", clause)
        scope.kinds[clause.variable] = ANY

    def _with(self, clause: ast.With, scope: Scope):
        items = self._projection(clause.projection, scope, clause, is_with=True)
        self._check_after_projection(items, clause.projection, clause.where, scope)
        for name, expr in items:
            if name in scope.outer and not (isinstance(expr, ast.Variable) and expr.name == name):
                raise error(f"The variable `{name}` is shadowing a variable with the same name from the outer "
                            "scope and needs to be renamed", "VariableAlreadyBound", clause)
        new = {name: infer_kind(expr, scope) for name, expr in items}
        if clause.projection.star:
            kinds = dict(scope.kinds)
            kinds.update(new)
        else:
            kinds = {**scope.outer, **new}       # a subquery's outer variables outlive its WITHs
        search_flag = scope.search_without_score
        scope.kinds.clear()
        scope.kinds.update(kinds)
        scope.search_without_score = search_flag

    def _return(self, clause: ast.Return, scope: Scope) -> list[str]:
        items = self._projection(clause.projection, scope, clause, is_with=False)
        self._check_after_projection(items, clause.projection, None, scope)
        return [name for name, _ in items]

    def _projection(self, projection: ast.Projection, scope: Scope, clause, is_with: bool):
        items: list[tuple[str, ast.Expr]] = []
        if projection.star:
            names = scope.names()
            if not names and not projection.items and not is_with:
                raise error("RETURN * is not allowed when there are no variables in scope",
                            "NoVariablesInScope", clause)
            items.extend((n, ast.Variable(n)) for n in sorted(names))
        seen = set()
        for item in projection.items:
            if is_with and item.alias is None and not isinstance(item.expr, ast.Variable):
                raise error("Expression in WITH must be aliased (use AS)", "NoExpressionAlias", item)
            self._expr(item.expr, scope, allow_aggregates=True)
            name = item.name
            if name in seen:
                raise error(f"Multiple result columns with the same name `{name}` are not supported",
                            "ColumnNameConflict", item)
            seen.add(name)
            items.append((name, item.expr))
        if projection.star:
            explicit = {n for n, _ in items[len(scope.names()):]}
            items = [(n, e) for n, e in items[:len(scope.names())] if n not in explicit] + items[len(scope.names()):]
        self._skip_limit(projection.skip, "SKIP")
        self._skip_limit(projection.limit, "LIMIT")
        return items

    def _check_after_projection(self, items, projection, where, scope: Scope):
        """ORDER BY and WITH ... WHERE see the projected names (and earlier ones when allowed)."""
        after = Scope({name: infer_kind(expr, scope) for name, expr in items})
        try:
            shape = shape_projection(items, projection, where)
            if shape.sees_previous:
                merged = scope.copy()
                merged.kinds.update(after.kinds)
                after = merged
            after.search_without_score = scope.search_without_score
            for expr, _ in shape.order_by:
                self._expr(expr, after, allow_aggregates=shape.aggregating, hidden_ok=True)
            if shape.where is not None:
                self._expr(shape.where, after, hidden_ok=True)
        except CypherSyntaxError as e:
            raise _hidden_by_projection(e, scope, after) from None

    def _skip_limit(self, expr: Optional[ast.Expr], what: str):
        if expr is None:
            return
        from .walk import free_variables
        if free_variables(expr) or contains_aggregate(expr) or _has_pattern(expr):
            raise error(f"It is not allowed to refer to variables in {what}", "NonConstantExpression", expr)
        value = expr.value if isinstance(expr, ast.Literal) else None
        if isinstance(expr, ast.UnaryOp) and expr.op == "-" and isinstance(expr.operand, ast.Literal):
            value = -expr.operand.value if isinstance(expr.operand.value, (int, float)) else None
        if isinstance(value, bool) or isinstance(value, float) or isinstance(value, str):
            raise error(f"{what} expects an integer, got {value!r}", "InvalidArgumentType", expr)
        if isinstance(value, int) and value < 0:
            raise error(f"{what} expects a non-negative integer, got {value}", "NegativeIntegerArgument", expr)
        self._expr(expr, Scope())

    # ---------------------------------------------------------------- updating clauses
    def _create(self, clause: ast.Create, scope: Scope):
        self._pattern(clause.pattern, scope, "CREATE")

    def _merge(self, clause: ast.Merge, scope: Scope):
        self._pattern([clause.part], scope, "MERGE")
        for item in clause.on_create + clause.on_match:
            self._set_item(item, scope)

    def _set(self, clause: ast.Set, scope: Scope):
        for item in clause.items:
            self._set_item(item, scope)

    def _set_item(self, item, scope: Scope):
        if isinstance(item, ast.SetProperty):
            self._expr(item.target.subject, scope)
            if isinstance(item.target, ast.Subscript):
                self._expr(item.target.index, scope)
            self._expr(item.value, scope)
        elif isinstance(item, ast.SetVariable):
            self._need(item.variable, scope, item)
            self._expr(item.value, scope)
        else:
            self._need(item.variable, scope, item)
            for label in getattr(item, "labels", ()):
                if not isinstance(label, str):      # SET n:$(expr)
                    self._expr(label, scope)

    def _remove(self, clause: ast.Remove, scope: Scope):
        for item in clause.items:
            if isinstance(item, ast.RemoveProperty):
                self._expr(item.target.subject, scope)
                if isinstance(item.target, ast.Subscript):
                    self._expr(item.target.index, scope)
            else:
                self._need(item.variable, scope, item)
                for label in item.labels:
                    if isinstance(label, ast.Expr):
                        self._expr(label, scope)

    def _delete(self, clause: ast.Delete, scope: Scope):
        for expr in clause.exprs:
            if isinstance(expr, ast.LabelCheck):
                raise error("DELETE takes nodes, relationships or paths, not label expressions",
                            "InvalidDelete", expr)
            self._expr(expr, scope)
            if isinstance(expr, (ast.Literal, ast.BinaryOp, ast.ListLiteral, ast.MapLiteral, ast.UnaryOp)):
                raise error("DELETE expects a node, relationship or path", "InvalidArgumentType", expr)
            if isinstance(expr, ast.Variable) and scope.kind(expr.name) == VALUE:
                raise error("DELETE expects a node, relationship or path", "InvalidArgumentType", expr)

    def _foreach(self, clause: ast.Foreach, scope: Scope):
        self._expr(clause.source, scope)
        inner = scope.copy()
        inner.kinds[clause.variable] = ANY
        for sub in clause.clauses:
            if not isinstance(sub, UPDATING):
                raise error("FOREACH may only contain updating clauses", "InvalidClauseComposition", sub)
            getattr(self, "_" + type(sub).__name__.lower())(sub, inner)

    # ---------------------------------------------------------------- calls
    def _callsubquery(self, clause: ast.CallSubquery, scope: Scope):
        if clause.imports is None:
            inner = self._legacy_import_scope(clause.query, scope)
        elif clause.imports == ["*"]:
            inner = scope.subquery()
        else:
            for name in clause.imports:
                self._need(name, scope, clause)
            inner = scope.subquery(clause.imports)
        columns = self.query(clause.query, inner, role="call")
        for name in columns:
            if name in scope:
                raise error(f"Variable `{name}` already declared in outer scope", "VariableAlreadyBound", clause)
        for name in columns:
            scope.kinds[name] = ANY
        if clause.in_transactions:
            self._transaction_options(clause, scope, columns)

    def _legacy_import_scope(self, query: ast.Query, scope: Scope) -> Scope:
        """The scope a legacy ``CALL { ... }`` starts from: only what its importing WITHs pass through."""
        for part in query.parts:
            lead = importing_with(part)
            if lead is not None:
                _check_importing_with(lead)
        names = legacy_imports(query)
        if names is None:
            return scope.copy()
        return Scope({name: scope.kind(name) for name in names if name in scope})

    def _transaction_options(self, clause: ast.CallSubquery, scope: Scope, columns: list[str]) -> None:
        if clause.batch_size is not None:
            self._expr(clause.batch_size, scope)
        if clause.retry_for is not None:
            self._expr(clause.retry_for, scope)
        status = clause.report_status
        if status is None:
            return
        final = clause.retry_then if clause.on_error == "RETRY" else clause.on_error
        if final not in ("CONTINUE", "BREAK"):
            raise error("REPORT STATUS can only be used when specifying ON ERROR CONTINUE or ON ERROR BREAK",
                        "InvalidClauseComposition", clause)
        if status in scope or status in columns:
            raise error(f"Variable `{status}` already declared", "VariableAlreadyBound", clause)
        scope.kinds[status] = ANY

    def _callprocedure(self, clause: ast.CallProcedure, scope: Scope, standalone: bool = False):
        proc = self.procedures.get(clause.name) if self.procedures is not None else None
        if clause.args is None:
            if not standalone and proc is not None and proc.inputs:
                raise error("Procedure call inside a query does not support passing arguments implicitly",
                            "InvalidArgumentPassingMode", clause)
        else:
            for arg in clause.args:
                self._expr(arg, scope)
            if proc is not None:
                required = [i for i in proc.inputs if i[2] is _missing()]
                if not (len(required) <= len(clause.args) <= len(proc.inputs)):
                    raise error(f"Procedure {proc.name} takes {len(proc.inputs)} arguments, got "
                                f"{len(clause.args)}", "InvalidNumberOfArguments", clause)
                from ..procedures import type_accepts
                for arg, (name, type_name, _) in zip(clause.args, proc.inputs):
                    if isinstance(arg, ast.Literal) and not type_accepts(type_name, arg.value):
                        raise error(f"Type mismatch for argument `{name}`: expected {type_name}",
                                    "InvalidArgumentType", arg)
        if clause.yield_star and not standalone:
            raise error("YIELD * is only allowed in a standalone procedure call",
                        "UnexpectedSyntax", clause)
        outputs = proc.output_names if proc is not None else []
        if clause.yields is None and not standalone and proc is not None and proc.implicit_yield:
            clause.yields = [ast.YieldItem(name) for name in outputs]     # as if each output were named
        if clause.yields is None:
            if not standalone and proc is not None and proc.outputs:
                raise error("Procedure call inside a query must YIELD its outputs", "InvalidClauseComposition",
                            clause)
            return outputs
        names = []
        for item in clause.yields:
            if proc is not None and item.name not in outputs:
                raise error(f"Unknown procedure output: `{item.name}`", "UndefinedVariable", clause)
            name = item.alias or item.name
            if name in scope or name in names:
                raise error(f"Variable `{name}` already declared", "VariableAlreadyBound", clause)
            names.append(name)
        for name in names:
            scope.kinds[name] = ANY
        if clause.where is not None:
            self._expr(clause.where, scope)
        return names

    # ---------------------------------------------------------------- patterns
    def _pattern(self, parts: list[ast.PatternPart], scope: Scope, clause: str):
        """Bind a pattern's variables into ``scope``, checking the clause's rules."""
        rels_here: set[str] = set()
        before = scope.copy()           # what quantified path patterns may read besides their own variables
        for part in parts:
            if part.variable is not None:
                if part.variable in scope:
                    raise error(f"Variable `{part.variable}` already declared", "VariableAlreadyBound", part)
            single_node = len(part.elements) == 1
            for element in part.elements:
                if part.variable is not None and element.variable == part.variable:
                    raise error(f"Variable `{part.variable}` already declared", "VariableAlreadyBound", element)
                if isinstance(element, ast.QuantifiedPath):
                    self._quantified(element, scope, before, clause, part)
                elif isinstance(element, ast.NodePattern):
                    self._node(element, scope, clause, single_node)
                else:
                    self._rel(element, scope, clause, rels_here)
            if part.variable is not None:
                scope.kinds[part.variable] = PATH
            if part.shortest and clause != "MATCH":
                raise error("shortestPath is only allowed in MATCH", "InvalidClauseComposition", part)
        # Inline predicates and property maps may read every variable of the pattern.
        for part in parts:
            for element in part.elements:
                if element.properties is not None:
                    if isinstance(element.properties, ast.Parameter) and clause in ("MATCH", "MERGE"):
                        raise error(f"Parameter maps cannot be used in {clause} patterns",
                                    "InvalidParameterUse", element.properties)
                    self._expr(element.properties, scope)
                if element.where is not None:
                    self._expr(element.where, scope)
                for arg in getattr(element, "label_args", None) or getattr(element, "type_args", None) or ():
                    self._expr(arg, scope)
            if part.where is not None:
                if clause != "MATCH":
                    raise error(f"A WHERE inside a path pattern is not allowed in {clause}",
                                "InvalidClauseComposition", part.where)
                self._expr(part.where, scope)

    def _quantified(self, qpp: ast.QuantifiedPath, scope: Scope, before: Scope, clause: str,
                    part: ast.PatternPart) -> None:
        """A quantified path pattern: MATCH only; its variables are new, singletons inside (where its
        predicates are checked now) and lists (group variables) after it. Inside it reads its own
        variables and those bound before the MATCH, not others of the same pattern (as in Neo4j)."""
        if clause != "MATCH":
            raise error(f"Quantified path patterns are not allowed in {clause}", "InvalidClauseComposition", qpp)
        if qpp.min == 0 and len(part.elements) == 3 and all(_bare_node(e) for e in part.elements[0::2]) \
                and part.elements[0].pos == qpp.pos:
            raise error("A path pattern that is only a quantified path pattern must match at least one "
                        "relationship: its quantifier's lower bound cannot be 0", "InvalidQuantifier", qpp)
        inner = before.copy()
        names = []
        for element in qpp.elements:
            if isinstance(element, ast.RelPattern) and element.length is not None:
                raise error("Variable-length relationships cannot be used inside a quantified path pattern",
                            "InvalidQuantifier", element)
            name = element.variable
            if name is None:
                continue
            if name in scope or name == part.variable:
                raise error(f"The variable `{name}` of a quantified path pattern is already declared outside it",
                            "VariableAlreadyBound", element)
            if name in names and isinstance(element, ast.RelPattern):
                raise error(f"Cannot use the same relationship variable `{name}` for multiple relationships",
                            "VariableAlreadyBound", element)
            names.append(name)
            inner.kinds[name] = NODE if isinstance(element, ast.NodePattern) else REL
        from .walk import free_variables
        exprs = [e for element in qpp.elements
                 for e in (element.properties, element.where, *(getattr(element, "label_args", None) or
                                                                getattr(element, "type_args", None) or ()))
                 if e is not None] + ([qpp.inner_where] if qpp.inner_where is not None else [])
        for expr in exprs:
            for name in free_variables(expr):
                if name not in inner and name in scope:
                    raise error(f"A quantified path pattern cannot read `{name}`, which the same MATCH declares "
                                "(only its own variables and those of earlier clauses)", "UndefinedVariable", expr)
            self._expr(expr, inner)
        for name in names:
            scope.kinds[name] = VALUE

    def _node(self, node: ast.NodePattern, scope: Scope, clause: str, single: bool):
        name = node.variable
        if name is None:
            return
        kind = scope.kind(name)
        if kind is not None and kind not in (NODE, ANY):
            raise error(f"Type mismatch: `{name}` defined with conflicting type {kind} (expected node)",
                        "VariableTypeConflict", node)
        if clause in ("CREATE", "MERGE") and kind is not None:
            if single or node.labels is not None or node.properties is not None:
                raise error(f"Variable `{name}` already declared", "VariableAlreadyBound", node)
        scope.kinds[name] = NODE

    def _rel(self, rel: ast.RelPattern, scope: Scope, clause: str, rels_here: set):
        if clause in ("CREATE", "MERGE") and rel.variable is not None and rel.variable in scope:
            raise error(f"Variable `{rel.variable}` already declared", "VariableAlreadyBound", rel)
        if clause in ("CREATE", "MERGE"):
            if rel.length is not None:
                raise error("Variable length relationships cannot be used in " + clause, "CreatingVarLength", rel)
            if len(rel.types) != 1 and not (isinstance(rel.type_labels, ast.LabelDynamic)
                                            and rel.type_labels.mode == "all"):
                raise error(f"A single relationship type must be specified for {clause}",
                            "NoSingleRelationshipType", rel)
            if clause == "CREATE" and rel.direction == "both":
                raise error("Only directed relationships are supported in CREATE",
                            "RequiresDirectedRelationship", rel)
        name = rel.variable
        if name is None:
            return
        kind = scope.kind(name)
        if kind == VALUE and rel.length is not None and clause == "MATCH":
            return      # a list of relationships bound earlier: the path must follow exactly those
        if kind is not None and kind not in (REL, ANY):
            raise error(f"Type mismatch: `{name}` defined with conflicting type {kind} (expected relationship)",
                        "VariableTypeConflict", rel)
        if name in rels_here or (clause in ("CREATE", "MERGE") and kind is not None):
            raise error(f"Cannot use the same relationship variable `{name}` for multiple relationships",
                        "VariableAlreadyBound", rel)
        rels_here.add(name)
        scope.kinds[name] = REL

    # ---------------------------------------------------------------- expressions
    def _need(self, name: str, scope: Scope, node):
        if name not in scope:
            hint = ""
            if scope.search_without_score:
                hint = " (SEARCH has no implicit score variable: name it with SCORE AS)"
            raise error(f"Variable `{name}` not defined{hint}", "UndefinedVariable", node)

    def _expr(self, expr: ast.Expr, scope: Scope, allow_aggregates: bool = False, hidden_ok: bool = False,
              _inside_local: bool = False):
        if isinstance(expr, ast.Variable):
            if not (hidden_ok and expr.name.startswith(" ")):
                self._need(expr.name, scope, expr)
            return
        if is_aggregate_call(expr):
            if not allow_aggregates or _inside_local:
                raise error("Invalid use of aggregating function in this context", "InvalidAggregation", expr)
            if isinstance(expr, ast.FunctionCall):
                _check_aggregate_arity(expr)
                for arg in expr.args:
                    self._expr(arg, scope, allow_aggregates=True, hidden_ok=hidden_ok)
            return
        if isinstance(expr, ast.FunctionCall):
            self._function(expr, scope)
        if isinstance(expr, ast.MapProjection):
            self._need(expr.subject, scope, expr)
        if isinstance(expr, (ast.ExistsSubquery, ast.CountSubquery, ast.CollectSubquery)):
            role = "collect" if isinstance(expr, ast.CollectSubquery) else "exists"
            for part in expr.query.parts:
                for clause in part.clauses:
                    if isinstance(clause, UPDATING):
                        raise error("A subquery expression cannot contain updating clauses",
                                    "InvalidClauseComposition", clause)
            self.query(expr.query, scope.subquery(), role=role)
            return
        if isinstance(expr, ast.PatternPredicate):
            for element in expr.pattern.elements:
                if element.variable is not None and element.variable not in scope:
                    raise error(f"Variable `{element.variable}` not defined (a pattern expression cannot "
                                "introduce new variables)", "UndefinedVariable", expr)
            for sub in children(expr):
                self._expr(sub, scope, hidden_ok=hidden_ok, _inside_local=_inside_local)
            return
        locals_ = local_names(expr)
        if locals_:
            self._local_scoped(expr, scope, locals_, allow_aggregates, hidden_ok)
            return
        for sub in children(expr):
            self._expr(sub, scope, allow_aggregates, hidden_ok, _inside_local)

    def _local_scoped(self, expr, scope: Scope, locals_, allow_aggregates, hidden_ok):
        if isinstance(expr, ast.PatternComprehension):
            inner = scope.copy()
            if expr.path_variable:
                inner.kinds[expr.path_variable] = PATH
            for element in expr.pattern.elements:
                if element.variable and element.variable not in inner:
                    inner.kinds[element.variable] = NODE if isinstance(element, ast.NodePattern) else REL
            for sub in children(expr):
                self._expr(sub, inner, hidden_ok=hidden_ok, _inside_local=True)
            return
        outer_parts = [expr.source] + ([expr.init] if isinstance(expr, ast.Reduce) else [])
        for sub in outer_parts:
            self._expr(sub, scope, allow_aggregates, hidden_ok)
        inner = scope.with_names(locals_)
        inner_parts = [getattr(expr, "where", None), getattr(expr, "projection", None),
                       getattr(expr, "expression", None)]
        for sub in inner_parts:
            if sub is not None:
                self._expr(sub, inner, False, hidden_ok, _inside_local=True)

    def _function(self, call: ast.FunctionCall, scope: Scope):
        name = call.name.lower()
        if self.function_known is not None and not self.function_known(name):
            raise error(f"Unknown function '{call.name}'", "UnknownFunction", call)
        rejected = _REJECTED_KINDS.get(name)
        if rejected and call.args and isinstance(call.args[0], ast.Variable):
            kind = scope.kind(call.args[0].name)
            if kind in rejected:
                raise error(f"Type mismatch: {call.name}() does not accept a {kind}", "InvalidArgumentType", call)

    def _predicate(self, where: ast.Expr, scope: Scope):
        """A WHERE clause: an expression that must be able to be a boolean."""
        if isinstance(where, ast.Variable) and scope.kind(where.name) in (NODE, REL, PATH):
            raise error(f"Type mismatch: expected Boolean but `{where.name}` is a {scope.kind(where.name)}",
                        "InvalidArgumentType", where)
        self._expr(where, scope)


def _hidden_by_projection(e: CypherSyntaxError, before: Scope, after: Scope) -> CypherSyntaxError:
    """Neo4j's message for a variable that DISTINCT or an aggregation hid from ORDER BY / WHERE."""
    for name in before.names():
        if name not in after and str(e).startswith(f"Variable `{name}` not defined"):
            return CypherSyntaxError("In a WITH/RETURN with DISTINCT or an aggregation, it is not possible to "
                                     f"access variables declared before the WITH/RETURN: {name}",
                                     detail=e.detail, phase=e.phase, line=e.line, column=e.column)
    return e


def _check_importing_with(lead: ast.With) -> None:
    """An importing WITH only passes outer variables through (Neo4j's messages)."""
    projection = lead.projection
    if any(not _pass_through(item) for item in projection.items):
        reason = "Aliasing or expressions are not supported."
    elif projection.distinct:
        reason = "DISTINCT is not allowed."
    elif lead.where is not None and not projection.star:   # WITH * WHERE: the guard of a WHEN branch too
        reason = "WHERE is not allowed."
    elif projection.order_by:
        reason = "ORDER BY is not allowed."
    elif projection.skip is not None:
        reason = "SKIP is not allowed."
    elif projection.limit is not None:
        reason = "LIMIT is not allowed."
    else:
        return
    raise error(f"Importing WITH should consist only of simple references to outside variables. {reason}",
                "InvalidClauseComposition", lead)


def _pass_through(item: ast.ProjectionItem) -> bool:
    return isinstance(item.expr, ast.Variable) and item.alias in (None, item.expr.name)


def _missing():
    from ..procedures import MISSING
    return MISSING


def _has_pattern(expr: ast.Expr) -> bool:
    if isinstance(expr, (ast.PatternPredicate, ast.PatternComprehension, ast.ExistsSubquery,
                         ast.CountSubquery, ast.CollectSubquery)):
        return True
    return any(_has_pattern(c) for c in children(expr))


def _bare_node(node: ast.NodePattern) -> bool:
    """An anonymous node pattern with nothing to check (the implicit ends of a lone quantified path)."""
    return node.variable is None and node.labels is None and node.properties is None and node.where is None
