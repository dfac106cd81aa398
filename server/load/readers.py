"""Streaming row readers for LOAD CSV: ``rows(path, headers, terminator)`` yields
``(line_number, row)`` with row a list (no headers) or a dict keyed by the header (headers).

CSV (optionally gzip-compressed, found by its magic bytes) goes through the C ``csv`` reader one
record at a time; values are strings and empty fields are null, as in Neo4j. Parquet and Arrow IPC
(``.parquet``, ``.arrow``, ``.feather``, ``.ipc``) are read in record batches with pyarrow and keep
their column types. Malformed input raises ``ExternalResourceFailed`` naming the line.
"""
from __future__ import annotations

import csv
import gzip
import io
import os
from pathlib import Path
from typing import Iterator

from .paths import load_error
from .progress import LoadProgress

ARROW_SUFFIXES = {".parquet": "parquet", ".arrow": "ipc", ".feather": "ipc", ".ipc": "ipc"}
FIELD_LIMIT = 16 << 20          # longest accepted field (bytes): bounds memory on hostile files
# Longest record (characters, its lines together): a field limit alone lets a line of 500 M commas
# become a list of 500 M fields (gigabytes), from a gzip file of a few hundred kilobytes.
RECORD_LIMIT = 2 * FIELD_LIMIT
BATCH_ROWS = 4096


def rows(path: Path, url: str, headers: bool, terminator: str | None,
         progress: LoadProgress | None = None) -> Iterator[tuple[int, object]]:
    """``progress`` (optional) learns how far the file has been read."""
    kind = ARROW_SUFFIXES.get(path.suffix.lower())
    if kind is not None:
        return _arrow_rows(path, url, headers, kind, progress)
    return _csv_rows(path, url, headers, terminator, progress)


def _delimiter(terminator: str | None) -> str:
    if terminator is None:
        return ","
    if terminator in ("\\t", "\t"):
        return "\t"
    if len(terminator) != 1:
        raise load_error(f"FIELDTERMINATOR must be one character, got {terminator!r}")
    if terminator in "\r\n\"":
        raise load_error(f"FIELDTERMINATOR cannot be a quote or a line end, got {terminator!r}")
    return terminator


class _RecordLines:
    """The text's lines for ``csv.reader``, refusing a record (the lines read since ``restart()``)
    longer than ``RECORD_LIMIT`` characters; a line is never read further than that."""

    def __init__(self, text, url: str):
        self.text, self.url, self.size, self.line = text, url, 0, 1

    def restart(self, line: int) -> None:
        self.size, self.line = 0, line

    def __iter__(self):
        return self

    def __next__(self) -> str:
        chunk = self.text.readline(RECORD_LIMIT - self.size + 1)
        if not chunk:
            raise StopIteration
        self.size += len(chunk)
        if self.size > RECORD_LIMIT:
            raise load_error(f"LOAD CSV: {self.url} line {self.line}: a record is longer than "
                             f"{RECORD_LIMIT >> 20} MiB")
        return chunk


def _open_text(path: Path, progress: LoadProgress | None):
    disk = open(path, "rb")
    try:
        magic = disk.read(2)
        disk.seek(0)
        raw = gzip.GzipFile(fileobj=disk, mode="rb") if magic == b"\x1f\x8b" else disk
        text = io.TextIOWrapper(raw, encoding="utf-8-sig", newline="")
    except BaseException:
        disk.close()
        raise
    if progress is not None:
        progress.fd, progress.bytes_total = disk.fileno(), os.fstat(disk.fileno()).st_size
    return text, disk


