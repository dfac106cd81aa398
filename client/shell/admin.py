"""``relate import|dump|load|check``: administration subcommands on database directories.

Each subcommand is one function taking its argv; ``SUBCOMMANDS`` is the dispatch table ``main`` uses.
The engine's tools come through ``relate.embedded.admin_tools()`` inside each function (the shell
itself never loads the engine).
"""
from __future__ import annotations

import argparse
import os
import sys
from contextlib import contextmanager

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


@contextmanager
def progress_bars(enabled: bool):
    """A rich Progress on stderr (None when disabled): bars with counts, rate and elapsed time."""
    if not enabled:
        yield None
        return
    from rich.console import Console
    from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn)
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=Console(stderr=True), transient=False) as progress:
        yield progress


def _groups(specs: list[str], multiple_names: bool) -> list[tuple[list[str], list[str]]]:
    """``[NAMES=]FILE[,FILE...]`` (NAMES ``A:B`` labels, or one type) to (names, files)."""
    out = []
    for spec in specs:
        names, sep, files = spec.rpartition("=")
        labels = [n for n in names.split(":") if n] if sep else []
        if not multiple_names and len(labels) > 1:
            raise SystemExit(f"relate import: one relationship type per --relationships, not {names!r}")
        out.append((labels, [f for f in files.split(",") if f]))
    return out


def cmd_import(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="relate import", description="Bulk-load node and relationship files (CSV, CSV.gz, Parquet, "
        "Arrow IPC) with neo4j-admin style headers into a NEW database directory.")
    parser.add_argument("database", help="the new database directory (must not exist or be empty)")
    parser.add_argument("--nodes", action="append", default=[], metavar="[LABEL:LABEL=]FILE[,FILE]")
    parser.add_argument("--relationships", action="append", default=[], metavar="[TYPE=]FILE[,FILE]")
    parser.add_argument("--delimiter", default=",", help="CSV field delimiter (default ,; '\\t' for tab)")
    parser.add_argument("--array-delimiter", default=";", help="separator inside array cells (default ;)")
    parser.add_argument("--max-bad", type=int, default=1000, help="stop after this many bad rows (default 1000)")
    parser.add_argument("--report-file", default="import.report", help="rejected rows are written here")
    parser.add_argument("--schema", help="a file of Cypher schema statements (constraints, indexes) run after "
                                         "the load; indexes are built before the command returns")
    parser.add_argument("--quiet", action="store_true", help="no progress bars")
    args = parser.parse_args(argv)
    from relate.embedded import admin_tools
    from relate.errors import RelateError
    run_import = admin_tools().run_import
    schema = []
    if args.schema:
        from .statements import StatementSplitter
        try:
            with open(args.schema, encoding="utf-8") as f:
                schema = _statements(f.read(), StatementSplitter)
        except (OSError, UnicodeDecodeError) as exc:
            print(f"relate import: cannot read the --schema file {args.schema}: {exc}", file=sys.stderr)
            return EXIT_FAILED
    delimiter = "\t" if args.delimiter in ("\\t", "tab", "TAB") else args.delimiter
    try:
        with progress_bars(not args.quiet and sys.stderr.isatty()) as progress:
            stats = run_import(args.database, _groups(args.nodes, True), _groups(args.relationships, False),
                               delimiter=delimiter, array_delimiter=args.array_delimiter, max_bad=args.max_bad,
                               report_path=args.report_file, schema=schema, progress=progress)
    except (RelateError, OSError, ValueError) as exc:
        print(f"relate import: {getattr(exc, 'message', None) or exc}", file=sys.stderr)
        return EXIT_FAILED
    print(f"imported {stats.nodes} nodes, {stats.relationships} relationships in {stats.seconds:.2f} s; "
          f"{stats.bad} bad rows" + (f" (see {args.report_file})" if stats.bad else ""))
    return EXIT_OK


def _statements(text: str, splitter_class) -> list[str]:
    splitter = splitter_class()
    pieces = list(splitter.feed(text + "\n")) + list(splitter.finish())
    return [p.text for p in pieces if p.kind == "cypher" and p.text.strip()]


