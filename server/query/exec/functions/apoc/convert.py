"""APOC conversion functions (apoc.convert.*): values to and from JSON text (nodes and relationships in
APOC's JSON shape), and lenient conversions to maps, lists, strings, booleans and numbers."""
from __future__ import annotations

import base64
import json
import math

import regex

from relate.protocol.values import Duration, Point, Vector, label_list
from relate.server.query.exec.functions.apoc.args import as_str, distinct, invalid
from relate.server.query.exec.functions.registry import function, type_error
from relate.server.query.exec.values.ops import java_str, temporal_rank
from relate.server.query.refs import NodeRef, PathRef, RelRef

_INT64 = 2 ** 63


def _node_json(tx, node: NodeRef, with_type: bool = True) -> dict:
    out: dict = {"id": str(node.id)}
    if with_type:
        out["type"] = "node"
    out["labels"] = label_list(tx.node_labels(node.id))
    props = tx.node_props(node.id)
    if props:
        out["properties"] = {k: json_value(tx, v) for k, v in props.items()}
    return out


def _rel_json(tx, rel: RelRef) -> dict:
    start, end = tx.rel_endpoints(rel.id)
    out = {"id": str(rel.id), "type": "relationship", "label": tx.rel_type(rel.id),
           "start": {"id": str(start), "labels": label_list(tx.node_labels(start))},
           "end": {"id": str(end), "labels": label_list(tx.node_labels(end))}}
    props = tx.rel_props(rel.id)
    if props:
        out["properties"] = {k: json_value(tx, v) for k, v in props.items()}
    return out


def _point_json(p: Point) -> dict:
    if p.geographic:
        return {"crs": p.crs, "latitude": p.y, "longitude": p.x,
                "height": p.coordinates[2] if len(p.coordinates) > 2 else None}
    return {"crs": p.crs, "x": p.x, "y": p.y, "z": p.coordinates[2] if len(p.coordinates) > 2 else None}


def json_value(tx, value):
    """``value`` as plain JSON data: entities as APOC writes them, temporal values and durations as ISO
    8601 text, points as maps, bytes as Base64."""
    t = type(value)
    if value is None or t in (str, int, float, bool):
        return value
    if t is list:
        return [json_value(tx, v) for v in value]
    if t is dict:
        return {k: json_value(tx, v) for k, v in value.items()}
    if t is NodeRef:
        return _node_json(tx, value)
    if t is RelRef:
        return _rel_json(tx, value)
    if t is PathRef:
        out = [_node_json(tx, value.nodes[0])]
        for rel, node in zip(value.rels, value.nodes[1:]):
            out += [_rel_json(tx, rel), _node_json(tx, node)]
        return out
    if t is Vector:
        return value.tolist()
    if t is Point:
        return _point_json(value)
    if t is bytes or t is bytearray:
        return base64.b64encode(bytes(value)).decode("ascii")
    if t is Duration or temporal_rank(value) is not None:
        return str(value)
    return java_str(value) or repr(value)


def to_json_text(tx, value, sort_keys: bool = False) -> str:
    return json.dumps(json_value(tx, value), ensure_ascii=False, separators=(",", ":"), sort_keys=sort_keys)


@function("apoc.convert.toJson", 1, pure=False, description="The value as JSON text (nodes as {id, type, labels, "
                                                            "properties}, relationships likewise) (APOC).")
def to_json(ctx, value):
    return None if value is None else to_json_text(ctx.tx if ctx is not None else None, value)


@function("apoc.convert.toSortedJsonMap", 1, 2, pure=False,
          description="A map, node or relationship as JSON text with its keys sorted (case-insensitive by default) (APOC).")
def to_sorted_json_map(ctx, value, ignore_case=True):
    if value is None:
        return None
    if type(value) not in (dict, NodeRef, RelRef):
        raise type_error("apoc.convert.toSortedJsonMap", value, "a Map, Node or Relationship")
    data = json_value(ctx.tx, value)
    order = (lambda k: (k.lower(), k)) if ignore_case is not False else (lambda k: k)
    return json.dumps({k: data[k] for k in sorted(data, key=order)}, ensure_ascii=False, separators=(",", ":"))


_PATH_STEP = regex.compile(r"\.([^.\[]+)|\[\s*'((?:[^'\\]|\\.)*)'\s*\]|\[\s*\"((?:[^\"\\]|\\.)*)\"\s*\]|\[\s*(-?\d+)\s*\]")


def json_path(name: str, data, path):
    """The part of ``data`` a simple JSON path names: $.a.b, $['a'], $.list[0] (null where it leads nowhere)."""
    if path is None or path in ("", "$"):
        return data
    path = as_str(name, path)
    if not path.startswith("$"):
        path = "$." + path
    position = 1
    while position < len(path):
        m = _PATH_STEP.match(path, position)
        if m is None:
            raise invalid(name, f"unsupported JSON path {path!r} (use $.key, $['key'] and [index] steps)")
        position = m.end()
        field = m.group(1) or m.group(2) or m.group(3)
        if m.group(4) is not None:
            if type(data) is not list:
                return None
            index = int(m.group(4))
            data = data[index] if -len(data) <= index < len(data) else None
        else:
            data = data.get(field) if type(data) is dict else None
        if data is None:
            return None
    return data


def _checked_ints(value):
    t = type(value)
    if t is int and not -_INT64 <= value < _INT64:
        return float(value)
    if t is list:
        return [_checked_ints(v) for v in value]
    if t is dict:
        return {k: _checked_ints(v) for k, v in value.items()}
    return value


