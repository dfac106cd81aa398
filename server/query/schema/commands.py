"""Schema and administration commands: CREATE/DROP INDEX and CONSTRAINT, SHOW ..., users.

``run_command`` executes one command inside the given transaction and returns a CommandResult; SHOW
commands return their rows through the normal query pipeline (YIELD / WHERE / RETURN work as in
Neo4j) by rewriting to ``UNWIND $rows AS r WITH r.a AS a, ... WHERE ... RETURN ...``.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Optional

from relate.protocol.errors import (ClientError, ConstraintNotFound, CypherSyntaxError, CypherTypeError,
                                    EquivalentSchemaRuleAlreadyExists, IndexNotFound, ParameterMissing,
                                    SchemaError)
from relate.protocol.summary import Counters

from relate.server.index.providers import is_search_kind
from relate.server.index.providers import kinds as search_kinds

from .. import ast
from ..catalog_docs import function_description, procedure_description
from . import describe, roles, types
from .catalog import LOOKUP_DEFAULTS, Catalog, Constraint, RangeIndex, generated_name, lookup_key
from .enforce import validate_existing

# Neo4j's default columns (the shell shows a result this wide record by record); the rest with YIELD.
INDEX_COLUMNS = ["id", "name", "state", "populationPercent", "type", "entityType", "labelsOrTypes", "properties",
                 "indexProvider", "owningConstraint", "lastRead", "readCount"]
INDEX_EXTRA = ["trackedSince", "options", "failureMessage", "createStatement",
               "filterProperties", "size", "skippedDocuments",      # these three: search indexes
               "shards"]                                            # sharded search indexes (docs/scale-out.md)
CONSTRAINT_COLUMNS = ["id", "name", "type", "entityType", "labelsOrTypes", "properties", "ownedIndex", "propertyType"]
CONSTRAINT_EXTRA = ["options", "createStatement"]
PROCEDURE_COLUMNS = ["name", "description", "mode", "worksOnSystem"]
PROCEDURE_EXTRA = ["signature", "argumentDescription", "returnDescription", "admin", "option"]
FUNCTION_COLUMNS = ["name", "category", "description"]
FUNCTION_EXTRA = ["signature", "isBuiltIn", "argumentDescription", "returnDescription", "aggregating"]
USER_COLUMNS = ["user", "roles", "passwordChangeRequired", "suspended", "home"]   # Neo4j's
ALIAS_COLUMNS = ["name", "composite", "database", "location", "url", "user"]
ALIAS_EXTRA = ["driver", "defaultLanguage", "properties"]
TRANSACTION_COLUMNS = ["database", "transactionId", "currentQueryId", "connectionId", "clientAddress", "username",
                       "currentQuery", "startTime", "status", "elapsedTime"]       # Neo4j's defaults
TRANSACTION_EXTRA = ["metaData", "progress"]     # progress: a LOAD CSV's file read so far
DATABASE_NAME = "neo4j"      # the one database a server or embedded directory serves (the Bolt and HTTP name)
DATABASE_COLUMNS = ["name", "type", "aliases", "access", "address", "role", "writer", "requestedStatus",
                    "currentStatus", "statusMessage", "default", "home", "constituents"]
DATABASE_EXTRA = ["lastCommittedTxn", "replicationLag", "store"]

SEARCH_INDEX_KIND = "search_index"      # the IndexManager's catalog entries

CONSTRAINT_TYPE_NAMES = {"UNIQUE": "UNIQUENESS", "NOT_NULL": "PROPERTY_EXISTENCE", "KEY": "KEY",
                         "TYPE": "PROPERTY_TYPE"}


@dataclass
class CommandResult:
    counters: Counters = field(default_factory=Counters)
    rows: Optional[list[dict]] = None        # SHOW: rows to run through the projection pipeline
    columns: list[str] = field(default_factory=list)
    show_query: Optional[ast.Query] = None
    schema_changed: bool = False
    notifications: list[dict] = field(default_factory=list)     # IF [NOT] EXISTS that did nothing (Neo4j 5.17)


def run_command(db, tx, command, params: dict, catalog: Catalog) -> CommandResult:
    handler = _HANDLERS[type(command)]
    if isinstance(getattr(command, "name", None), ast.Parameter):     # CREATE/DROP INDEX/CONSTRAINT $name
        command = replace(command, name=_parameter_name(command.name, params))
    return handler(db, tx, command, params, catalog)


def _parameter_name(parameter: ast.Parameter, params: dict) -> str:
    if parameter.name not in params:
        raise ParameterMissing(f"Expected parameter(s): {parameter.name}", phase="runtime")
    value = params[parameter.name]
    if not isinstance(value, str) or not value:
        raise CypherTypeError(f"A schema name must be a non-empty string, not {value!r}",
                              detail="InvalidArgumentType", phase="runtime")
    return value


# ---------------------------------------------------------------- constraints
def constraint_of(cmd: ast.CreateConstraint) -> Constraint:
    """The catalog object a CREATE CONSTRAINT statement names (also used by ``relate import``)."""
    kind = cmd.kind.upper()
    property_type = None
    if kind == "TYPE":
        property_type = types.normalize(cmd.type_name or "")
        try:
            types.check_known(property_type)
        except ValueError as exc:
            raise SchemaError(f"Invalid property type `{exc}` for a property type constraint",
                              phase="compile time") from None
    props = tuple(cmd.properties)
    if kind in ("TYPE",) and len(props) != 1:
        raise SchemaError("A property type constraint takes exactly one property", phase="compile time")
    name = cmd.name or generated_name("constraint", kind, cmd.entity, cmd.label, props, property_type)
    return Constraint(name, kind, cmd.entity, cmd.label, props, property_type)


def _create_constraint(db, tx, cmd: ast.CreateConstraint, params, catalog: Catalog) -> CommandResult:
    result = CommandResult()
    constraint = constraint_of(cmd)
    name, props = constraint.name, constraint.properties
    same_name = catalog.constraints.get(name)
    equivalent = next((c for c in catalog.constraints.values() if c.schema() == constraint.schema()), None)
    asked = describe.constraint_words(cmd.name, constraint.type, cmd.entity, cmd.label, props,
                                      constraint.property_type, if_not_exists=True)
    blocking = same_name or equivalent
    if blocking is not None:
        if cmd.if_not_exists:
            result.notifications.append(describe.already_exists(asked, _constraint_words(blocking)))
            return result
        if same_name is not None and same_name.schema() == constraint.schema():
            raise EquivalentSchemaRuleAlreadyExists(
                f"An equivalent constraint already exists, '{_describe_constraint(db, tx, catalog, same_name)}'.",
                phase="runtime")
        if same_name is not None:
            raise SchemaError(f"There already exists a constraint called '{name}'.",
                              code="Neo.ClientError.Schema.ConstraintWithNameAlreadyExists", phase="runtime")
        raise SchemaError(f"Constraint already exists: {_describe_constraint(db, tx, catalog, blocking)}",
                          code="Neo.ClientError.Schema.ConstraintAlreadyExists", phase="runtime")
    index = catalog.indexes.get(name)
    if index is not None or _search_index_exists(db, name, tx):
        if cmd.if_not_exists:
            existing = (describe.index_words(index.name, index.type, index.entity, index.label, index.properties)
                        if index is not None else f"INDEX {describe.plain(name)}")
            result.notifications.append(describe.already_exists(asked, existing))
            return result
        raise SchemaError(f"There already exists an index called '{name}'.",
                          code="Neo.ClientError.Schema.IndexWithNameAlreadyExists", phase="runtime")
    same_schema = (constraint.entity, constraint.label, constraint.properties)
    for other in catalog.constraints.values():
        if (other.entity, other.label, other.properties) != same_schema:
            continue
        if {other.type, constraint.type} == {"UNIQUE", "KEY"}:       # uniqueness and key: never both
            raise SchemaError(f"Constraint already exists: {_describe_constraint(db, tx, catalog, other)}",
                              code="Neo.ClientError.Schema.ConstraintAlreadyExists", phase="runtime")
        if other.type == constraint.type == "TYPE":                 # a property holds one type
            raise SchemaError(f"Conflicting constraint already exists: "
                              f"{_describe_constraint(db, tx, catalog, other)}",
                              code="Neo.ClientError.Schema.ConstraintAlreadyExists", phase="runtime")
    if constraint.owns_index:
        clash = next((i for i in catalog.indexes.values() if i.type == "RANGE"
                      and (i.entity, i.label, i.properties) == same_schema), None)
        if clash is not None:
            raise SchemaError(f"There already exists an index {describe.schema_text(*same_schema)}.\n"
                              "A constraint cannot be created until the index has been dropped.",
                              code="Neo.ClientError.Schema.IndexAlreadyExists", phase="runtime")
        tx.create_property_index(cmd.entity, cmd.label, props[0])
    validate_existing(tx, constraint)
    if constraint.owns_index:                   # Neo4j: the owned index's id, then the constraint's
        index_id, id_ = catalog.new_ids(2)
        constraint = replace(constraint, id=id_, index_id=index_id)
    else:
        constraint = replace(constraint, id=catalog.new_ids(1)[0])
    tx.put_schema(name, constraint.to_entry())
    result.counters.add("constraints_added")
    result.schema_changed = True
    return result


def _constraint_words(c: Constraint) -> str:
    return describe.constraint_words(c.name, c.type, c.entity, c.label, c.properties, c.property_type)


def _describe_constraint(db, tx, catalog: Catalog, c: Constraint) -> str:
    """Neo4j's ``Constraint( id=.., name='..', type='..', schema=.., ownedIndex=.. )`` with SHOW's ids."""
    ids = {row["name"]: row["id"] for row in show_constraints(catalog, None)}
    index_ids = {row["name"]: row["id"] for row in show_indexes(db, tx, catalog, None)} if c.owns_index else {}
    return describe.describe_constraint(c, ids.get(c.name), index_ids.get(c.name))


def _drop_constraint(db, tx, cmd: ast.DropConstraint, params, catalog: Catalog) -> CommandResult:
    result = CommandResult()
    constraint = catalog.constraints.get(cmd.name)
    if constraint is None:
        if cmd.if_exists:
            result.notifications.append(describe.does_not_exist("CONSTRAINT", cmd.name))
            return result
        raise ConstraintNotFound(f"Unable to drop constraint `{cmd.name}`: No such constraint {cmd.name}.",
                                 phase="runtime")
    tx.drop_schema(cmd.name)
    if constraint.owns_index and catalog.index_users(constraint.entity, constraint.label,
                                                     constraint.properties[0]) <= 1:
        tx.drop_property_index(constraint.entity, constraint.label, constraint.properties[0])
    result.counters.add("constraints_removed")
    result.schema_changed = True
    return result


# ---------------------------------------------------------------- indexes
def _create_index(db, tx, cmd: ast.CreateIndex, params, catalog: Catalog) -> CommandResult:
    result = CommandResult()
    kind = cmd.kind.upper()
    if is_search_kind(kind):
        return _create_search_index(db, tx, cmd, params, catalog)
    if kind not in ("RANGE", "TEXT", "POINT", "LOOKUP"):
        raise CypherSyntaxError(f"Unknown index kind `{cmd.kind}`; index kinds: RANGE, TEXT, POINT, LOOKUP, "
                                f"{', '.join(search_kinds())}", phase="compile time")
    _check_provider(kind, cmd, params)
    if kind == "LOOKUP":
        return _create_lookup_index(tx, cmd, catalog, result)
    props = tuple(cmd.properties)
    if kind in ("TEXT", "POINT") and len(props) != 1:
        raise CypherSyntaxError(f"Only single property {kind.lower()} indexes are supported", phase="compile time")
    label = cmd.labels[0]
    name = cmd.name or generated_name("index", kind, cmd.entity, label, props)
    index = RangeIndex(name, cmd.entity, label, props, kind)
    same_schema = (index.entity, index.label, index.properties)
    same_name = catalog.indexes.get(name)
    equivalent = next((i for i in catalog.indexes.values() if i.schema() == index.schema()), None)
    constraint_named = catalog.constraints.get(name)
    owner = next((c for c in catalog.constraints.values() if c.owns_index and kind == "RANGE"
                  and (c.entity, c.label, c.properties) == same_schema), None)
    if cmd.if_not_exists:
        existing = None
        if same_name is not None or equivalent is not None:
            i = same_name or equivalent
            existing = describe.index_words(i.name, i.type, i.entity, i.label, i.properties)
        elif constraint_named is not None:
            existing = _constraint_words(constraint_named)
        elif owner is not None:
            existing = describe.index_words(owner.name, "RANGE", owner.entity, owner.label, owner.properties)
        elif _search_index_exists(db, name, tx):
            existing = f"INDEX {describe.plain(name)}"
        if existing is not None:
            asked = describe.index_words(cmd.name, kind, cmd.entity, label, props, if_not_exists=True)
            result.notifications.append(describe.already_exists(asked, existing))
            return result
    if same_name is not None and same_name.schema() == index.schema():
        ids = {row["name"]: row["id"] for row in show_indexes(db, tx, catalog, None)}
        raise EquivalentSchemaRuleAlreadyExists(
            "An equivalent index already exists, "
            f"'{describe.describe_index(name, kind, index.entity, label, props, ids.get(name))}'.", phase="runtime")
    if same_name is not None or _search_index_exists(db, name, tx):
        raise SchemaError(f"There already exists an index called '{name}'.",
                          code="Neo.ClientError.Schema.IndexWithNameAlreadyExists", phase="runtime")
    if constraint_named is not None:
        raise SchemaError(f"There already exists a constraint called '{name}'.",
                          code="Neo.ClientError.Schema.ConstraintWithNameAlreadyExists", phase="runtime")
    if equivalent is not None:
        raise SchemaError(f"There already exists an index {describe.schema_text(*same_schema)}.",
                          code="Neo.ClientError.Schema.IndexAlreadyExists", phase="runtime")
    if owner is not None:
        raise SchemaError(f"There is a uniqueness constraint on {describe.schema_text(*same_schema)}, so an index "
                          "is already created that matches this.",
                          code="Neo.ClientError.Schema.ConstraintAlreadyExists", phase="runtime")
    tx.create_property_index(cmd.entity, label, props[0])
    tx.put_schema(name, replace(index, id=catalog.new_ids(1)[0]).to_entry())
    result.counters.add("indexes_added")
    result.schema_changed = True
    return result


def _check_provider(kind: str, cmd: ast.CreateIndex, params) -> None:
    """OPTIONS {indexProvider: ...} must name the kind's own provider (Neo4j 5 refuses the removed
    ``native-btree-1.0`` and the like; ``text-1.0`` is still accepted for a text index)."""
    options = _evaluate(cmd.options, params) if cmd.options is not None else None
    provider = options.get("indexProvider") if isinstance(options, dict) else None
    if provider is None:
        return
    allowed = {"LOOKUP": ("token-lookup-1.0",), "TEXT": ("text-2.0", "text-1.0")}.get(
        kind, (describe.PROVIDERS.get(kind, "range-1.0"),))
    if provider not in allowed:
        raise ClientError(f"Could not create index with specified index provider '{provider}'. To create "
                          f"{kind.lower()} index, please use '{allowed[0]}'.",
                          code="Neo.ClientError.Statement.ArgumentError")


def _create_lookup_index(tx, cmd: ast.CreateIndex, catalog: Catalog, result: CommandResult) -> CommandResult:
    """A token lookup index: one per entity, as in Neo4j. Label and type scans never need it (the store
    keeps both scans), so it is a catalog entry that SHOW INDEXES lists and DROP INDEX removes."""
    existing = catalog.lookups.get(cmd.entity)
    name = cmd.name or LOOKUP_DEFAULTS[cmd.entity]
    if existing is not None:
        if cmd.if_not_exists:
            asked = describe.index_words(cmd.name, "LOOKUP", cmd.entity, None, (), if_not_exists=True)
            result.notifications.append(describe.already_exists(
                asked, describe.index_words(existing, "LOOKUP", cmd.entity, None, ())))
            return result
        what = "(:<any-labels>)" if cmd.entity == "node" else "()-[:<any-types>]-()"
        raise SchemaError(f"An equivalent index already exists, 'Index( id={catalog.lookup_ids[cmd.entity]}, "
                          f"name='{existing}', type='LOOKUP', schema={what}, indexProvider='token-lookup-1.0' )'.",
                          code="Neo.ClientError.Schema.EquivalentSchemaRuleAlreadyExists", phase="runtime")
    if name in catalog.indexes or name in catalog.constraints or catalog.lookup_named(name) is not None \
            or isinstance(tx.schema().get(name), dict):
        if cmd.if_not_exists:
            result.notifications.append(describe.already_exists(
                describe.index_words(name, "LOOKUP", cmd.entity, None, (), if_not_exists=True), name))
            return result
        raise SchemaError(f"There already exists an index or constraint called '{name}'.",
                          code="Neo.ClientError.Schema.IndexWithNameAlreadyExists", phase="runtime")
    tx.put_schema(lookup_key(cmd.entity), {"kind": "lookup", "entity": cmd.entity, "name": name,
                                           "id": catalog.new_ids(1)[0]})
    result.counters.add("indexes_added")
    result.schema_changed = True
    return result


def _create_search_index(db, tx, cmd: ast.CreateIndex, params, catalog: Catalog) -> CommandResult:
    """Search indexes of every provider's kind belong to the IndexManager (it writes them into ``tx``)."""
    result = CommandResult()
    name = cmd.name or generated_name("index", cmd.kind, cmd.entity, tuple(cmd.labels), tuple(cmd.properties))
    if name in catalog.indexes or name in catalog.constraints:
        if cmd.if_not_exists:
            return result
        raise SchemaError(f"There already exists an index called '{name}'.",
                          code="Neo.ClientError.Schema.IndexWithNameAlreadyExists", phase="runtime")
    options = _evaluate(cmd.options, params) if cmd.options is not None else {}
    if not isinstance(options, dict):
        raise SchemaError("OPTIONS must be a map", phase="compile time")
    created = db.index_manager.create_index(cmd.kind.upper(), name, cmd.entity, list(cmd.labels),
                                            list(cmd.properties), list(cmd.with_properties or ()), options,
                                            cmd.if_not_exists, tx=tx)
    if created:
        result.counters.add("indexes_added")
        result.schema_changed = True
    elif cmd.if_not_exists:
        asked = describe.index_words(cmd.name, cmd.kind.upper(), cmd.entity, "|".join(cmd.labels),
                                     cmd.properties, if_not_exists=True)
        result.notifications.append(describe.already_exists(asked, _search_index_words(tx, name, cmd)))
    return result


