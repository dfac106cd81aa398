"""How far a running LOAD CSV has got: Connection.progress() from another thread (the shell's progress
bar), SHOW TRANSACTIONS' progress and elapsedTime, and the shell's bar itself."""
from __future__ import annotations

import gzip
import io
import threading
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


def _watch_while_loading(conn, url: str) -> list[dict]:
    """Run a LOAD CSV over ``url`` on ``conn`` in a thread; collect conn.progress() meanwhile."""
    seen: list[dict] = []
    done = threading.Event()
    result: dict = {}

    def load():
        try:
            result["rows"] = conn.execute(f"LOAD CSV WITH HEADERS FROM '{url}' AS row "
                                          "WITH row WHERE row.id = 'none' RETURN count(*) AS c").fetchone().c
        finally:
            done.set()
    thread = threading.Thread(target=load)
    thread.start()
    while not done.is_set():
        state = conn.progress()
        if state is not None:
            seen.append(state)
        time.sleep(0.002)
    thread.join()
    assert result["rows"] == 0
    return seen


@pytest.mark.parametrize("name", ["big.csv", "big.csv.gz", "big.parquet"])
def test_progress_of_a_running_load_csv_moves_forward_and_ends(import_dir, name):
    with relate.connect(":memory:", import_dir=str(import_dir)) as conn:
        assert conn.progress() is None
        seen = _watch_while_loading(conn, f"file:///{name}")
        assert {s["operation"] for s in seen} == {"LOAD CSV"}
        assert {s["url"] for s in seen} == {f"file:///{name}"}
        seen = [s for s in seen if s["percent"] is not None]     # (None only before the file is open)
        assert len(seen) >= 2, "a LOAD CSV of 400,000 rows reports its progress while it runs"
        percents = [s["percent"] for s in seen]
        assert all(0.0 <= p <= 100.0 for p in percents)
        assert percents == sorted(percents) and percents[0] < percents[-1]
        lines = [s["line"] for s in seen if s["line"] is not None]
        assert lines == sorted(lines) and lines[-1] > 1
        if name != "big.parquet":
            assert all(s["bytesTotal"] == (import_dir / name).stat().st_size for s in seen)
        assert conn.progress() is None           # nothing runs any more


def test_show_transactions_shows_the_load_progress_and_elapsed_time(import_dir):
    with relate.connect(":memory:", import_dir=str(import_dir)) as conn:
        observed: list = []
        stop = threading.Event()
        database = conn._owner

        def watch():
            while not stop.is_set():
                observed.extend(row for row in database.show_transactions() if row["progress"])
                time.sleep(0.005)
        watcher = threading.Thread(target=watch)
        watcher.start()
        try:
            conn.execute("LOAD CSV WITH HEADERS FROM 'file:///big.csv' AS row "
                         "WITH row WHERE row.id = 'none' RETURN count(*) AS c").fetchall()
        finally:
            stop.set()
            watcher.join()
        assert observed, "SHOW TRANSACTIONS lists the running LOAD CSV with its progress"
        row = observed[-1]
        assert row["status"] == "Running" and "LOAD CSV" in row["currentQuery"]
        assert isinstance(row["elapsedTime"], Duration)
        assert row["progress"]["url"] == "file:///big.csv"
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
