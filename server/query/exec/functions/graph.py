"""Graph functions: id, elementId, labels, type, keys, properties, startNode, endNode, nodes,
relationships, length. Entities are NodeRef / RelRef / PathRef read through ``ctx.tx``."""
from __future__ import annotations

from relate.protocol.values import label_list
from relate.server.query.exec.functions.registry import function, type_error
from relate.server.query.refs import NodeRef, PathRef, RelRef


@function("id", 1, pure=False, description="The internal id of a node or relationship.")
def id_(ctx, v):
    if v is None:
        return None
    if type(v) is NodeRef or type(v) is RelRef:
        return v.id
    raise type_error("id", v, "a Node or Relationship")


@function("elementId", 1, pure=False, description="The element id of a node or relationship.")
def element_id(ctx, v):
    if v is None:
        return None
    if type(v) is NodeRef:
        return f"n:{v.id}"          # same form as relate.Node.element_id
    if type(v) is RelRef:
        return f"r:{v.id}"
    raise type_error("elementId", v, "a Node or Relationship")


@function("labels", 1, pure=False, description="The labels of a node.")
def labels(ctx, v):
    if v is None:
        return None
    if type(v) is NodeRef:
        return label_list(ctx.tx.node_labels(v.id))
    raise type_error("labels", v, "a Node", detail="InvalidArgumentValue")


@function("type", 1, pure=False, description="The type of a relationship.")
def type_(ctx, v):
    if v is None:
        return None
    if type(v) is RelRef:
        deleted = ctx.deleted_rels.get(v.id)       # Neo4j reads the type of one deleted in the transaction
        return ctx.tx.rel_type(v.id) if deleted is None else deleted
    raise type_error("type", v, "a Relationship", detail="InvalidArgumentValue")


@function("keys", 1, pure=False, description="The property keys of a node, relationship or map.")
def keys(ctx, v):
    if v is None:
        return None
    t = type(v)
    if t is dict:
        return list(v.keys())
    if t is NodeRef:
        return list(ctx.tx.node_props(v.id).keys())
    if t is RelRef:
        return list(ctx.tx.rel_props(v.id).keys())
    raise type_error("keys", v, "a Map, Node or Relationship")


@function("properties", 1, pure=False, description="The properties of a node or relationship as a map.")
def properties(ctx, v):
    if v is None:
        return None
    t = type(v)
    if t is dict:
        return v
    if t is NodeRef:
        return dict(ctx.tx.node_props(v.id))
    if t is RelRef:
        return dict(ctx.tx.rel_props(v.id))
    raise type_error("properties", v, "a Map, Node or Relationship")


@function("startNode", 1, pure=False, description="The start node of a relationship.")
def start_node(ctx, v):
    if v is None:
        return None
    if type(v) is RelRef:
        return NodeRef(ctx.tx.rel_endpoints(v.id)[0])
    raise type_error("startNode", v, "a Relationship")


@function("endNode", 1, pure=False, description="The end node of a relationship.")
def end_node(ctx, v):
    if v is None:
        return None
    if type(v) is RelRef:
        return NodeRef(ctx.tx.rel_endpoints(v.id)[1])
    raise type_error("endNode", v, "a Relationship")


@function("nodes", 1, description="The nodes of a path.")
def nodes(ctx, v):
    if v is None:
        return None
    if type(v) is PathRef:
        return list(v.nodes)
    raise type_error("nodes", v, "a Path")


@function("relationships", 1, description="The relationships of a path.")
def relationships(ctx, v):
    if v is None:
        return None
    if type(v) is PathRef:
        return list(v.rels)
    raise type_error("relationships", v, "a Path")


@function("length", 1, description="The number of relationships in a path.")
def length(ctx, v):
    if v is None:
        return None
    if type(v) is PathRef:
        return len(v.rels)
    raise type_error("length", v, "a Path")


@function("apoc.any.property", 2, pure=False, description="A property of a node, relationship or map (APOC).")
def any_property(ctx, v, key):
    if v is None or key is None:
        return None
    if type(key) is not str:
        raise type_error("apoc.any.property", key, "a String")
    if type(v) is dict:
        return v.get(key)
    if type(v) is NodeRef:
        return ctx.tx.node_prop(v.id, key)
    if type(v) is RelRef:
        return ctx.tx.rel_prop(v.id, key)
    raise type_error("apoc.any.property", v, "a Map, Node or Relationship")