def _search_index_words(tx, name: str, cmd: ast.CreateIndex) -> str:
    """The search index that blocked ``CREATE ... INDEX ... IF NOT EXISTS``: the one so named, or else one
    of the same kind over the same labels and properties."""
    schema = tx.schema()
    entry = schema.get(name)
    if not (isinstance(entry, dict) and entry.get("kind") == SEARCH_INDEX_KIND):
        name, entry = next(((n, e) for n, e in schema.items() if isinstance(e, dict)
                            and e.get("kind") == SEARCH_INDEX_KIND and str(e.get("type", "")).upper() ==
                            cmd.kind.upper() and e.get("entity") == cmd.entity
                            and list(e.get("properties") or []) == list(cmd.properties)), (name, None))
    if entry is None:
        return f"INDEX {describe.plain(name)}"
    tokens = entry.get("tokens") or []
    return describe.index_words(name, str(entry.get("type", cmd.kind)).upper(),
                                entry.get("entity", cmd.entity), "|".join(tokens) or None,
                                entry.get("properties") or [])


def _drop_index(db, tx, cmd: ast.DropIndex, params, catalog: Catalog) -> CommandResult:
    result = CommandResult()
    if cmd.name is None:        # DROP INDEX ON :Label(key, ...): the node index on exactly those keys
        words = f":{cmd.label}({', '.join(cmd.properties)})"
        found = [name for name, index in catalog.indexes.items() if index.entity == "node"
                 and index.label == cmd.label and list(index.properties) == cmd.properties]
        if not found:
            raise IndexNotFound(f"Unable to drop index on {words}. There is no such index.", phase="runtime")
        cmd = replace(cmd, name=found[0])
    index = catalog.indexes.get(cmd.name)
    lookup = catalog.lookup_named(cmd.name)
    if lookup is not None:
        tx.put_schema(lookup_key(lookup), {"kind": "lookup", "entity": lookup, "name": None})
    elif index is not None:
        tx.drop_schema(cmd.name)
        if catalog.index_users(index.entity, index.label, index.properties[0]) <= 1:
            tx.drop_property_index(index.entity, index.label, index.properties[0])
    elif cmd.name in catalog.constraints and catalog.constraints[cmd.name].owns_index:
        raise SchemaError(f"Unable to drop index: Index belongs to constraint: `{cmd.name}`",
                          code="Neo.ClientError.Schema.IndexDropFailed", phase="runtime")
    elif _search_index_exists(db, cmd.name, tx):
        db.index_manager.drop(cmd.name, tx=tx)
    elif cmd.if_exists:
        result.notifications.append(describe.does_not_exist("INDEX", cmd.name))
        return result
    else:
        raise IndexNotFound(f"Unable to drop index called `{cmd.name}`. There is no such index.", phase="runtime")
    result.counters.add("indexes_removed")
    result.schema_changed = True
    return result


