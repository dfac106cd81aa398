"""Vector functions: vector() (a typed, dimension-checked constructor that guards writes),
vector.similarity.cosine / euclidean, vector_dimension_count, vector_norm, vector_distance."""
from __future__ import annotations

import math

import numpy as np

from relate.protocol.errors import ArgumentError
from relate.protocol.values import VECTOR_TYPES, Vector
from relate.server.query.exec.functions.registry import function, type_error


_NUMBER_TYPES = frozenset((int, float))


def _coordinates(fn_name, v) -> np.ndarray:
    """A float64 array from a Vector or a list of numbers."""
    if type(v) is Vector:
        return v.to_numpy().astype(np.float64, copy=False)
    if type(v) is list:
        if not _NUMBER_TYPES.issuperset(map(type, v)):      # one C-level pass over the item types
            for x in v:
                if type(x) is not int and type(x) is not float:
                    raise type_error(fn_name, x, "a List of numbers")
        return np.asarray(v, dtype=np.float64)
    raise type_error(fn_name, v, "a Vector or a List of numbers")


def _parse_vector_string(text: str) -> list:
    body = text.strip()
    if not (body.startswith("[") and body.endswith("]")):
        raise ArgumentError(f"Cannot parse '{text}' as a vector", detail="InvalidArgumentValue",
                            phase="runtime")
    inner = body[1:-1].strip()
    try:
        return [float(part) for part in inner.split(",")] if inner else []
    except ValueError:
        raise ArgumentError(f"Cannot parse '{text}' as a vector", detail="InvalidArgumentValue",
                            phase="runtime") from None


@function("vector", 3, description="A vector from a list or string of coordinates, a dimension and a coordinate type.")
def vector(ctx, value, dimension, coordinate_type):
    if value is None or dimension is None or coordinate_type is None:
        return None
    if type(dimension) is not int:
        raise type_error("vector", dimension, "an Integer dimension")
    if dimension <= 0:
        raise ArgumentError(f"vector() dimension must be positive, got {dimension}",
                            detail="NumberOutOfRange", phase="runtime")
    if type(coordinate_type) is not str or coordinate_type.upper() not in VECTOR_TYPES:
        raise ArgumentError(f"Unknown vector coordinate type: {coordinate_type}",
                            detail="InvalidArgumentValue", phase="runtime")
    if type(value) is str:
        value = _parse_vector_string(value)
    elif type(value) is Vector and value.coordinate_type == coordinate_type.upper() \
            and value.dimension == dimension and np.isfinite(value.to_numpy()).all():
        return value            # already that vector (e.g. a float32 column read by LOAD CSV); immutable
    coords = _coordinates("vector", value)
    if coords.shape[0] != dimension:
        raise ArgumentError(
            f"vector() expected a list of dimension {dimension}, but got {coords.shape[0]}",
            detail="InvalidArgumentValue", phase="runtime")
    if not np.all(np.isfinite(coords)):
        raise ArgumentError("vector() coordinates must be finite numbers",
                            detail="InvalidArgumentValue", phase="runtime")
    return Vector(coords, coordinate_type)


_MEMO_AT = 16       # lists this long met again in one statement (a query vector parameter) convert once


def _memo_coordinates(ctx, fn_name, v) -> np.ndarray:
    """``_coordinates``, kept per statement for a long list seen before (the same object: a parameter
    or a list carried by WITH, compared with every row's vector)."""
    memo = getattr(ctx, "memo", None)
    if memo is None or type(v) is not list or len(v) < _MEMO_AT:
        return _coordinates(fn_name, v)
    key = ("vector coordinates", id(v))
    kept = memo.get(key)
    if kept is not None and kept[0] is v:
        return kept[1]
    coords = _coordinates(fn_name, v)
    memo[key] = (v, coords)             # holds v: its id is not reused while the statement runs
    return coords


def _pair(fn_name, a, b, ctx=None):
    x, y = _memo_coordinates(ctx, fn_name, a), _memo_coordinates(ctx, fn_name, b)
    if x.shape != y.shape:
        raise ArgumentError(f"{fn_name}() needs vectors of equal dimension, got {x.shape[0]} and "
                            f"{y.shape[0]}", detail="InvalidArgumentValue", phase="runtime")
    return x, y


