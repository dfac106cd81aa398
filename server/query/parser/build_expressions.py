"""Parse tree to AST: expressions, literals and label expressions."""
from __future__ import annotations

import math

from relate.grammar._generated.CypherParser import CypherParser as P
from relate.protocol.values import VECTOR_TYPES
from relate.server.query import ast

from .build_base import BuilderBase
from .literals import decode_float, decode_integer, decode_parameter, decode_string

_COMPARE_OPS = {"=": "=", "<>": "<>", "!=": "<>", "<": "<", ">": ">", "<=": "<=", ">=": ">="}
_STRING_OPS = {P.STARTS: "STARTS WITH", P.ENDS: "ENDS WITH", P.CONTAINS: "CONTAINS",
               P.REGEX_MATCH: "=~", P.IN: "IN"}
_SUBQUERY_KINDS = {P.EXISTS: ast.ExistsSubquery, P.COUNT: ast.CountSubquery,
                   P.COLLECT: ast.CollectSubquery}


class ExpressionBuilder(BuilderBase):
    """Builds ast.Expr nodes; ``expression`` dispatches on the labelled alternative's class."""

    def expression(self, ctx) -> ast.Expr:
        return self._expression_handlers[type(ctx)](self, ctx)

    def optional_expression(self, ctx):
        return None if ctx is None else self.expression(ctx)

    # -- operators ------------------------------------------------------------------------------
    def _atom_expr(self, ctx):
        return self.postfix_expression(ctx.postfixExpression())

    def _unary(self, ctx):
        operand_ctx = ctx.expression()
        if ctx.op.type == P.MINUS:
            folded = self._negative_literal(operand_ctx)
            if folded is not None:
                folded.pos = self.pos(ctx)
                return folded
        return ast.UnaryOp(ctx.op.text, self.expression(operand_ctx), pos=self.pos(ctx))

    def _negative_literal(self, ctx):
        """``-<number>`` as one negative Literal, so -9223372036854775808 fits in int64."""
        if type(ctx) is not P.AtomExprContext:
            return None
        postfix = ctx.postfixExpression()
        if postfix.getChildCount() != 1:
            return None
        atom = postfix.atom()
        if type(atom) is not P.LiteralAtomContext:
            return None
        literal = atom.literal()
        if type(literal) is P.IntegerLiteralContext or type(literal) is P.FloatLiteralContext:
            return self.number(literal, negate=True)
        return None

    def _binary(self, ctx):
        # Walk the left spine iteratively: generated queries chain hundreds of ORs or +s, and
        # recursing once per operator would hit Python's recursion limit.
        spine = []
        while type(ctx) in _LEFT_ASSOCIATIVE:
            spine.append(ctx)
            ctx = ctx.expression(0)
        result = self.expression(ctx)
        for node in reversed(spine):
            result = ast.BinaryOp(_LEFT_ASSOCIATIVE[type(node)](node), result,
                                  self.expression(node.expression(1)), pos=self.pos(node))
        return result

    def _is_null(self, ctx):
        return ast.IsNull(self.expression(ctx.expression()), negated=ctx.NOT() is not None,
                          pos=self.pos(ctx))

    def _is_normalized(self, ctx):
        return self._normalized_test(self.expression(ctx.expression()), ctx)

    def _normalized_test(self, subject: ast.Expr, ctx) -> ast.Expr:
        """``s IS [NOT] [NFC|NFD|NFKC|NFKD] NORMALIZED`` (NFC when no form is named)."""
        form = "NFC" if ctx.form is None else ctx.form.text.upper()
        if form not in _NORMAL_FORMS:
            raise self.error(ctx.form, f"Invalid normal form '{ctx.form.text}': expected NFC, NFD, NFKC or NFKD",
                             "InvalidNormalForm")
        check = ast.FunctionCall(IS_NORMALIZED, [subject, ast.Literal(form)], pos=self.pos(ctx))
        return ast.UnaryOp("NOT", check, pos=self.pos(ctx)) if ctx.NOT() is not None else check

    def _type_predicate(self, ctx):
        return self._type_test(self.expression(ctx.expression()), ctx)

    def _type_test(self, subject: ast.Expr, ctx) -> ast.Expr:
        """``x IS [NOT] :: TYPE`` over ``subject``, the type read from ``ctx.valueType()``."""
        from relate.server.query.schema.types import MixedNullability, normalize_expression_type
        written = self.source(ctx.valueType())
        try:
            type_name = normalize_expression_type(written)
        except MixedNullability:
            raise self.error(ctx.valueType(), "All types in a Closed Dynamic Union must be nullable, or be "
                             "appended with `NOT NULL`", "InvalidType") from None
        except ValueError:
            raise self.error(ctx.valueType(), f"Unknown type: {written}", "InvalidType") from None
        return ast.TypePredicate(subject, type_name, negated=ctx.NOT() is not None, pos=self.pos(ctx))

    def _compare(self, ctx):
        # ``a < b <= c`` arrives left-nested; unfold it into (a < b) AND (b <= c).
        operands, ops = [self.expression(ctx.expression(1))], [_COMPARE_OPS[ctx.op.text]]
        left = ctx.expression(0)
        while type(left) is P.CompareExprContext:
            operands.append(self.expression(left.expression(1)))
            ops.append(_COMPARE_OPS[left.op.text])
            left = left.expression(0)
        operands.append(self.expression(left))
        operands.reverse()
        ops.reverse()
        result = None
        for i, op in enumerate(ops):
            comparison = ast.BinaryOp(op, operands[i], operands[i + 1], pos=operands[i].pos)
            result = comparison if result is None else ast.BinaryOp("AND", result, comparison,
                                                                   pos=result.pos)
        result.pos = self.pos(ctx)
        return result

    def _not(self, ctx):
        return ast.UnaryOp("NOT", self.expression(ctx.expression()), pos=self.pos(ctx))

    # -- postfix and atoms ----------------------------------------------------------------------
    def postfix_expression(self, ctx) -> ast.Expr:
        children = ctx.children
        result = self.atom(children[0])
        if len(children) == 1:
            return result
        pos = result.pos
        for child in children[1:]:
            kind = type(child)
            if kind is P.PropertyLookupContext:
                key = child.propertyKeyName()
                result = ast.Property(result, self.name(key), pos=pos, key_pos=self.pos(key))
            elif kind is P.IndexOrSliceContext:
                if child.dots is None:
                    result = ast.Subscript(result, self.expression(child.lower), pos=pos)
                else:
                    result = ast.Slice(result, self.optional_expression(child.lower),
                                       self.optional_expression(child.upper), pos=pos)
            else:  # nodeLabels: a label predicate
                args: list[ast.Expr] = []
                result = ast.LabelCheck(result, self.label_expression(child.labelExpression(), args), pos=pos,
                                        args=args)
        return result

    def atom(self, ctx) -> ast.Expr:
        return self._atom_handlers[type(ctx)](self, ctx)

    def _literal_atom(self, ctx):
        return self.literal(ctx.literal())

    def _parameter_atom(self, ctx):
        token = ctx.start
        return ast.Parameter(decode_parameter(token.text), pos=self.token_pos(token))

    def _case_atom(self, ctx):
        subject = self.optional_expression(ctx.subject)
        alternatives = ctx.caseAlternative()
        if subject is None:
            for alt in alternatives:
                conditions = alt.caseWhen()
                if len(conditions) > 1 or type(conditions[0]) is not P.CaseValueWhenContext:
                    raise self.error(conditions[-1] if len(conditions) > 1 else conditions[0],
                                     "A CASE without a subject takes one condition per WHEN (CASE x WHEN 1, 2 THEN ... "
                                     "compares a subject)", "InvalidCase")
        plain = all(len(alt.caseWhen()) == 1 and type(alt.caseWhen()[0]) is P.CaseValueWhenContext
                    for alt in alternatives)
        default = self.optional_expression(ctx.elseExpr)
        if subject is None or plain:
            whens = [(self.expression(alt.caseWhen()[0].expression()), self.expression(alt.expression()))
                     for alt in alternatives]
            return ast.Case(subject, whens, default, pos=self.pos(ctx))
        # WHEN 1, 2 / WHEN < 13 / WHEN IS NULL ...: each a test of the subject, the WHEN true if any holds
        whens = []
        for alt in alternatives:
            condition = None
            for when in alt.caseWhen():
                test = self._case_test(subject, when)
                condition = test if condition is None else ast.BinaryOp("OR", condition, test, pos=test.pos)
            whens.append((condition, self.expression(alt.expression())))
        return ast.Case(None, whens, default, pos=self.pos(ctx))

    def _case_test(self, subject: ast.Expr, ctx) -> ast.Expr:
        """One test of a simple CASE's WHEN against its subject."""
        kind, pos = type(ctx), self.pos(ctx)
        if kind is P.CaseValueWhenContext:
            return ast.BinaryOp("=", subject, self.expression(ctx.expression()), pos=pos)
        if kind is P.CaseCompareWhenContext:
            return ast.BinaryOp(_COMPARE_OPS[ctx.op.text], subject, self.expression(ctx.expression()), pos=pos)
        if kind is P.CaseStringWhenContext:
            return ast.BinaryOp(_STRING_OPS[ctx.stringOp().start.type], subject, self.expression(ctx.expression()),
                                pos=pos)
        if kind is P.CaseNullWhenContext:
            return ast.IsNull(subject, negated=ctx.NOT() is not None, pos=pos)
        if kind is P.CaseNormalizedWhenContext:
            return self._normalized_test(subject, ctx)
        return self._type_test(subject, ctx)

    def _count_star_atom(self, ctx):
        return ast.CountStar(pos=self.pos(ctx))

    def _subquery_atom(self, ctx):
        node_class = _SUBQUERY_KINDS[ctx.kind.type]
        body = ctx.subqueryBody()
        if body.query() is not None:
            query = self.query(body.query())
        else:
            if node_class is ast.CollectSubquery:
                raise self.error(body, "Invalid input: COLLECT subquery must end with a RETURN clause")
            where = body.whereClause()
            match = ast.Match(self.pattern(body.pattern()),
                              None if where is None else self.expression(where.expression()),
                              pos=self.pos(body))
            query = ast.Query([ast.SingleQuery([match], pos=self.pos(body))], pos=self.pos(body))
        return node_class(query, pos=self.pos(ctx))

    def _list_comprehension_atom(self, ctx):
        return ast.ListComprehension(self.name(ctx.variable()), self.expression(ctx.expression(0)),
                                     self.optional_expression(ctx.where),
                                     self.optional_expression(ctx.proj), pos=self.pos(ctx))

    def _pattern_comprehension_atom(self, ctx):
        variable = ctx.variable()
        return ast.PatternComprehension(None if variable is None else self.name(variable),
                                        self.relationships_pattern(ctx.relationshipsPattern()),
                                        self.optional_expression(ctx.where),
                                        self.expression(ctx.proj), pos=self.pos(ctx))

    def _list_atom(self, ctx):
        return ast.ListLiteral([self.expression(item) for item in ctx.expression()], pos=self.pos(ctx))

    def _quantifier_atom(self, ctx):
        return ast.Quantifier(ctx.kind.text.lower(), self.name(ctx.variable()),
                              self.expression(ctx.expression(0)),
                              self.optional_expression(ctx.expression(1)), pos=self.pos(ctx))

    def _reduce_atom(self, ctx):
        return ast.Reduce(self.name(ctx.acc), self.expression(ctx.init), self.name(ctx.var),
                          self.expression(ctx.source), self.expression(ctx.body), pos=self.pos(ctx))

    def _pattern_atom(self, ctx):
        if not _in_predicate_position(ctx):
            raise self.error(ctx, "A pattern expression should only be used in order to test the "
                                  "existence of a pattern. It should therefore only be used in contexts "
                                  "that evaluate to a boolean, e.g. inside the function exists() or in a "
                                  "WHERE-clause. No other uses are allowed, instead they should be "
                                  "replaced by a pattern comprehension.")
        return ast.PatternPredicate(self.relationships_pattern(ctx.relationshipsPattern()),
                                    pos=self.pos(ctx))

    def _paren_atom(self, ctx):
        return self.expression(ctx.expression())

    def _trim_atom(self, ctx):
        """``trim([BOTH|LEADING|TRAILING] [c] FROM s)``: whitespace, or the single character c."""
        side = "BOTH" if ctx.side is None else ctx.side.text.upper()
        chars = [] if ctx.chars is None else [self.expression(ctx.chars)]
        return ast.FunctionCall(TRIM_FROM, [ast.Literal(side), *chars, self.expression(ctx.source)],
                                pos=self.pos(ctx))

    def _function_atom(self, ctx):
        fn = ctx.functionName()
        name = ".".join(self.name(part) for part in [fn.nonNotName(), *fn.symbolicName()])
        args = [self.expression(arg) for arg in ctx.expression()]
        lower = name.lower()
        for i, arg in enumerate(args):
            words = _BARE_WORDS.get((lower, i))
            if words is not None and type(arg) is ast.Variable and arg.name.upper() in words:
                args[i] = ast.Literal(arg.name.upper())
        if lower == "exists" and len(args) == 1 and ctx.DISTINCT() is None:
            # exists((a)-->(b)): Neo4j 5's predicate function over a pattern; exists(n.prop) is gone
            if type(args[0]) is ast.PatternPredicate:
                return args[0]
            if type(args[0]) is ast.Property:
                raise self.error(ctx, "The property existence syntax `exists(variable.property)` is no longer "
                                      "supported. Please use `variable.property IS NOT NULL` instead",
                                 "InvalidExistsFunction")
        return ast.FunctionCall(name, args, ctx.DISTINCT() is not None, pos=self.pos(ctx))

    def _map_projection_atom(self, ctx):
        items = []
        for item in ctx.mapProjectionItem():
            kind = type(item)
            if kind is P.PropertyItemContext:
                items.append(ast.MapProjectionItem("property", self.name(item.propertyKeyName())))
            elif kind is P.LiteralEntryItemContext:
                items.append(ast.MapProjectionItem("literal", self.name(item.propertyKeyName()),
                                                   self.expression(item.expression())))
            elif kind is P.VariableItemContext:
                name = self.name(item.variable())
                items.append(ast.MapProjectionItem("variable", name,
                                                   ast.Variable(name, pos=self.pos(item))))
            else:
                items.append(ast.MapProjectionItem("all"))
        return ast.MapProjection(self.name(ctx.variable()), items, pos=self.pos(ctx))

    def _variable_atom(self, ctx):
        return ast.Variable(self.name(ctx), pos=self.pos(ctx))

    # -- literals -------------------------------------------------------------------------------
    def literal(self, ctx) -> ast.Expr:
        kind = type(ctx)
        if kind is P.StringLiteralContext:
            return ast.Literal(self.string(ctx.start), pos=self.pos(ctx))
        if kind is P.IntegerLiteralContext or kind is P.FloatLiteralContext:
            return self.number(ctx, negate=False)
        if kind is P.TrueLiteralContext:
            return ast.Literal(True, pos=self.pos(ctx))
        if kind is P.FalseLiteralContext:
            return ast.Literal(False, pos=self.pos(ctx))
        if kind is P.NullLiteralContext:
            return ast.Literal(None, pos=self.pos(ctx))
        if kind is P.SpecialFloatLiteralContext:        # Inf, Infinity, NaN
            return ast.Literal(math.nan if ctx.NAN() is not None else math.inf, pos=self.pos(ctx))
        return self.map_literal(ctx.mapLiteral())

    def number(self, ctx, negate: bool) -> ast.Literal:
        token = ctx.start
        if token.type == P.INTEGER:
            value, problem = decode_integer(token.text, negate)
        else:
            value, problem = decode_float(token.text, negate)
        if problem is not None:
            sign = "-" if negate else ""
            what = "integer" if problem == "IntegerOverflow" else "floating point number"
            raise self.error(token, f"{what} is too large: {sign}{token.text}", problem)
        return ast.Literal(value, pos=self.token_pos(token))

    def string(self, token) -> str:
        try:
            return decode_string(token.text)
        except ValueError as bad:
            offset = bad.args[0]
            raise self.error(token, f"Invalid input '{token.text[offset:offset + 6]}': "
                                    "invalid unicode escape sequence", "InvalidUnicodeLiteral") from None

    def map_literal(self, ctx) -> ast.MapLiteral:
        keys, values = ctx.propertyKeyName(), ctx.expression()
        return ast.MapLiteral([(self.name(key), self.expression(value)) for key, value in zip(keys, values)],
                              pos=self.pos(ctx), key_pos=[self.pos(key) for key in keys])

    # -- label expressions ----------------------------------------------------------------------
    def label_expression(self, ctx, args: list) -> ast.LabelExpr:
        """A label expression; the expressions of its ``$(e)`` atoms are appended to ``args``."""
        parts = [self._label_and(part, args) for part in ctx.labelAnd()]
        return parts[0] if len(parts) == 1 else ast.LabelOr(parts)

    def _label_and(self, ctx, args):
        parts = [self._label_not(part, args) for part in ctx.labelNot()]
        return parts[0] if len(parts) == 1 else ast.LabelAnd(parts)

    def _label_not(self, ctx, args):
        inner = ctx.labelNot()
        if inner is not None:
            return ast.LabelNot(self._label_not(inner, args))
        atom = ctx.labelAtom()
        if atom.symbolicName() is not None:
            return ast.LabelName(self.name(atom.symbolicName()), pos=self.pos(atom.symbolicName()))
        if atom.PERCENT() is not None:
            return ast.LabelAny()
        if atom.dynamicName() is not None:
            return self.dynamic_name(atom.dynamicName(), args)
        return self.label_expression(atom.labelExpression(), args)

    def dynamic_name(self, ctx, args: list) -> ast.LabelDynamic:
        """``$(e)`` and ``$all(e)`` (every name given) or ``$any(e)`` (any of them)."""
        if ctx.PARAMETER() is None:
            mode = "all"
        else:
            mode = ctx.PARAMETER().getText()[1:].lower()
            if mode not in ("all", "any"):
                raise self.error(ctx, f"Invalid input '{ctx.PARAMETER().getText()}(': expected '$(', '$all(' "
                                      "or '$any(' for a dynamic label or type", "InvalidDynamicLabel")
        args.append(self.expression(ctx.expression()))
        return ast.LabelDynamic(len(args) - 1, mode)


