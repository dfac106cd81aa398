"""Updating operators: CREATE, MERGE, SET, REMOVE, DELETE. Each counts what it changes (Neo4j's counters)."""
from __future__ import annotations

from typing import Any

from relate.protocol.errors import CypherSemanticError, CypherTypeError
from relate.protocol.values import Vector

from ...context import checked
from ...refs import NodeRef, PathRef, RelRef
from .base import FRESH_ROW_SOURCES, Operator
from .paths import build_path
from ..values.ops import type_name

_STORABLE = (str, int, float, bool, bytes, Vector)
_STORABLE_ITEMS = frozenset(_STORABLE + (type(None),))     # list items accepted without a closer look


def check_property(key: str, value: Any) -> Any:
    """The value as stored: scalars, temporal values, vectors, or homogeneous lists of them (Neo4j's arrays).

    A list may not hold null, lists, maps or entities, nor mix kinds; integers mixed with floats are
    stored as floats, as Neo4j coerces such a list to a float array.
    """
    t = type(value)
    if t in _STORABLE:
        return value
    if t is list:
        return _storable_list(key, value)
    if not _scalar(value):
        raise CypherTypeError(f"Property `{key}`: values of type {type_name(value)} cannot be stored "
                              "(only primitive types, temporal values, vectors and lists of them)",
                              detail="InvalidPropertyType", phase="runtime")
    return value


def _storable_list(key: str, value: list) -> list:
    """A list property as Neo4j stores it, or the error Neo4j gives for it."""
    kinds = set(map(type, value))       # one C-level pass: a 384-float embedding costs ~2 us
    if len(kinds) <= 1 and _STORABLE_ITEMS.issuperset(kinds) and type(None) not in kinds:
        return value
    if kinds == {int, float}:
        return [float(item) for item in value]
    if type(None) in kinds:
        raise _list_error("Collections containing null values can not be stored in properties.")
    if list in kinds:
        raise _list_error("Collections containing collections can not be stored in properties.")
    for item in value:
        if not _scalar(item):
            raise CypherTypeError(f"Property `{key}`: collections of {type_name(item)} cannot be stored",
                                  detail="InvalidPropertyType", phase="runtime")
    if len(kinds) > 1:
        raise _list_error("Neo4j only supports a subset of Cypher types for storage as singleton or array "
                          "properties. Please refer to section cypher/syntax/values of the manual for more details.")
    return value


def _list_error(message: str) -> CypherTypeError:
    return CypherTypeError(message, detail="InvalidPropertyType", phase="runtime")


def _scalar(value) -> bool:
    t = type(value)
    if t in _STORABLE:
        return True
    if t in (dict, list, NodeRef, RelRef, PathRef):
        return False
    return hasattr(value, "to_state")        # temporal values and durations


def _props_dict(value, what: str) -> dict:
    if value is None:
        return {}
    if type(value) is not dict:
        raise CypherTypeError(f"{what}: expected a map of properties, got {type_name(value)}",
                              detail="InvalidArgumentType", phase="runtime")
    return value


# ---------------------------------------------------------------- CREATE
class NodeSpec:
    """A node of a CREATE/MERGE pattern, compiled; a ``$(e)`` label is a compiled expression in place."""
    __slots__ = ("var", "labels", "props", "dynamic")

    def __init__(self, var, labels, props):
        self.var, self.labels, self.props = var, tuple(labels), props
        self.dynamic = not all(isinstance(label, str) for label in self.labels)


class RelSpec:
    """A relationship of a CREATE/MERGE pattern; its type a name or a compiled ``$(e)``."""
    __slots__ = ("var", "type", "props", "direction")

    def __init__(self, var, type_, props, direction):
        self.var, self.type, self.props, self.direction = var, type_, props, direction


def _rel_type(spec: RelSpec, row: dict, ctx) -> str:
    if type(spec.type) is str:
        return spec.type
    names = _dynamic_labels((spec.type,), row, ctx)
    if len(names) != 1:
        raise CypherTypeError(f"A relationship is created with exactly one type, not {len(names)}",
                              detail="InvalidArgumentValue", phase="runtime")
    return names[0]


