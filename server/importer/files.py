"""Whole input files as Arrow tables with their header names: CSV (gzip by extension) through
pyarrow's multithreaded reader, Parquet and Arrow IPC natively. Rows with the wrong number of fields
are skipped and reported by line."""
from __future__ import annotations

import csv
import gzip
import io
import zlib
from dataclasses import dataclass, field

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv
import pyarrow.parquet as pq


@dataclass
class InputFile:
    path: str
    names: list[str]                      # header names, as written
    table: pa.Table                       # columns c0, c1, ... in header order
    skipped: list[tuple[int | None, str, str]] = field(default_factory=list)   # (line, reason, text)
    csv: bool = True

    def line_of(self, row: int) -> int:
        """The file line of kept data row ``row`` (CSV: header on line 1, one line per record)."""
        if not self.csv:
            return row + 1
        line = row + 2
        for skipped_line, _, _ in self.skipped:      # sorted: each skipped line before it shifts it
            if skipped_line is not None and skipped_line <= line:
                line += 1
        return line


MAX_HEADER = 1 << 20          # longest header line (bytes): a file with no newline is not read whole
BLOCK = 8 << 20               # CSV read block: the longest line the reader takes


class UnreadableInput(ValueError):
    """An input file that cannot be read as a table (not UTF-8, corrupt, truncated, not a file)."""


def read_input(path: str, delimiter: str = ",") -> InputFile:
    """The whole file as a table; UnreadableInput (naming the file, and the line where known) otherwise."""
    try:
        return _read(path, delimiter)
    except UnreadableInput:
        raise
    except (OSError, EOFError, zlib.error, csv.Error, pa.ArrowException, UnicodeDecodeError) as exc:
        if "straddl" in str(exc):        # Arrow's words for a record longer than its read block
            raise UnreadableInput(f"{path}: a line is longer than {BLOCK >> 20} MiB (a huge field, or a "
                                  "missing line end)") from None
        raise UnreadableInput(f"{path}: cannot read it: {exc}") from None


def _read(path: str, delimiter: str) -> InputFile:
    lower = path.lower()
    if lower.endswith(".parquet"):
        table = pq.read_table(path)
        return InputFile(path, table.column_names, _positional(table), csv=False)
    if lower.endswith((".arrow", ".feather", ".ipc")):
        with pa.memory_map(path) as source:
            try:
                table = pa.ipc.open_file(source).read_all()
            except pa.ArrowInvalid:
                source.seek(0)
                table = pa.ipc.open_stream(source).read_all()
        return InputFile(path, table.column_names, _positional(table), csv=False)
    names = _csv_header(path, delimiter)
    skipped: list = []

    def on_invalid(row) -> str:
        skipped.append((row.number, f"{row.actual_columns} field(s), the header has {row.expected_columns}",
                        row.text))
        return "skip"

    positional = [f"c{i}" for i in range(len(names))]

    def read(kind: pa.DataType) -> pa.Table:
        skipped.clear()
        return pacsv.read_csv(
            path,
            read_options=pacsv.ReadOptions(column_names=positional, skip_rows=1, block_size=BLOCK),
            parse_options=pacsv.ParseOptions(delimiter=delimiter, newlines_in_values=False,
                                             invalid_row_handler=on_invalid),
            convert_options=pacsv.ConvertOptions(column_types={n: kind for n in positional},
                                                 strings_can_be_null=True, quoted_strings_can_be_null=False))
    try:
        table, not_utf8 = read(pa.string()), []
    except pa.ArrowInvalid as exc:
        if "UTF8" not in str(exc):
            raise
        table, not_utf8 = _utf8_rows(read(pa.binary()))      # the slow path only for a file that needs it
    if any(line is None for line, _, _ in skipped):
        skipped = _find_lines(path, skipped)
    found = InputFile(path, names, table, sorted(skipped, key=lambda s: s[0] or 0))
    if not_utf8:
        found = _drop_rows(found, not_utf8, "the row is not UTF-8 text")
    _refuse_multiline(found)
    return found


def _utf8_rows(table: pa.Table) -> tuple[pa.Table, dict[int, str]]:
    """A table read as bytes, as text: rows with a value that is not UTF-8 are found (row -> its text)."""
    bad: dict[int, str] = {}
    for column in table.columns:
        try:
            pc.cast(column, pa.string())
        except pa.ArrowInvalid:
            for row, value in enumerate(column.to_pylist()):
                if value is not None and row not in bad:
                    try:
                        value.decode("utf-8")
                    except UnicodeDecodeError:
                        bad[row] = b",".join(v or b"" for v in (c[row].as_py() for c in table.columns)) \
                            .decode("utf-8", "replace")
    keep = pa.array([row not in bad for row in range(table.num_rows)])
    text = table.filter(keep)
    return pa.table([pc.cast(c, pa.string()) for c in text.columns], names=table.column_names), bad


def _drop_rows(found: InputFile, dropped: dict[int, str], reason: str) -> InputFile:
    """``found`` (whose table no longer holds the ``dropped`` rows) with them reported as skipped lines;
    their lines are counted as the table had them, before the removal."""
    lines = [(found.line_of(row), reason, text) for row, text in dropped.items()]
    skipped = sorted(found.skipped + lines, key=lambda s: s[0] or 0)
    return InputFile(found.path, found.names, found.table, skipped, found.csv)


def _refuse_multiline(found: InputFile) -> None:
    """Records are one line each: a value holding a line end is an unclosed quote that swallowed the
    lines after it (or a quoted newline, which this reader does not support)."""
    for column in found.table.columns:
        if column.null_count == len(column):
            continue
        hits = pc.or_(pc.match_substring(column, "\n"), pc.match_substring(column, "\r"))
        if pc.any(hits).as_py():
            row = pc.index(hits, True).as_py()
            raise UnreadableInput(f"{found.path}:{found.line_of(row)}: a quoted value runs past the end of its "
                                  "line (an unclosed quote, or a newline inside a value, which import does not "
                                  "support); nothing was imported")


def _find_lines(path: str, skipped: list) -> list:
    """Line numbers of skipped rows (the multithreaded reader does not know them): first unused match."""
    wanted: dict[str, list[int]] = {}
    for i, (_, _, text) in enumerate(skipped):
        wanted.setdefault(text, []).append(i)
    found = list(skipped)
    raw = gzip.open(path, "rb") if path.lower().endswith(".gz") else open(path, "rb")
    with io.TextIOWrapper(raw, encoding="utf-8-sig", errors="replace", newline="") as text:
        for number, line in enumerate(text, 1):
            waiting = wanted.get(line.rstrip("\r\n"))
            if waiting:
                i = waiting.pop(0)
                found[i] = (number, found[i][1], found[i][2])
    return found


def _positional(table: pa.Table) -> pa.Table:
    return table.rename_columns([f"c{i}" for i in range(table.num_columns)])


def _csv_header(path: str, delimiter: str) -> list[str]:
    """The header names, from the first line alone (read as bytes, at most ``MAX_HEADER``)."""
    raw = gzip.open(path, "rb") if path.lower().endswith(".gz") else open(path, "rb")
    with raw:
        line = raw.readline(MAX_HEADER + 1)
    if len(line) > MAX_HEADER:
        raise UnreadableInput(f"{path}:1: the header line is longer than {MAX_HEADER >> 20} MiB")
    try:
        text = line.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise UnreadableInput(f"{path}:1: the header is not UTF-8 text") from None
    header = next(csv.reader([text.rstrip("\r\n")], delimiter=delimiter), None) if text.strip() else None
    if not header:
        raise UnreadableInput(f"{path}: no header line")
    return header