_NORMAL_FORMS = ("NFC", "NFD", "NFKC", "NFKD")
# Arguments Neo4j spells as bare words, read as their names in upper case: (function, position) -> words.
_BARE_WORDS = {
    ("normalize", 1): frozenset(_NORMAL_FORMS),                                 # normalize(s, NFKC)
    ("vector", 2): frozenset(VECTOR_TYPES),                                      # vector(v, 384, FLOAT32)
    ("vector_distance", 2): frozenset(("EUCLIDEAN", "EUCLIDEAN_SQUARED", "MANHATTAN", "COSINE", "DOT",
                                       "HAMMING")),                              # vector_distance(a, b, COSINE)
    ("vector_norm", 1): frozenset(("EUCLIDEAN", "MANHATTAN")),                   # vector_norm(v, EUCLIDEAN)
}
# Functions the syntax desugars to; their names hold a space, so no statement can call them by name.
IS_NORMALIZED = " isNormalized"
TRIM_FROM = " trimFrom"

_BOOLEAN_OPERATORS = (P.NotExprContext, P.AndExprContext, P.OrExprContext, P.XorExprContext)


def _in_predicate_position(ctx) -> bool:
    """Whether a pattern used as an expression tests existence, as Cypher 5 requires: an operand of
    NOT / AND / OR / XOR, the argument of exists(), or a WHERE / WHEN condition (through parentheses)."""
    child, parent = ctx, ctx.parentCtx
    while True:
        kind = type(parent)
        if kind in _BOOLEAN_OPERATORS or kind is P.WhereClauseContext:
            return True
        if kind is P.PostfixExpressionContext:
            if parent.getChildCount() != 1:
                return False
        elif kind is P.FunctionAtomContext:
            return parent.functionName().getText().lower() == "exists" and len(parent.expression()) == 1
        elif kind is P.CaseAlternativeContext:
            return parent.expression(0) is child
        elif kind is P.NodePatternContext or kind is P.RelationshipDetailContext:
            return True
        elif kind in (P.ListComprehensionAtomContext, P.PatternComprehensionAtomContext, P.IndexSearchContext):
            return parent.where is child
        elif kind is P.QuantifierAtomContext:
            return parent.expression(1) is child
        elif kind is not P.AtomExprContext and kind is not P.ParenAtomContext:
            return False
        child, parent = parent, parent.parentCtx


