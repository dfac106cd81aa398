"""Whole input files as Arrow tables with their header names: CSV (gzip by extension) through
pyarrow's multithreaded reader, Parquet and Arrow IPC natively. Rows with the wrong number of fields
are skipped and reported by line."""
from __future__ import annotations

import csv
import gzip
import io
from dataclasses import dataclass, field

import pyarrow as pa
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


def read_input(path: str, delimiter: str = ",") -> InputFile:
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
    table = pacsv.read_csv(
        path,
        read_options=pacsv.ReadOptions(column_names=positional, skip_rows=1, block_size=8 << 20),
        parse_options=pacsv.ParseOptions(delimiter=delimiter, newlines_in_values=False,
                                         invalid_row_handler=on_invalid),
        convert_options=pacsv.ConvertOptions(column_types={n: pa.string() for n in positional},
                                             strings_can_be_null=True, quoted_strings_can_be_null=False))
    if any(line is None for line, _, _ in skipped):
        skipped = _find_lines(path, skipped)
    return InputFile(path, names, table, sorted(skipped, key=lambda s: s[0] or 0))


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
    raw = gzip.open(path, "rb") if path.lower().endswith(".gz") else open(path, "rb")
    with io.TextIOWrapper(raw, encoding="utf-8-sig", newline="") as text:
        header = next(csv.reader(text, delimiter=delimiter), None)
    if not header:
        raise ValueError(f"{path}: no header line")
    return header
