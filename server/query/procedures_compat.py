"""Procedures that Neo4j tools call on connect and on use, as real procedures over Relate's data and
catalog: ``dbms.components``, ``db.create.setNodeVectorProperty`` /
``db.create.setRelationshipVectorProperty``, the subset of APOC that schema readers need
(``apoc.meta.data``, ``apoc.meta.graph``, ``apoc.schema.nodes``, ``apoc.schema.properties.distinct``) and graph loaders call (``apoc.merge.node``,
``apoc.merge.relationship``), and Neo4j 5's schema procedures: ``db.schema.visualization`` (virtual nodes
and relationships), ``db.awaitIndex``, ``db.createLabel`` / ``db.createRelationshipType`` /
``db.createProperty`` (tokens: storage/tokens.py) and ``db.checkpoint``."""
from __future__ import annotations

import datetime as _dt
from collections import defaultdict

import numpy as np

from relate.protocol import temporal
from relate.protocol.errors import (ArgumentError, CypherTypeError, DatabaseError, EntityNotFound, IndexNotFound,
                                    ProcedureCallFailed)
from relate.protocol.values import Duration, Point, Vector

from .refs import NodeRef, RelRef

# Tools pick their code paths from this version (5.23+: CALL () { }, 5.18+: vector functions).
NEO4J_COMPATIBLE_VERSION = "5.26.0"


def register_compat(registry) -> None:
    registry.register("dbms.components", [], [("name", "STRING?"), ("versions", "LIST? OF STRING?"),
                                               ("edition", "STRING?")], _components, mode="DBMS",
                      description="The server's name, version and edition, as Neo4j reports them.")
    registry.register("db.create.setNodeVectorProperty",
                      [("node", "NODE?"), ("key", "STRING?"), ("vector", "ANY?")], [],
                      lambda ctx, node, key, vector: _set_vector(ctx, node, key, vector), mode="WRITE",
                      description="Store a vector in a node property (Neo4j's name for SET n.key = vector).")
    registry.register("db.create.setRelationshipVectorProperty",
                      [("relationship", "RELATIONSHIP?"), ("key", "STRING?"), ("vector", "ANY?")], [],
                      lambda ctx, rel, key, vector: _set_vector(ctx, rel, key, vector), mode="WRITE",
                      description="Store a vector in a relationship property.")
    registry.register("apoc.merge.node", [("labels", "LIST? OF STRING?"), ("identProps", "MAP?"),
                                          ("onCreateProps", "MAP?", {}), ("onMatchProps", "MAP?", {})],
                      [("node", "NODE?")], _merge_node, mode="WRITE")
    registry.register("apoc.merge.relationship", [("startNode", "NODE?"), ("relType", "STRING?"),
                                                  ("identProps", "MAP?"), ("onCreateProps", "MAP?"),
                                                  ("endNode", "NODE?"), ("onMatchProps", "MAP?", {})],
                      [("rel", "RELATIONSHIP?")], _merge_relationship, mode="WRITE")
    registry.register("apoc.meta.data", [("config", "MAP?", {})], META_OUTPUTS, _meta_data)
    registry.register("apoc.schema.nodes", [("config", "MAP?", {})], SCHEMA_OUTPUTS, _schema_nodes)
    registry.register("apoc.meta.graph", [("config", "MAP?", {})], [("nodes", "LIST? OF MAP?"),
                                                                  ("relationships", "LIST? OF MAP?")],
                      _meta_graph, description="The graph's schema with counts: a map per label {name, count} "
                                               "and per (label, type, label) {type, count, start, end}.")
    register_neo4j_schema(registry)
    registry.register("apoc.schema.properties.distinct", [("label", "STRING?"), ("key", "STRING?")],
                      [("value", "LIST? OF ANY?")], _distinct_values,
                      description="The distinct values of a property over the nodes of a label.")


def _components(ctx):
    return [{"name": "Neo4j Kernel", "versions": [NEO4J_COMPATIBLE_VERSION], "edition": "community"}]


