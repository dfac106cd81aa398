"""APOC functions on nodes and relationships: degrees by type pattern, relationship checks, labels, types
and properties (apoc.node.*, apoc.nodes.connected, apoc.rel.*, apoc.any.properties, apoc.label.exists)."""
from __future__ import annotations

from relate.server.query.exec.functions.apoc.args import as_list, as_str, invalid
from relate.protocol.values import label_list
from relate.server.query.exec.functions.registry import function, type_error
from relate.server.query.refs import NodeRef, RelRef


def rel_patterns(name: str, spec) -> list[tuple[str | None, str]]:
    """APOC's relationship pattern 'KNOWS>|<LIKES|FOLLOWS' as [(type or None, direction)]: '>' after a
    type is outgoing, '<' before it incoming; '' or null is every type both ways; '>' or '<' alone is
    every type in that direction."""
    if spec is None or spec == "":
        return [(None, "both")]
    out = []
    for part in as_str(name, spec).split("|"):
        part = part.strip()
        if part.startswith("<"):
            out.append((part[1:] or None, "in"))
        elif part.endswith(">"):
            out.append((part[:-1] or None, "out"))
        elif part:
            out.append((part, "both"))
    return out or [(None, "both")]


def _node(name: str, node) -> NodeRef:
    if type(node) is not NodeRef:
        raise type_error(name, node, "a Node")
    return node


def _degree(ctx, node: NodeRef, patterns) -> int:
    total = 0
    for rel_type, direction in patterns:
        total += ctx.tx.degree(node.id, direction, None if rel_type is None else (rel_type,))
    return total


@function("apoc.node.degree", 1, 2, pure=False, description="The number of a node's relationships matching a type "
                                                            "pattern ('TYPE>|<TYPE2'; all by default) (APOC).")
def degree(ctx, node, types=""):
    if node is None:
        return None
    return _degree(ctx, _node("apoc.node.degree", node), rel_patterns("apoc.node.degree", types))


def _directed(name: str, ctx, node, types, direction: str):
    if node is None:
        return None
    node = _node(name, node)
    if types is None or types == "":
        return ctx.tx.degree(node.id, direction, None)
    return _degree(ctx, node, [(t.strip(), direction) for t in as_str(name, types).split("|") if t.strip()])


@function("apoc.node.degree.in", 1, 2, pure=False, description="The number of a node's incoming relationships (of a "
                                                               "type) (APOC).")
def degree_in(ctx, node, types=""):
    return _directed("apoc.node.degree.in", ctx, node, types, "in")


@function("apoc.node.degree.out", 1, 2, pure=False, description="The number of a node's outgoing relationships (of a "
                                                                "type) (APOC).")
def degree_out(ctx, node, types=""):
    return _directed("apoc.node.degree.out", ctx, node, types, "out")


def _has_rel(ctx, node: NodeRef, rel_type: str | None, direction: str) -> bool:
    return next(iter(ctx.tx.expand(node.id, direction, None if rel_type is None else (rel_type,))), None) is not None


@function("apoc.node.relationship.exists", 1, 2, pure=False,
          description="Whether a node has a relationship matching a type pattern ('TYPE>|<TYPE2') (APOC).")
def relationship_exists(ctx, node, types=""):
    if node is None:
        return None
    node = _node("apoc.node.relationship.exists", node)
    return any(_has_rel(ctx, node, t, d) for t, d in rel_patterns("apoc.node.relationship.exists", types))


@function("apoc.node.relationships.exist", 1, 2, pure=False,
          description="For each part of a type pattern: whether the node has such a relationship, as a map (APOC).")
def relationships_exist(ctx, node, types=""):
    if node is None:
        return None
    node = _node("apoc.node.relationships.exist", node)
    if types is None or types == "":
        raise invalid("apoc.node.relationships.exist", "name the relationship types to look for")
    return {part.strip(): any(_has_rel(ctx, node, t, d) for t, d in rel_patterns("apoc.node.relationships.exist", part))
            for part in as_str("apoc.node.relationships.exist", types).split("|") if part.strip()}


@function("apoc.node.relationship.types", 1, 2, pure=False,
          description="The distinct types of a node's relationships, among a type pattern's (APOC).")
def relationship_types(ctx, node, types=""):
    if node is None:
        return None
    node = _node("apoc.node.relationship.types", node)
    found: dict[str, None] = {}
    for rel_type, direction in rel_patterns("apoc.node.relationship.types", types):
        for rid, _ in ctx.tx.expand(node.id, direction, None if rel_type is None else (rel_type,)):
            ctx.check()
            found.setdefault(ctx.tx.rel_type(rid))
    return list(found)


@function("apoc.nodes.connected", 2, 3, pure=False,
          description="Whether two nodes are joined by a relationship matching a type pattern (APOC).")
def connected(ctx, start, end, types=""):
    if start is None or end is None:
        return False
    start, end = _node("apoc.nodes.connected", start), _node("apoc.nodes.connected", end)
    for rel_type, direction in rel_patterns("apoc.nodes.connected", types):
        for _, other in ctx.tx.expand(start.id, direction, None if rel_type is None else (rel_type,)):
            ctx.check()
            if other == end.id:
                return True
    return False


@function("apoc.node.labels", 1, pure=False, description="The labels of a node (APOC).")
def node_labels(ctx, node):
    return None if node is None else label_list(ctx.tx.node_labels(_node("apoc.node.labels", node).id))


@function("apoc.node.id", 1, pure=False, description="The id of a node (APOC).")
def node_id(ctx, node):
    return None if node is None else _node("apoc.node.id", node).id


@function("apoc.rel.id", 1, pure=False, description="The id of a relationship (APOC).")
def rel_id(ctx, rel):
    if rel is None:
        return None
    if type(rel) is not RelRef:
        raise type_error("apoc.rel.id", rel, "a Relationship")
    return rel.id


@function("apoc.rel.type", 1, pure=False, description="The type of a relationship (APOC).")
def rel_type(ctx, rel):
    if rel is None:
        return None
    if type(rel) is not RelRef:
        raise type_error("apoc.rel.type", rel, "a Relationship")
    return ctx.tx.rel_type(rel.id)


@function("apoc.any.properties", 1, 2, pure=False,
          description="The properties of a node, relationship or map (only the given keys when a list is passed) (APOC).")
def any_properties(ctx, entity, keys=None):
    if entity is None:
        return None
    if type(entity) is dict:
        props = entity
    elif type(entity) is NodeRef:
        props = ctx.tx.node_props(entity.id)
    elif type(entity) is RelRef:
        props = ctx.tx.rel_props(entity.id)
    else:
        raise type_error("apoc.any.properties", entity, "a Map, Node or Relationship")
    if keys is None:
        return dict(props)
    wanted = as_list("apoc.any.properties", keys)
    return {k: props[k] for k in wanted if type(k) is str and k in props}


@function("apoc.label.exists", 2, pure=False, description="Whether a node has a label (or a relationship is of a "
                                                          "type) (APOC).")
def label_exists(ctx, entity, label):
    if entity is None or label is None:
        return False
    label = as_str("apoc.label.exists", label)
    if type(entity) is NodeRef:
        return label in ctx.tx.node_labels(entity.id)
    if type(entity) is RelRef:
        return ctx.tx.rel_type(entity.id) == label
    raise type_error("apoc.label.exists", entity, "a Node or Relationship")