# Operator text of each left-associative binary alternative.
_LEFT_ASSOCIATIVE = {
    P.PowerExprContext: lambda ctx: "^",
    P.MulExprContext: lambda ctx: ctx.op.text,
    P.AddExprContext: lambda ctx: ctx.op.text,
    P.StringOpExprContext: lambda ctx: _STRING_OPS[ctx.stringOp().start.type],
    P.AndExprContext: lambda ctx: "AND",
    P.XorExprContext: lambda ctx: "XOR",
    P.OrExprContext: lambda ctx: "OR",
}

ExpressionBuilder._expression_handlers = {
    P.AtomExprContext: ExpressionBuilder._atom_expr,
    P.UnaryExprContext: ExpressionBuilder._unary,
    P.PowerExprContext: ExpressionBuilder._binary,
    P.MulExprContext: ExpressionBuilder._binary,
    P.AddExprContext: ExpressionBuilder._binary,
    P.IsNullExprContext: ExpressionBuilder._is_null,
    P.IsNormalizedExprContext: ExpressionBuilder._is_normalized,
    P.TypePredicateExprContext: ExpressionBuilder._type_predicate,
    P.StringOpExprContext: ExpressionBuilder._binary,
    P.CompareExprContext: ExpressionBuilder._compare,
    P.NotExprContext: ExpressionBuilder._not,
    P.AndExprContext: ExpressionBuilder._binary,
    P.XorExprContext: ExpressionBuilder._binary,
    P.OrExprContext: ExpressionBuilder._binary,
}

