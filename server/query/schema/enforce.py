"""Constraint checks: at the end of each writing statement, and over existing data when one is created."""
from __future__ import annotations

from relate.protocol.errors import ConstraintValidationFailed

from . import types
from .catalog import Catalog, Constraint


def check_statement(ctx, catalog: Catalog) -> None:
    """Raise ConstraintValidationFailed when what the statement touched breaks a constraint."""
    tx = ctx.tx
    by_label = catalog.by_label
    if not by_label:
        return
    node_labels = rel_types = False
    for entity, _ in by_label:
        if entity == "node":
            node_labels = True
        else:
            rel_types = True
    if node_labels and ctx.touched_nodes:
        for nid in ctx.touched_nodes:
            found = tx.node(nid)                  # (labels, props), None once deleted
            if found is None:
                continue
            for label in found[0]:
                constraints = by_label.get(("node", label))
                if constraints:
                    for constraint in constraints:
                        check_entity(tx, constraint, nid, found[1])
    if rel_types and ctx.touched_rels:            # only types with a constraint cost more than a lookup
        for rid in ctx.touched_rels:
            found = tx.rel(rid)                   # (type, start, end, props), None once deleted
            if found is None:
                continue
            constraints = by_label.get(("relationship", found[0]))
            if constraints:
                for constraint in constraints:
                    check_entity(tx, constraint, rid, found[3])


def check_deletes(ctx) -> None:
    """A node deleted without DETACH must have lost all its relationships by the statement's end."""
    tx = ctx.tx
    for nid, rels in ctx.pending_deletes.items():
        if any(tx.rel_exists(rid) for rid in rels):
            raise ConstraintValidationFailed(
                f"Cannot delete node<{nid}>, because it still has relationships. "
                "To delete this node, you must first delete its relationships (or use DETACH DELETE).",
                detail="DeleteConnectedNode", phase="runtime")


def _props(tx, entity: str, eid: int) -> dict:
    return tx.node_props(eid) if entity == "node" else tx.rel_props(eid)


def _what(constraint: Constraint, eid: int) -> str:
    if constraint.entity == "node":
        return f"Node({eid}) with label `{constraint.label}`"
    return f"Relationship({eid}) with type `{constraint.label}`"


def check_entity(tx, constraint: Constraint, eid: int, props: dict | None = None, *, existing: bool = False) -> None:
    """``props``: the entity's visible properties when the caller has them already; ``existing``: the
    data is checked for a constraint being created (duplicates are both there already)."""
    if props is None:
        props = _props(tx, constraint.entity, eid)
    kind = constraint.type
    keys = constraint.properties
    if kind in ("NOT_NULL", "KEY"):
        for key in keys:
            if props.get(key) is None:
                raise ConstraintValidationFailed(
                    f"{_what(constraint, eid)} must have the property `{key}` "
                    f"(constraint `{constraint.name}`)", detail="ConstraintViolation", phase="runtime")
    if kind == "TYPE":
        value = props.get(keys[0])
        if value is not None and not types.matches(constraint.property_type, value):
            found = (_value_type or _load_value_type())(value).removesuffix(" NOT NULL")
            raise ConstraintValidationFailed(    # Neo4j's words, then the constraint's name
                f"{_what(constraint, eid)} required the property `{keys[0]}` to be of type "
                f"{constraint.property_type}, but was of type {found} (constraint `{constraint.name}`)",
                detail="ConstraintViolation", phase="runtime")
    if kind in ("UNIQUE", "KEY"):
        values = [props.get(k) for k in keys]
        if any(v is None for v in values):
            return
        other = find_duplicate(tx, constraint, eid, values)
        if other is not None:
            # Neo4j's words (the entity that was there first), then the constraint's name
            shown = ", ".join(f"`{k}` = {_literal(v)}" for k, v in zip(keys, values))
            kind, label = ("Node", "label") if constraint.entity == "node" else ("Relationship", "type")
            named = f"{label} `{constraint.label}` and {'property' if len(keys) == 1 else 'properties'} {shown}"
            raise ConstraintValidationFailed(
                f"Both {kind}({min(eid, other)}) and {kind}({max(eid, other)}) have the {named}" if existing else
                f"{kind}({other}) already exists with {named} (constraint `{constraint.name}`)",
                detail="ConstraintViolation", phase="runtime")


def find_duplicate(tx, constraint: Constraint, eid: int, values: list):
    """Another entity with the same values for the constraint's properties, or None."""
    equals = _equals or _load_equals()
    entity, label, keys = constraint.entity, constraint.label, constraint.properties
    if tx.has_property_index(entity, label, keys[0]):
        candidates = tx.index_seek(entity, label, keys[0], values[0])
    else:
        candidates = tx.nodes_by_label(label) if entity == "node" else tx.rels_by_type(label)
    for other in candidates:
        if other == eid:
            continue
        props = _props(tx, entity, other)
        if all(equals(props.get(k), v) is True for k, v in zip(keys, values)):
            return other
    return None


def _literal(value) -> str:
    """A value as Cypher would write it (strings quoted, booleans lower case)."""
    if isinstance(value, str):
        return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return "[" + ", ".join(map(_literal, value)) + "]"
    return str(value)


_equals = None
_value_type = None


def _load_value_type():
    """``valueType()``'s type names, imported on first use (the exec package imports this one)."""
    global _value_type
    from relate.server.query.exec.functions.lists import value_type_name
    _value_type = value_type_name
    return value_type_name


def _load_equals():
    """``values_ops.equals``, imported on first use (the exec package imports this one)."""
    global _equals
    from relate.server.query.exec.values.ops import equals
    _equals = equals
    return equals


def validate_existing(tx, constraint: Constraint) -> None:
    """Check every existing entity before a constraint is created."""
    entity, label = constraint.entity, constraint.label
    groups = None
    if constraint.type == "UNIQUE":
        groups = tx.index_shared_keys(entity, label, constraint.properties[0])
    try:
        if groups is not None:                # only ids sharing an index key can be duplicates
            _check_groups(tx, constraint, groups)
            return
        ids = tx.nodes_by_label(label) if entity == "node" else tx.rels_by_type(label)
        for eid in ids:
            check_entity(tx, constraint, eid, existing=True)
    except ConstraintValidationFailed as exc:
        raise ConstraintValidationFailed(
            f"Unable to create constraint `{constraint.name}`: {exc.message}",
            code="Neo.ClientError.Schema.ConstraintCreationFailed", detail="ConstraintCreationFailed",
            phase="runtime") from None


def _check_groups(tx, constraint: Constraint, groups: list[list[int]]) -> None:
    """Check the entities of each group that are visible with the constraint's label or type."""
    is_node = constraint.entity == "node"
    for ids in groups:
        for eid in ids:
            found = tx.node(eid) if is_node else tx.rel(eid)
            if found is None or (constraint.label not in found[0] if is_node else found[0] != constraint.label):
                continue
            check_entity(tx, constraint, eid, found[1] if is_node else found[3], existing=True)