def _search_index_exists(db, name: str, tx) -> bool:
    """Whether ``name`` is a search index (committed, or created earlier in ``tx``)."""
    entry = tx.schema().get(name) if tx is not None else None
    if isinstance(entry, dict) and entry.get("kind") == SEARCH_INDEX_KIND:
        return True
    manager = getattr(db, "index_manager", None)
    return manager is not None and name in manager


# ---------------------------------------------------------------- users
def _plain_password(cmd, params) -> str | None:
    """The password a CREATE/ALTER USER sets (None: it sets none). ``SET ENCRYPTED PASSWORD`` names a hash
    made elsewhere (Neo4j's own format): taking it as the password would let that text log in, so it is
    refused; Relate stores only the salted scrypt hashes it makes itself."""
    if cmd.password is None:
        return None
    if cmd.encrypted:
        raise ClientError(f"User '{cmd.name}': SET ENCRYPTED PASSWORD is not supported (Relate stores only hashes "
                          "it makes itself); set the password in plain text: it is hashed before it is stored.",
                          code="Neo.ClientError.General.InvalidArguments")
    return _evaluate(cmd.password, params)


def _create_user(db, tx, cmd: ast.CreateUser, params, catalog) -> CommandResult:
    result = CommandResult()
    created = db.users.create_user(cmd.name, _plain_password(cmd, params), change_required=cmd.change_required,
                                   suspended=bool(cmd.suspended), home=cmd.home or None,
                                   if_not_exists=cmd.if_not_exists, replace=cmd.replace, tx=tx)
    if created:
        result.counters.add("system_updates")
    return result


