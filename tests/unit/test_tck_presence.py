"""A missing TCK fails `make tck` (its runner exits non-zero and says where the TCK goes)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_tck_runner_fails_when_the_tck_is_missing(tmp_path):
    done = subprocess.run([sys.executable, "-m", "tests.tck.run"], cwd=ROOT, capture_output=True, text=True,
                          timeout=120, env={**os.environ, "RELATE_TCK_DIR": str(tmp_path / "missing")})
    assert done.returncode != 0 and "RELATE_TCK_DIR" in done.stderr
