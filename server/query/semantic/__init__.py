"""Semantic analysis: scopes, variable rules, aggregation rules and the SEARCH rules."""
from .analyzer import Analyzer
from .projection import ProjectionShape, shape_projection
from .scope import Scope


def analyze(statement, *, function_known=None, procedures=None, search_index=None):
    """Check ``statement`` (an ast.Statement); returns its result columns (None for commands)."""
    return Analyzer(function_known=function_known, procedures=procedures,
                    search_index=search_index).statement(statement)


__all__ = ["analyze", "Analyzer", "Scope", "ProjectionShape", "shape_projection"]