def _alter_user(db, tx, cmd: ast.AlterUser, params, catalog) -> CommandResult:
    result = CommandResult()
    if db.users.alter_user(cmd.name, password=_plain_password(cmd, params), change_required=cmd.change_required,
                           suspended=cmd.suspended, home=cmd.home, if_exists=cmd.if_exists, tx=tx):
        result.counters.add("system_updates")
    return result


def _rename_user(db, tx, cmd: ast.RenameUser, params, catalog) -> CommandResult:
    result = CommandResult()
    if db.users.rename_user(cmd.old, cmd.new, if_exists=cmd.if_exists, tx=tx):
        result.counters.add("system_updates")
    return result


def _drop_user(db, tx, cmd: ast.DropUser, params, catalog) -> CommandResult:
    result = CommandResult()
    if db.users.drop_user(cmd.name, if_exists=cmd.if_exists, tx=tx):
        result.counters.add("system_updates")
    return result


def show_roles(db, tx, with_users: bool) -> list[dict]:
    """SHOW ROLES [WITH USERS]: Relate's fixed roles (each may do what the ones before it may), and
    with users one row per (role, member), as Neo4j lists them."""
    from relate.server.privileges import ROLES
    if not with_users:
        return [{"role": role} for role in ROLES]
    users = db.users.list_users(tx=tx)
    rows = [{"role": role, "member": user["user"]} for role in ROLES for user in users
            if role in user["roles"]]
    held = {row["role"] for row in rows}
    rows += [{"role": role, "member": None} for role in ROLES if role not in held]
    order = {role: i for i, role in enumerate(ROLES)}
    return sorted(rows, key=lambda r: (order[r["role"]], r["member"] or ""))


