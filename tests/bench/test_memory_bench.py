"""bench/memory.py (the README's memory figures) at a smoke-size N, so it never rots: every step runs in
its own process and reports every figure. The byte counts at this N are noise; only their presence counts."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run_bench(*flags: str) -> dict:
    done = subprocess.run([sys.executable, str(ROOT / "bench" / "memory.py"), "--n", "2000", *flags],
                          check=True, capture_output=True, text=True, timeout=300)
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_small_nodes_relationships_index_and_reopen_are_all_measured():
    report = run_bench()
    for key in ("bytes_per_node_2_props", "bytes_per_range_index_entry", "bytes_per_relationship",
                "bytes_per_extra_int_property", "open_bytes_per_node_rel_3_props"):
        assert isinstance(report[key], int), key
    assert report["n"] == 2000 and report["reopen_s"] > 0 and report["reopen_peak_rss_mib"] > report["open_graph_mib"]

