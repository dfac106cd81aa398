"""Parse tree to AST: patterns (nodes, relationships, path parts, shortest paths)."""
from __future__ import annotations

import dataclasses

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
        k = 1
        if selector is not None:
            shortest, k = self._selector(selector)
        name = None if variable is None else self.name(variable)
        element, wheres, inner = self._whole_group(anonymous.patternElement())
        if inner is not None:
            if name is not None:
                raise self.error(inner, "A path pattern names its path once, outside its parentheses or inside",
                                 "VariableAlreadyBound")
            name = self.name(inner)
        where = None
        for term in wheres:
            where = term if where is None else ast.BinaryOp("AND", where, term, pos=where.pos)
        return ast.PatternPart(name, self.pattern_element(element), shortest, pos=self.pos(ctx), shortest_k=k,
                               where=where, selector=selector is not None)

    def _whole_group(self, ctx):
        """A path pattern that is one parenthesized group (without a quantifier), unwrapped: the inner
        pattern, the groups' WHERE filters and the path variable named inside (``(p = (a)-->(b) WHERE
        ...)``)."""
        wheres: list[ast.Expr] = []
        variable = None
        atoms = ctx.pathAtom()
        while len(atoms) == 1 and atoms[0].parenthesizedPath() is not None:
            group = atoms[0].parenthesizedPath()
            if group.quantifier() is not None:
                break
            if group.variable() is not None:
                if variable is not None:
                    raise self.error(group.variable(), "A path pattern names its path once", "VariableAlreadyBound")
                variable = group.variable()
            if group.expression() is not None:
                wheres.insert(0, self.expression(group.expression()))
            ctx = group.patternElement()
            atoms = ctx.pathAtom()
        return ctx, wheres, variable

    def _selector(self, ctx) -> tuple[str, int]:
        """A GQL path selector as (shortest-path kind, k): ALL SHORTEST is allShortestPaths, ANY
        SHORTEST and SHORTEST 1 shortestPath, SHORTEST k the k shortest paths, SHORTEST k GROUPS every
        path of the k shortest lengths; ANY [k] keeps k paths of each match (the shortest ones)."""
        kind = type(ctx)
        if kind is P.AllShortestSelectorContext:
            return "all", 1
        if kind is P.AnyShortestSelectorContext:
            return "shortest", 1
        k = 1 if ctx.k is None else self._count(ctx.k)
        if k < 1:
            raise self.error(ctx, f"The path count of a path selector must be at least 1, not {k}",
                             "InvalidArgumentValue")
        if kind is P.ShortestKSelectorContext and ctx.GROUPS() is not None:
            return "all", k
        return "shortest", k

    def pattern_element(self, ctx) -> list:
        """The elements of a path pattern, alternating nodes and relationships (or quantified paths)."""
        atoms = ctx.pathAtom()
        while len(atoms) == 1 and atoms[0].parenthesizedPath() is not None:
            group = atoms[0].parenthesizedPath()          # ((a)-->(b)) is (a)-->(b)
            if group.quantifier() is not None or group.expression() is not None or group.variable() is not None:
                break
            atoms = group.patternElement().pathAtom()
        elements: list = []
        for atom in atoms:
            child = atom.getChild(0)
            kind = type(child)
            if kind is P.NodePatternContext:
                if elements and isinstance(elements[-1], ast.NodePattern):
                    raise self.error(child, "Two node patterns must be joined by a relationship pattern, "
                                            "as in (a)-->(b)", "InvalidPattern")
                elements.append(self.node_pattern(child))
            elif kind is P.RelationshipPatternContext:
                if not elements or not isinstance(elements[-1], ast.NodePattern):
                    raise self.error(child, "A relationship pattern must have a node pattern on each side, "
                                            "as in (a)-->(b)", "InvalidPattern")
                elements.append(self.relationship_pattern(child))
            else:
                group = self.quantified_path(child)
                if elements and isinstance(elements[-1], ast.RelPattern):
                    raise self.error(child, "A quantified path pattern follows a node pattern, not a relationship "
                                            "pattern, as in (a) ((x)-->(y)){1,3} (b)", "InvalidPattern")
                if not elements or not isinstance(elements[-1], ast.NodePattern):
                    elements.append(ast.NodePattern(None, None, None, pos=self.pos(child)))
                elements.append(group)
        if not isinstance(elements[-1], ast.NodePattern):
            if isinstance(elements[-1], ast.RelPattern):
                raise self.error(ctx, "A path pattern ends with a node pattern, as in (a)-->(b)", "InvalidPattern")
            elements.append(ast.NodePattern(None, None, None, pos=self.pos(ctx)))
        return elements

    def quantified_path(self, ctx):
        """``((a)-[r]->(b) WHERE ...){m,n}``: a path pattern repeated m to n times."""
        if ctx.quantifier() is None:
            raise self.error(ctx, "A parenthesized path pattern inside a longer path needs a quantifier, "
                                  "as in (a) ((x)-->(y)){1,3} (b)", "InvalidPattern")
        if ctx.variable() is not None:
            raise self.error(ctx.variable(), "A path variable can name a whole path pattern only, not a quantified "
                                             "path pattern inside it", "InvalidPattern")
        inner = self.pattern_element(ctx.patternElement())
        if any(isinstance(e, ast.QuantifiedPath) for e in inner):
            raise self.error(ctx, "Quantified path patterns cannot be nested", "InvalidPattern")
        if len(inner) < 3:
            raise self.error(ctx, "A quantified path pattern needs at least one relationship, as in "
                                  "((a)-->(b)){1,3}", "InvalidPattern")
        low, high = self._quantifier(ctx.quantifier())
        where = self.optional_expression(ctx.expression())
        if len(inner) == 3 and where is None and all(_bare(node) for node in inner[0::2]) \
                and inner[1].where is None and inner[1].type_labels is None and inner[1].length is None:
            # (()-[r:T]->()){m,n} is -[r:T]->{m,n}: r is the list of relationships either way
            return dataclasses.replace(inner[1], length=(low, high))
        return ast.QuantifiedPath(inner, where, low, high, pos=self.pos(ctx))

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
        args: list[ast.Expr] = []
        return ast.NodePattern(None if variable is None else self.name(variable),
                               None if labels is None else self.label_expression(labels.labelExpression(), args),
                               None if props is None else self.properties(props),
                               self.optional_expression(ctx.expression()), pos=self.pos(ctx), label_args=args)

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
        names, type_labels, args = self._rel_types(types)
        rel = ast.RelPattern(
            None if variable is None else self.name(variable),
            names,
            direction,
            None if props is None else self.properties(props),
            length if span is None else self._range(span),
            self.optional_expression(detail.expression()),
            pos=self.pos(ctx), type_labels=type_labels, type_args=args,
            type_pos=[] if types is None or not names else [self.pos(t) for t in types.relTypeName()])
        if quantifier is not None and rel.where is not None:
            # -[r:T WHERE r.x < 10]->+ : the WHERE holds for each relationship (r is one inside it, the
            # list of them after), so it is the quantified path ((:)-[r:T WHERE ...]->(:))+
            low, high = length
            hop = dataclasses.replace(rel, length=None)
            anonymous = ast.NodePattern(None, None, None, pos=rel.pos)
            return ast.QuantifiedPath([anonymous, hop, dataclasses.replace(anonymous)], None, low, high, pos=rel.pos)
        return rel

    def _rel_types(self, ctx) -> tuple[list[str], ast.LabelExpr | None, list[ast.Expr]]:
        """Static type alternatives, or (with a ``$(e)`` among them) all of them as a label expression."""
        if ctx is None:
            return [], None, []
        if ctx.labelExpression() is not None:      # -[:!A]->, -[:%]->, -[:(A|B)&!C]->
            args: list[ast.Expr] = []
            return [], self.label_expression(ctx.labelExpression(), args), args
        names = [t.symbolicName() for t in ctx.relTypeName()]
        if all(name is not None for name in names):
            return [self.name(name) for name in names], None, []
        args = []
        items: list[ast.LabelExpr] = [ast.LabelName(self.name(t.symbolicName()), pos=self.pos(t))
                                      if t.symbolicName() is not None
                                      else self.dynamic_name(t.dynamicName(), args) for t in ctx.relTypeName()]
        return [], items[0] if len(items) == 1 else ast.LabelOr(items), args

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


def _bare(node: ast.NodePattern) -> bool:
    """An anonymous node pattern with nothing to check."""
    return node.variable is None and node.labels is None and node.properties is None and node.where is None
