"""The import itself: read every file (columnar), give nodes ids per id space, resolve relationship
ends, write the snapshot of a new database directory, then run the schema statements (constraints,
indexes) and wait for the indexes to be built."""
from __future__ import annotations

import shutil
import time
from dataclasses import dataclass, field

from relate.protocol.errors import ClientError
from relate.server.storage.bulk import SnapshotWriter, require_new_directory

from .convert import column_values
from .files import InputFile, UnreadableInput, read_input
from .header import Column, HeaderError, parse_header
from .schema import ImportSchema


class ImportFailed(ClientError):
    """The import stopped (bad header, too many bad rows, unreadable file); nothing was kept."""
    code = "Neo.ClientError.General.InvalidArguments"


@dataclass
class ImportStats:
    nodes: int = 0
    relationships: int = 0
    bad: int = 0
    seconds: float = 0.0
    report: list = field(default_factory=list)       # (file, line, reason, text)
    next_node: int = 0
    next_rel: int = 0


@dataclass
class _Group:
    names: list[str]                 # labels (nodes) or [type] (relationships) from the command line
    files: list[InputFile]


class _Bad:
    """Collects rejected rows; more than ``max_bad`` of them stops the import."""

    def __init__(self, max_bad: int, stats: ImportStats):
        self.max_bad, self.stats = max_bad, stats

    def add(self, file: str, line, reason: str, text: str = "") -> None:
        self.stats.bad += 1
        self.stats.report.append((file, line, reason, text))
        if self.stats.bad > self.max_bad:
            raise ImportFailed(f"more than {self.max_bad} bad rows (--max-bad); the last: {file}:{line}: {reason}")


def run_import(target: str, nodes: list[tuple[list[str], list[str]]], relationships: list[tuple[list[str], list[str]]],
               *, delimiter: str = ",", array_delimiter: str = ";", max_bad: int = 1000,
               report_path: str | None = None, schema: list[str] = (), progress=None) -> ImportStats:
    """Import into the new directory ``target``; ``nodes`` = [(labels, files)], ``relationships`` =
    [([type] or [], files)]. ``progress`` is a rich Progress (or None)."""
    started = time.perf_counter()
    stats = ImportStats()
    bad = _Bad(max_bad, stats)
    _check_delimiters(delimiter, array_delimiter)
    built = ImportSchema(schema)          # a bad statement stops the import before anything is written
    require_new_directory(target)
    try:
        node_groups = [_Group(labels, [read_input(p, delimiter) for p in files]) for labels, files in nodes]
        rel_groups = [_Group(types, [read_input(p, delimiter) for p in files]) for types, files in relationships]
        for group in node_groups + rel_groups:
            for f in group.files:
                for line, reason, text in f.skipped:
                    bad.add(f.path, line, reason, text)
        node_total = sum(f.table.num_rows for g in node_groups for f in g.files)
        rel_total = sum(f.table.num_rows for g in rel_groups for f in g.files)
        writer = SnapshotWriter(target, {"next_node_id": node_total, "next_rel_id": rel_total,
                                         "schema": built.entries, "indexes": built.indexes})
        checks = built if built.has_checks else None
        try:
            ids: dict = {}
            task = progress.add_task("nodes", total=node_total) if progress else None
            for group in node_groups:
                for f in group.files:
                    _write_nodes(writer, f, group.names, ids, array_delimiter, bad, stats, checks)
                    if progress:
                        progress.advance(task, f.table.num_rows)
            task = progress.add_task("relationships", total=rel_total) if progress else None
            for group in rel_groups:
                for f in group.files:
                    _write_rels(writer, f, group.names, ids, array_delimiter, bad, stats, checks)
                    if progress:
                        progress.advance(task, f.table.num_rows)
            writer.close()
        except BaseException:
            writer.abort()
            raise
        if report_path is not None:
            write_report(report_path, stats.report)
        if built.remaining:
            _run_schema(target, built.remaining, progress)
    except (HeaderError, UnreadableInput) as exc:
        shutil.rmtree(target, ignore_errors=True)
        raise ImportFailed(str(exc)) from None
    except BaseException:
        if report_path is not None:
            write_report(report_path, stats.report)
        shutil.rmtree(target, ignore_errors=True)
        raise
    stats.seconds = time.perf_counter() - started
    return stats


