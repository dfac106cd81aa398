"""Variable scopes for semantic analysis: each name maps to what it holds."""
from __future__ import annotations

from typing import Iterable, Optional

from .. import ast

NODE, REL, PATH, VALUE, ANY = "node", "relationship", "path", "value", "any"


class Scope:
    """Names bound at one point of a query, with their kind (node, relationship, path, value, any)."""

    __slots__ = ("kinds", "search_without_score", "outer")

    def __init__(self, kinds: Optional[dict[str, str]] = None):
        self.kinds: dict[str, str] = dict(kinds or {})
        self.search_without_score = False    # for a hint when someone reads an implicit score
        # Inside a subquery (CALL (x) { }, EXISTS { }, COUNT { }, COLLECT { }): the outer variables it
        # sees, which stay in scope past its WITHs and may not be declared again (Neo4j's rules)
        self.outer: dict[str, str] = {}

    def copy(self) -> "Scope":
        out = Scope(self.kinds)
        out.search_without_score = self.search_without_score
        out.outer = self.outer
        return out

    def subquery(self, names: Optional[Iterable[str]] = None) -> "Scope":
        """The scope a subquery starts from: ``names`` of this one (all when None), seen as outer."""
        kinds = self.kinds if names is None else {name: self.kinds[name] for name in names if name in self.kinds}
        out = Scope(kinds)
        out.search_without_score = self.search_without_score
        out.outer = dict(kinds)
        return out

    def with_names(self, names: Iterable[str], kind: str = ANY) -> "Scope":
        out = self.copy()
        for name in names:
            out.kinds[name] = kind
        return out

    def __contains__(self, name: str) -> bool:
        return name in self.kinds

    def kind(self, name: str) -> Optional[str]:
        return self.kinds.get(name)

    def names(self) -> list[str]:
        return [n for n in self.kinds if not n.startswith(" ")]


def infer_kind(expr: ast.Expr, scope: Scope) -> str:
    """What a projected expression holds, as far as the text tells."""
    if isinstance(expr, ast.Variable):
        return scope.kind(expr.name) or ANY
    if isinstance(expr, (ast.Literal, ast.ListLiteral, ast.MapLiteral, ast.MapProjection,
                         ast.ListComprehension, ast.PatternComprehension, ast.IsNull, ast.TypePredicate,
                         ast.Quantifier)):
        if isinstance(expr, ast.Literal) and expr.value is None:
            return ANY
        return VALUE
    if isinstance(expr, ast.BinaryOp) and expr.op not in ("AND", "OR", "XOR"):
        return VALUE if expr.op in ("+", "-", "*", "/", "%", "^") and _both_values(expr) else ANY
    return ANY


def _both_values(expr: ast.BinaryOp) -> bool:
    return isinstance(expr.left, ast.Literal) and isinstance(expr.right, ast.Literal)
