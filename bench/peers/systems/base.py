"""What every benchmarked system provides; results are normalized so the coordinator can compare them."""
from __future__ import annotations

import os
from typing import Any, Callable

from ..workload import Workload


def proc_status_kib(pid: int, key: str) -> int:
    """VmRSS / VmHWM of a process in KiB (0 when it is gone)."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


class System:
    """One database or library under test, living in its own worker process.

    Op functions take ops.params(...) and return: a list of note ids (vector, full-text), a list of
    (id, topic, decided) rows (hybrid), an int (counts), the text (lookup), anything (RETURN 1)."""
    name = ""
    role = "peer"          # "relate" | "peer" | "floor": which ratio column a row feeds
    notes = ""             # how this system runs, shown under the table

    def __init__(self) -> None:
        self.baseline_kib = 0

    def start(self, workdir: str) -> None:
        """Open an empty database under ``workdir``."""

    def load_nodes(self, wl: Workload) -> None: ...
    def load_edges(self, wl: Workload) -> None: ...
    def build_indexes(self, wl: Workload) -> None: ...

    def ops(self) -> dict[str, Callable[[dict], Any]]:
        """Op name -> function; an op a system cannot run is absent."""
        return {}

    def levels(self) -> list[dict]:
        """Settings of the vector recall knob, cheapest first; [0] is the system's default. [] = exact only."""
        return []

    def set_level(self, level: dict, wl: Workload) -> None:
        """Switch to a vector setting from levels() (may rebuild the index)."""

    def enter_tuned_phase(self) -> None:
        """Before the similar-recall pass: do what a user would to get k hits (e.g. widen post-filters)."""

    def peak_rss_kib(self) -> int:
        """Peak RSS this system added: a server's own peak, or this worker's growth past its baseline.
        (VmHWM, not ru_maxrss: a spawned child's ru_maxrss starts at its forking parent's RSS.)"""
        return max(0, proc_status_kib(os.getpid(), "VmHWM") - self.baseline_kib)

    def close(self) -> None: ...


def rows_in_batches(rows: list, size: int):
    for i in range(0, len(rows), size):
        yield rows[i:i + size]


def self_rss_kib() -> int:
    return proc_status_kib(os.getpid(), "VmRSS")