def _set_vector(ctx, entity, key, vector):
    """Store ``vector`` as a list of floats (a FLOAT32 array in Neo4j), validated first."""
    if entity is None or key is None or vector is None:
        return []
    if not isinstance(key, str):
        raise CypherTypeError("The property key must be a string", detail="InvalidArgumentType")
    values = vector.tolist() if isinstance(vector, Vector) else vector
    if not isinstance(values, list) or not values or not all(
            type(v) in (int, float) and np.isfinite(v) for v in values):
        raise ArgumentError("A vector property must be a non-empty list of finite numbers")
    floats = [float(np.float32(v)) for v in values]
    tx = ctx.tx
    if not hasattr(tx, "set_node_prop"):
        raise ArgumentError("db.create.set*VectorProperty needs a writing transaction")
    if isinstance(entity, NodeRef):
        if not tx.node_exists(entity.id):
            raise EntityNotFound(f"Node {entity.id} does not exist")
        tx.set_node_prop(entity.id, key, floats)
        ctx.touched_nodes.add(entity.id)          # constraints re-check it at the end of the statement
        ctx.writes = True
    elif isinstance(entity, RelRef):
        if not tx.rel_exists(entity.id):
            raise EntityNotFound(f"Relationship {entity.id} does not exist")
        tx.set_rel_prop(entity.id, key, floats)
        ctx.touched_rels.add(entity.id)
        ctx.writes = True
    else:
        raise CypherTypeError("Expected a node or a relationship", detail="InvalidArgumentType")
    if ctx.counters is not None:
        ctx.counters.add("properties_set")
    return []


# -- apoc.merge.node / apoc.merge.relationship ----------------------------------------------------

def _writer(ctx, name: str):
    if not hasattr(ctx.tx, "create_node"):
        raise ArgumentError(f"{name} needs a writing transaction")
    ctx.writes = True
    return ctx.tx


def _ident(props, name: str) -> dict:
    props = dict(props or {})
    if any(value is None for value in props.values()):
        raise ArgumentError(f"{name}: the identifying properties may not be null: {sorted(props)}")
    return props


def _matches(found: dict, ident: dict) -> bool:
    from .exec.values.ops import equals
    return all(equals(found.get(key), value) is True for key, value in ident.items())


def _set_props(ctx, setter, eid: int, props) -> None:
    for key, value in dict(props or {}).items():
        setter(eid, key, value)
        ctx.counters.add("properties_set")


def _merge_node(ctx, labels, ident, on_create=None, on_match=None):
    """MERGE of a node by labels and identifying properties (APOC's semantics): every match gets
    ``onMatchProps``; none found creates one with the identifying and ``onCreateProps`` properties."""
    if not labels or not all(isinstance(label, str) and label for label in labels):
        raise ArgumentError("apoc.merge.node needs at least one non-empty label")
    ident = _ident(ident, "apoc.merge.node")
    tx = _writer(ctx, "apoc.merge.node")
    first, rest = labels[0], set(labels[1:])
    if ident:
        key, value = next(iter(ident.items()))
        candidates = tx.index_seek("node", first, key, value)     # a label scan when no index exists
    else:
        candidates = tx.nodes_by_label(first)
    found = []
    for nid in candidates:
        ctx.check()
        node = tx.node(nid)
        if node is not None and rest <= node[0] and _matches(node[1], ident):
            found.append(nid)
    if not found:
        props = {**ident, **{k: v for k, v in dict(on_create or {}).items() if v is not None}}
        nid = tx.create_node(labels, props)
        ctx.counters.add("nodes_created")
        ctx.counters.add("labels_added", len(set(labels)))
        ctx.counters.add("properties_set", len(props))
        ctx.touched_nodes.add(nid)
        return [{"node": NodeRef(nid)}]
    for nid in found:
        _set_props(ctx, tx.set_node_prop, nid, on_match)
        ctx.touched_nodes.add(nid)
    return [{"node": NodeRef(nid)} for nid in found]


def _merge_relationship(ctx, start, rel_type, ident, on_create, end, on_match=None):
    """MERGE of a relationship of ``relType`` from ``startNode`` to ``endNode`` by identifying
    properties, as apoc.merge.relationship does."""
    if not isinstance(start, NodeRef) or not isinstance(end, NodeRef):
        raise ArgumentError("apoc.merge.relationship needs a start node and an end node")
    if not isinstance(rel_type, str) or not rel_type:
        raise ArgumentError("apoc.merge.relationship needs a relationship type")
    ident = _ident(ident, "apoc.merge.relationship")
    tx = _writer(ctx, "apoc.merge.relationship")
    found = []
    for rid, other in tx.expand(start.id, "out", (rel_type,)):
        ctx.check()
        if other == end.id and tx.rel_endpoints(rid)[0] == start.id and _matches(tx.rel_props(rid), ident):
            found.append(rid)
    if not found:
        props = {**ident, **{k: v for k, v in dict(on_create or {}).items() if v is not None}}
        rid = tx.create_rel(rel_type, start.id, end.id, props)
        ctx.counters.add("relationships_created")
        ctx.counters.add("properties_set", len(props))
        ctx.touched_rels.add(rid)
        return [{"rel": RelRef(rid)}]
    for rid in found:
        _set_props(ctx, tx.set_rel_prop, rid, on_match)
        ctx.touched_rels.add(rid)
    return [{"rel": RelRef(rid)} for rid in found]