def _csv_rows(path: Path, url: str, headers: bool, terminator: str | None, progress: LoadProgress | None):
    delimiter = _delimiter(terminator)
    csv.field_size_limit(FIELD_LIMIT)
    text, disk = _open_text(path, progress)
    with disk, text:
        lines = _RecordLines(text, url)
        reader = csv.reader(lines, delimiter=delimiter, strict=True)
        line = 1
        try:
            if headers:
                header = next(reader, None)
                if header is None:
                    return
                line = reader.line_num + 1
                width = len(header)
                lines.restart(line)
            for record in reader:
                lines.restart(reader.line_num + 1)
                if headers:
                    if len(record) != width:
                        if not record:           # a blank line
                            line = reader.line_num + 1
                            continue
                        raise load_error(f"LOAD CSV: {url} line {line}: {len(record)} field(s), the header "
                                         f"has {width}")
                    yield line, {key: (value or None) for key, value in zip(header, record)}
                else:
                    if not record:
                        line = reader.line_num + 1
                        continue
                    yield line, [value or None for value in record]
                line = reader.line_num + 1
        except csv.Error as bad:
            raise load_error(f"LOAD CSV: {url} line {line}: malformed CSV ({bad})") from None
        except UnicodeDecodeError:
            raise load_error(f"LOAD CSV: {url} near line {line}: the file is not UTF-8 text") from None
        except (OSError, EOFError) as bad:      # a truncated or corrupt gzip stream
            raise load_error(f"LOAD CSV: {url} near line {line}: unreadable ({bad})") from None
        finally:
            if progress is not None:
                progress.fd = None                 # the descriptor closes with the file


def _arrow_batches(path: Path, kind: str, progress: LoadProgress | None):
    import pyarrow as pa
    import pyarrow.parquet as pq
    if kind == "parquet":
        parquet = pq.ParquetFile(path)
        if progress is not None:
            progress.rows_total = parquet.metadata.num_rows
        yield from parquet.iter_batches(batch_size=BATCH_ROWS)
        return
    try:
        reader = pa.ipc.open_file(path)
        for i in range(reader.num_record_batches):
            yield reader.get_batch(i)
    except pa.ArrowInvalid:            # not the file format: the streaming format
        with pa.ipc.open_stream(path) as stream:
            yield from stream


def _arrow_rows(path: Path, url: str, headers: bool, kind: str, progress: LoadProgress | None):
    import pyarrow as pa
    line = 1
    try:
        for batch in _arrow_batches(path, kind, progress):
            if progress is not None:
                progress.rows_read += batch.num_rows
            names = batch.schema.names
            columns = [_column_values(batch.column(i)) for i in range(batch.num_columns)]
            for values in zip(*columns):
                yield line, (dict(zip(names, values)) if headers else list(values))
                line += 1
    except (pa.ArrowException, OSError) as bad:
        raise load_error(f"LOAD CSV: {url} near row {line}: unreadable {kind} file ({bad})") from None


def _vectors(column, kind) -> list:
    from relate.protocol.values import Vector
    coordinate = "FLOAT32" if kind.value_type.bit_width == 32 else "FLOAT64"
    flat = column.flatten().to_numpy(zero_copy_only=False)
    rows = flat.reshape(-1, kind.list_size) if kind.list_size else flat.reshape(len(column), 0)
    valid = column.is_valid().to_numpy(zero_copy_only=False).tolist() if column.null_count else None
    if valid is None:
        return [Vector(row, coordinate) for row in rows]
    values, j = [], 0
    for ok in valid:                    # flatten() skips null lists: walk the rows of the valid ones
        if ok:
            values.append(Vector(rows[j], coordinate))
            j += 1
        else:
            values.append(None)
    return values


def _column_values(column) -> list:
    """Python values of an Arrow column; dates and timestamps become Cypher temporal values, and
    fixed-size lists of floats become vectors (FLOAT32 / FLOAT64) without a Python float per element."""
    import pyarrow as pa
    kind = column.type
    if pa.types.is_fixed_size_list(kind) and kind.value_type in (pa.float32(), pa.float64()):
        return _vectors(column, kind)
    values = column.to_pylist()
    if pa.types.is_date(kind) or pa.types.is_timestamp(kind):
        from relate.protocol.temporal import Date, DateTime, LocalDateTime
        if pa.types.is_date(kind):
            convert = Date.from_python
        else:
            convert = DateTime.from_python if kind.tz else LocalDateTime.from_python
        values = [None if v is None else convert(v) for v in values]
    return values
