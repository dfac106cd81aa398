"""The APOC graph-refactoring procedures GraphRAG tools call: ``apoc.refactor.mergeNodes`` (neo4j-graphrag's
entity resolvers merge duplicate entities with it), ``apoc.create.addLabels`` and ``apoc.create.node`` /
``apoc.create.relationship`` (dynamic labels and types from LLM-extracted graphs)."""
from __future__ import annotations

from relate.protocol.errors import ArgumentError

from .exec.operators.write import delete_relationship
from .procedures_compat import _writer
from .refs import NodeRef, RelRef

_POLICIES = ("discard", "overwrite", "override", "combine")


def register_refactor(registry) -> None:
    registry.register("apoc.refactor.mergeNodes", [("nodes", "LIST? OF NODE?"), ("config", "MAP?", {})],
                      [("node", "NODE?")], merge_nodes, mode="WRITE",
                      description="Merge nodes into the first one: labels, properties (config.properties: "
                                  "overwrite, discard or combine) and relationships (config.mergeRels).")
    registry.register("apoc.create.addLabels", [("nodes", "ANY?"), ("labels", "LIST? OF STRING?")],
                      [("node", "NODE?")], add_labels, mode="WRITE",
                      description="Add labels, given as strings, to a node or a list of nodes.")
    registry.register("apoc.create.node", [("labels", "LIST? OF STRING?"), ("props", "MAP?")],
                      [("node", "NODE?")], create_node, mode="WRITE",
                      description="Create a node with labels given as strings.")
    registry.register("apoc.create.relationship", [("from", "NODE?"), ("relType", "STRING?"), ("props", "MAP?"),
                                                   ("to", "NODE?")],
                      [("rel", "RELATIONSHIP?")], create_relationship, mode="WRITE",
                      description="Create a relationship whose type is given as a string.")


def _labels(labels, name: str) -> list[str]:
    if labels is None:
        return []
    if not isinstance(labels, list) or not all(isinstance(label, str) and label for label in labels):
        raise ArgumentError(f"{name}: labels must be a list of non-empty strings")
    return list(dict.fromkeys(labels))


def _props(props, name: str) -> dict:
    if props is None:
        return {}
    if not isinstance(props, dict):
        raise ArgumentError(f"{name}: properties must be a map")
    return {k: v for k, v in props.items() if v is not None}


def add_labels(ctx, nodes, labels):
    """apoc.create.addLabels(node | [nodes], labels): each node, with the labels added."""
    tx = _writer(ctx, "apoc.create.addLabels")
    wanted = _labels(labels, "apoc.create.addLabels")
    targets = nodes if isinstance(nodes, list) else [nodes]
    out = []
    for node in targets:
        if node is None:
            continue
        if not isinstance(node, NodeRef):
            raise ArgumentError("apoc.create.addLabels takes a node or a list of nodes")
        added = tx.add_labels(node.id, wanted)
        ctx.counters.add("labels_added", added)
        ctx.touched_nodes.add(node.id)
        out.append({"node": node})
    return out


def create_node(ctx, labels, props):
    tx = _writer(ctx, "apoc.create.node")
    wanted, values = _labels(labels, "apoc.create.node"), _props(props, "apoc.create.node")
    nid = tx.create_node(wanted, values)
    ctx.counters.add("nodes_created")
    ctx.counters.add("labels_added", len(wanted))
    ctx.counters.add("properties_set", len(values))
    ctx.touched_nodes.add(nid)
    return [{"node": NodeRef(nid)}]


def create_relationship(ctx, start, rel_type, props, end):
    if not isinstance(start, NodeRef) or not isinstance(end, NodeRef):
        raise ArgumentError("apoc.create.relationship needs a start node and an end node")
    if not isinstance(rel_type, str) or not rel_type:
        raise ArgumentError("apoc.create.relationship needs a relationship type")
    tx = _writer(ctx, "apoc.create.relationship")
    values = _props(props, "apoc.create.relationship")
    rid = _new_relationship(ctx, tx, rel_type, start.id, end.id, values)
    ctx.counters.add("properties_set", len(values))
    return [{"rel": RelRef(rid)}]


def _new_relationship(ctx, tx, rel_type: str, start: int, end: int, props: dict) -> int:
    rid = tx.create_rel(rel_type, start, end, props)
    ctx.counters.add("relationships_created")
    ctx.touched_rels.add(rid)
    return rid


