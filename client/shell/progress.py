"""A live indicator (spinner, elapsed time) on the terminal while a long statement such as LOAD CSV runs;
it disappears when the statement returns."""
from __future__ import annotations

from contextlib import contextmanager


@contextmanager
def running(console, label: str):
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
    with Progress(SpinnerColumn(), TextColumn(f"{label} running"), TimeElapsedColumn(), console=console,
                  transient=True) as progress:
        progress.add_task(label, total=None)
        yield
