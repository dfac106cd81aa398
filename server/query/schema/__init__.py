"""Schema: range indexes and constraints (definitions, commands, statement-end enforcement)."""
from .catalog import Catalog, Constraint, RangeIndex
from .commands import CommandResult, run_command, terminate_ids
from .enforce import check_deletes, check_statement
from . import tables

__all__ = ["Catalog", "Constraint", "RangeIndex", "CommandResult", "run_command", "terminate_ids", "check_statement",
           "check_deletes", "tables"]
