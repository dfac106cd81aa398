"""``:export FILE STATEMENT``: a statement's result written to a file, the format from its extension:
``.csv``, ``.jsonl`` / ``.ndjson`` (JSON lines), ``.parquet`` (typed columns; vectors as float lists)."""
from __future__ import annotations

import json
import os
from typing import Iterable, Sequence

from .formatting import to_json
from .output import CsvWriter, JsonWriter

EXTENSIONS = {".csv": "csv", ".jsonl": "jsonl", ".ndjson": "jsonl", ".json": "jsonl", ".parquet": "parquet"}


def export_format(path: str) -> str:
    kind = EXTENSIONS.get(os.path.splitext(path)[1].lower())
    if kind is None:
        raise ValueError(f"cannot tell the format of {path!r}: use .csv, .jsonl or .parquet")
    return kind


def export_rows(path: str, columns: Sequence[str], rows: Iterable[Sequence]) -> int:
    """Write ``rows`` to ``path`` (replaced atomically once complete); returns the row count."""
    kind = export_format(path)
    temp = path + ".part"
    try:
        if kind == "parquet":
            count = _parquet(temp, columns, rows)
        else:
            with open(temp, "w", encoding="utf-8", newline="") as out:
                writer = CsvWriter(out) if kind == "csv" else JsonWriter(out)
                count = writer.write(columns, rows)
        os.replace(temp, path)
    finally:
        if os.path.exists(temp):
            os.unlink(temp)
    return count


def _parquet(path: str, columns: Sequence[str], rows: Iterable[Sequence]) -> int:
    import pyarrow as pa
    import pyarrow.parquet as pq
    values: list[list] = [[] for _ in columns]
    count = 0
    for row in rows:
        for i, value in enumerate(row):
            values[i].append(to_json(value))
        count += 1
    arrays = []
    for column in values:
        try:
            arrays.append(pa.array(column))
        except (pa.ArrowInvalid, pa.ArrowTypeError):       # mixed kinds in one column: JSON text
            arrays.append(pa.array([None if v is None else json.dumps(v, ensure_ascii=False) for v in column]))
    pq.write_table(pa.table(arrays, names=list(columns)), path)
    return count
