"""How far a running LOAD CSV has got: Connection.progress() from another thread (the shell's progress
bar), SHOW TRANSACTIONS' progress and elapsedTime, and the shell's bar itself."""
from __future__ import annotations

import gzip
import io
import time

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import relate
from relate.protocol.values import Duration

ROWS = 400_000


@pytest.fixture
def import_dir(tmp_path):
    d = tmp_path / "import"
    d.mkdir()
    lines = "".join(f"{i},name{i}\n" for i in range(ROWS))
    (d / "big.csv").write_text("id,name\n" + lines)
    with gzip.open(d / "big.csv.gz", "wt") as f:
        f.write("id,name\n" + lines)
    pq.write_table(pa.table({"id": list(range(ROWS))}), d / "big.parquet", row_group_size=4096)
    return d


def _progress_while_streaming(conn, url: str, observe) -> list:
    """Stream a LOAD CSV over ``url`` in batches; ``observe()`` between batches, while it runs (no
    threads: a thread polling beside a reader that does file I/O can be starved of the GIL)."""
    result = conn.execute(f"LOAD CSV WITH HEADERS FROM '{url}' AS row RETURN row.id AS id")
    seen, total = [], 0
    while True:
        batch = result.fetchmany(50_000)
        if not batch:
            break
        total += len(batch)
        seen.append(observe())
    assert total == ROWS
    return seen


@pytest.mark.parametrize("name", ["big.csv", "big.csv.gz", "big.parquet"])
def test_progress_of_a_running_load_csv_moves_forward_and_ends(import_dir, name):
    with relate.connect(":memory:", import_dir=str(import_dir)) as conn:
        assert conn.progress() is None
        seen = [s for s in _progress_while_streaming(conn, f"file:///{name}", conn.progress) if s is not None]
        assert len(seen) >= 4, "a LOAD CSV of 400,000 rows reports its progress while it runs"
        assert {s["operation"] for s in seen} == {"LOAD CSV"}
        assert {s["url"] for s in seen} == {f"file:///{name}"}
        percents = [s["percent"] for s in seen]
        assert all(p is not None and 0.0 <= p <= 100.0 for p in percents)
        assert percents == sorted(percents) and percents[0] < percents[-1] and percents[0] < 50
        lines = [s["line"] for s in seen]
        assert lines == sorted(lines) and lines[0] > 1
        if name != "big.parquet":
            assert all(s["bytesTotal"] == (import_dir / name).stat().st_size for s in seen)
        assert conn.progress() is None           # nothing runs any more


def test_show_transactions_shows_the_load_progress_and_elapsed_time(import_dir):
    with relate.connect(":memory:", import_dir=str(import_dir)) as conn:
        database = conn._owner
        rows = _progress_while_streaming(conn, "file:///big.csv", database.show_transactions)
        running = [row for listed in rows for row in listed if row["progress"]]
        assert len(running) >= 4, "SHOW TRANSACTIONS lists the running LOAD CSV with its progress"
        row = running[-1]
        assert row["status"] == "Running" and "LOAD CSV" in row["currentQuery"]
        assert isinstance(row["elapsedTime"], Duration)
        assert row["progress"]["url"] == "file:///big.csv" and row["progress"]["percent"] > 0
        columns = conn.execute("SHOW TRANSACTIONS YIELD *").columns
        assert {"elapsedTime", "connectionId", "username", "progress"} <= set(columns)


def test_the_shell_bar_shows_the_file_and_line():
    from rich.console import Console

    from relate.shell.progress import describe, running
    out = io.StringIO()
    console = Console(file=out, force_terminal=True, width=120)
    calls = []

    def poll():
        calls.append(1)
        return {"operation": "LOAD CSV", "url": "file:///people.csv", "line": 1234, "percent": 42.0}
    with running(console, "LOAD CSV", poll):
        time.sleep(0.8)
    assert calls
    assert "people.csv · line 1,234" in out.getvalue()
    assert describe(None) == "" and describe({"url": "file:///a/b.parquet", "line": None}) == "b.parquet"
