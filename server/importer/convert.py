"""Arrow columns to stored values, column at a time: one vectorized cast per column, a per-value pass
only for a column that holds bad values (to name each bad row)."""
from __future__ import annotations

import re

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from msgpack import ExtType

from relate.server.storage import codec
from relate.server.storage.bulk import FLOAT32_TAG, packed_vector

_ARROW = {"int": pa.int64(), "float": pa.float64(), "boolean": pa.bool_(), "string": pa.string()}
_ITEM = {"string[]": "string", "int[]": "int", "float[]": "float", "boolean[]": "boolean"}
_INTEGER = re.compile(r"[+-]?[0-9]+")        # ASCII digits only: int() would also take "1_000" and "٣"
INT64 = range(-2 ** 63, 2 ** 63)


def column_values(column: pa.ChunkedArray, kind: str, array_delimiter: str) -> tuple[list, dict]:
    """(values by row, {row index: reason}) for one column; bad values become None."""
    column = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    if kind in _ARROW:
        return _scalars(column, kind)
    if pa.types.is_string(column.type) or pa.types.is_large_string(column.type):
        column = pc.split_pattern(column, array_delimiter)
    if kind == "vector":
        return _vectors(column)
    item = _ITEM[kind]
    try:
        return pc.cast(column, pa.list_(_ARROW[item])).to_pylist(), {}
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        values, bad = [], {}
        for i, items in enumerate(column.to_pylist()):
            try:
                values.append(None if items is None else [_parse(v, item) for v in items])
            except (ValueError, TypeError):
                values.append(None)
                bad[i] = f"{items!r} is not a list of {item}"
        return values, bad


def _scalars(column: pa.Array, kind: str) -> tuple[list, dict]:
    if kind == "string" and not (pa.types.is_string(column.type) or pa.types.is_large_string(column.type)):
        return [None if v is None else str(v) for v in column.to_pylist()], {}
    try:
        return pc.cast(column, _ARROW[kind]).to_pylist(), {}
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        values, bad = [], {}
        for i, v in enumerate(column.to_pylist()):
            try:
                values.append(None if v is None else _parse(v, kind))
            except (ValueError, TypeError):
                values.append(None)
                bad[i] = f"{v!r} is not a valid {kind}" + (" (64-bit)" if kind == "int" else "")
        return values, bad


def _parse(value, kind: str):
    if kind == "int":
        if isinstance(value, (bool, float)):
            raise ValueError(value)
        if isinstance(value, str):
            if not _INTEGER.fullmatch(value.strip()):
                raise ValueError(value)
            value = int(value.strip())
        number = int(value)
        if number not in INT64:          # the store holds 64-bit integers, like Cypher
            raise ValueError(value)
        return number
    if kind == "float":
        return float(value)
    if kind == "boolean":
        if isinstance(value, bool):
            return value
        text = str(value).strip().lower()
        if text in ("true", "false"):
            return text == "true"
        raise ValueError(value)
    return str(value)


def _vectors(column: pa.Array) -> tuple[list, dict]:
    """Float32 vectors, packed for the snapshot straight from the flat Arrow buffer."""
    try:
        lists = pc.cast(column, pa.list_(pa.float32()))
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        values, bad = [], {}
        for i, items in enumerate(column.to_pylist()):
            try:
                values.append(None if items is None else packed_vector(_finite32(items)))
            except (TypeError, ValueError):
                values.append(None)
                bad[i] = f"{items!r} is not a list of finite float32 numbers"
        return values, bad
    offsets_np = lists.offsets.to_numpy()
    flat = lists.values.to_numpy(zero_copy_only=False).astype(np.float32, copy=False)
    valid = lists.is_valid().to_numpy(zero_copy_only=False)
    # One finiteness test and one bytes copy for the whole column; rows are then slices of those bytes.
    # NaN, an infinity or a number beyond float32 (cast to infinity) spoil their row.
    nan_rows = set((np.searchsorted(offsets_np, np.flatnonzero(~np.isfinite(flat)), side="right") - 1).tolist()) \
        if flat.size and not np.isfinite(flat).all() else set()
    offsets = (offsets_np * 4).tolist()
    valid = valid.tolist()
    data = flat.tobytes()
    tag = FLOAT32_TAG
    ext = codec.EXT_VECTOR
    bad = {}
    values = []
    for i in range(len(lists)):
        lo, hi = offsets[i], offsets[i + 1]
        if not valid[i]:
            values.append(None)
        elif hi == lo or i in nan_rows:
            values.append(None)
            bad[i] = "an empty vector or one with a missing, NaN or infinite coordinate"
        else:
            values.append(ExtType(ext, tag + data[lo:hi]))
    return values, bad


def _finite32(items) -> np.ndarray:
    """Coordinates as float64, each finite and within float32's range (ValueError otherwise)."""
    array = np.array([float(v) for v in items])
    if not array.size or not np.isfinite(array).all() or np.abs(array).max() > np.finfo(np.float32).max:
        raise ValueError(items)
    return array
