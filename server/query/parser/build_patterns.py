"""Parse tree to AST: patterns (nodes, relationships, path parts, shortest paths)."""
from __future__ import annotations

from relate.grammar._generated.CypherParser import CypherParser as P
from relate.server.query import ast

from .build_expressions import ExpressionBuilder
from .literals import decode_integer

_SHORTEST = {P.SHORTESTPATH: "shortest", P.ALLSHORTESTPATHS: "all"}


class PatternBuilder(ExpressionBuilder):
    """Builds ast.PatternPart lists from pattern contexts."""

    def pattern(self, ctx) -> list[ast.PatternPart]:
        return [self.pattern_part(part) for part in ctx.patternPart()]

    def pattern_part(self, ctx) -> ast.PatternPart:
        variable = ctx.variable()
        anonymous = ctx.anonymousPatternPart()
        shortest = None if anonymous.shortest is None else _SHORTEST[anonymous.shortest.type]
        selector = anonymous.pathSelector()
        if selector is not None:
            shortest = self._selector(selector)
        return ast.PatternPart(None if variable is None else self.name(variable),
                               self.pattern_element(anonymous.patternElement()), shortest,
                               pos=self.pos(ctx))

    def _selector(self, ctx) -> str | None:
        """A GQL path selector as the shortest-path kind it is: ALL SHORTEST is allShortestPaths, ANY
        SHORTEST and SHORTEST 1 shortestPath; ANY [1] keeps one path of each match (the shortest: a
        breadth-first search finds it first)."""
        kind = type(ctx)
        if kind is P.AllShortestSelectorContext:
            return "all"
        if kind is P.AnyShortestSelectorContext:
            return "shortest"
        k = 1 if ctx.k is None else self._count(ctx.k)
        if kind is P.ShortestKSelectorContext and ctx.GROUPS() is not None:
            if k == 1:
                return "all"                    # SHORTEST 1 GROUPS: every path of the shortest length
            raise self.error(ctx, f"SHORTEST {k} GROUPS is not supported (SHORTEST 1 GROUPS and ALL SHORTEST are)",
                             "UnsupportedFeature")
        if k == 1:
            return "shortest"
        if k < 1:
            raise self.error(ctx, f"The path count of a path selector must be at least 1, not {k}",
                             "InvalidArgumentValue")
        raise self.error(ctx, f"Path selectors for {k} paths are not supported (SHORTEST 1, ANY SHORTEST, "
                              "ALL SHORTEST and ANY are)", "UnsupportedFeature")

    def pattern_element(self, ctx) -> list:
        while ctx.patternElement() is not None:      # ((a)-->(b)) is (a)-->(b)
            ctx = ctx.patternElement()
        return self._chain(ctx.children)

    def relationships_pattern(self, ctx) -> ast.PatternPart:
        return ast.PatternPart(None, self._chain(ctx.children), pos=self.pos(ctx))

    def _chain(self, children) -> list:
        elements = []
        for child in children:
            if type(child) is P.NodePatternContext:
                elements.append(self.node_pattern(child))
            else:
                elements.append(self.relationship_pattern(child))
        return elements

    def node_pattern(self, ctx) -> ast.NodePattern:
        variable, labels, props = ctx.variable(), ctx.nodeLabels(), ctx.properties()
        return ast.NodePattern(None if variable is None else self.name(variable),
                               None if labels is None else self.label_expression(labels.labelExpression()),
                               None if props is None else self.properties(props),
                               self.optional_expression(ctx.expression()), pos=self.pos(ctx))

    def properties(self, ctx) -> ast.Expr:
        literal = ctx.mapLiteral()
        if literal is not None:
            return self.map_literal(literal)
        return self._parameter_atom(ctx)

    def relationship_pattern(self, ctx) -> ast.RelPattern:
        if ctx.right is not None and ctx.left is None:
            direction = "out"
        elif ctx.left is not None and ctx.right is None:
            direction = "in"
        else:
            direction = "both"
        detail = ctx.relationshipDetail()
        quantifier = ctx.quantifier()
        length = None if quantifier is None else self._quantifier(quantifier)
        if detail is None:
            return ast.RelPattern(None, [], direction, None, length, pos=self.pos(ctx))
        variable, types, span, props = (detail.variable(), detail.relationshipTypes(),
                                        detail.rangeLiteral(), detail.properties())
        if span is not None and quantifier is not None:
            raise self.error(quantifier, "A quantified relationship cannot also have a variable length (*)",
                             "InvalidQuantifier")
        return ast.RelPattern(
            None if variable is None else self.name(variable),
            [] if types is None else [self.name(name) for name in types.symbolicName()],
            direction,
            None if props is None else self.properties(props),
            length if span is None else self._range(span),
            self.optional_expression(detail.expression()),
            pos=self.pos(ctx))

    def _quantifier(self, ctx) -> tuple:
        """{n}, {m,n}, {m,}, {,n}, + and * as a variable length (a missing minimum is 0, as in Neo4j)."""
        if ctx.plus is not None:
            return (1, None)
        if ctx.star is not None:
            return (0, None)
        low = 0 if ctx.lo is None else self._count(ctx.lo)
        if ctx.COMMA() is None:
            return (low, low)
        high = None if ctx.hi is None else self._count(ctx.hi)
        if high is not None and high < low:
            raise self.error(ctx, f"A quantifier's upper bound ({high}) is below its lower bound ({low})",
                             "InvalidQuantifier")
        return (low, high)

    def _count(self, token) -> int:
        """A hop count or path count token; a syntax error past 64 bits (not silently unbounded)."""
        value, problem = decode_integer(token.text, False)
        if value is None:
            raise self.error(token, f"integer is too large: {token.text}", problem or "IntegerOverflow")
        return value

    def _range(self, ctx) -> tuple:
        low = None if ctx.lo is None else self._count(ctx.lo)
        if ctx.dots is None:
            return (low, low)
        return (low, None if ctx.hi is None else self._count(ctx.hi))