def _relationships(tx, nid: int, directions: tuple[str, ...]):
    """(rid, (type, start, end, props)) of each relationship of ``nid``, once (a self-loop shows twice)."""
    seen = set()
    for direction in directions:
        for rid, _ in list(tx.expand(nid, direction)):
            rel = None if rid in seen else tx.rel(rid)
            seen.add(rid)
            if rel is not None:
                yield rid, rel


def _combined(policy: str, kept, incoming):
    """The value a property keeps when two merged entities both have it."""
    if policy == "discard":
        return kept
    if policy in ("overwrite", "override"):
        return incoming
    values = list(kept) if isinstance(kept, list) else [kept]          # combine: distinct values, in order
    for value in incoming if isinstance(incoming, list) else [incoming]:
        if value not in values:
            values.append(value)
    return values[0] if len(values) == 1 else values


def _merge_props(policy: str, target: dict, source: dict) -> dict:
    """The properties to set on the target so that it holds ``source``'s too, by ``policy``."""
    changes = {}
    for key, value in source.items():
        if key not in target:
            changes[key] = value
        else:
            merged = _combined(policy, target[key], value)
            if merged != target[key]:
                changes[key] = merged
    return changes


def merge_nodes(ctx, nodes, config=None):
    """APOC's mergeNodes: the first node takes the others' labels, properties and relationships, and the
    others are deleted; with ``mergeRels`` the target's relationships of one type, direction and other end
    become one."""
    config = dict(config or {})
    policy = str(config.get("properties", "overwrite")).lower()
    if policy not in _POLICIES:
        raise ArgumentError(f"apoc.refactor.mergeNodes: properties must be one of {', '.join(_POLICIES)}, "
                            f"not {config.get('properties')!r}")
    if nodes is None:
        return []
    if not isinstance(nodes, list) or not all(n is None or isinstance(n, NodeRef) for n in nodes):
        raise ArgumentError("apoc.refactor.mergeNodes takes a list of nodes")
    ids = list(dict.fromkeys(n.id for n in nodes if n is not None))
    if not ids:
        return []
    tx = _writer(ctx, "apoc.refactor.mergeNodes")
    target, sources = ids[0], ids[1:]
    if tx.node(target) is None:
        return []
    merged = set(sources)
    for source in sources:
        ctx.check()
        found = tx.node(source)
        if found is None:
            continue
        labels, props = found
        ctx.counters.add("labels_added", tx.add_labels(target, labels))
        changes = _merge_props(policy, dict(tx.node_props(target)), dict(props))
        for key, value in changes.items():
            tx.set_node_prop(target, key, value)
            ctx.counters.add("properties_set")
        _move_relationships(ctx, tx, source, target, merged)
        tx.delete_node(source)
        ctx.counters.add("nodes_deleted")
        ctx.deleted_nodes.add(source)
    ctx.touched_nodes.add(target)
    if config.get("mergeRels", False):
        _merge_parallel_relationships(ctx, tx, target, policy)
    return [{"node": NodeRef(target)}]


def _move_relationships(ctx, tx, source: int, target: int, merged: set[int]) -> None:
    """Recreate each of ``source``'s relationships on ``target`` (an end among the merged nodes becomes
    the target too: a self-loop), then delete the original."""
    for rid, (rel_type, start, end, props) in list(_relationships(tx, source, ("both",))):
        start = target if start == source or start in merged else start
        end = target if end == source or end in merged else end
        delete_relationship(ctx, rid)
        _new_relationship(ctx, tx, rel_type, start, end, dict(props))


def _merge_parallel_relationships(ctx, tx, target: int, policy: str) -> None:
    """mergeRels: relationships of one type, direction and other end are folded into the first one."""
    first: dict[tuple, int] = {}
    for rid, (rel_type, start, end, props) in list(_relationships(tx, target, ("out", "in"))):
        kept = first.setdefault((rel_type, start, end), rid)
        if kept == rid:
            continue
        for name, value in _merge_props(policy, dict(tx.rel_props(kept)), dict(props)).items():
            tx.set_rel_prop(kept, name, value)
            ctx.counters.add("properties_set")
        delete_relationship(ctx, rid)