def terminate_ids(cmd: ast.TerminateTransactions, params) -> list[str]:
    """The transaction ids TERMINATE TRANSACTIONS names: strings, or lists of them (a parameter)."""
    ids: list[str] = []
    for expr in cmd.ids:
        value = _evaluate(expr, params)
        for item in value if isinstance(value, list) else [value]:
            if not isinstance(item, str):
                raise CypherTypeError(f"TERMINATE TRANSACTIONS takes transaction ids (strings), got {item!r}"[:200],
                                      detail="InvalidArgumentType", phase="runtime")
            ids.append(item)
    return ids


def _evaluate(expr, params):
    """A command's constant expression (parameters allowed), outside any transaction."""
    from ..context import ExecContext
    from ..exec.expressions import compile_expression
    return compile_expression(expr, None)({}, ExecContext(None, params, None))


# ---------------------------------------------------------------- SHOW
SETTING_COLUMNS = ["name", "value", "isDynamic", "defaultValue", "description"]
SETTING_EXTRA = ["startupValue", "isExplicitlySet", "validValues", "isDeprecated"]


def _show(db, tx, cmd: ast.ShowCommand, params, catalog: Catalog) -> CommandResult:
    kind = cmd.kind.upper()
    if kind == "INDEXES":
        rows, default, extra = show_indexes(db, tx, catalog, cmd.filter), INDEX_COLUMNS, INDEX_EXTRA
    elif kind == "CONSTRAINTS":
        rows, default, extra = show_constraints(catalog, cmd.filter), CONSTRAINT_COLUMNS, CONSTRAINT_EXTRA
    elif kind == "PROCEDURES":
        rows, default, extra = show_procedures(db), PROCEDURE_COLUMNS, PROCEDURE_EXTRA
        if cmd.executable_by is not None:
            rows = _executable(db, tx, rows, cmd.executable_by)
    elif kind == "FUNCTIONS":
        rows, default, extra = show_functions(), FUNCTION_COLUMNS, FUNCTION_EXTRA
        if cmd.filter in ("BUILT IN", "USER DEFINED"):      # APOC's are Neo4j's user-defined functions
            rows = [row for row in rows if row["isBuiltIn"] == (cmd.filter == "BUILT IN")]
    elif kind in ("USERS", "CURRENT USER", "USERS WITH AUTH"):
        rows, default, extra = db.users.list_users(tx=tx), USER_COLUMNS, []
        if kind == "CURRENT USER":
            rows = [row for row in rows if row["user"] == roles.current_user_name()]
        elif kind == "USERS WITH AUTH":       # Neo4j 5: one row per user and auth provider (native only here)
            rows = [dict(row, provider="native", auth=None) for row in rows]
            default = USER_COLUMNS + ["provider", "auth"]
    elif kind in ("PRIVILEGES", "ROLE PRIVILEGES", "USER PRIVILEGES"):
        from .privileges_shown import PRIVILEGE_COLUMNS, USER_PRIVILEGE_COLUMNS, as_commands, show_privileges
        rows = show_privileges(db, tx, kind, cmd.filter, roles.current_user_name())
        default, extra = (USER_PRIVILEGE_COLUMNS if kind == "USER PRIVILEGES" else PRIVILEGE_COLUMNS), []
        if cmd.as_commands is not None:
            rows, default = as_commands(rows, cmd.as_commands == "REVOKE", kind == "USER PRIVILEGES"), ["command"]
    elif kind == "ALIASES":                   # one database and no aliases: Neo4j's columns, no rows
        rows, default, extra = [], ALIAS_COLUMNS, ALIAS_EXTRA
    elif kind in ("ROLES", "ROLES WITH USERS"):
        with_users = kind == "ROLES WITH USERS"
        rows, default, extra = show_roles(db, tx, with_users), ["role", "member"] if with_users else ["role"], []
    elif kind == "TRANSACTIONS":
        rows, default, extra = (db.show_transactions(roles.current_user_name()), TRANSACTION_COLUMNS,
                                TRANSACTION_EXTRA)
    elif kind in ("DATABASES", "DEFAULT DATABASE", "HOME DATABASE"):
        rows = show_databases(db, cmd.filter)
        default, extra = DATABASE_COLUMNS, DATABASE_EXTRA
        if kind != "DATABASES":      # SHOW DEFAULT | HOME DATABASE: no default/home columns (Neo4j)
            default = [c for c in default if c not in ("default", "home")]
    elif kind == "SETTINGS":
        from ..procedures_info import show_settings
        rows, default, extra = show_settings(db, cmd.filter), SETTING_COLUMNS, SETTING_EXTRA
    elif kind in ("RELEVANCE JOINS", "LABELS"):
        from relate.server.relevance.ddl import show_rows
        rows, default = show_rows(tx, kind)
        extra = []
    else:
        raise CypherSyntaxError(f"SHOW {kind} is not supported", detail="UnexpectedSyntax", phase="compile time")
    every = default + extra
    if cmd.yield_star:
        columns = [(c, c) for c in every]
    elif cmd.yield_items:
        for item in cmd.yield_items:
            if item.name not in every:
                raise CypherSyntaxError(f"Variable `{item.name}` not defined", detail="UndefinedVariable",
                                        phase="compile time")
        columns = [(item.name, item.alias or item.name) for item in cmd.yield_items]
    else:
        columns = [(c, c) for c in default]
    full_rows = [{c: row.get(c) for c in every} for row in rows]
    return CommandResult(rows=full_rows, show_query=show_query(columns, cmd.where, cmd.returns,
                                                               (cmd.order_by, cmd.skip, cmd.limit)))