class PartSpec:
    """A compiled pattern part: alternating NodeSpec / RelSpec, and the path variable."""
    __slots__ = ("elements", "path_var", "path_elements", "nodes", "rels")

    def __init__(self, elements, path_var, path_elements):
        self.elements, self.path_var, self.path_elements = elements, path_var, path_elements
        self.nodes = elements[0::2]
        # (relationship, variable of its start node, variable of its end node)
        self.rels = [(rel, elements[i + 1].var, elements[i - 1].var) if rel.direction == "in"
                     else (rel, elements[i - 1].var, elements[i + 1].var)
                     for i, rel in enumerate(elements) if i % 2]


def create_part(ctx, row: dict, part: PartSpec) -> None:
    """Create what ``part`` describes into ``row`` (bound nodes are reused)."""
    tx = ctx.tx
    nodes = labels = props_set = rels = 0
    try:
        for spec in part.nodes:
            if spec.var in row:
                bound = row[spec.var]
                if bound is None and part.rels:
                    raise CypherSemanticError(f"Failed to create relationship: node `{spec.var.strip()}` is null",
                                              phase="runtime")
                if bound is not None and type(bound) is not NodeRef:
                    raise CypherTypeError(f"CREATE: `{spec.var.strip()}` must be a node, but it is "
                                          f"{type_name(bound)}", detail="InvalidArgumentType", phase="runtime")
                continue
            props = _clean_props(spec.props(row, ctx)) if spec.props is not None else {}
            names = spec.labels if not spec.dynamic else tuple(dict.fromkeys(_dynamic_labels(spec.labels, row, ctx)))
            nid = tx.create_node(names, props, fresh=True)
            nodes += 1
            labels += len(names)
            props_set += len(props)
            ctx.touched_nodes.add(nid)
            row[spec.var] = NodeRef(nid)
        for spec, start_var, end_var in part.rels:
            props = _clean_props(spec.props(row, ctx)) if spec.props is not None else {}
            rid = tx.create_rel(_rel_type(spec, row, ctx), row[start_var].id, row[end_var].id, props, fresh=True)
            rels += 1
            props_set += len(props)
            ctx.touched_rels.add(rid)
            row[spec.var] = RelRef(rid)
    finally:
        if nodes or rels:
            ctx.writes = True
        count_created(ctx.counters, nodes, labels, rels, props_set)
    if part.path_var:
        row[part.path_var] = build_path(tx, row, part.path_elements)


def count_created(counters, nodes: int, labels: int, rels: int, props_set: int) -> None:
    """Add what a CREATE made to the statement's counters (nothing for zeros)."""
    if nodes:
        counters.add("nodes_created", nodes)
    if labels:
        counters.add("labels_added", labels)
    if props_set:
        counters.add("properties_set", props_set)
    if rels:
        counters.add("relationships_created", rels)


def _clean_props(props) -> dict:
    """The non-null entries of a property map, each checked to be storable."""
    if type(props) is not dict:
        if props is None:
            return {}
        raise CypherTypeError(f"CREATE: expected a map of properties, got {type_name(props)}",
                              detail="InvalidArgumentType", phase="runtime")
    out = {}
    for key, value in props.items():
        if value is None:
            continue
        out[key] = value if type(value) in _STORABLE else check_property(key, value)
    return out