def _check_delimiters(delimiter: str, array_delimiter: str) -> None:
    if not isinstance(delimiter, str) or len(delimiter) != 1 or delimiter in "\r\n\"":
        raise ImportFailed(f"the field delimiter must be one character other than a quote or a line end, "
                           f"not {delimiter!r}")
    if not isinstance(array_delimiter, str) or not array_delimiter or array_delimiter == delimiter:
        raise ImportFailed(f"the array delimiter must be a non-empty text other than the field delimiter, "
                           f"not {array_delimiter!r}")


def _header(f: InputFile) -> list[Column]:
    """The file's columns; a HeaderError names the file."""
    try:
        return parse_header(f.names)
    except HeaderError as exc:
        raise HeaderError(f"{f.path}: {exc}") from None


def _id_key(value):
    """An id as a key of its id space: text or an integer (a finite float is accepted as is)."""
    if isinstance(value, (str, int)) and not isinstance(value, bool):
        return value
    if isinstance(value, float) and value == value and value not in (float("inf"), float("-inf")):
        return value
    raise TypeError(value)


def write_report(path: str, report: list) -> None:
    """One rejected row per line: ``file:line<TAB>reason<TAB>row text``."""
    with open(path, "w", encoding="utf-8") as out:
        for file, line, reason, text in report:
            out.write(f"{file}:{line}\t{reason}\t{text}\n")


def _split(columns: list[Column], f: InputFile, array_delimiter: str):
    props, bad_rows = [], {}
    for c in columns:
        if c.role is None or (c.role == "ID" and c.name):
            kind = c.kind if c.role is None else "string"
            values, bad = column_values(f.table.column(c.index), kind, array_delimiter)
            for row, reason in bad.items():
                bad_rows.setdefault(row, f"column {f.names[c.index]!r}: {reason}")
            props.append((c.name, values))
    return props, bad_rows


def _write_nodes(writer, f: InputFile, labels: list[str], ids: dict, array_delimiter, bad: _Bad, stats,
                 checks: ImportSchema | None) -> None:
    columns = _header(f)
    id_col = next((c for c in columns if c.role == "ID"), None)
    label_cols = [c for c in columns if c.role == "LABEL"]
    props, bad_rows = _split(columns, f, array_delimiter)
    id_values = f.table.column(id_col.index).to_pylist() if id_col else None
    label_values = [f.table.column(c.index).to_pylist() for c in label_cols]
    space = ids.setdefault(id_col.space if id_col else None, {})
    base = list(dict.fromkeys(labels))
    row_checks = checks.checks_for("node", base) if checks is not None else []
    nid = stats.next_node
    for row in range(f.table.num_rows):
        reason = bad_rows.get(row)
        if reason is None and label_values:
            reason = next((f"the label {v!r} is not text" for values in label_values
                           if (v := values[row]) is not None and not isinstance(v, str)), None)
        if reason is None and id_values is not None:        # last: a bad row must not claim its id
            reason = _claim_id(space, id_values[row], nid, f.names[id_col.index], id_col.space)
        if reason is not None:
            bad.add(f.path, f.line_of(row), reason, _row_text(f, row))
            continue
        row_labels = base
        if label_values:
            row_labels = list(base)
            for values in label_values:
                value = values[row]
                if value:
                    row_labels.extend(x for x in value.split(array_delimiter) if x and x not in row_labels)
            if checks is not None:
                row_checks = checks.checks_for("node", row_labels)
        record = {}
        for name, values in props:
            value = values[row]
            if value is not None:
                record[name] = value
        for check in row_checks:
            check(nid, record)
        writer.node(nid, row_labels, record)
        nid += 1
    stats.nodes += nid - stats.next_node
    stats.next_node = nid