# -- apoc.meta.data --------------------------------------------------------------------------------

META_OUTPUTS = [("label", "STRING?"), ("property", "STRING?"), ("count", "INTEGER?"), ("unique", "BOOLEAN?"),
                ("index", "BOOLEAN?"), ("existence", "BOOLEAN?"), ("type", "STRING?"), ("array", "BOOLEAN?"),
                ("sample", "LIST? OF ANY?"), ("left", "INTEGER?"), ("right", "INTEGER?"),
                ("other", "LIST? OF STRING?"), ("otherLabels", "LIST? OF STRING?"), ("elementType", "STRING?")]

_TYPE_NAMES = ((bool, "BOOLEAN"), (int, "INTEGER"), (float, "FLOAT"), (str, "STRING"),
               (temporal.DateTime, "DATE_TIME"), (temporal.LocalDateTime, "LOCAL_DATE_TIME"),
               (temporal.Date, "DATE"), (temporal.Time, "TIME"), (temporal.LocalTime, "LOCAL_TIME"),
               (Duration, "DURATION"), (Point, "POINT"), (Vector, "LIST"), (list, "LIST"), (dict, "MAP"), (bytes, "BYTE_ARRAY"),
               (_dt.datetime, "DATE_TIME"), (_dt.date, "DATE"))


def _type_name(value) -> str:
    return next((name for cls, name in _TYPE_NAMES if isinstance(value, cls)), "ANY")


def _meta_row(label, prop, count, type_, element, other=(), array=False, index=False, unique=False) -> dict:
    return {"label": label, "property": prop, "count": count, "unique": unique, "index": index,
            "existence": False, "type": type_, "array": array, "sample": None, "left": 0, "right": 0,
            "other": list(other), "otherLabels": [], "elementType": element}


def _sampled(ids, sample: int | None, ctx):
    for n, eid in enumerate(ids):
        if sample is not None and n >= sample:
            return
        ctx.check()
        yield eid


def _meta_graph(ctx, config=None):
    """apoc.meta.graph's counts, as maps rather than virtual entities (clients read them by key alike)."""
    tx = ctx.tx
    nodes = [{"name": label, "count": tx.count_nodes(label)} for label in sorted(tx.labels())]
    triples: dict[tuple, int] = defaultdict(int)
    for rel_type in sorted(tx.rel_types()):
        for rid in tx.rels_by_type(rel_type):
            ctx.check()
            start, end = tx.rel_endpoints(rid)
            for start_label in tx.node_labels(start) or ("",):
                for end_label in tx.node_labels(end) or ("",):
                    triples[(start_label, rel_type, end_label)] += 1
    relationships = [{"type": rel_type, "count": count, "start": start, "end": end}
                     for (start, rel_type, end), count in sorted(triples.items())]
    return [{"nodes": nodes, "relationships": relationships}]


def _distinct_values(ctx, label, key):
    if label is None or key is None:
        return [{"value": []}]
    from .exec.values.ops import group_key
    tx, seen, values = ctx.tx, set(), []
    for nid in tx.nodes_by_label(label):
        ctx.check()
        value = tx.node_prop(nid, key)
        if value is not None and group_key(value) not in seen:
            seen.add(group_key(value))
            values.append(value)
    return [{"value": values}]


def _meta_data(ctx, config=None):
    """Per label: its properties (type by first value seen) and its outgoing relationship types with
    the labels at their far end; per relationship type: its properties. ``config.sample`` caps how
    many entities of each label/type are read (-1 or missing: all)."""
    config = dict(config or {})
    sample = config.get("sample")
    sample = None if not isinstance(sample, int) or sample <= 0 else sample
    tx = ctx.tx
    indexed = {(e, label, key) for e, label, key in tx.property_indexes()}
    rows = []
    for label in sorted(tx.labels()):
        props: dict[str, tuple[str, int]] = {}
        rels: dict[str, set] = defaultdict(set)
        rel_counts: dict[str, int] = defaultdict(int)
        for nid in _sampled(tx.nodes_by_label(label), sample, ctx):
            for key, value in tx.node_props(nid).items():
                type_, count = props.get(key, (_type_name(value), 0))
                props[key] = (type_, count + 1)
            for rid, other in tx.expand(nid, "out", None):
                rel_type = tx.rel_type(rid)
                rels[rel_type].update(tx.node_labels(other))
                rel_counts[rel_type] += 1
        for rel_type in sorted(rels):
            rows.append(_meta_row(label, rel_type, rel_counts[rel_type], "RELATIONSHIP", "node",
                                  other=sorted(rels[rel_type])))
        for key in sorted(props):
            type_, count = props[key]
            rows.append(_meta_row(label, key, count, type_, "node", array=type_ == "LIST",
                                  index=("node", label, key) in indexed))
    for rel_type in sorted(tx.rel_types()):
        props = {}
        for rid in _sampled(tx.rels_by_type(rel_type), sample, ctx):
            for key, value in tx.rel_props(rid).items():
                type_, count = props.get(key, (_type_name(value), 0))
                props[key] = (type_, count + 1)
        for key in sorted(props):
            type_, count = props[key]
            rows.append(_meta_row(rel_type, key, count, type_, "relationship", array=type_ == "LIST"))
    return rows


