"""A live progress bar on the terminal while a long statement such as LOAD CSV runs: the file's share
read so far (bytes, or rows of a Parquet file) and the line reached, asked of the database every
``POLL_S`` by a background thread (``Connection.progress()``); a spinner when the database cannot say.
It disappears when the statement returns."""
from __future__ import annotations

import threading
from contextlib import contextmanager
from typing import Any, Callable

POLL_S = 0.25


def describe(state: dict[str, Any] | None) -> str:
    """One line for the bar: the file and the line reached."""
    if not state:
        return ""
    url = str(state.get("url") or "")
    line = state.get("line")
    return f"{url.rsplit('/', 1)[-1]}" + (f" · line {line:,}" if line is not None else "")


@contextmanager
def running(console, label: str, poll: Callable[[], dict[str, Any] | None] | None = None):
    from rich.progress import (BarColumn, Progress, SpinnerColumn, TaskProgressColumn, TextColumn,
                               TimeElapsedColumn)
    columns = (SpinnerColumn(), TextColumn(f"{label} running"), BarColumn(), TaskProgressColumn(),
               TextColumn("{task.fields[where]}"), TimeElapsedColumn())
    with Progress(*columns, console=console, transient=True) as progress:
        task = progress.add_task(label, total=None, where="")
        stop = threading.Event()

        def watch() -> None:
            while not stop.wait(POLL_S):
                try:
                    state = poll() if poll is not None else None
                except Exception:     # noqa: BLE001 - no progress to show (not allowed, connection lost)
                    return
                if state:
                    percent = state.get("percent")
                    progress.update(task, total=100.0 if percent is not None else None,
                                    completed=percent or 0.0, where=describe(state))
        watcher = threading.Thread(target=watch, name="relate-shell-progress", daemon=True)
        watcher.start()
        try:
            yield
        finally:
            stop.set()
            watcher.join(2 * POLL_S + 1.0)
