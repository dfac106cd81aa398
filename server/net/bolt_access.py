"""The ``system`` database over Bolt.

Scripts run administration commands against ``database="system"`` (``SHOW DATABASES``, ``CREATE
USER``): Relate takes them there, with the DBMS procedures, and refuses graph statements there as
Neo4j does (``Neo.ClientError.Statement.NotSystemDatabaseError``). (Access mode READ is the engine's:
a writing statement in a READ transaction raises AccessModeError whichever door it came through.)"""
from __future__ import annotations

from relate.protocol import ProtocolViolation

from ..query import ast
from ..query.planner import logical

SYSTEM = "system"
# Operators that read the graph: a statement with one is not a system-database statement.
_GRAPH_READS = (logical.AllNodesScan, logical.NodeByLabelScan, logical.NodeIndexSeek, logical.NodeIndexRange,
                logical.NodeByIdSeek, logical.RelTypeScan, logical.Expand, logical.QuantifiedExpand,
                logical.ShortestPath, logical.PinnedAnchor, logical.Search, logical.LoadCsv)
# Commands of the system database: SHOW ... and user administration (schema commands are not).
_SYSTEM_COMMANDS = (ast.ShowCommand, ast.CreateUser, ast.AlterUser, ast.DropUser, ast.RenameUser, ast.AlterCurrentPassword,
                    ast.GrantRole, ast.TerminateTransactions)


class NotSystemDatabase(ProtocolViolation):
    """A graph statement sent to the system database."""

    code = "Neo.ClientError.Statement.NotSystemDatabaseError"


class TransactionDatabase:
    """The database one connection's statements go to: BEGIN's for the transaction it opens, each
    auto-commit RUN's own."""

    def __init__(self) -> None:
        self._tx_extra: dict = {}

    def begin(self, extra: dict) -> None:
        self._tx_extra = extra

    def is_system(self, run_extra: dict, in_tx: bool) -> bool:
        return (self._tx_extra if in_tx else run_extra).get("db") == SYSTEM


def refusal(database, query: str) -> ProtocolViolation | None:
    """Why ``query`` may not run on the system database; None when it may, or when it cannot be
    prepared (running it reports why)."""
    try:
        prepared = database.prepare(query)
    except Exception:       # noqa: BLE001 -- the RUN itself reports the error, as usual
        return None
    if _fits_system(database, prepared):
        return None
    return NotSystemDatabase(f"Not a recognised system command or procedure. This Cypher command can only "
                             f"be executed in a user database: {query.strip()[:200]}")


def _fits_system(database, prepared) -> bool:
    """Administration and SHOW commands, and statements that only call DBMS procedures."""
    if prepared.is_command:
        return isinstance(prepared.statement.body, _SYSTEM_COMMANDS)
    ops = list(logical.walk(prepared.plan.logical))
    if prepared.plan.updating or any(isinstance(op, _GRAPH_READS) for op in ops):
        return False
    return all(_procedure_mode(database, op) == "DBMS" for op in ops if isinstance(op, logical.ProcedureCall))


def _procedure_mode(database, op) -> str | None:
    try:
        return database.procedures.get(op.name).mode
    except Exception:       # noqa: BLE001 -- an unknown name was refused when the plan was made
        return None