def _remote(target: str) -> bool:
    return target.startswith(("relate://", "relate+s://", "relate+ssc://"))


def cmd_dump(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="relate dump", description="Write a consistent, compressed, versioned archive of a database: "
        "a directory not in use, or a running local server (relate://host:port, through CALL db.backup).")
    parser.add_argument("database", help="database directory or relate://host:port")
    parser.add_argument("--to", required=True, dest="archive", help="the archive file to write")
    parser.add_argument("-u", "--user", default=os.environ.get("RELATE_USER"))
    parser.add_argument("-p", "--password", default=os.environ.get("RELATE_PASSWORD"))
    parser.add_argument("--quiet", action="store_true", help="no progress bars")
    args = parser.parse_args(argv)
    from relate.embedded import admin_tools
    from relate.errors import RelateError
    tools = admin_tools()
    try:
        with progress_bars(not args.quiet and sys.stderr.isatty()) as progress:
            if _remote(args.database):
                manifest = _dump_server(args, tools.archive_backup, progress)
            else:
                manifest = tools.dump_directory(args.database, args.archive, progress)
    except (RelateError, OSError) as exc:
        print(f"relate dump: {getattr(exc, 'message', None) or exc}", file=sys.stderr)
        return EXIT_FAILED
    print(f"dumped {manifest['nodes']} nodes, {manifest['relationships']} relationships "
          f"(ts {manifest['ts']}) to {args.archive}")
    return EXIT_OK


def _dump_server(args, archive_backup, progress) -> dict:
    """A running server writes the backup (a read snapshot; writers go on) into a local temp dir."""
    import tempfile

    import relate
    auth = (args.user or "neo4j", args.password) if args.password is not None else None
    with tempfile.TemporaryDirectory(prefix="relate-dump-") as temp:
        os.chmod(temp, 0o700)
        target = os.path.join(temp, "backup")
        with relate.connect(args.database, auth=auth) as connection:
            connection.execute("CALL db.backup($dir)", dir=target).consume()
        return archive_backup(target, args.archive, progress)


def cmd_load(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="relate load",
                                     description="Restore a relate dump archive into a NEW database directory "
                                                 "and build its search indexes.")
    parser.add_argument("archive")
    parser.add_argument("database", help="the new database directory (must not exist or be empty)")
    parser.add_argument("--quiet", action="store_true", help="no progress bars")
    args = parser.parse_args(argv)
    from relate.embedded import admin_tools
    from relate.errors import RelateError
    try:
        with progress_bars(not args.quiet and sys.stderr.isatty()) as progress:
            manifest = admin_tools().load_and_index(args.archive, args.database, progress)
    except (RelateError, OSError) as exc:
        print(f"relate load: {getattr(exc, 'message', None) or exc}", file=sys.stderr)
        return EXIT_FAILED
    print(f"loaded {manifest.get('nodes', '?')} nodes, {manifest.get('relationships', '?')} relationships "
          f"into {args.database}")
    return EXIT_OK


def cmd_check(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="relate check", description="Verify a database directory (not in "
                                     "use): snapshot and WAL checksums, structure, property indexes, "
                                     "constraints and search indexes against a rebuild. Exit 1 on problems.")
    parser.add_argument("database")
    args = parser.parse_args(argv)
    from relate.embedded import admin_tools
    problems = admin_tools().check_database(args.database)
    for problem in problems:
        print(f"{problem.kind}: {problem.message}")
    if problems:
        print(f"relate check: {len(problems)} problem(s) in {args.database}", file=sys.stderr)
        return EXIT_FAILED
    print(f"{args.database}: ok")
    return EXIT_OK


SUBCOMMANDS = {"import": cmd_import, "dump": cmd_dump, "load": cmd_load, "check": cmd_check}


def run(argv: list[str]) -> int:
    return SUBCOMMANDS[argv[0]](argv[1:])
