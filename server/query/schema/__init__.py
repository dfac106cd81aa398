"""Schema: range indexes and constraints (definitions, commands, statement-end enforcement)."""
from .catalog import Catalog, Constraint, RangeIndex
from .commands import CommandResult, is_search_index, is_write_command, run_command
from .enforce import check_deletes, check_statement

__all__ = ["Catalog", "Constraint", "RangeIndex", "CommandResult", "run_command", "is_write_command",
           "is_search_index", "check_statement", "check_deletes"]
