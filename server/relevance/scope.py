"""The caller's scope (user + context/tenant), bound by the server to a session, never a parameter.

A user's allowed contexts live on the user's catalog record (``contexts``), set by an administrator
with ``CALL dbms.security.setUserContexts('alice', ['acme'])``. At LOGON a client may name one of
them (driver option ``context=``); a user with exactly one context gets it by default. Searches,
relevance joins and scoped labels read only nodes of that scope; without one they read nothing.
"""
from __future__ import annotations

from relate.protocol.errors import AuthenticationError, ClientError

USER_PREFIX = "user:"


def allowed_contexts(users, user: str) -> list[str]:
    entry = users.get(user) if users is not None else None
    contexts = (entry or {}).get("contexts") or []
    return [c for c in contexts if isinstance(c, str)]


def bind(authenticator, user: str, requested) -> dict:
    """The scope of a session that logged on as ``user`` asking for context ``requested`` (or None).
    With authentication disabled the server trusts what the client names; otherwise the context must
    be one of the user's; a refused context is an AuthenticationError (nothing is bound)."""
    if requested is not None and not isinstance(requested, str):
        raise AuthenticationError("The logon's context must be a string")
    if not getattr(authenticator, "enabled", False):
        return {"user": user, "context": requested}
    allowed = allowed_contexts(getattr(authenticator, "users", None), user)
    if requested is None:
        return {"user": user, "context": allowed[0] if len(allowed) == 1 else None}
    if requested not in allowed:
        raise AuthenticationError(f"User '{user}' may not work in the requested context")
    return {"user": user, "context": requested}


def _set_user_contexts(ctx, user, contexts):
    if not isinstance(user, str) or not isinstance(contexts, list) or \
            not all(isinstance(c, str) and c for c in contexts):
        raise ClientError("setUserContexts(user, contexts): a user name and a list of context names",
                          code="Neo.ClientError.General.InvalidArguments")
    own = None if hasattr(ctx.tx, "put_schema") else ctx.db.store.begin_write(timeout=30.0)
    tx = own or ctx.tx
    try:
        entry = tx.schema().get(USER_PREFIX + user)
        if entry is None:
            raise ClientError(f"User '{user}' does not exist.", code="Neo.ClientError.General.InvalidArguments")
        entry = dict(entry)
        entry["contexts"] = list(dict.fromkeys(contexts))
        tx.put_schema(USER_PREFIX + user, entry)
        if own is not None:
            own.commit()
    except BaseException:
        if own is not None:
            own.rollback()
        raise
    return [{"user": user, "contexts": entry["contexts"]}]


def register(registry) -> None:
    registry.register("dbms.security.setUserContexts", [("username", "STRING?"), ("contexts", "LIST? OF STRING?")],
                      [("user", "STRING?"), ("contexts", "LIST? OF STRING?")], _set_user_contexts, mode="DBMS",
                      description="Set the scope contexts a user may work in.")


def node_filter(ctx, active_only: bool = True):
    """A predicate over node ids for index searches (``db.index.*.queryNodes``, ``SEARCH``): nodes of a
    scoped or curated label pass only inside the session's scope and lifecycle (never statuses and
    nodes without a status never; other inactive ones only when not ``active_only``, for SEARCH, whose
    MATCH pattern applies the active-only rule unless the query constrains the status); None when no
    label is declared (no cost)."""
    from . import catalog as C
    rc = C.of(ctx.tx)
    if not rc.labels:
        return None
    tx = ctx.tx
    session = getattr(ctx, "scope", None) or {}
    rules: dict = {}

    def rule(label):
        found = rules.get(label)
        if found is None:
            life = rc.lifecycle(label)
            found = rules[label] = (rc.scope(label), life)
        return found

    def visible(nid: int) -> bool:
        found = tx.node(nid)
        if found is None:
            return False
        labels, props = found
        for label in labels:
            declared, life = rule(label)
            if declared:
                if session.get("user") is None:
                    return False
                for prop, key in declared:
                    value = session.get(key)
                    if value is None or props.get(prop) != value:
                        return False
            if life is not None:
                status = props.get(life.status_property)
                if status is None or status in life.never or \
                        (active_only and life.active is not None and status not in life.active):
                    return False
        return True
    return visible
