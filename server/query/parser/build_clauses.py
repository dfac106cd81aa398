"""Parse tree to AST: queries, clauses, projections and SEARCH."""
from __future__ import annotations

from relate.grammar._generated.CypherParser import CypherParser as P
from relate.protocol.errors import ClientError
from relate.server.query import ast
from relate.server.query.schema.commands import DATABASE_NAME

from .build_patterns import PatternBuilder

_DESCENDING = (P.DESC, P.DESCENDING)
def _is_true(condition: ast.Expr) -> ast.Expr:
    """True when ``condition`` is true; false when it is false or null."""
    return ast.Case(None, [(condition, ast.Literal(True))], ast.Literal(False))


def _conjoin(left: ast.Expr | None, right: ast.Expr) -> ast.Expr:
    return right if left is None else ast.BinaryOp("AND", left, right)


_UPDATING = (ast.Create, ast.Merge, ast.Set, ast.Remove, ast.Delete, ast.Foreach, ast.CallSubquery, ast.CallProcedure)


class ClauseBuilder(PatternBuilder):
    """Builds ast.Query and the clause nodes."""

    def query(self, ctx) -> ast.Query:
        queries = ctx.unionQuery()
        query = self._union_query(queries[0])
        for following in queries[1:]:
            query = self._next(query, self._union_query(following), following)
        return query

    def _union_query(self, ctx) -> ast.Query:
        if ctx.conditionalQuery() is not None:
            return self._conditional(ctx.conditionalQuery())
        parts = [self.single_query(part) for part in ctx.singleQuery()]
        union_all = [op.ALL() is not None for op in ctx.unionOp()]
        return ast.Query(parts, union_all, pos=self.pos(ctx))

    def _conditional(self, ctx) -> ast.Query:
        """``WHEN c1 THEN q1 WHEN c2 THEN q2 ELSE q3``: q_k's parts, each led by ``WITH * WHERE`` (no
        earlier condition true, and c_k true), joined by UNION ALL: one branch passes, or none."""
        conditions = [self.expression(e) for e in ctx.expression()]
        branches = [self._union_query(q) for q in ctx.unionQuery()]
        parts: list[ast.SingleQuery] = []
        earlier: list[ast.Expr] = []
        for k, branch in enumerate(branches):
            if len(branch.parts) > 1:
                raise self.error(ctx.unionQuery(k), "A branch of a conditional query cannot be a UNION",
                                 "InvalidClauseComposition")
            guard: ast.Expr | None = None
            for condition in earlier:
                guard = _conjoin(guard, ast.UnaryOp("NOT", _is_true(condition)))
            if k < len(conditions):
                guard = _conjoin(guard, _is_true(conditions[k]))
                earlier.append(conditions[k])
            part = branch.parts[0]
            lead = ast.With(ast.Projection([], star=True), guard, pos=part.pos)
            parts.append(ast.SingleQuery([lead, *part.clauses], pos=part.pos))
        return ast.Query(parts, [True] * (len(parts) - 1), pos=self.pos(ctx))

    def _next(self, before: ast.Query, after: ast.Query, at) -> ast.Query:
        """``before NEXT after``: each part of ``after`` starts from the rows ``before`` returns."""
        if any(not part.clauses or not isinstance(part.clauses[-1], ast.Return) for part in before.parts):
            raise self.error(at, "The query before NEXT must end with RETURN", "InvalidClauseComposition")
        if len(after.parts) > 1 and any(isinstance(c, _UPDATING) for part in before.parts for c in part.clauses):
            raise self.error(at, "A query that writes cannot be followed by NEXT and a UNION (it would run once "
                                 "per UNION part)", "InvalidClauseComposition")
        parts = [ast.SingleQuery([ast.CallSubquery(before, ["*"], pos=before.pos), *part.clauses], pos=part.pos)
                 for part in after.parts]
        return ast.Query(parts, after.union_all, pos=before.pos)

    def single_query(self, ctx) -> ast.SingleQuery:
        if ctx.useClause() is not None:
            self._use(ctx.useClause())
        contexts = ctx.clause()
        clauses = []
        for i, clause_ctx in enumerate(contexts):
            built = self.clause(clause_ctx.getChild(0))
            for clause in built if type(built) is list else [built]:    # LET a = .., b = ..: a WITH each
                if type(clause) is ast.Finish and i < len(contexts) - 1:
                    raise self.error(clause_ctx, "FINISH can only be the last clause of a query",
                                     "InvalidClauseComposition")
                if type(clause) is ast.CallProcedure and clause.yield_star and len(contexts) > 1:
                    raise self.error(clause_ctx, "Invalid input: YIELD * is only allowed in a standalone procedure call")
                clauses.append(clause)
        return ast.SingleQuery(clauses, pos=self.pos(ctx))

    def _use(self, ctx) -> None:
        """USE names the one database there is (as SHOW DATABASES lists it); another name is an error."""
        name = ".".join(self.name(part) for part in ctx.symbolicName())
        if name.lower() != DATABASE_NAME:
            raise ClientError(f"Graph not found: {name} (this server has one database, `{DATABASE_NAME}`)",
                              code="Neo.ClientError.Database.DatabaseNotFound", detail="DatabaseNotFound",
                              line=ctx.start.line, column=ctx.start.column + 1, phase="compile time")

    def clause(self, ctx) -> ast.Clause:
        return self._clause_handlers[type(ctx)](self, ctx)

    def where(self, ctx):
        """The expression of an optional whereClause context."""
        return None if ctx is None else self.expression(ctx.expression())

    # -- reading --------------------------------------------------------------------------------
    def _match(self, ctx):
        search = ctx.searchClause()
        mode = ctx.matchMode()
        pattern = self.pattern(ctx.pattern())
        if ctx.hint():
            self._check_hints(ctx.hint(), pattern)
        return ast.Match(pattern, self.where(ctx.whereClause()),
                         ctx.OPTIONAL() is not None,
                         None if search is None else self._search(search), pos=self.pos(ctx),
                         repeatable=mode is not None and mode.REPEATABLE() is not None)

    def _check_hints(self, hints, pattern: list) -> None:
        """USING INDEX / SCAN / JOIN ON name variables of the MATCH's own pattern (the planner picks
        indexes and joins itself, so a valid hint changes nothing)."""
        declared = set()
        for part in pattern:
            declared.add(part.variable)
            for element in part.elements:
                declared.add(element.variable)
                declared.update(e.variable for e in getattr(element, "elements", ()) or ())
        for hint in hints:
            variables = hint.variable()
            for variable in variables if isinstance(variables, list) else [variables]:
                if self.name(variable) not in declared:
                    raise self.error(variable, f"Variable `{self.name(variable)}` not defined", "UndefinedVariable")

    def _search(self, ctx):
        variables = ctx.variable()
        return ast.Search(self.name(variables[0]), self._search_spec(ctx.searchSpec()),
                          self.name(variables[1]) if len(variables) > 1 else None, pos=self.pos(ctx))

    def _search_spec(self, ctx):
        index = ctx.indexSearch()
        if index is not None:
            return self._index_search(index)
        return self._combine_search(ctx.combineSearch())

    def _index_search(self, ctx):
        return ast.IndexSearch(ctx.kind.text.upper(), self.name(ctx.symbolicName()),
                               self.expression(ctx.expression(0)), self.optional_expression(ctx.where),
                               self.optional_expression(ctx.skip), self.optional_expression(ctx.limit),
                               self.optional_expression(ctx.weight), pos=self.pos(ctx))

    def _combine_search(self, ctx):
        sources = []
        for source in ctx.searchSource():
            if source.indexSearch() is not None:
                sources.append(self._index_search(source.indexSearch()))
            elif source.combineSearch() is not None:
                sources.append(self._combine_search(source.combineSearch()))
            else:
                sources.append(self._search_spec(source.searchSpec()))
        return ast.CombineSearch(sources, ctx.method.text.upper(), self.optional_expression(ctx.constant),
                                 self.optional_expression(ctx.limit), self.optional_expression(ctx.weight),
                                 pos=self.pos(ctx))

    def _unwind(self, ctx):
        return ast.Unwind(self.expression(ctx.expression()), self.name(ctx.variable()), pos=self.pos(ctx))

    def _load_csv(self, ctx):
        terminator = None if ctx.STRING() is None else self.string(ctx.STRING().getSymbol())
        return ast.LoadCsv(self.expression(ctx.expression()), self.name(ctx.variable()),
                           ctx.HEADERS() is not None, terminator, pos=self.pos(ctx))

    def _with(self, ctx):
        return ast.With(self.projection(ctx.projectionBody()), self.where(ctx.whereClause()),
                        pos=self.pos(ctx))

    def _return(self, ctx):
        return ast.Return(self.projection(ctx.projectionBody()), pos=self.pos(ctx))

    def _let(self, ctx) -> list:
        """LET x = e, y = f: WITH *, e AS x then WITH *, f AS y (an item may use the ones before it)."""
        return [ast.With(ast.Projection([ast.ProjectionItem(self.expression(item.expression()),
                                                            self.name(item.variable()),
                                                            self.source(item.expression()), pos=self.pos(item))],
                                        True), pos=self.pos(item))
                for item in ctx.letItem()]

    def _filter(self, ctx):
        """FILTER [WHERE] p: WITH * WHERE p."""
        return ast.With(ast.Projection([], True), self.expression(ctx.expression()), pos=self.pos(ctx))

    def _page(self, ctx):
        """ORDER BY ... SKIP ... LIMIT ... as a clause: WITH * ORDER BY ... SKIP ... LIMIT ...."""
        return ast.With(ast.Projection([], True, False, *self._paging(ctx)), pos=self.pos(ctx))

    def _finish(self, ctx):
        return ast.Finish(pos=self.pos(ctx))

    def projection(self, ctx) -> ast.Projection:
        items_ctx = ctx.projectionItems()
        items = []
        for item in items_ctx.projectionItem():
            expr_ctx, alias = item.expression(), item.variable()
            expr = self.expression(expr_ctx)
            # An unaliased map projection's column is named after its variable, as in Neo4j.
            text = expr.subject if type(expr) is ast.MapProjection else self.source(expr_ctx)
            items.append(ast.ProjectionItem(expr, None if alias is None else self.name(alias), text,
                                            pos=self.pos(item)))
        return ast.Projection(items, items_ctx.STAR() is not None, ctx.DISTINCT() is not None, *self._paging(ctx))

    def _paging(self, ctx) -> tuple:
        """The sort keys, skip and limit of a projection or a standalone ORDER BY / SKIP / LIMIT clause."""
        order, skip, limit = ctx.orderBy(), ctx.skipClause(), ctx.limitClause()
        return ([] if order is None else [key for item in order.sortItem() for key in self._sort_items(item)],
                None if skip is None else self.expression(skip.expression()),
                None if limit is None else self.expression(limit.expression()))

    def _sort_items(self, ctx) -> list[ast.SortItem]:
        """One sort key; NULLS FIRST / LAST where it differs from the default (nulls sort as the
        largest value: last ascending, first descending) puts an ``e IS NULL`` key before it."""
        expr = self.expression(ctx.expression())
        descending = ctx.dir_ is not None and ctx.dir_.type in _DESCENDING
        key = ast.SortItem(expr, descending, pos=self.pos(ctx))
        if ctx.nulls is None or (ctx.nulls.type == P.FIRST) == descending:
            return [key]
        return [ast.SortItem(ast.IsNull(expr, pos=self.pos(ctx)), not descending, pos=self.pos(ctx)), key]

    # -- updating -------------------------------------------------------------------------------
    def _create(self, ctx):
        return ast.Create(self.pattern(ctx.pattern()), pos=self.pos(ctx))

    def _merge(self, ctx):
        on_create, on_match = [], []
        for action in ctx.mergeAction():
            target = on_match if action.MATCH() is not None else on_create
            target.extend(self.set_item(item) for item in action.setItem())
        return ast.Merge(self.pattern_part(ctx.patternPart()), on_create, on_match, pos=self.pos(ctx))

    def _set(self, ctx):
        return ast.Set([self.set_item(item) for item in ctx.setItem()], pos=self.pos(ctx))

    def set_item(self, ctx):
        kind = type(ctx)
        if kind is P.SetVariableItemContext:
            return ast.SetVariable(self.name(ctx.variable()), self.expression(ctx.expression()),
                                   ctx.op.type == P.PLUS_EQ, pos=self.pos(ctx))
        if kind is P.SetLabelsItemContext:
            return ast.SetLabels(self.name(ctx.variable()), self._label_names(ctx.labelNames()),
                                 pos=self.pos(ctx))
        if kind is P.SetDynamicLabelsItemContext:
            return ast.SetLabels(self.name(ctx.variable()), self._dynamic_label_names(ctx.dynamicLabelNames()),
                                 pos=self.pos(ctx))
        return ast.SetProperty(self._property_target(ctx.postfixExpression()),
                               self.expression(ctx.expression()), pos=self.pos(ctx))

    def _property_target(self, ctx) -> ast.Property | ast.Subscript:
        """``n.prop``, or ``n[key]`` with the key computed per row (Neo4j 5.24's dynamic property keys)."""
        target = self.postfix_expression(ctx)
        if type(target) is not ast.Property and type(target) is not ast.Subscript:
            raise self.error(ctx, f"Invalid input '{self.source(ctx)}': expected a property, "
                                  "like n.prop or n[$key]")
        return target

    def _label_names(self, ctx) -> list[str]:
        return [self.name(name) for name in ctx.symbolicName()]

    def _dynamic_label_names(self, ctx) -> list:
        """Names and ``$(expr)`` expressions in their written order."""
        labels, children = [], list(ctx.getChildren())
        for i, child in enumerate(children):
            if isinstance(child, P.SymbolicNameContext):
                labels.append(self.name(child))
            elif isinstance(child, P.ExpressionContext):
                labels.append(self.expression(child))
        return labels

    def _remove(self, ctx):
        items = []
        for item in ctx.removeItem():
            if type(item) is P.RemoveLabelsItemContext:
                items.append(ast.RemoveLabels(self.name(item.variable()),
                                              self._label_names(item.labelNames()), pos=self.pos(item)))
            elif type(item) is P.RemoveDynamicLabelsItemContext:
                items.append(ast.RemoveLabels(self.name(item.variable()),
                                              self._dynamic_label_names(item.dynamicLabelNames()),
                                              pos=self.pos(item)))
            else:
                items.append(ast.RemoveProperty(self._property_target(item.postfixExpression()),
                                                pos=self.pos(item)))
        return ast.Remove(items, pos=self.pos(ctx))

    def _delete(self, ctx):
        return ast.Delete([self.expression(expr) for expr in ctx.expression()],
                          ctx.DETACH() is not None, pos=self.pos(ctx))

    def _foreach(self, ctx):
        return ast.Foreach(self.name(ctx.variable()), self.expression(ctx.expression()),
                           [self.clause(clause.getChild(0)) for clause in ctx.clause()], pos=self.pos(ctx))

    # -- CALL -----------------------------------------------------------------------------------
    def _call_subquery(self, ctx):
        if ctx.LPAREN() is None:
            imports = None
        elif ctx.STAR() is not None:
            imports = ["*"]
        else:
            imports = [self.name(variable) for variable in ctx.variable()]
        call = ast.CallSubquery(self.query(ctx.query()), imports, ctx.OPTIONAL() is not None, pos=self.pos(ctx))
        batch = ctx.inTransactions()
        if batch is not None:
            call.in_transactions = True
            if batch.expression() is not None:       # IN n CONCURRENT TRANSACTIONS: its n must be valid
                self.expression(batch.expression())
            self._in_transactions_options(call, batch.inTransactionsOption())
        return call

    def _in_transactions_options(self, call, options) -> None:
        """OF n ROWS, ON ERROR ..., REPORT STATUS AS v: each at most once, in any order."""
        seen: set[str] = set()
        for option in options:
            kind = type(option).__name__
            if kind in seen:
                words = {"TxBatchSizeContext": "OF ... ROWS", "TxOnErrorContext": "ON ERROR",
                         "TxReportStatusContext": "REPORT STATUS"}[kind]
                raise self.error(option, f"Duplicated {words} parameter")
            seen.add(kind)
            if kind == "TxBatchSizeContext":
                call.batch_size = self.expression(option.expression())
            elif kind == "TxReportStatusContext":
                call.report_status = self.name(option.variable())
            elif option.RETRY() is not None:
                call.on_error = "RETRY"
                if option.expression() is not None:
                    call.retry_for = self.expression(option.expression())
                then = option.CONTINUE() or option.BREAK() or option.FAIL()
                if then is not None:
                    call.retry_then = then.getText().upper()
            else:
                call.on_error = (option.CONTINUE() or option.BREAK() or option.FAIL()).getText().upper()

    def _call_procedure(self, ctx):
        name = ".".join(self.name(part) for part in ctx.procedureName().symbolicName())
        args = None
        if ctx.LPAREN() is not None:
            args, named = [], []
            for arg in ctx.procedureArgument():
                if arg.symbolicName() is None:
                    if named:
                        raise self.error(arg, "A positional argument cannot follow a named one (name := value)")
                    args.append(self.expression(arg.expression()))
                else:
                    named.append((self.name(arg.symbolicName()), self.expression(arg.expression())))
            if named:
                args.append(ast.MapLiteral(named, pos=self.pos(ctx)))
        yields = None
        if ctx.YIELD() is not None:
            yields = [self.yield_item(item) for item in ctx.yieldItem()]
        return ast.CallProcedure(name, args, yields, ctx.STAR() is not None,
                                 self.where(ctx.whereClause()), pos=self.pos(ctx),
                                 optional=ctx.OPTIONAL() is not None)

    def yield_item(self, ctx) -> ast.YieldItem:
        alias = ctx.variable()
        return ast.YieldItem(self.name(ctx.symbolicName()), None if alias is None else self.name(alias))


ClauseBuilder._clause_handlers = {
    P.MatchClauseContext: ClauseBuilder._match,
    P.UnwindClauseContext: ClauseBuilder._unwind,
    P.LoadCsvClauseContext: ClauseBuilder._load_csv,
    P.WithClauseContext: ClauseBuilder._with,
    P.ReturnClauseContext: ClauseBuilder._return,
    P.CreateClauseContext: ClauseBuilder._create,
    P.MergeClauseContext: ClauseBuilder._merge,
    P.SetClauseContext: ClauseBuilder._set,
    P.RemoveClauseContext: ClauseBuilder._remove,
    P.DeleteClauseContext: ClauseBuilder._delete,
    P.ForeachClauseContext: ClauseBuilder._foreach,
    P.CallSubqueryClauseContext: ClauseBuilder._call_subquery,
    P.CallProcedureClauseContext: ClauseBuilder._call_procedure,
    P.LetClauseContext: ClauseBuilder._let,
    P.FilterClauseContext: ClauseBuilder._filter,
    P.PageClauseContext: ClauseBuilder._page,
    P.FinishClauseContext: ClauseBuilder._finish,
}
