"""Cypher text to AST: ``parse(text) -> ast.Statement`` and ``parse_script(text) -> [ast.Statement]``."""
from __future__ import annotations

from antlr4.Token import Token

from relate.grammar._generated.CypherLexer import CypherLexer
from relate.server.query import ast

from .antlr_driver import lex, parse_tree
from .fast_lexer import tokenize
from .builder import AstBuilder

__all__ = ["parse", "parse_script", "split_statements"]


def parse(text: str) -> ast.Statement:
    """Parse one statement (an optional trailing ``;`` is allowed); raises CypherSyntaxError."""
    return AstBuilder(text).statement(parse_tree(text))


def split_statements(text: str) -> list[str]:
    """The statements of a script, split on top-level ``;`` (never inside strings, names or comments)."""
    pieces, start = [], None
    tokens = tokenize(text)
    for token in lex(text).tokens if tokens is None else tokens:
        if token.type == Token.EOF:
            break
        if token.type == CypherLexer.SEMI:
            if start is not None:
                pieces.append(text[start:token.start])
            start = None
        elif start is None:
            start = token.start
    if start is not None:
        pieces.append(text[start:])
    return [piece.rstrip() for piece in pieces]


def parse_script(text: str) -> list[ast.Statement]:
    """Parse every statement of a ``;``-separated script."""
    return [parse(statement) for statement in split_statements(text)]