# -- apoc.schema.nodes -----------------------------------------------------------------------------

SCHEMA_OUTPUTS = [("name", "STRING?"), ("label", "ANY?"), ("properties", "LIST? OF STRING?"), ("status", "STRING?"),
                  ("type", "STRING?"), ("failure", "STRING?"), ("populationProgress", "FLOAT?"), ("size", "INTEGER?"),
                  ("valuesSelectivity", "FLOAT?"), ("userDescription", "STRING?")]


def _schema_nodes(ctx, config=None):
    """Node indexes and constraints from the catalog (APOC's shape): RANGE/FULLTEXT/VECTOR indexes
    with their size and selectivity, UNIQUENESS/NODE_KEY constraints."""
    from .schema.catalog import Catalog
    from .schema.commands import show_constraints, show_indexes
    tx = ctx.tx
    catalog = Catalog.from_schema(tx.schema())
    rows = []
    for index in show_indexes(ctx.db, tx, catalog, None):
        if index.get("entityType") != "NODE" or index.get("type") == "LOOKUP":
            continue
        labels = index.get("labelsOrTypes") or []
        label = labels[0] if len(labels) == 1 else labels
        props = list(index.get("properties") or [])
        size, distinct = _size_and_distinct(ctx, tx, labels, props)
        rows.append({"name": index.get("name"), "label": label, "properties": props, "status": "ONLINE",
                     "type": index.get("type"), "failure": "NO FAILURE", "populationProgress": 100.0,
                     "size": size, "valuesSelectivity": (distinct / size) if size else 1.0,
                     "userDescription": index.get("createStatement")})
    for constraint in show_constraints(catalog, None):
        if constraint["entityType"] != "NODE":
            continue
        kind = "NODE_KEY" if constraint["type"].endswith("KEY") else (
            "UNIQUENESS" if "UNIQUENESS" in constraint["type"] else constraint["type"])
        rows.append({"name": constraint["name"], "label": constraint["labelsOrTypes"][0],
                     "properties": constraint["properties"], "status": "", "type": kind, "failure": "NO FAILURE",
                     "populationProgress": 0.0, "size": 0, "valuesSelectivity": 0.0,
                     "userDescription": f"CONSTRAINT {constraint['name']}"})
    return rows


def _size_and_distinct(ctx, tx, labels, props) -> tuple[int, int]:
    """How many nodes of the label hold the properties, and how many distinct values they hold."""
    if len(labels) != 1 or not props:
        return 0, 0
    seen, size = set(), 0
    for nid in tx.nodes_by_label(labels[0]):
        ctx.check()
        values = tuple(tx.node_prop(nid, key) for key in props)
        if any(v is None for v in values):
            continue
        size += 1
        try:
            seen.add(values)
        except TypeError:          # lists and maps: count them by their text
            seen.add(repr(values))
    return size, len(seen)


# -- Neo4j 5 schema procedures ----------------------------------------------------------------------

def register_neo4j_schema(registry) -> None:
    """db.schema.visualization (virtual nodes and relationships), db.awaitIndex, db.create*, db.checkpoint."""
    from .catalog_docs import procedure_description as doc
    registry.register("db.schema.visualization", [],
                      [("nodes", "LIST? OF NODE?"), ("relationships", "LIST? OF RELATIONSHIP?")], _visualization,
                      description=doc("db.schema.visualization"))
    registry.register("db.awaitIndex", [("indexName", "STRING?"), ("timeOutSeconds", "INTEGER?", 300)], [],
                      _await_index, description=doc("db.awaitIndex"))
    for name, argument, kind in (("db.createLabel", "newLabel", "label"),
                                 ("db.createRelationshipType", "newRelationshipType", "type"),
                                 ("db.createProperty", "newProperty", "key")):
        registry.register(name, [(argument, "STRING?")], [], _token_creator(name, kind), mode="WRITE",
                          description=doc(name))
    registry.register("db.checkpoint", [], [("success", "BOOLEAN?"), ("message", "STRING?")], _checkpoint,
                      mode="DBMS", description=doc("db.checkpoint"))


