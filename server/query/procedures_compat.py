"""Procedures that Neo4j tools call on connect and on use, as real procedures over Relate's data and
catalog: ``dbms.components``, ``db.create.setNodeVectorProperty`` /
``db.create.setRelationshipVectorProperty``, and the subset of APOC that schema readers need
(``apoc.meta.data``, ``apoc.schema.nodes``)."""
from __future__ import annotations

import datetime as _dt
from collections import defaultdict

import numpy as np

from relate import temporal
from relate.errors import ArgumentError, CypherTypeError, EntityNotFound
from relate.values import Duration, Vector

from .refs import NodeRef, RelRef

# Tools pick their code paths from this version (5.23+: CALL () { }, 5.18+: vector functions).
NEO4J_COMPATIBLE_VERSION = "5.26.0"


def register_compat(registry) -> None:
    registry.register("dbms.components", [], [("name", "STRING?"), ("versions", "LIST? OF STRING?"),
                                               ("edition", "STRING?")], _components, mode="DBMS")
    registry.register("db.create.setNodeVectorProperty",
                      [("node", "NODE?"), ("key", "STRING?"), ("vector", "ANY?")], [],
                      lambda ctx, node, key, vector: _set_vector(ctx, node, key, vector), mode="WRITE")
    registry.register("db.create.setRelationshipVectorProperty",
                      [("relationship", "RELATIONSHIP?"), ("key", "STRING?"), ("vector", "ANY?")], [],
                      lambda ctx, rel, key, vector: _set_vector(ctx, rel, key, vector), mode="WRITE")
    registry.register("apoc.meta.data", [("config", "MAP?", {})], META_OUTPUTS, _meta_data)
    registry.register("apoc.schema.nodes", [("config", "MAP?", {})], SCHEMA_OUTPUTS, _schema_nodes)


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


# -- apoc.meta.data --------------------------------------------------------------------------------

META_OUTPUTS = [("label", "STRING?"), ("property", "STRING?"), ("count", "INTEGER?"), ("unique", "BOOLEAN?"),
                ("index", "BOOLEAN?"), ("existence", "BOOLEAN?"), ("type", "STRING?"), ("array", "BOOLEAN?"),
                ("sample", "LIST? OF ANY?"), ("left", "INTEGER?"), ("right", "INTEGER?"),
                ("other", "LIST? OF STRING?"), ("otherLabels", "LIST? OF STRING?"), ("elementType", "STRING?")]

_TYPE_NAMES = ((bool, "BOOLEAN"), (int, "INTEGER"), (float, "FLOAT"), (str, "STRING"),
               (temporal.DateTime, "DATE_TIME"), (temporal.LocalDateTime, "LOCAL_DATE_TIME"),
               (temporal.Date, "DATE"), (temporal.Time, "TIME"), (temporal.LocalTime, "LOCAL_TIME"),
               (Duration, "DURATION"), (Vector, "LIST"), (list, "LIST"), (dict, "MAP"), (bytes, "BYTE_ARRAY"),
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