class Create(Operator):
    __slots__ = ("parts",)
    name = "Create"

    def __init__(self, source, parts):
        self.source, self.parts = source, parts

    def rows(self, ctx, arg):
        parts = self.parts
        if len(parts) == 1 and not parts[0].path_var:
            if len(parts[0].elements) == 3 and type(parts[0].elements[1].type) is str:
                yield from self._one_rel(ctx, arg, parts[0])
                return
            if len(parts[0].elements) == 1 and not parts[0].elements[0].dynamic:
                yield from self._one_node(ctx, arg, parts[0].elements[0])
                return
        for row in self.source.rows(ctx, arg):
            out = dict(row)
            for part in parts:
                create_part(ctx, out, part)
            yield out

    def _one_node(self, ctx, arg, spec):
        """``CREATE (n:Label {...})``, the node load shape: one node per row, counters added once (also
        when the rows stop early or fail). A row where the variable is already bound takes the general path."""
        var, labels, props_fn = spec.var, spec.labels, spec.props
        create_node = ctx.tx.create_node
        touched = ctx.touched_nodes.add
        nodes = props_set = 0
        fresh = type(self.source).__name__ in FRESH_ROW_SOURCES
        try:
            for row in self.source.rows(ctx, arg):
                if var in row:
                    out = dict(row)
                    create_part(ctx, out, PartSpec([spec], None, None))
                    yield out
                    continue
                props = _clean_props(props_fn(row, ctx)) if props_fn is not None else {}
                nid = create_node(labels, props, fresh=True)
                nodes += 1
                props_set += len(props)
                touched(nid)
                ctx.writes = True          # per row: a CALL IN TRANSACTIONS batch commit may come next
                out = row if fresh else dict(row)
                out[var] = NodeRef(nid)
                yield out
        finally:
            count_created(ctx.counters, nodes, nodes * len(labels), 0, props_set)

    def _one_rel(self, ctx, arg, part):
        """``CREATE (a)-[:T]->(b)`` between bound nodes, the load shape: one relationship per row, no
        per-row counter updates (they are added once, also when the rows stop early or fail).
        Rows where an end is not bound (or not a node) take the general path."""
        (spec, start_var, end_var), = part.rels
        rel_type, props_fn, rel_var = spec.type, spec.props, spec.var
        tx = ctx.tx
        create_rel = tx.create_rel
        touched = ctx.touched_rels.add
        rels = props_set = 0
        fresh = type(self.source).__name__ in FRESH_ROW_SOURCES
        try:
            for row in self.source.rows(ctx, arg):
                start = row.get(start_var)
                end = row.get(end_var)
                if type(start) is not NodeRef or type(end) is not NodeRef:
                    out = dict(row)
                    create_part(ctx, out, part)
                    yield out
                    continue
                if props_fn is None:
                    rid = create_rel(rel_type, start.id, end.id, None)
                else:
                    props = _clean_props(props_fn(row, ctx))
                    rid = create_rel(rel_type, start.id, end.id, props, fresh=True)
                    props_set += len(props)
                rels += 1
                touched(rid)
                ctx.writes = True          # per row: a CALL IN TRANSACTIONS batch commit may come next
                out = row if fresh else dict(row)
                out[rel_var] = RelRef(rid)
                yield out
        finally:
            count_created(ctx.counters, 0, 0, rels, props_set)


# ---------------------------------------------------------------- MERGE
class Merge(Operator):
    """Match the pattern (seeing this statement's own writes); create it when nothing matches."""
    __slots__ = ("part", "matcher", "on_create", "on_match")
    name = "Merge"

    def __init__(self, source, part, matcher, on_create, on_match):
        self.source, self.part, self.matcher = source, part, matcher
        self.on_create, self.on_match = on_create, on_match

    def nested(self):
        return [self.matcher]

    def rows(self, ctx, arg):
        for row in self.source.rows(ctx, arg):
            self._check_nulls(ctx, row)
            matches = list(self.matcher.rows(ctx, row))
            if matches:
                for out in matches:
                    if self.on_match:
                        apply_set_items(ctx, out, self.on_match)
                    yield out
                continue
            out = dict(row)
            create_part(ctx, out, self.part)
            if self.on_create:
                apply_set_items(ctx, out, self.on_create)
            yield out

    def _check_nulls(self, ctx, row):
        for spec in self.part.elements:
            if spec.props is None or spec.var in row:
                continue
            props = spec.props(row, ctx)
            if type(props) is dict:
                for key, value in props.items():
                    if value is None:
                        raise CypherSemanticError(
                            f"Cannot merge the following {'node' if isinstance(spec, NodeSpec) else 'relationship'}"
                            f" because of null property value for '{key}'", detail="MergeReadOwnWrites",
                            phase="runtime")


