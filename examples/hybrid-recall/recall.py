"""The cookbook's recall tool: set up and load the 40 notes, then run RECALL (vector + full-text search,
reciprocal-rank fusion, hop to each topic's latest decision) for a question.

    python examples/hybrid-recall/recall.py [PATH] [--question TEXT] [--k 5] [--since 2026-03-01T00:00:00Z]

PATH defaults to a temporary database removed on exit; an existing PATH that already holds the notes is reused.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile

import relate
from relate.embedders import hash384

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import statements as S  # noqa: E402

COUNT_COLUMNS = ["notes", "sessions", "topics", "about", "decided"]


def counters_text(counters: dict) -> str:
    return str(relate.Counters({k: v for k, v in counters.items() if v}))


def run_all(db, queries, params=None) -> relate.Counters:
    """Run statements one by one and add up their update counters."""
    total = relate.Counters()
    for q in queries:
        for key, value in db.execute(q, params or {}).summary.counters.items():
            total.add(key, value)
    return total


def setup_and_load(db, fixture: dict) -> list[str]:
    """Create constraints/indexes and load notes + decisions (skipped when the notes are already there)."""
    lines = [f"setup: {counters_text(run_all(db, S.SETUP)) or 'nothing to do'}"]
    existing = db.execute("MATCH (n:Note) RETURN count(n) AS notes").fetchone()[0]
    if existing:
        lines.append(f"load: skipped, {existing} notes already present")
    else:
        load = run_all(db, [S.LOAD_NOTES, S.LOAD_DECISIONS], S.load_params(fixture))
        lines.append(f"load: {counters_text(load)}")
    row = db.execute(S.COUNT).fetchone()
    lines.append("count: " + ", ".join(f"{k} {v}" for k, v in zip(COUNT_COLUMNS, row)))
    return lines


def _cell(value) -> str:
    """A value as the cookbook prints it: strings quoted, null for None."""
    if value is None:
        return "null"
    return json.dumps(value) if isinstance(value, str) else str(value)


def print_table(columns: list[str], rows: list[tuple], title: str) -> None:
    try:
        from rich.console import Console
        from rich.table import Table
    except ImportError:  # plain text when rich is not installed
        cells = [[_cell(v) for v in r] for r in rows]
        widths = [max([len(c)] + [len(r[i]) for r in cells]) for i, c in enumerate(columns)]
        print(title)
        print(" | ".join(c.ljust(w) for c, w in zip(columns, widths)))
        print("-+-".join("-" * w for w in widths))
        for r in cells:
            print(" | ".join(v.ljust(w) for v, w in zip(r, widths)))
        return
    table = Table(title=title)
    for c in columns:
        table.add_column(c, overflow="fold")
    for r in rows:
        table.add_row(*("null" if v is None else str(v) for v in r))
    Console().print(table)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("path", nargs="?", help="database path (default: a temporary one)")
    ap.add_argument("--question", help="question text (default: the cookbook's oauth question)")
    ap.add_argument("--k", type=int, help="results per list")
    ap.add_argument("--since", help="oldest note in scope, ISO datetime")
    args = ap.parse_args(argv)

    fixture = S.load_fixture()
    params = S.question_params(fixture, "oauth")
    if args.question:
        # Unlike the cookbook page, a new question is embedded here, so both searches see it.
        params.update(q=args.question, v=hash384(args.question))
    if args.k:
        params["k"] = args.k
    if args.since:
        params["since"] = args.since
    with tempfile.TemporaryDirectory(prefix="relate-recall-") as tmp:
        recall(args.path or os.path.join(tmp, "notes.rl"), fixture, params)
        if args.path:
            print(f"database: {args.path}")
    return 0


def recall(path: str, fixture: dict, params: dict) -> None:
    with relate.connect(path, create_parents=True) as db:
        for line in setup_and_load(db, fixture):
            print(line)
        result = db.execute(S.RECALL, params)
        rows = [tuple(r) for r in result]
        summary = result.summary
        print_table(result.columns, rows, f"{params['q']!r} (k={params['k']}, since {params['since']})")
        extra = counters_text(summary.counters)
        notes = len({row[0] for row in rows})
        # k limits the notes; the hop gives one row per (note, topic), so a note about two topics shows twice.
        print(f"{len(rows)} rows ({notes} notes: one row per note and topic)" + (f" · {extra}" if extra else "")
              + f" · {summary.t_last_ms:.1f} ms")


if __name__ == "__main__":
    sys.exit(main())
