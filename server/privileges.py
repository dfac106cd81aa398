"""Roles and what each may run, checked per statement for sessions opened by a logged-in user.

``reader`` reads (queries, SHOW, read procedures); ``editor`` also writes data; ``admin`` also runs
schema DDL (indexes, constraints), user and role administration and catalog-changing procedures.
A user whose password must change (``CHANGE REQUIRED``) may only change its own password.
Embedded sessions and ``--no-auth`` servers have no principal and may run everything.
"""
from __future__ import annotations

import contextvars

from relate.protocol.errors import ClientError

from .query import ast
from .query.planner import logical

ROLES = ("reader", "editor", "admin")          # each role may do what the ones before it may
DEFAULT_ROLES = ["reader"]                     # CREATE USER without GRANT ROLE
LEGACY_ROLES = ["admin"]                       # users stored before roles existed were all admin
_RANK = {role: rank for rank, role in enumerate(ROLES)}
# Procedures that change the catalog, other users' scope, or write outside the database directory.
_ADMIN_PROCEDURES = frozenset({"db.index.vector.setsearchoptions", "db.backup", "dbms.security.setusercontexts"})
_OPEN_SHOWS = frozenset({"INDEXES", "CONSTRAINTS", "PROCEDURES", "FUNCTIONS", "CURRENT USER", "DATABASES",
                         "DEFAULT DATABASE", "HOME DATABASE", "TRANSACTIONS"})   # TRANSACTIONS: one's own only
FORBIDDEN = "Neo.ClientError.Security.Forbidden"
CREDENTIALS_EXPIRED = "Neo.ClientError.Security.CredentialsExpired"

# The user running the current statement (read by commands such as ALTER CURRENT USER).
current_user: contextvars.ContextVar[str | None] = contextvars.ContextVar("relate_current_user", default=None)


def roles_of(entry: dict | None) -> list[str]:
    if entry is None:
        return []
    roles = entry.get("roles")
    return list(LEGACY_ROLES if roles is None else roles)


def required_role(prepared) -> str:
    """The least role that may run ``prepared`` (cached on it)."""
    role = getattr(prepared, "privilege", None)
    if role is None:
        role = prepared.privilege = _required(prepared)
    return role


def _required(prepared) -> str:
    if prepared.is_command:
        command = prepared.statement.body
        if isinstance(command, (ast.AlterCurrentPassword, ast.TerminateTransactions, ast.Extension)):
            return "reader"          # TERMINATE: the engine lets a user end only its own transactions
        if isinstance(command, ast.CopyFrom):
            return "editor"          # a data load (the LOAD CSV it runs is checked again)
        if isinstance(command, ast.ShowCommand):
            if command.kind == "USER PRIVILEGES" and command.filter is None:
                return "reader"      # one's own privileges (Neo4j lets every user list them)
            return "reader" if command.kind in _OPEN_SHOWS else "admin"
        return "admin"
    plan = prepared.plan
    role = "editor" if plan.updating else "reader"
    for op in logical.walk(plan.logical):
        if isinstance(op, logical.ProcedureCall):
            # a SCHEMA procedure creates or drops indexes (db.index.vector.createNodeIndex, Kuzu's and
            # FalkorDB's index calls): what CREATE INDEX needs
            if op.name.lower() in _ADMIN_PROCEDURES or op.mode == "SCHEMA":
                return "admin"
            if op.mode == "WRITE":
                role = "editor"
    return role


# Procedure modes that change data or the catalog (db.index.vector.createNodeIndex, setSearchOptions).
_WRITING_MODES = frozenset({"WRITE", "SCHEMA"})


def writes(prepared, procedures) -> bool:
    """Whether ``prepared`` changes data, the schema, users or the catalog: what a READ transaction may
    not run (EXPLAIN runs nothing; SHOW commands only read). Cached on ``prepared``."""
    found = prepared.writes
    if found is None:
        found = prepared.writes = _writes(prepared, procedures)
    return found


def _writes(prepared, procedures) -> bool:
    statement = prepared.statement
    if statement.mode == "EXPLAIN":
        return False
    if prepared.is_command:
        return not isinstance(statement.body, (ast.ShowCommand, ast.Extension))
    if prepared.plan.updating:
        return True
    for op in logical.walk(prepared.plan.logical):
        if isinstance(op, logical.ProcedureCall) and (op.name.lower() in _ADMIN_PROCEDURES or (
                op.name in procedures and procedures.get(op.name).mode in _WRITING_MODES)):
            return True
    return False


def procedure_role(name: str, mode: str) -> str:
    """The least role that may call procedure ``name`` of ``mode`` (SHOW PROCEDURES EXECUTABLE)."""
    if name.lower() in _ADMIN_PROCEDURES or mode == "SCHEMA":
        return "admin"
    return "editor" if mode == "WRITE" else "reader"       # as required_role decides for a CALL


def holds(entry: dict | None, role: str) -> bool:
    """Whether a user (its catalog entry) holds ``role`` or a higher one."""
    rank = _RANK[role]
    return entry is not None and any(_RANK.get(held, -1) >= rank for held in roles_of(entry))


def check(principal: str, entry: dict | None, prepared) -> None:
    """Raise Forbidden (or CredentialsExpired) unless ``principal`` may run ``prepared``."""
    # The last user this cached statement was allowed for, with that user's committed entry: a
    # changed user (roles, password) commits a new entry object, so identity says nothing changed.
    allowed = prepared.allowed
    if allowed is not None and allowed[1] is entry and allowed[0] == principal:
        return
    if entry is None:
        raise ClientError(f"User '{principal}' no longer exists.", code=FORBIDDEN)
    if entry.get("change_required") and not _changes_own_password(principal, prepared):
        raise ClientError("The credentials you provided were valid, but must be changed before you can use "
                          "this instance: ALTER CURRENT USER SET PASSWORD FROM '...' TO '...'",
                          code=CREDENTIALS_EXPIRED)
    needed = prepared.privilege or required_role(prepared)
    rank = _RANK[needed]
    roles = entry.get("roles")
    # Spelled out (no generator, no copy): this runs before every statement of a logged-in user.
    for role in LEGACY_ROLES if roles is None else roles:
        if _RANK.get(role, -1) >= rank:
            prepared.allowed = (principal, entry)
            return
    raise ClientError(f"Permission denied: user '{principal}' needs the {needed} role to run this statement.",
                      code=FORBIDDEN)


def _changes_own_password(principal: str, prepared) -> bool:
    if not prepared.is_command:
        return False
    command = prepared.statement.body
    if isinstance(command, ast.AlterCurrentPassword):
        return True
    return isinstance(command, ast.AlterUser) and command.name == principal and command.password is not None
