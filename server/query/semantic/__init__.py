"""Semantic analysis: scopes, variable rules, aggregation rules and the SEARCH rules."""
from relate.protocol.errors import RelateError

from .analyzer import Analyzer
from .projection import ProjectionShape, shape_projection
from .scope import Scope


def analyze(statement, *, function_known=None, procedures=None, search_index=None):
    """Check ``statement`` (an ast.Statement); returns its result columns (None for commands). An
    error at a position says where in Neo4j's form, ``(line 1, column 18 (offset: 17))``."""
    try:
        return Analyzer(function_known=function_known, procedures=procedures,
                        search_index=search_index).statement(statement)
    except RelateError as exc:
        _locate(exc, statement)
        raise


def _locate(exc: RelateError, statement) -> None:
    """Give ``exc`` its offset and position suffix. ``statement.text`` starts at the statement's first
    token (``statement.pos``); only blanks or comments on line 1 can come before it there, so their
    width is known. A statement starting on a later line cannot be placed (the lines before it are
    not kept): its error keeps line and column only."""
    line, column = getattr(statement, "pos", None) or (1, 1)
    text = getattr(statement, "text", None)
    if line == 1 and isinstance(text, str):
        exc.locate(" " * (column - 1) + text)


__all__ = ["analyze", "Analyzer", "Scope", "ProjectionShape", "shape_projection"]
