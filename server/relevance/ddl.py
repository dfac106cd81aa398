"""CREATE/DROP RELEVANCE JOIN, CREATE/DROP LABEL and their SHOW rows (schema commands)."""
from __future__ import annotations

from relate.protocol.errors import EquivalentSchemaRuleAlreadyExists, SchemaError

from relate.server.query import ast

from . import catalog as C

JOIN_COLUMNS = ["name", "anchorLabels", "anchorProperty", "type", "targetLabel", "mode", "via", "indexes",
                "k", "minScore", "cacheTtl", "maxAnchors", "intent", "description"]
LABEL_COLUMNS = ["name", "parents", "lifecycle", "scope"]


def _options(expr, params):
    from relate.server.query.schema.commands import _evaluate
    return None if expr is None else _evaluate(expr, params)


def _result():
    from relate.server.query.schema.commands import CommandResult
    return CommandResult()


def create_join(db, tx, cmd: ast.CreateRelevanceJoin, params, catalog):
    result = _result()
    key = C.JOIN_PREFIX + cmd.name
    join = C.make_join(cmd.name, cmd.anchor_labels, cmd.rel_type, cmd.target_label, cmd.anchor_property,
                       _options(cmd.options, params))
    schema = tx.schema()
    if key in schema:
        if cmd.if_not_exists:
            return result
        raise EquivalentSchemaRuleAlreadyExists(f"A relevance join named `{cmd.name}` already exists")
    rels = C.from_schema(schema)
    for other in rels.joins.values():
        if (other.rel_type, other.target_label, C.via_key(other.via)) == \
                (join.rel_type, join.target_label, C.via_key(join.via)) and \
                set(other.anchor_labels) & set(join.anchor_labels):
            raise SchemaError(f"Relevance join `{other.name}` already answers "
                              f"(:{'|'.join(other.anchor_labels)})-[:{join.rel_type}]->(:{join.target_label}) "
                              f"with via {join.via!r}")
    manager = db.index_manager
    for name in join.indexes:
        if name not in manager and not isinstance(schema.get(name), dict):
            raise SchemaError(f"Relevance join `{cmd.name}` names index `{name}`, which does not exist")
    tx.put_schema(key, join.to_entry())
    result.counters.add("system_updates")
    result.schema_changed = True
    return result


def drop_join(db, tx, cmd: ast.DropRelevanceJoin, params, catalog):
    result = _result()
    key = C.JOIN_PREFIX + cmd.name
    if key not in tx.schema():
        if cmd.if_exists:
            return result
        raise SchemaError(f"There is no relevance join named `{cmd.name}`")
    tx.drop_schema(key)
    result.counters.add("system_updates")
    result.schema_changed = True
    return result


def create_label(db, tx, cmd: ast.CreateLabel, params, catalog):
    result = _result()
    key = C.LABEL_PREFIX + cmd.name
    decl = C.make_label(cmd.name, _options(cmd.options, params))
    if key in tx.schema():
        if cmd.if_not_exists:
            return result
        raise EquivalentSchemaRuleAlreadyExists(f"Label `{cmd.name}` is already declared")
    tx.put_schema(key, decl.to_entry())
    result.counters.add("system_updates")
    result.schema_changed = True
    return result


def drop_label(db, tx, cmd: ast.DropLabel, params, catalog):
    result = _result()
    key = C.LABEL_PREFIX + cmd.name
    if key not in tx.schema():
        if cmd.if_exists:
            return result
        raise SchemaError(f"Label `{cmd.name}` is not declared")
    tx.drop_schema(key)
    result.counters.add("system_updates")
    result.schema_changed = True
    return result


def show_rows(tx, kind: str):
    """(rows, default columns) for SHOW RELEVANCE JOINS / SHOW LABEL DECLARATIONS."""
    rels = C.from_schema(tx.schema())
    if kind == "RELEVANCE JOINS":
        return [j.show_row() for j in sorted(rels.joins.values(), key=lambda j: j.name)], JOIN_COLUMNS
    return [d.show_row() for d in sorted(rels.labels.values(), key=lambda d: d.name)], LABEL_COLUMNS


HANDLERS = {ast.CreateRelevanceJoin: create_join, ast.DropRelevanceJoin: drop_join,
            ast.CreateLabel: create_label, ast.DropLabel: drop_label}
