"""A smoke-size run of bench/peers/wire_gap.py (embedded vs relate-server on the vector statements), so
the tool never rots: it loads, serves, times every cell and prints a ratio for each; never timings."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_wire_gap_times_every_vector_cell_and_the_floor(tmp_path):
    done = subprocess.run([sys.executable, str(ROOT / "bench" / "peers" / "wire_gap.py"), "--n", "300",
                           "--reps", "8", "--dir", str(tmp_path)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.splitlines()
    cells = [line for line in lines if " ratio " in line]
    assert len(cells) == 6, done.stdout                       # 3 filters x (ef auto, ef 32)
    assert all(float(line.split(" ratio ")[1].split()[0]) > 0 for line in cells)
    assert any(line.startswith("RETURN 1") for line in lines) and any(line.startswith("point lookup") for line in lines)
    assert (tmp_path / "embedded" / "relate-data").is_dir()    # kept for a second timing without loading