@function("vector.similarity.cosine", 2, description="The cosine similarity of two vectors, scaled to 0..1.")
def similarity_cosine(ctx, a, b):
    """(1 + cos) / 2, in 0..1; null when either vector is null or has no length."""
    if a is None or b is None:
        return None
    x, y = _pair("vector.similarity.cosine", a, b, ctx)
    norms = math.sqrt(float(np.dot(x, x))) * math.sqrt(float(np.dot(y, y)))     # np.linalg.norm's own sum
    if norms == 0.0:
        return None
    cos = float(np.dot(x, y)) / norms
    return (1.0 + max(-1.0, min(1.0, cos))) / 2.0


@function("vector.similarity.euclidean", 2, description="The Euclidean similarity of two vectors, 1 / (1 + d²).")
def similarity_euclidean(ctx, a, b):
    """1 / (1 + d²)."""
    if a is None or b is None:
        return None
    x, y = _pair("vector.similarity.euclidean", a, b, ctx)
    diff = x - y
    return 1.0 / (1.0 + float(np.dot(diff, diff)))


@function("vector_dimension_count", 1, description="The number of dimensions of a vector.")
def vector_dimension_count(ctx, v):
    if v is None:
        return None
    return int(_coordinates("vector_dimension_count", v).shape[0])


@function("vector_norm", 2, description="The norm of a vector (EUCLIDEAN or MANHATTAN).")
def vector_norm(ctx, v, metric):
    if v is None or metric is None:
        return None
    x = _coordinates("vector_norm", v)
    kind = metric.upper() if type(metric) is str else None
    if kind == "EUCLIDEAN":
        return float(np.linalg.norm(x))
    if kind == "MANHATTAN":
        return float(np.abs(x).sum())
    raise ArgumentError(f"Unknown vector norm: {metric}", detail="InvalidArgumentValue",
                        phase="runtime")


@function("vector_distance", 3, description="The distance between two vectors by a named metric.")
def vector_distance(ctx, a, b, metric):
    if a is None or b is None or metric is None:
        return None
    x, y = _pair("vector_distance", a, b)
    kind = metric.upper() if type(metric) is str else None
    if kind == "EUCLIDEAN":
        return float(np.linalg.norm(x - y))
    if kind == "EUCLIDEAN_SQUARED":
        d = x - y
        return float(np.dot(d, d))
    if kind == "MANHATTAN":
        return float(np.abs(x - y).sum())
    if kind == "COSINE":
        norms = float(np.linalg.norm(x)) * float(np.linalg.norm(y))
        return None if norms == 0.0 else 1.0 - float(np.dot(x, y)) / norms
    if kind == "DOT":
        return -float(np.dot(x, y))
    if kind == "HAMMING":
        return float(np.count_nonzero(x != y))
    raise ArgumentError(f"Unknown vector distance metric: {metric}", detail="InvalidArgumentValue",
                        phase="runtime")



# FalkorDB's spellings (queries written for FalkorDB run unchanged): vecf32() and two distances.
@function("vecf32", 1, description="A FLOAT32 vector from a list of numbers (FalkorDB's constructor).")
def vecf32(ctx, value):
    if value is None:
        return None
    if type(value) is Vector:
        return vector(ctx, value, value.dimension, "FLOAT32")
    if type(value) is not list:
        raise type_error("vecf32", value, "a List of numbers")
    if not value:
        raise ArgumentError("vecf32() needs at least one coordinate", detail="InvalidArgumentValue",
                            phase="runtime")
    return vector(ctx, value, len(value), "FLOAT32")


@function("vec.euclideanDistance", 2, description="The Euclidean (L2) distance between two vectors (FalkorDB).")
def vec_euclidean_distance(ctx, a, b):
    return vector_distance(ctx, a, b, "EUCLIDEAN")


@function("vec.cosineDistance", 2, description="1 - the cosine of the angle between two vectors (FalkorDB).")
def vec_cosine_distance(ctx, a, b):
    return vector_distance(ctx, a, b, "COSINE")