def show_query(columns: list[tuple[str, str]], where, returns, paging: tuple = ([], None, None)) -> ast.Query:
    """``UNWIND $` rows` AS ` r WITH ` r.c AS c ... [ORDER BY .. SKIP .. LIMIT ..] [WHERE w] RETURN ...`` over
    the command's rows (``paging``: YIELD's sort keys, skip and limit)."""
    row = ast.Variable(" r")
    items = [ast.ProjectionItem(ast.Property(row, source), alias, alias) for source, alias in columns]
    order_by, skip, limit = paging
    clauses: list = [ast.Unwind(ast.Parameter(" rows"), " r"),
                     ast.With(ast.Projection(items, order_by=list(order_by), skip=skip, limit=limit), where)]
    if returns is not None:
        clauses.append(ast.Return(returns))
    else:
        clauses.append(ast.Return(ast.Projection([ast.ProjectionItem(ast.Variable(a), None, a) for _, a in columns])))
    return ast.Query([ast.SingleQuery(clauses)])


def show_databases(db, name: Optional[str]) -> list[dict]:
    """SHOW DATABASE[S] [name]: the one database, online (no system database: users live beside the data)."""
    if name is not None and name != DATABASE_NAME:
        return []
    store = getattr(db, "store", None)
    read_only = bool(getattr(store, "read_only", False))
    return [{"name": DATABASE_NAME, "type": "standard", "aliases": [], "access": "read-only" if read_only else
             "read-write", "address": None, "role": "primary", "writer": not read_only,
             "requestedStatus": "online", "currentStatus": "online", "statusMessage": "", "default": True,
             "home": True, "constituents": [], "lastCommittedTxn": getattr(store, "last_commit_ts", None),
             "replicationLag": 0, "store": "relate"}]


