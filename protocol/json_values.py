"""Cypher values as JSON, in the two forms of Neo4j's Query API: plain JSON and typed JSON.

Typed JSON wraps every value as ``{"$type": "Integer", "_value": "1"}`` so integers beyond 2^53,
temporal values, durations, bytes, vectors and graph entities survive a round trip; plain JSON is what
a browser or ``jq`` reads directly. Decoding is bounded (nesting depth) and raises ``ClientError``.
"""
from __future__ import annotations

import base64
import binascii
import math
import re
from typing import Any, Callable

from .errors import ClientError
from .temporal import Date, DateTime, LocalDateTime, LocalTime, Time
from .temporal.parse import (parse_date, parse_datetime, parse_duration, parse_local_datetime, parse_local_time,
                             parse_time)
from .values import CRS_BY_SRID, VECTOR_TYPES, Duration, Node, Path, Point, Relationship, Vector

MAX_DEPTH = 64
INVALID_FORMAT = "Neo.ClientError.Request.InvalidFormat"


def _float_text(value: float) -> str:
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    return repr(value)


def _temporal_type(value: Any) -> str | None:
    # Subclass order matters: every temporal class derives from a datetime class.
    if isinstance(value, DateTime):
        return "ZonedDateTime" if value.has_named_zone else "OffsetDateTime"
    if isinstance(value, LocalDateTime):
        return "LocalDateTime"
    if isinstance(value, Date):
        return "Date"
    if isinstance(value, Time):
        return "Time"
    if isinstance(value, LocalTime):
        return "LocalTime"
    return None


def to_typed(value: Any) -> dict[str, Any]:
    """``value`` as typed JSON (a dict ready for ``json.dumps``)."""
    if value is None:
        return {"$type": "Null", "_value": None}
    if value is True or value is False:
        return {"$type": "Boolean", "_value": value}
    if isinstance(value, int):
        return {"$type": "Integer", "_value": str(value)}
    if isinstance(value, float):
        return {"$type": "Float", "_value": _float_text(value)}
    if isinstance(value, str):
        return {"$type": "String", "_value": value}
    if isinstance(value, (list, tuple)):
        return {"$type": "List", "_value": [to_typed(item) for item in value]}
    if isinstance(value, dict):
        return {"$type": "Map", "_value": {str(k): to_typed(v) for k, v in value.items()}}
    if isinstance(value, Node):
        return {"$type": "Node", "_value": {"_element_id": value.element_id, "_labels": list(value.labels),
                                            "_properties": _typed_map(value.properties)}}
    if isinstance(value, Relationship):
        return {"$type": "Relationship", "_value": {
            "_element_id": value.element_id, "_start_node_element_id": f"n:{value.start_id}",
            "_end_node_element_id": f"n:{value.end_id}", "_type": value.type,
            "_properties": _typed_map(value.properties)}}
    if isinstance(value, Path):
        return {"$type": "Path", "_value": [to_typed(item) for item in _path_items(value)]}
    if isinstance(value, Duration):
        return {"$type": "Duration", "_value": str(value)}
    if isinstance(value, Point):
        return {"$type": "Point", "_value": point_wkt(value)}
    if isinstance(value, Vector):
        return {"$type": "Vector", "_value": {"coordinatesType": value.coordinate_type,
                                              "coordinates": [_number_text(x) for x in value.tolist()]}}
    if isinstance(value, (bytes, bytearray)):
        return {"$type": "Base64", "_value": base64.b64encode(bytes(value)).decode("ascii")}
    kind = _temporal_type(value)
    if kind is not None:
        return {"$type": kind, "_value": str(value)}
    return {"$type": "Unsupported", "_value": str(value)}


def point_wkt(point: Point) -> str:
    """A point as the Query API writes it: ``SRID=4326;POINT (12.5 55.6)``, ``SRID=9157;POINT Z (1 2 3)``."""
    body = " ".join(_number_text(c) for c in point.coordinates)
    return f"SRID={point.srid};POINT{' Z' if len(point.coordinates) == 3 else ''} ({body})"


_WKT = re.compile(r"\s*SRID=(\d+)\s*;\s*POINT\s*(Z\s*)?\(\s*([^()]*?)\s*\)\s*", re.IGNORECASE)