ExpressionBuilder._atom_handlers = {
    P.LiteralAtomContext: ExpressionBuilder._literal_atom,
    P.ParameterAtomContext: ExpressionBuilder._parameter_atom,
    P.CaseAtomContext: ExpressionBuilder._case_atom,
    P.CountStarAtomContext: ExpressionBuilder._count_star_atom,
    P.SubqueryAtomContext: ExpressionBuilder._subquery_atom,
    P.ListComprehensionAtomContext: ExpressionBuilder._list_comprehension_atom,
    P.PatternComprehensionAtomContext: ExpressionBuilder._pattern_comprehension_atom,
    P.ListAtomContext: ExpressionBuilder._list_atom,
    P.QuantifierAtomContext: ExpressionBuilder._quantifier_atom,
    P.ReduceAtomContext: ExpressionBuilder._reduce_atom,
    P.PatternAtomContext: ExpressionBuilder._pattern_atom,
    P.ParenAtomContext: ExpressionBuilder._paren_atom,
    P.TrimAtomContext: ExpressionBuilder._trim_atom,
    P.FunctionAtomContext: ExpressionBuilder._function_atom,
    P.MapProjectionAtomContext: ExpressionBuilder._map_projection_atom,
    P.VariableAtomContext: ExpressionBuilder._variable_atom,
}