def show_indexes(db, tx, catalog: Catalog, filter_: Optional[str]) -> list[dict]:
    rows = []
    for entity, name in catalog.lookups.items():
        if name is not None:
            rows.append(_lookup_row(entity, name, catalog.lookup_ids[entity]))
    for index in catalog.indexes.values():
        rows.append(_index_row(index.name, index.type, index.entity, [index.label], list(index.properties), None,
                               index.id))
    for constraint in catalog.constraints.values():
        if constraint.owns_index:
            row = _index_row(constraint.name, "RANGE", constraint.entity, [constraint.label],
                             list(constraint.properties), constraint.name, constraint.index_id)
            # Neo4j: a constraint's index shows the statement creating the constraint, with its OPTIONS
            row["createStatement"] = (describe.constraint_statement(constraint) + " OPTIONS "
                                      + describe.options_text(row["options"]))
            rows.append(row)
    manager = getattr(db, "index_manager", None)
    if manager is not None:
        for entry in manager.list():
            row = {c: None for c in INDEX_COLUMNS + INDEX_EXTRA}
            row.update(entry)
            rows.append(row)
    wanted = (filter_ or "ALL").upper()
    if wanted != "ALL":
        rows = [r for r in rows if str(r.get("type", "")).upper() == wanted]
    rows.sort(key=lambda r: str(r.get("name")))
    return rows


def _lookup_row(entity: str, name: str, id_: int) -> dict:
    var, each = ("n", "ON EACH labels(n)") if entity == "node" else ("r", "ON EACH type(r)")
    target = "(n)" if entity == "node" else "()-[r]-()"
    return {"id": id_, "name": name, "state": "ONLINE", "populationPercent": 100.0,
            "type": "LOOKUP", "entityType": "NODE" if entity == "node" else "RELATIONSHIP", "labelsOrTypes": None,
            "properties": None, "indexProvider": "token-lookup-1.0", "owningConstraint": None, "lastRead": None,
            "readCount": 0, "trackedSince": None, "options": {"indexConfig": {}, "indexProvider": "token-lookup-1.0"},
            "failureMessage": "", "createStatement": f"CREATE LOOKUP INDEX {describe.quote(name)} FOR {target} {each}",
            "filterProperties": None, "size": None, "skippedDocuments": None, "shards": None}