# ---------------------------------------------------------------- SET / REMOVE
class SetSpec:
    """A compiled SET item: kind is property | replace | merge | labels."""
    __slots__ = ("kind", "subject", "key", "value", "labels")

    def __init__(self, kind, subject=None, key=None, value=None, labels=()):
        self.kind, self.subject, self.key, self.value, self.labels = kind, subject, key, value, labels


def _dynamic_key(key, clause: str) -> str:
    """The key of ``n[key]`` in SET or REMOVE: a string (Neo4j's dynamic property keys)."""
    if type(key) is not str:
        raise CypherTypeError(f"{clause} n[key]: a property key must be a String, not {type_name(key)}",
                              detail="InvalidArgumentType", phase="runtime")
    return key


def _set_prop(ctx, entity, key: str, value) -> None:
    tx = ctx.tx
    if type(entity) is NodeRef:
        if value is None:
            if tx.node_prop(entity.id, key) is None:
                return
        else:
            value = check_property(key, value)
        tx.set_node_prop(entity.id, key, value)
        ctx.touched_nodes.add(entity.id)
    else:
        if value is None:
            if tx.rel_prop(entity.id, key) is None:
                return
        else:
            value = check_property(key, value)
        tx.set_rel_prop(entity.id, key, value)
        ctx.touched_rels.add(entity.id)
    ctx.counters.add("properties_set")
    ctx.writes = True


def _entity(value, what: str):
    if value is None or type(value) is NodeRef or type(value) is RelRef:
        return value
    raise CypherTypeError(f"{what}: expected a node or relationship, got {type_name(value)}",
                          detail="InvalidArgumentType", phase="runtime")


def _dynamic_labels(labels, row: dict, ctx) -> list[str]:
    """SET n:$(expr): each expression gives a label or a list of labels (non-empty strings)."""
    out = []
    for label in labels:
        value = label if isinstance(label, str) else label(row, ctx)
        for name in (value if isinstance(value, list) else [value]):
            if not isinstance(name, str) or not name:
                raise CypherTypeError(f"A dynamic label must be a non-empty string, not {type_name(name)}",
                                      detail="InvalidArgumentType", phase="runtime")
            out.append(name)
    return out


def apply_set_items(ctx, row: dict, items) -> None:
    tx = ctx.tx
    for item in items:
        kind = item.kind
        if kind == "property":
            entity = _entity(item.subject(row, ctx), "SET")
            if entity is not None:
                _set_prop(ctx, entity, item.key, item.value(row, ctx))
        elif kind == "dynamic_property":
            entity = _entity(item.subject(row, ctx), "SET")
            if entity is not None:
                _set_prop(ctx, entity, _dynamic_key(item.key(row, ctx), "SET"), item.value(row, ctx))
        elif kind == "labels" or kind == "dynamic_labels":
            node = item.subject(row, ctx)
            if node is None:
                continue
            if type(node) is not NodeRef:
                raise CypherTypeError(f"SET labels: expected a node, got {type_name(node)}",
                                      detail="InvalidArgumentType", phase="runtime")
            labels = item.labels if kind == "labels" else _dynamic_labels(item.labels, row, ctx)
            added = tx.add_labels(node.id, labels)
            if added:
                ctx.counters.add("labels_added", added)
                ctx.touched_nodes.add(node.id)
                ctx.writes = True
        else:
            entity = _entity(item.subject(row, ctx), "SET")
            if entity is None:
                continue
            value = item.value(row, ctx)
            if type(value) is NodeRef:
                value = dict(tx.node_props(value.id))
            elif type(value) is RelRef:
                value = dict(tx.rel_props(value.id))
            value = _props_dict(value, "SET")
            if kind == "replace":
                current = tx.node_props(entity.id) if type(entity) is NodeRef else tx.rel_props(entity.id)
                for key in [k for k in current if k not in value]:
                    _set_prop(ctx, entity, key, None)
            for key, v in value.items():
                _set_prop(ctx, entity, key, v)


