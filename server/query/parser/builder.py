"""Parse tree to AST: the statement level, on top of the command/clause/pattern/expression mixins."""
from __future__ import annotations

from relate.server.query import ast

from .build_commands import CommandBuilder


class AstBuilder(CommandBuilder):
    """Turns a ``statementEOF`` parse tree into an ast.Statement."""

    def statement(self, ctx) -> ast.Statement:
        statement = ctx.statement()
        mode = None
        if statement.EXPLAIN() is not None:
            mode = "EXPLAIN"
        elif statement.PROFILE() is not None:
            mode = "PROFILE"
        query = statement.query()
        if query is not None:
            body = self.query(query)
        else:
            body = self.command(statement.command().getChild(0))
        return ast.Statement(body, mode, self.source(statement), pos=self.pos(statement))