def _index_row(name, type_, entity, labels, properties, owner, id_) -> dict:
    entity_type = "NODE" if entity == "node" else "RELATIONSHIP"
    options = describe.index_options(type_)
    return {"id": id_, "name": name, "state": "ONLINE", "populationPercent": 100.0,
            "type": type_,
            "entityType": entity_type, "labelsOrTypes": labels, "properties": properties,
            "indexProvider": options["indexProvider"], "owningConstraint": owner, "lastRead": None,
            "readCount": 0, "trackedSince": None, "options": options, "failureMessage": "",
            "createStatement": describe.index_statement(name, type_, entity, labels[0], properties)}


def show_constraints(catalog: Catalog, filter_: Optional[str]) -> list[dict]:
    rows = []
    for c in sorted(catalog.constraints.values(), key=lambda c: c.name):
        prefix = "NODE_" if c.entity == "node" else "RELATIONSHIP_"
        type_name = CONSTRAINT_TYPE_NAMES[c.type]
        if not (c.entity == "node" and c.type == "UNIQUE"):
            type_name = prefix + type_name
        rows.append({"id": c.id, "name": c.name, "type": type_name, "entityType": "NODE" if c.entity == "node"
                     else "RELATIONSHIP", "labelsOrTypes": [c.label], "properties": list(c.properties),
                     "ownedIndex": c.name if c.owns_index else None, "propertyType": c.property_type,
                     "options": describe.constraint_options(c), "createStatement": describe.constraint_statement(c)})
    entity, _, wanted = (filter_ or "ALL").upper().rpartition(" ")    # [NODE |RELATIONSHIP ]UNIQUE|...
    if entity:
        rows = [r for r in rows if r["entityType"] == entity]
    if wanted == "UNIQUE":
        rows = [r for r in rows if "UNIQUENESS" in r["type"]]
    elif wanted == "KEY":
        rows = [r for r in rows if r["type"].endswith("KEY")]
    elif wanted in ("EXISTS", "EXIST", "EXISTENCE"):
        rows = [r for r in rows if "EXISTENCE" in r["type"]]
    elif wanted == "TYPE":
        rows = [r for r in rows if r["type"].endswith("PROPERTY_TYPE")]
    return rows


def _executable(db, tx, rows: list[dict], user: str) -> list[dict]:
    """The procedures ``user`` ("" : the current one) may call; every one where nobody logs in (embedded,
    or a server without authentication)."""
    from relate.server.privileges import holds, procedure_role
    name = user or roles.current_user_name()
    if name is None:
        return rows
    entry = db.users.get(name, tx=tx)
    if entry is None:
        raise ClientError(f"User '{name}' does not exist.", code="Neo.ClientError.General.InvalidArguments")
    return [row for row in rows if holds(entry, procedure_role(row["name"], row["mode"]))]


def show_procedures(db) -> list[dict]:
    """SHOW PROCEDURES rows from the procedure registry."""
    return [{"name": p.name, "description": p.description or procedure_description(p.name, p.signature()),
             "mode": p.mode, "worksOnSystem": False, "signature": p.signature(),
             "argumentDescription": [{"name": n, "type": t} for n, t, _ in p.inputs],
             "returnDescription": [{"name": n, "type": t} for n, t in p.outputs], "admin": False, "option": {}}
            for p in db.procedures.all()]


def show_functions() -> list[dict]:
    """SHOW FUNCTIONS rows from the function registry (scalar and aggregating)."""
    from ..exec import functions
    rows = []
    for info in functions.catalog():
        rows.append({"name": info.name, "category": "Aggregating" if info.aggregating else "Scalar",
                     "description": info.description or function_description(info.name),
                     "signature": info.signature, "isBuiltIn": info.is_builtin,
                     "argumentDescription": info.argument_description,
                     "returnDescription": info.return_description, "aggregating": info.aggregating})
    return rows


_HANDLERS = {
    ast.CreateConstraint: _create_constraint, ast.DropConstraint: _drop_constraint,
    ast.CreateIndex: _create_index, ast.DropIndex: _drop_index, ast.ShowCommand: _show,
    ast.CreateUser: _create_user, ast.AlterUser: _alter_user, ast.DropUser: _drop_user,
    ast.RenameUser: _rename_user,
    ast.GrantRole: roles.grant_role, ast.AlterCurrentPassword: roles.alter_current_password,
}

from relate.server.relevance.ddl import HANDLERS as _RELEVANCE_HANDLERS  # noqa: E402
_HANDLERS.update(_RELEVANCE_HANDLERS)     # CREATE/DROP RELEVANCE JOIN and LABEL
from .tables import HANDLERS as _TABLE_HANDLERS  # noqa: E402
_HANDLERS.update(_TABLE_HANDLERS)         # Kuzu's CREATE NODE | REL TABLE and DROP TABLE