class SetItems(Operator):
    __slots__ = ("items",)
    name = "SetProperties"

    def __init__(self, source, items):
        self.source, self.items = source, items

    def rows(self, ctx, arg):
        items = self.items
        for row in self.source.rows(ctx, arg):
            apply_set_items(ctx, row, items)
            yield row


class RemoveItems(Operator):
    """REMOVE n.prop / REMOVE n:Label; items are SetSpec (kind property with value None, or labels)."""
    __slots__ = ("items",)
    name = "Remove"

    def __init__(self, source, items):
        self.source, self.items = source, items

    def rows(self, ctx, arg):
        for row in self.source.rows(ctx, arg):
            for item in self.items:
                entity = item.subject(row, ctx)
                if entity is None:
                    continue
                if item.kind == "property":
                    _set_prop(ctx, _entity(entity, "REMOVE"), item.key, None)
                elif item.kind == "dynamic_property":
                    _set_prop(ctx, _entity(entity, "REMOVE"), _dynamic_key(item.key(row, ctx), "REMOVE"), None)
                else:
                    if type(entity) is not NodeRef:
                        raise CypherTypeError(f"REMOVE labels: expected a node, got {type_name(entity)}",
                                              detail="InvalidArgumentType", phase="runtime")
                    labels = item.labels if item.kind == "labels" else _dynamic_labels(item.labels, row, ctx)
                    removed = ctx.tx.remove_labels(entity.id, labels)
                    if removed:
                        ctx.counters.add("labels_removed", removed)
                        ctx.touched_nodes.add(entity.id)
                        ctx.writes = True
            yield row


# ---------------------------------------------------------------- DELETE
class Delete(Operator):
    """DELETE / DETACH DELETE. A node deleted with relationships left is checked when the statement ends."""
    __slots__ = ("exprs", "detach")

    def __init__(self, source, exprs, detach):
        self.source, self.exprs, self.detach = source, exprs, detach

    @property
    def name(self):
        return "DetachDelete" if self.detach else "Delete"

    def rows(self, ctx, arg):
        for row in self.source.rows(ctx, arg):
            for fn in self.exprs:
                delete_value(ctx, fn(row, ctx), self.detach)
            yield row


def delete_value(ctx, value, detach: bool) -> None:
    t = type(value)
    if value is None:
        return
    if t is NodeRef:
        _delete_node(ctx, value.id, detach)
    elif t is RelRef:
        delete_relationship(ctx, value.id)
    elif t is PathRef:
        for rel in value.rels:
            delete_relationship(ctx, rel.id)
        for node in value.nodes:
            _delete_node(ctx, node.id, detach)
    elif t is list:
        for item in checked(value, ctx):
            delete_value(ctx, item, detach)
    else:
        raise CypherTypeError(f"DELETE expected a node, relationship or path, got {type_name(value)}",
                              detail="InvalidArgumentType", phase="runtime")


def delete_relationship(ctx, rid: int) -> None:
    """Delete a relationship of the statement's transaction (if it still exists), counted."""
    tx = ctx.tx
    if not tx.rel_exists(rid):
        return
    ctx.deleted_rels[rid] = tx.rel_type(rid)
    tx.delete_rel(rid)
    ctx.counters.add("relationships_deleted")
    ctx.writes = True


def _delete_node(ctx, nid: int, detach: bool) -> None:
    tx = ctx.tx
    if not tx.node_exists(nid):
        return
    rels = list(dict.fromkeys(rid for rid, _ in tx.expand(nid, "both", None)))
    if detach:
        for rid in checked(rels, ctx):
            delete_relationship(ctx, rid)
    elif rels:
        ctx.pending_deletes[nid] = rels      # fine if the same statement deletes them too
    tx.delete_node(nid)
    ctx.counters.add("nodes_deleted")
    ctx.deleted_nodes.add(nid)
    ctx.writes = True