def _point(body: Any) -> Point:
    match = _WKT.fullmatch(_text(body, "Point"))
    if match is None:
        raise _bad("a typed Point is \"SRID=<srid>;POINT (<x> <y>)\" or \"SRID=<srid>;POINT Z (<x> <y> <z>)\"")
    srid, three, coordinates = int(match.group(1)), match.group(2) is not None, match.group(3).split()
    crs = CRS_BY_SRID.get(srid)
    if crs is None or crs[1] != len(coordinates) or three != (len(coordinates) == 3):
        raise _bad(f"a typed Point with SRID {srid} and {len(coordinates)} coordinates is not a valid point")
    return Point(srid, *(_float(c) for c in coordinates))


def _number_text(x: Any) -> str:
    return _float_text(x) if isinstance(x, float) else str(x)


def _typed_map(properties: dict[str, Any]) -> dict[str, Any]:
    return {k: to_typed(v) for k, v in properties.items()}


def _path_items(path: Path) -> list[Any]:
    items: list[Any] = [path.nodes[0]] if path.nodes else []
    for rel, node in zip(path.relationships, path.nodes[1:]):
        items += [rel, node]
    return items


def to_plain(value: Any) -> Any:
    """``value`` as plain JSON: numbers, strings, lists, maps; entities as maps; the rest as text."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else _float_text(value)
    if isinstance(value, (list, tuple)):
        return [to_plain(item) for item in value]
    if isinstance(value, dict):
        return {str(k): to_plain(v) for k, v in value.items()}
    if isinstance(value, Node):
        return {"elementId": value.element_id, "labels": list(value.labels),
                "properties": to_plain(value.properties)}
    if isinstance(value, Relationship):
        return {"elementId": value.element_id, "startNodeElementId": f"n:{value.start_id}",
                "endNodeElementId": f"n:{value.end_id}", "type": value.type,
                "properties": to_plain(value.properties)}
    if isinstance(value, Path):
        return [to_plain(item) for item in _path_items(value)]
    if isinstance(value, Vector):
        return to_plain(value.tolist())
    if isinstance(value, Point):
        return point_wkt(value)
    if isinstance(value, (bytes, bytearray)):
        return base64.b64encode(bytes(value)).decode("ascii")
    return str(value)


# -- decoding ---------------------------------------------------------------------------------------

def _bad(message: str) -> ClientError:
    return ClientError(message, code=INVALID_FORMAT)


def from_plain(value: Any, depth: int = 0) -> Any:
    """Plain JSON parameters (already parsed) checked for depth; JSON's own types are Cypher's."""
    if depth > MAX_DEPTH:
        raise _bad(f"parameters are nested deeper than {MAX_DEPTH} levels")
    if isinstance(value, list):
        return [from_plain(item, depth + 1) for item in value]
    if isinstance(value, dict):
        return {k: from_plain(v, depth + 1) for k, v in value.items()}
    return value


def _text(body: Any, kind: str) -> str:
    if not isinstance(body, str):
        raise _bad(f"a typed {kind} needs a string _value, not {type(body).__name__}")
    return body


def _integer(body: Any) -> int:
    text = _text(body, "Integer")
    try:
        number = int(text, 10) if len(text) <= 24 else None
    except ValueError:
        number = None
    if number is None or not -2 ** 63 <= number < 2 ** 63:
        raise _bad(f"not a 64-bit integer: {text[:40]!r}")
    return number


def _float(body: Any) -> float:
    if isinstance(body, (int, float)) and not isinstance(body, bool):
        return float(body)
    text = _text(body, "Float")
    try:
        return float(text) if len(text) <= 64 else float("x")
    except ValueError:
        raise _bad(f"not a float: {text[:40]!r}") from None


def _element_id(body: Any, kind: str) -> int:
    text = _text(body, kind + " element id")
    prefix = "n:" if kind == "Node" else "r:"
    if not text.startswith(prefix) or not text[2:].isdigit() or len(text) > 24:
        raise _bad(f"not a {kind.lower()} element id: {text[:40]!r}")
    return int(text[2:])


def _props(body: Any, depth: int) -> dict[str, Any]:
    if not isinstance(body, dict):
        raise _bad("_properties must be a map")
    return {k: from_typed(v, depth + 1) for k, v in body.items()}


def _node(body: Any, depth: int) -> Node:
    if not isinstance(body, dict) or not isinstance(body.get("_labels", []), list):
        raise _bad("a typed Node is {_element_id, _labels, _properties}")
    return Node(_element_id(body.get("_element_id"), "Node"), [_text(x, "label") for x in body.get("_labels", [])],
                _props(body.get("_properties", {}), depth))


def _relationship(body: Any, depth: int) -> Relationship:
    if not isinstance(body, dict):
        raise _bad("a typed Relationship is a map")
    return Relationship(_element_id(body.get("_element_id"), "Relationship"), _text(body.get("_type"), "type"),
                        _element_id(body.get("_start_node_element_id"), "Node"),
                        _element_id(body.get("_end_node_element_id"), "Node"),
                        _props(body.get("_properties", {}), depth))


def _path(body: Any, depth: int) -> Path:
    if not isinstance(body, list) or len(body) % 2 != 1:
        raise _bad("a typed Path is a list alternating nodes and relationships, starting and ending with a node")
    items = [from_typed(item, depth + 1) for item in body]
    nodes, rels = items[0::2], items[1::2]
    if not all(isinstance(n, Node) for n in nodes) or not all(isinstance(r, Relationship) for r in rels):
        raise _bad("a typed Path alternates nodes and relationships")
    return Path(nodes, rels)


def _vector(body: Any) -> Vector:
    if not isinstance(body, dict) or not isinstance(body.get("coordinates"), list):
        raise _bad("a typed Vector is {coordinatesType, coordinates}")
    kind = str(body.get("coordinatesType", "FLOAT32")).upper()
    if kind not in VECTOR_TYPES:
        raise _bad(f"unknown vector coordinate type {kind[:20]!r}")
    is_int = kind.startswith("INT")
    coordinates = [_integer(str(x)) if is_int else _float(x) for x in body["coordinates"]]
    try:
        return Vector(coordinates, kind)
    except (OverflowError, ValueError):     # 300 as INT8: numpy refuses it
        raise _bad(f"a coordinate does not fit the vector's {kind} type") from None


def _base64(body: Any) -> bytes:
    try:
        return base64.b64decode(_text(body, "Base64"), validate=True)
    except binascii.Error:
        raise _bad("invalid Base64 value") from None


def _temporal(parse: Callable[[str], Any]) -> Callable[[Any], Any]:
    def decode(body: Any) -> Any:
        return parse(_text(body, parse.__name__.removeprefix("parse_")))
    return decode


_SCALARS = {
    "Integer": _integer, "Float": _float, "Base64": _base64,
    "String": lambda body: _text(body, "String"),
    "Date": _temporal(parse_date), "Time": _temporal(parse_time), "LocalTime": _temporal(parse_local_time),
    "LocalDateTime": _temporal(parse_local_datetime), "OffsetDateTime": _temporal(parse_datetime),
    "ZonedDateTime": _temporal(parse_datetime), "Duration": _temporal(parse_duration), "Vector": _vector,
    "Point": _point,
}


def from_typed(value: Any, depth: int = 0) -> Any:
    """A typed JSON value (already parsed by ``json.loads``) as a Cypher value."""
    if depth > MAX_DEPTH:
        raise _bad(f"parameters are nested deeper than {MAX_DEPTH} levels")
    if not isinstance(value, dict) or "$type" not in value:
        raise _bad("a typed JSON value is an object {\"$type\": ..., \"_value\": ...}")
    kind, body = value["$type"], value.get("_value")
    if kind == "Null":
        return None
    if kind == "Boolean":
        if not isinstance(body, bool):
            raise _bad("a typed Boolean needs true or false")
        return body
    if kind == "List":
        if not isinstance(body, list):
            raise _bad("a typed List needs a list _value")
        return [from_typed(item, depth + 1) for item in body]
    if kind == "Map":
        if not isinstance(body, dict):
            raise _bad("a typed Map needs an object _value")
        return {k: from_typed(v, depth + 1) for k, v in body.items()}
    if kind == "Node":
        return _node(body, depth)
    if kind == "Relationship":
        return _relationship(body, depth)
    if kind == "Path":
        return _path(body, depth)
    decode = _SCALARS.get(kind) if isinstance(kind, str) else None
    if decode is None:
        raise _bad(f"unknown $type {str(kind)[:40]!r}")
    return decode(body)


def typed_parameters(params: Any) -> dict[str, Any]:
    """The ``parameters`` map of a typed request: each value typed (a bare map of typed values)."""
    if not isinstance(params, dict):
        raise _bad("parameters must be a JSON object")
    return {k: from_typed(v, 1) for k, v in params.items()}
