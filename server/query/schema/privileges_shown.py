"""SHOW [ALL] PRIVILEGES, SHOW ROLE name[, ...] PRIVILEGES and SHOW USER [name[, ...]] PRIVILEGES, as
columns or AS [REVOKE] COMMANDS, in Neo4j's terms: what Relate's fixed roles (``relate.server.privileges``)
may do, each role holding what the ones before it hold."""
from __future__ import annotations

from typing import Any

from .describe import quote

PRIVILEGE_COLUMNS = ["access", "action", "resource", "graph", "segment", "role", "immutable"]
USER_PRIVILEGE_COLUMNS = PRIVILEGE_COLUMNS + ["user"]

# (action, resource, segment, the GRANT command's text) per role, added to those of the roles before it.
_GRANTS: dict[str, list[tuple[str, str, str, str]]] = {
    "reader": [
        ("access", "database", "database", "ACCESS ON DATABASE *"),
        ("match", "all_properties", "NODE(*)", "MATCH {*} ON GRAPH * NODE *"),
        ("match", "all_properties", "RELATIONSHIP(*)", "MATCH {*} ON GRAPH * RELATIONSHIP *"),
        ("show_index", "database", "database", "SHOW INDEX ON DATABASE *"),
        ("show_constraint", "database", "database", "SHOW CONSTRAINT ON DATABASE *"),
        ("execute", "database", "PROCEDURE(*)", "EXECUTE PROCEDURE * ON DBMS"),
        ("execute_function", "database", "FUNCTION(*)", "EXECUTE FUNCTION * ON DBMS"),
    ],
    "editor": [
        ("write", "graph", "NODE(*)", "WRITE ON GRAPH *"),
        ("write", "graph", "RELATIONSHIP(*)", "WRITE ON GRAPH *"),
        ("token", "database", "database", "NAME MANAGEMENT ON DATABASE *"),
    ],
    "admin": [
        ("index", "database", "database", "INDEX MANAGEMENT ON DATABASE *"),
        ("constraint", "database", "database", "CONSTRAINT MANAGEMENT ON DATABASE *"),
        ("transaction_management", "database", "USER(*)", "TRANSACTION MANAGEMENT (*) ON DATABASE *"),
        ("dbms_actions", "database", "database", "ALL DBMS PRIVILEGES ON DBMS"),
    ],
}


def role_privileges(role: str) -> list[dict[str, Any]]:
    """The privilege rows of one of the fixed roles (none for another name)."""
    from relate.server.privileges import ROLES
    if role not in ROLES:
        return []
    rows = []
    for held in ROLES[:ROLES.index(role) + 1]:
        for action, resource, segment, command in _GRANTS[held]:
            rows.append({"access": "GRANTED", "action": action, "resource": resource, "graph": "*",
                         "segment": segment, "role": role, "immutable": True,
                         "command": command})
    return rows


def show_privileges(db, tx, kind: str, names: str | None, current_user: str | None) -> list[dict[str, Any]]:
    """The rows of SHOW PRIVILEGES (``kind`` "PRIVILEGES"), SHOW ROLE names PRIVILEGES ("ROLE PRIVILEGES")
    or SHOW USER [names] PRIVILEGES ("USER PRIVILEGES"; no names: the current user's), each with its
    ``command`` text (``GRANT ... TO `role```) for AS COMMANDS."""
    from relate.server.privileges import ROLES, roles_of
    if kind == "PRIVILEGES":
        return [row for role in ROLES for row in role_privileges(role)]
    wanted = names.split("\n") if names else []
    if kind == "ROLE PRIVILEGES":
        return [row for role in dict.fromkeys(wanted) for row in role_privileges(role)]
    users = wanted or ([current_user] if current_user is not None else [])
    rows = []
    for user in dict.fromkeys(users):
        for role in roles_of(db.users.get(user, tx=tx)):
            rows += [dict(row, user=user) for row in role_privileges(role)]
    return rows


def as_commands(rows: list[dict[str, Any]], revoke: bool, of_user: bool = False) -> list[dict[str, Any]]:
    """One ``command`` row per distinct privilege command (Neo4j lists a privilege on nodes and on
    relationships that one command grants once): ``GRANT ... TO `role``` or ``REVOKE GRANT ... FROM `role```;
    a user's privileges name ``$role`` (Neo4j's: the commands that would give a role what the user holds)."""
    seen: dict[str, None] = {}
    for row in rows:
        role = "$role" if of_user else quote(row["role"])
        text = f"REVOKE GRANT {row['command']} FROM {role}" if revoke else f"GRANT {row['command']} TO {role}"
        seen[text] = None
    return [{"command": text} for text in seen]
