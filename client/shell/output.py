"""How results are printed: a rich table fitted to the terminal, a plain pipe table, CSV or JSON lines.

Each writer takes the columns and the rows of one statement and returns how many rows there were; the
status line (``3 rows · nodes created: 3``) goes where that format wants it.
"""
from __future__ import annotations

import csv
import json
import sys
from itertools import islice
from typing import IO, Iterable, Sequence

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from .formatting import format_cell, format_value, to_json

FORMATS = ("table", "plain", "csv", "json")
MAX_CELL_CHARS = 2000        # longer cells are cut: a wall of text helps nobody in a table
DEFAULT_MAX_ROWS = 1000      # rows a terminal table shows; the rest are counted, not drawn
WIDTH_SAMPLE = 1000          # rows a plain table measures for its column widths before streaming
READABLE_CELL = 24           # a table whose cells would wrap narrower than this is shown record by record


_SPEND = (("semanticCalls", "semantic search", "semantic searches"), ("llmCalls", "model call", "model calls"),
          ("apiCalls", "API call", "API calls"))


def spend_text(costs: dict | None) -> str:
    """A statement's AI spend in words, ``1 semantic search, 2 model calls``; empty when nothing was spent."""
    return ", ".join(f"{costs[key]:,} {one if costs[key] == 1 else many}"
                     for key, one, many in _SPEND if costs and costs.get(key))


def summary_line(columns: Sequence[str], row_count: int, counters: str = "",
                 elapsed_ms: float | None = None, spend: str = "") -> str:
    """The line after a result, as the cookbook prints it: ``1 row · nodes created: 46, ...``, then what
    the statement spent on AI calls (``spend_text``) when it spent any."""
    if not columns and not row_count:
        head = "(no rows)"
    else:
        head = f"{row_count:,} row" + ("" if row_count == 1 else "s")
    parts = [head]
    if counters:
        parts.append(counters)
    if spend:
        parts.append(spend)
    if elapsed_ms is not None:
        parts.append(f"{elapsed_ms:,.1f} ms")
    return " · ".join(parts)


