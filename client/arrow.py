"""Results as Apache Arrow: record batches built while the rows stream, so a large result never
exists as Python rows all at once (``pip install relate-db[arrow]``).

Types kept: INTEGER → int64, FLOAT → float64, STRING → string, BOOLEAN → bool, null → null, lists →
list<...>, maps → struct, DATE → date32, ZONED/OFFSET DATETIME → timestamp[ns, tz] (the column takes
the zone of its first value; instants are exact), LOCAL DATETIME → timestamp[ns], LOCAL TIME/TIME →
time64[ns], DURATION → month_day_nano_interval, bytes → binary, vectors → list<float>, nodes and
relationships → structs of their element id, labels/type and properties, paths → their nodes and
relationships. A column mixing incompatible kinds falls back to strings.
"""
from __future__ import annotations

from typing import Any, Iterator

from .temporal import Date, DateTime, LocalDateTime, LocalTime, Time
from .values import Duration, Node, Path, Point, Relationship, Vector

BATCH_ROWS = 10_000


def _pa():
    try:
        import pyarrow
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("to_arrow() needs pyarrow: pip install 'relate-db[arrow]'") from exc
    return pyarrow


def _zone(value: DateTime) -> str:
    zone = value.zone_id
    return "UTC" if zone == "Z" else zone


def _column_type(pa, values: list):
    """The Arrow type for a top-level column whose values need more than pyarrow's inference."""
    first = next((v for v in values if v is not None), None)
    if isinstance(first, DateTime):
        return pa.timestamp("ns", tz=_zone(first))
    if isinstance(first, LocalDateTime):
        return pa.timestamp("ns")
    if isinstance(first, (Time, LocalTime)):
        return pa.time64("ns")
    if isinstance(first, Point) and all(v is None or isinstance(v, Point) for v in values):
        return pa.struct([("srid", pa.int64()), ("x", pa.float64()), ("y", pa.float64()), ("z", pa.float64())])
    if isinstance(first, bool):
        return pa.bool_()
    if isinstance(first, int) and all(v is None or (isinstance(v, int) and not isinstance(v, bool)) for v in values):
        return pa.int64()
    if isinstance(first, float) and all(v is None or isinstance(v, (int, float)) for v in values):
        return pa.float64()
    return None


def _plain(value: Any) -> Any:
    """A value in the Python form pyarrow converts (nested values included)."""
    if isinstance(value, DateTime):
        return value.epoch_nanos
    if isinstance(value, LocalDateTime):
        return value.epoch_nanos
    if isinstance(value, (Time, LocalTime)):
        return value.nanos_of_day
    if isinstance(value, Date):
        return _date(value)
    if isinstance(value, Duration):
        return _interval(value)
    if isinstance(value, Vector):
        return value.tolist()
    if isinstance(value, Point):
        return {"srid": value.srid, "x": value.x, "y": value.y, "z": value.z}
    if isinstance(value, Node):
        return {"element_id": value.element_id, "labels": list(value.labels),
                "properties": _props(value.properties)}
    if isinstance(value, Relationship):
        return {"element_id": value.element_id, "type": value.type, "start": f"n:{value.start_id}",
                "end": f"n:{value.end_id}", "properties": _props(value.properties)}
    if isinstance(value, Path):
        return {"nodes": [_plain(n) for n in value.nodes], "relationships": [_plain(r) for r in value.relationships]}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    return value


def _props(properties: dict) -> dict | None:
    return {k: _plain(v) for k, v in properties.items()} or None


def _date(value: Date):
    import datetime
    return datetime.date(value.year, value.month, value.day)


def _interval(value: Duration):
    pa = _pa()
    return pa.MonthDayNano([value.months, value.days, value.seconds * 1_000_000_000 + value.nanoseconds])


def _array(pa, values: list):
    kind = _column_type(pa, values)
    if kind is not None:
        return pa.array([_plain(v) for v in values], type=kind)
    plain = [_plain(v) for v in values]
    try:
        return pa.array(plain)
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError, OverflowError):
        return pa.array([None if v is None else str(v) for v in values], type=pa.string())


def record_batches(columns: list[str], rows: Iterator[list], batch_rows: int = BATCH_ROWS):
    """Arrow RecordBatches of ``batch_rows`` rows from an iterator of row batches."""
    pa = _pa()
    pending: list = []
    for batch in rows:
        pending.extend(batch)
        while len(pending) >= batch_rows:
            chunk, pending = pending[:batch_rows], pending[batch_rows:]
            yield _batch(pa, columns, chunk)
    if pending:
        yield _batch(pa, columns, pending)


def _batch(pa, columns: list[str], rows: list):
    arrays = [_array(pa, [row[i] for row in rows]) for i in range(len(columns))]
    return pa.RecordBatch.from_arrays(arrays, names=list(columns))


def to_table(columns: list[str], batches: list):
    """One table from batches whose inferred types may differ (a null-only first batch, ints then
    floats): the schemas are unified, each batch cast to the result."""
    pa = _pa()
    if not batches:
        return pa.table({name: pa.array([], type=pa.null()) for name in columns})
    schema = pa.unify_schemas([b.schema for b in batches], promote_options="permissive")
    fields = []
    for field in schema:
        kinds = {b.schema.field(field.name).type for b in batches if b.schema.field(field.name).type != pa.null()}
        if len(kinds) > 1 and not all(pa.types.is_integer(k) or pa.types.is_floating(k) for k in kinds) \
                and field.type not in kinds:
            field = field.with_type(pa.string())
        fields.append(field)
    schema = pa.schema(fields)
    out = []
    for batch in batches:
        try:
            out.append(batch.cast(schema))
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError):
            out.append(pa.RecordBatch.from_arrays(
                [col.cast(f.type) if col.type == f.type or f.type != pa.string() else pa.array(
                    [None if v is None else str(v) for v in col.to_pylist()], type=pa.string())
                 for col, f in zip(batch.columns, schema)], schema=schema))
    return pa.Table.from_batches(out, schema=schema)