def parse_json(name: str, text) -> object:
    try:
        return _checked_ints(json.loads(as_str(name, text)))
    except (json.JSONDecodeError, RecursionError) as exc:
        raise invalid(name, f"the text is not valid JSON: {exc}") from None


@function("apoc.convert.fromJsonMap", 1, 3, description="The map a JSON text (or the part a JSON path names) holds (APOC).")
def from_json_map(ctx, text, path=None, options=None):
    return _from_json("apoc.convert.fromJsonMap", text, path, dict, "an object")


def _from_json(name: str, text, path, kind: type, kind_name: str):
    """The value of ``kind`` a JSON text (or the part a JSON path names) holds; null for null."""
    if text is None:
        return None
    value = json_path(name, parse_json(name, text), path)
    if value is not None and type(value) is not kind:
        raise invalid(name, f"the JSON is not {kind_name}")
    return value


@function("apoc.convert.fromJsonList", 1, 3, description="The list a JSON text (or the part a JSON path names) holds (APOC).")
def from_json_list(ctx, text, path=None, options=None):
    return _from_json("apoc.convert.fromJsonList", text, path, list, "an array")


def _json_property(name: str, ctx, entity, key, path):
    if entity is None or key is None:
        return None
    key = as_str(name, key)
    if type(entity) is NodeRef:
        text = ctx.tx.node_prop(entity.id, key)
    elif type(entity) is RelRef:
        text = ctx.tx.rel_prop(entity.id, key)
    else:
        raise type_error(name, entity, "a Node or Relationship")
    return None if text is None else json_path(name, parse_json(name, text), path)


@function("apoc.convert.getJsonProperty", 2, 4, pure=False,
          description="A node's or relationship's property parsed as JSON (optionally the part a JSON path names) (APOC).")
def get_json_property(ctx, entity, key, path=None, options=None):
    return _json_property("apoc.convert.getJsonProperty", ctx, entity, key, path)


@function("apoc.convert.getJsonPropertyMap", 2, 4, pure=False,
          description="A node's or relationship's property parsed as a JSON object (APOC).")
def get_json_property_map(ctx, entity, key, path=None, options=None):
    value = _json_property("apoc.convert.getJsonPropertyMap", ctx, entity, key, path)
    if value is not None and type(value) is not dict:
        raise invalid("apoc.convert.getJsonPropertyMap", "the property's JSON is not an object")
    return value


@function("apoc.convert.toMap", 1, pure=False, description="A map as it is, a node's or relationship's properties (APOC).")
def to_map(ctx, value):
    t = type(value)
    if value is None or t is dict:
        return value
    if t is NodeRef:
        return dict(ctx.tx.node_props(value.id))
    if t is RelRef:
        return dict(ctx.tx.rel_props(value.id))
    raise type_error("apoc.convert.toMap", value, "a Map, Node or Relationship")


@function("apoc.convert.toList", 1, description="A list as it is, a path as its entities, any other value as a "
                                                "one-element list (APOC).")
def to_list(ctx, value):
    t = type(value)
    if value is None or t is list:
        return value
    if t is Vector:
        return value.tolist()
    if t is PathRef:
        out: list = [value.nodes[0]]
        for rel, node in zip(value.rels, value.nodes[1:]):
            out += [rel, node]
        return out
    return [value]


@function("apoc.convert.toSet", 1, description="A list without repeated values, in first-seen order (APOC).")
def to_set(ctx, value):
    if value is None:
        return None
    return distinct(to_list(ctx, value))


@function("apoc.convert.toString", 1, pure=False, description="The value as a string: text as it is, numbers, booleans "
                                                              "and temporal values as toString(), others as JSON (APOC).")
def to_string(ctx, value):
    if value is None:
        return None
    text = java_str(value)
    return text if text is not None else to_json_text(ctx.tx if ctx is not None else None, value)


_FALSE_TEXT = frozenset(("", "false", "no", "0"))


@function("apoc.convert.toBoolean", 1, description="The value as a boolean: false for false, 0, '', 'false', 'no' and "
                                                   "'0', true otherwise (APOC).")
def to_boolean(ctx, value):
    t = type(value)
    if value is None:
        return None
    if t is bool:
        return value
    if t is int or t is float:
        return value != 0
    if t is str:
        return value.strip().lower() not in _FALSE_TEXT
    return True


def _parse_number(text: str):
    text = text.strip()
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        return None


@function("apoc.convert.toInteger", 1, description="The value as an integer (numbers truncated, text parsed, booleans "
                                                   "1 or 0), else null (APOC).")
def to_integer(ctx, value):
    t = type(value)
    if t is bool:
        return 1 if value else 0
    if t is str:
        value = _parse_number(value)
        t = type(value)
    if t is int:
        return value if -_INT64 <= value < _INT64 else None
    if t is float and math.isfinite(value):
        n = int(value)
        return n if -_INT64 <= n < _INT64 else None
    return None


@function("apoc.convert.toFloat", 1, description="The value as a float (text parsed, booleans 1.0 or 0.0), else null (APOC).")
def to_float(ctx, value):
    t = type(value)
    if t is bool:
        return 1.0 if value else 0.0
    if t is str:
        value = _parse_number(value)
        t = type(value)
    if t is int or t is float:
        return float(value)
    return None
