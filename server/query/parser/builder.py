"""Parse tree to AST: the statement level, on top of the command/clause/pattern/expression mixins."""
from __future__ import annotations

from relate.server.query import ast

from .build_commands import CommandBuilder


class AstBuilder(CommandBuilder):
    """Turns a ``statementEOF`` parse tree into an ast.Statement."""

    def statement(self, ctx) -> ast.Statement:
        statement = ctx.statement()
        if statement.cypherPrefix() is not None:
            self._cypher_prefix(statement.cypherPrefix())
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

    def _cypher_prefix(self, ctx) -> None:
        """``CYPHER 5 runtime=slotted``: a known language version and known options, whose values are
        hints this engine has no use for (one runtime, one planner)."""
        if ctx.version is not None and ctx.version.text not in _VERSIONS:
            raise self.error(ctx.version, f"Invalid Cypher version '{ctx.version.text}': this server speaks "
                                          "Cypher 5 and Cypher 25", "InvalidCypherOption")
        seen = set()
        for option in ctx.cypherOption():
            name = self.name(option.symbolicName(0)).lower()
            if name not in _OPTIONS:
                raise self.error(option, f"Unsupported options: {self.name(option.symbolicName(0))}",
                                 "InvalidCypherOption")
            if name in seen:
                raise self.error(option, f"Option `{name}` given twice", "InvalidCypherOption")
            seen.add(name)


_VERSIONS = ("5", "25")
# Neo4j's query options (lower case); their values choose among runtimes and planners Relate has one of.
_OPTIONS = frozenset(("runtime", "planner", "expressionengine", "operatorengine", "interpretedpipesfallback",
                      "replan", "connectcomponentsplanner", "updatestrategy", "debug", "inferschemaparts",
                      "eageranalyzer", "statefulshortestplanningmode", "labelinference", "parallelruntimesupport"))
