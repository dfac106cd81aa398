"""Shared helpers of the parse-tree-to-AST builder: positions, source text, names, errors."""
from __future__ import annotations

from antlr4 import ParserRuleContext

from relate.protocol.errors import CypherSyntaxError

from .literals import decode_name
from .syntax_errors import make_syntax_error


class BuilderBase:
    """Holds the statement text; the mixins in build_*.py add one method per grammar rule."""

    def __init__(self, text: str):
        self.text = text

    @staticmethod
    def pos(ctx) -> tuple[int, int]:
        """(line, column), 1-based, of a rule context's first token."""
        token = ctx.start
        return (token.line, token.column + 1)

    @staticmethod
    def token_pos(token) -> tuple[int, int]:
        return (token.line, token.column + 1)

    def source(self, ctx) -> str:
        """The exact source text a rule context spans."""
        return self.text[ctx.start.start:ctx.stop.stop + 1]

    @staticmethod
    def name(ctx) -> str:
        """A symbolicName / variable / propertyKeyName context as a plain name."""
        return decode_name(ctx.start.text)

    def error(self, at, message: str, detail: str = "UnexpectedSyntax") -> CypherSyntaxError:
        """A syntax error located at a token or rule context ``at``."""
        token = at.start if isinstance(at, ParserRuleContext) else at
        return make_syntax_error(self.text, token.line, token.column + 1, message, detail)
