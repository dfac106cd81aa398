"""APOC type-name functions (apoc.meta.cypher.*): a value's type as APOC names it (INTEGER, LIST OF STRING,
DATE_TIME, ...), per key of a map or entity, and a check against a name."""
from __future__ import annotations

from relate.protocol.values import Duration, Point, Vector
from relate.server.query.exec.functions.apoc.args import as_str
from relate.server.query.exec.functions.registry import function
from relate.server.query.refs import NodeRef, PathRef, RelRef

_SIMPLE = {bool: "BOOLEAN", int: "INTEGER", float: "FLOAT", str: "STRING", dict: "MAP", NodeRef: "NODE",
           RelRef: "RELATIONSHIP", PathRef: "PATH", Duration: "DURATION", Point: "POINT", bytes: "BYTE_ARRAY"}
_TEMPORAL = {"Date": "DATE", "DateTime": "DATE_TIME", "LocalDateTime": "LOCAL_DATE_TIME", "Time": "TIME",
             "LocalTime": "LOCAL_TIME"}


def cypher_type(value) -> str:
    """APOC's name for the value's type; a list is LIST OF <its elements' one type>, else LIST OF ANY."""
    if value is None:
        return "NULL"
    t = type(value)
    name = _SIMPLE.get(t)
    if name is not None:
        return name
    if t is Vector:
        return "LIST OF FLOAT" if value.coordinate_type.startswith("FLOAT") else "LIST OF INTEGER"
    if t is list:
        kinds = {cypher_type(v) for v in value if v is not None}
        return f"LIST OF {kinds.pop()}" if len(kinds) == 1 else "LIST OF ANY"
    if t.__module__.startswith("relate"):
        temporal = _TEMPORAL.get(t.__name__)
        if temporal is not None:
            return temporal
    return "ANY"


@function("apoc.meta.cypher.type", 1, description="The type of a value as APOC names it: INTEGER, FLOAT, STRING, "
                                                  "LIST OF STRING, MAP, NODE, DATE_TIME, NULL, ... (APOC).")
def type_(ctx, value):
    return cypher_type(value)


@function("apoc.meta.cypher.types", 1, pure=False, description="The APOC type name of each value of a map, node or "
                                                               "relationship, by key; {} for anything else (APOC).")
def types(ctx, value):
    if type(value) is dict:
        props = value
    elif type(value) is NodeRef:
        props = ctx.tx.node_props(value.id)
    elif type(value) is RelRef:
        props = ctx.tx.rel_props(value.id)
    else:
        return {}
    return {k: cypher_type(v) for k, v in props.items()}


@function("apoc.meta.cypher.isType", 2, description="Whether the value's APOC type name is the given one (APOC).")
def is_type(ctx, value, name):
    if name is None:
        return None
    return cypher_type(value) == as_str("apoc.meta.cypher.isType", name).upper()
