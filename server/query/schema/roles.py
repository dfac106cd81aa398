"""GRANT / REVOKE ROLE and ALTER CURRENT USER SET PASSWORD (see ``relate.server.privileges``)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from relate.protocol.errors import AuthenticationError, ClientError

from .. import ast

if TYPE_CHECKING:
    from .commands import CommandResult

_INVALID_ARGUMENTS = "Neo.ClientError.General.InvalidArguments"


def grant_role(db, tx, cmd: ast.GrantRole, params, catalog) -> CommandResult:
    from relate.server.privileges import ROLES, roles_of
    from .commands import CommandResult
    unknown = [role for role in cmd.roles if role not in ROLES]
    if unknown:
        raise ClientError(f"Role '{unknown[0]}' does not exist (roles: {', '.join(ROLES)}).", code=_INVALID_ARGUMENTS)
    entry = db.users.get(cmd.user, tx=tx)
    if entry is None:
        raise ClientError(f"User '{cmd.user}' does not exist.", code=_INVALID_ARGUMENTS)
    held = roles_of(entry)
    roles = [r for r in held if r not in cmd.roles] if cmd.revoke else held + [r for r in cmd.roles if r not in held]
    result = CommandResult()
    if roles != held:
        db.users.set_roles(cmd.user, roles, tx=tx)
        result.counters.add("system_updates")
    return result


def alter_current_password(db, tx, cmd: ast.AlterCurrentPassword, params, catalog) -> CommandResult:
    from relate.server.privileges import current_user
    from .commands import CommandResult, _evaluate
    user = current_user.get()
    if user is None:
        raise ClientError("ALTER CURRENT USER needs a logged-in user.", code=_INVALID_ARGUMENTS)
    old, new = _evaluate(cmd.old, params), _evaluate(cmd.new, params)
    if not isinstance(old, str) or not db.users.verify(user, old):
        raise AuthenticationError("The old password is not correct.",
                                  code="Neo.ClientError.General.InvalidArguments")
    if old == new:
        raise ClientError("The new password must differ from the old one.", code=_INVALID_ARGUMENTS)
    db.users.alter_user(user, password=new, change_required=False, tx=tx)
    result = CommandResult()
    result.counters.add("system_updates")
    return result


def current_user_name() -> str | None:
    from relate.server.privileges import current_user
    return current_user.get()