def _visualization(ctx):
    """Neo4j's form: one virtual node per label (label = the label; properties name, indexes, constraints)
    and one virtual relationship (property name = its type) per (start label, type, end label) found in
    the data. They are query-time entities of this transaction (storage/virtual.py): negative ids,
    readable with labels(), type(), startNode() ..., never written."""
    tx = ctx.tx
    indexes: dict[str, list[str]] = {}
    constraints: dict[str, list[str]] = {}
    for entry in tx.schema().values():
        if not isinstance(entry, dict) or entry.get("entity") != "node":
            continue
        labels = [entry["label"]] if entry.get("label") else list(entry.get("tokens") or ())
        text = ", ".join(entry.get("properties") or ())
        target = constraints if entry.get("kind") == "constraint" else indexes
        for label in labels:
            target.setdefault(label, []).append(f"{entry.get('type', '').lower()} ({text})".strip())
    triples = set()
    for rid in tx.all_rels():
        ctx.check()
        found = tx.rel(rid)
        if found is None:
            continue
        rel_type, start, end, _ = found
        for start_label in tx.node_labels(start):
            for end_label in tx.node_labels(end):
                triples.add((start_label, rel_type, end_label))
    names = sorted(set(tx.labels()) | {t[0] for t in triples} | {t[2] for t in triples})
    ids = {name: tx.add_virtual_node([name], {"name": name, "indexes": sorted(indexes.get(name, [])),
                                              "constraints": sorted(constraints.get(name, []))})
           for name in names}
    rels = [RelRef(tx.add_virtual_rel(rel_type, ids[start], ids[end], {"name": rel_type}))
            for start, rel_type, end in sorted(triples)]
    yield {"nodes": [NodeRef(ids[name]) for name in names], "relationships": rels}


def _await_index(ctx, index_name, timeout=300):
    """Wait until the index is ONLINE (Neo4j's errors: unknown name, timeout, failed index). Any index
    SHOW INDEXES lists may be named; only search indexes populate in the background."""
    from .schema.catalog import Catalog
    from .schema.commands import show_indexes
    if not isinstance(index_name, str):
        raise IndexNotFound(f"No such index '{index_name}'", phase="runtime")
    seconds = 300 if timeout is None else timeout
    manager = getattr(ctx.db, "index_manager", None)
    if manager is not None and index_name in manager:
        index = manager.get(index_name)
        if not (index.wait_online(float(seconds)) and index.wait_built(float(seconds))):
            raise ProcedureCallFailed(f"Index on '{index_name}' did not come online within {seconds} seconds",
                                      code="Neo.ClientError.Procedure.ProcedureTimedOut", phase="runtime")
        if index.state == "FAILED":
            raise DatabaseError(f"Index '{index_name}' is in failed state.: {index.failure}",
                                code="Neo.DatabaseError.Schema.IndexCreationFailed", phase="runtime")
        return []
    tx = ctx.tx
    if any(row.get("name") == index_name for row in show_indexes(ctx.db, tx, Catalog.from_schema(tx.schema()), None)):
        return []                      # a range, lookup or constraint index: online once created
    raise IndexNotFound(f"No such index '{index_name}'", phase="runtime")


def _token_creator(procedure: str, kind: str):
    def create(ctx, name):
        """Make a token known with no data (storage/tokens.py); a no-op when it already is."""
        from relate.server.storage import tokens
        if not isinstance(name, str) or not name:
            raise ArgumentError(f"{procedure} needs a non-empty name, got {name!r}", detail="InvalidArgumentValue")
        tx = ctx.tx
        if not hasattr(tx, "put_schema"):
            raise ArgumentError(f"{procedure} needs a writing transaction")
        if tokens.create(tx, kind, name):
            ctx.writes = True
        return []
    return create


def _checkpoint(ctx):
    """Write a snapshot of the store and trim the WAL (Neo4j's checkpoint); an in-memory database has none."""
    store = getattr(ctx.db, "store", None)
    if store is None or getattr(store, "directory", None) is None:
        return [{"success": True, "message": "Checkpoint completed (an in-memory database keeps no files)."}]
    if hasattr(ctx.tx, "put_schema"):        # this transaction holds the writer lock the checkpoint needs
        return [{"success": False, "message": "A checkpoint cannot run inside a transaction that writes; "
                                              "run CALL db.checkpoint() on its own."}]
    ctx.db.checkpoint()
    return [{"success": True, "message": "Checkpoint completed."}]
