"""A smoke-size run of bench/shapes.py (agent-memory and GraphRAG statement shapes), so the tool never
rots: it builds its graphs and times every shape; never timings."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))


def test_shapes_times_every_statement():
    import shapes
    done = subprocess.run([sys.executable, str(ROOT / "bench" / "shapes.py"), "--memories", "500", "--chunks", "200",
                           "--reps", "1"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    timed = [line for line in done.stdout.splitlines()[1:] if line.strip()]
    assert [line.split(None, 1)[1] for line in timed] == [label for label, _, _ in shapes.SHAPES]
    assert all(float(line.split()[0]) >= 0 for line in timed)