def _claim_id(space: dict, key, nid: int, column: str, name: str | None) -> str | None:
    """Give ``key`` the node id ``nid`` in its id space; the reason the row is bad, or None."""
    if key is None:
        return f"no id in column {column!r}"
    try:
        key = _id_key(key)
    except TypeError:
        return f"the id {key!r} is not text or an integer"
    if key in space:
        return f"duplicate id {key!r} in id space {name or '(global)'}"
    space[key] = nid
    return None


def _node_of(space: dict, key):
    """The node id of ``key`` in an id space (None when there is none, or the key cannot be an id)."""
    try:
        return space.get(_id_key(key))
    except TypeError:
        return None


def _write_rels(writer, f: InputFile, types: list[str], ids: dict, array_delimiter, bad: _Bad, stats,
                checks: ImportSchema | None) -> None:
    columns = _header(f)
    start_col = next((c for c in columns if c.role == "START_ID"), None)
    end_col = next((c for c in columns if c.role == "END_ID"), None)
    if start_col is None or end_col is None:
        raise HeaderError(f"{f.path}: a relationship file needs :START_ID and :END_ID columns")
    type_col = next((c for c in columns if c.role == "TYPE"), None)
    if type_col is None and not types:
        raise HeaderError(f"{f.path}: no relationship type (a :TYPE column or --relationships=TYPE=file)")
    props, bad_rows = _split(columns, f, array_delimiter)
    starts = f.table.column(start_col.index).to_pylist()
    ends = f.table.column(end_col.index).to_pylist()
    type_values = f.table.column(type_col.index).to_pylist() if type_col else None
    start_space = ids.get(start_col.space, {})
    end_space = ids.get(end_col.space, {})
    default_type = types[0] if types else None
    fixed = None                      # the row checks when every row has the default type
    if checks is not None and type_values is None and default_type:
        fixed = checks.checks_for("relationship", [default_type])
    rid = stats.next_rel
    for row in range(f.table.num_rows):
        reason = bad_rows.get(row)
        start = _node_of(start_space, starts[row])
        end = _node_of(end_space, ends[row])
        rel_type = (type_values[row] if type_values else None) or default_type
        if reason is None:
            if not isinstance(rel_type, (str, type(None))):
                reason = f"the relationship type {rel_type!r} is not text"
            elif start is None:
                reason = f"no node with id {starts[row]!r} in id space {start_col.space or '(global)'}"
            elif end is None:
                reason = f"no node with id {ends[row]!r} in id space {end_col.space or '(global)'}"
            elif not rel_type:
                reason = "no relationship type"
        if reason is not None:
            bad.add(f.path, f.line_of(row), reason, _row_text(f, row))
            continue
        record = {}
        for name, values in props:
            value = values[row]
            if value is not None:
                record[name] = value
        if checks is not None:
            for check in fixed if fixed is not None else checks.checks_for("relationship", [rel_type]):
                check(rid, record)
        writer.rel(rid, rel_type, start, end, record)
        rid += 1
    stats.relationships += rid - stats.next_rel
    stats.next_rel = rid


def _row_text(f: InputFile, row: int) -> str:
    values = [f.table.column(i)[row].as_py() for i in range(f.table.num_columns)]
    return ",".join("" if v is None else str(v) for v in values)


def _run_schema(target: str, statements: list[str], progress) -> None:
    from relate.server.engine import Database
    db = Database.open(target)
    try:
        session = db.session()
        task = progress.add_task("schema and indexes", total=len(statements) + 1) if progress else None
        for statement in statements:
            session.run(statement).consume()
            if progress:
                progress.advance(task)
        session.run("CALL db.awaitIndexes(86400)").consume()
        if progress:
            progress.advance(task)
        session.close()
    finally:
        db.close()
