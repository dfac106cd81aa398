"""Result values as text (Cypher-literal style, as the cookbook prints them) and as JSON-ready data."""
from __future__ import annotations

import datetime as _dt
import math
import re
from typing import Any

from relate.values import Duration, Node, Path, Relationship, Vector

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_STRING_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t"}
VECTOR_PREVIEW = 3       # coordinates a vector shows in tables before "..."


def format_value(value: Any, *, abbreviate: bool = True) -> str:
    """``value`` as Cypher-like text: strings quoted, maps ``{k: v}``, nodes ``(:Label {k: v})``.

    With ``abbreviate``, vectors and byte strings show only their first few elements (a 384-dimension
    embedding inside a node would otherwise fill the screen).
    """
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, str):
        return '"' + "".join(_STRING_ESCAPES.get(ch, ch) for ch in value) + '"'
    if isinstance(value, float):
        return format_float(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, Node):
        return format_node(value, abbreviate=abbreviate)
    if isinstance(value, Relationship):
        return "[" + _entity_body(":" + _name(value.type), value.properties, abbreviate) + "]"
    if isinstance(value, Path):
        return format_path(value, abbreviate=abbreviate)
    if isinstance(value, Vector):
        return format_vector(value, abbreviate=abbreviate)
    if isinstance(value, Duration):
        return str(value)
    if isinstance(value, (_dt.date, _dt.time)):
        # relate.temporal classes print ISO 8601 with nanoseconds and zones; plain datetime via isoformat.
        return str(value) if type(value).__module__.startswith("relate") else value.isoformat()
    if isinstance(value, dict):
        return _format_map(value, abbreviate)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(format_value(v, abbreviate=abbreviate) for v in value) + "]"
    if isinstance(value, (bytes, bytearray)):
        shown = bytes(value[:16]) if abbreviate else bytes(value)
        return "0x" + shown.hex() + ("..." if len(value) > len(shown) else "")
    return str(value)


def format_float(value: float) -> str:
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    return repr(value)


def format_node(node: Node, *, abbreviate: bool = True) -> str:
    labels = "".join(":" + _name(label) for label in node.labels)
    return "(" + _entity_body(labels, node.properties, abbreviate) + ")"


def format_path(path: Path, *, abbreviate: bool = True) -> str:
    parts = [format_node(path.nodes[0], abbreviate=abbreviate)]
    for rel, before, after in zip(path.relationships, path.nodes, path.nodes[1:]):
        body = "[" + _entity_body(":" + _name(rel.type), rel.properties, abbreviate) + "]"
        forward = rel.start_id == before.id and rel.end_id == after.id
        parts.append(f"-{body}->" if forward else f"<-{body}-")
        parts.append(format_node(after, abbreviate=abbreviate))
    return "".join(parts)


def format_vector(vector: Vector, *, abbreviate: bool = True) -> str:
    coordinates = vector.to_numpy()
    shown = coordinates[:VECTOR_PREVIEW] if abbreviate else coordinates
    # numpy scalars print their shortest round-trip form (0.1 for a float32, not 0.10000000149).
    text = ", ".join(str(x) for x in shown)
    if len(shown) < len(coordinates):
        text += ", ..."
    return f"vector([{text}], {vector.dimension}, {vector.coordinate_type})"


def _entity_body(head: str, properties: dict, abbreviate: bool) -> str:
    if not properties:
        return head
    props = _format_map(properties, abbreviate)
    return f"{head} {props}" if head else props


def _format_map(mapping: dict, abbreviate: bool) -> str:
    items = (f"{_name(str(k))}: {format_value(v, abbreviate=abbreviate)}" for k, v in mapping.items())
    return "{" + ", ".join(items) + "}"


def _name(name: str) -> str:
    """A label, type or key, backticked when it is not a plain identifier."""
    return name if _IDENTIFIER.match(name) else "`" + name.replace("`", "``") + "`"


def format_cell(value: Any) -> str:
    """Text for a CSV cell: strings as they are, everything else as Cypher-like text."""
    return value if isinstance(value, str) else format_value(value, abbreviate=False)


def to_json(value: Any) -> Any:
    """A JSON-ready rendition: graph entities as objects, temporal values and durations as ISO text."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else format_float(value)
    if isinstance(value, Node):
        return {"id": value.id, "labels": list(value.labels), "properties": to_json(value.properties)}
    if isinstance(value, Relationship):
        return {"id": value.id, "type": value.type, "start": value.start_id, "end": value.end_id,
                "properties": to_json(value.properties)}
    if isinstance(value, Path):
        return {"nodes": [to_json(n) for n in value.nodes],
                "relationships": [to_json(r) for r in value.relationships]}
    if isinstance(value, Vector):
        return value.tolist()
    if isinstance(value, dict):
        return {str(k): to_json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_json(v) for v in value]
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).hex()
    return format_value(value, abbreviate=False)