def plain_table(columns: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A padded pipe table (Markdown style): ``| id | name |`` / ``|----|------|`` / rows."""
    widths = [len(c) for c in columns]
    for row in rows:
        for i, cell in enumerate(row):
            widths[i] = max(widths[i], len(cell))

    def line(cells: Iterable[str]) -> str:
        return "| " + " | ".join(cell.ljust(w) for cell, w in zip(cells, widths)) + " |"

    out = [line(columns), "|" + "|".join("-" * (w + 2) for w in widths) + "|"]
    out.extend(line(row) for row in rows)
    return "\n".join(out)


def _clip(text: str) -> str:
    return text if len(text) <= MAX_CELL_CHARS else text[:MAX_CELL_CHARS - 1] + "…"


class TableWriter:
    """Rich tables that fit the terminal width: long cells wrap, very long ones are cut. A result with
    more columns than the width holds readably (SHOW INDEXES' twelve at 120 characters) is shown one
    record at a time, a column per line, as psql's expanded display does."""

    def __init__(self, console: Console, max_rows: int = DEFAULT_MAX_ROWS):
        self.console = console
        self.max_rows = max_rows

    def write(self, columns: Sequence[str], rows: Iterable[Sequence]) -> int:
        shown: list[list[Text]] = []
        count = 0
        for row in rows:
            count += 1
            if count <= self.max_rows:
                shown.append([_cell(value) for value in row])
        if count and columns:
            if _table_width(columns, shown) > self.console.width:
                self._expanded(columns, shown)
            else:
                table = Table(box=box.ROUNDED, header_style="bold", show_edge=True, pad_edge=True)
                for name in columns:
                    table.add_column(Text(name), overflow="fold")
                for cells in shown:
                    table.add_row(*cells)
                self.console.print(table)
        if count > self.max_rows:
            self.console.print(Text(f"(first {self.max_rows:,} of {count:,} rows shown)", style="dim"))
        return count

    def _expanded(self, columns: Sequence[str], shown: list[list[Text]]) -> None:
        for number, cells in enumerate(shown, start=1):
            self.console.rule(Text(f"record {number}", style="dim"), align="left", style="dim")
            grid = Table.grid(padding=(0, 1))
            grid.add_column(style="bold", no_wrap=True)
            grid.add_column(overflow="fold")
            for name, cell in zip(columns, cells):
                grid.add_row(Text(name), cell)
            self.console.print(grid)

    def status(self, line: str) -> None:
        self.console.print(Text(line, style="dim"))


def _table_width(columns: Sequence[str], rows: list[list[Text]]) -> int:
    """The width a table needs for its headers whole and its cells wrapped at READABLE_CELL characters."""
    widths = [len(name) for name in columns]
    for cells in rows:
        for i, cell in enumerate(cells):
            widths[i] = max(widths[i], min(cell.cell_len, READABLE_CELL))
    return sum(widths) + 3 * len(widths) + 1

    def status(self, line: str) -> None:
        self.console.print(Text(line, style="dim"))


def _cell(value) -> Text:
    text = Text(_clip(format_value(value)))
    if value is None:
        text.stylize("dim")
    return text


class PlainWriter:
    """The cookbook's pipe tables, full width, for pipes and files."""

    def __init__(self, stream: IO[str]):
        self.stream = stream

    def write(self, columns: Sequence[str], rows: Iterable[Sequence]) -> int:
        # Streams: column widths come from the first WIDTH_SAMPLE rows, later rows are written as they
        # arrive (a longer cell widens its own line only), so memory stays flat for any result size.
        rows = iter(rows)
        head = [[format_value(v) for v in row] for row in islice(rows, WIDTH_SAMPLE)]
        if not head or not columns:
            return len(head) + sum(1 for _ in rows)
        table = plain_table(columns, head)
        self.stream.write(table + "\n")
        widths = [len(cell) - 2 for cell in table.split("\n", 2)[1].split("|")[1:-1]]
        count = len(head)
        write = self.stream.write
        for row in rows:
            write("| " + " | ".join(format_value(v).ljust(w) for v, w in zip(row, widths)) + " |\n")
            count += 1
        return count

    def status(self, line: str) -> None:
        self.stream.write(line + "\n")
        self.stream.flush()


class CsvWriter:
    """A header and one line per row; status lines go to stderr so the output stays pure CSV."""

    def __init__(self, stream: IO[str], status_stream: IO[str] | None = None):
        self.stream = stream
        self.status_stream = status_stream or sys.stderr

    def write(self, columns: Sequence[str], rows: Iterable[Sequence]) -> int:
        writer = csv.writer(self.stream, lineterminator="\n")
        if columns:
            writer.writerow(columns)
        count = 0
        for row in rows:
            writer.writerow([format_cell(v) for v in row])
            count += 1
        self.stream.flush()
        return count

    def status(self, line: str) -> None:
        self.status_stream.write(line + "\n")


class JsonWriter:
    """JSON lines: one object per row keyed by column; status lines go to stderr."""

    def __init__(self, stream: IO[str], status_stream: IO[str] | None = None):
        self.stream = stream
        self.status_stream = status_stream or sys.stderr

    def write(self, columns: Sequence[str], rows: Iterable[Sequence]) -> int:
        count = 0
        for row in rows:
            record = {name: to_json(value) for name, value in zip(columns, row)}
            self.stream.write(json.dumps(record, ensure_ascii=False) + "\n")
            count += 1
        self.stream.flush()
        return count

    def status(self, line: str) -> None:
        self.status_stream.write(line + "\n")


def make_writer(fmt: str, *, console: Console | None = None, stream: IO[str] | None = None):
    """The writer for ``fmt`` (one of FORMATS) printing to ``console`` / ``stream`` (stdout)."""
    stream = stream or sys.stdout
    if fmt == "table":
        return TableWriter(console or Console(file=stream, highlight=False))
    if fmt == "plain":
        return PlainWriter(stream)
    if fmt == "csv":
        return CsvWriter(stream)
    if fmt == "json":
        return JsonWriter(stream)
    raise ValueError(f"unknown output format {fmt!r}; use one of {', '.join(FORMATS)}")
