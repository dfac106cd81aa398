"""A missing TCK fails `make tck` and, under CI=true, the test suite (never a silent skip there)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _run(args, **env):
    return subprocess.run([sys.executable, *args], cwd=ROOT, capture_output=True, text=True, timeout=120,
                          env={**os.environ, **env})


def test_tck_runner_fails_when_the_tck_is_missing(tmp_path):
    done = _run(["-m", "tests.tck.run"], RELATE_TCK_DIR=str(tmp_path / "missing"))
    assert done.returncode == 1 and "RELATE_TCK_DIR" in done.stderr


def test_ratchet_fails_under_ci_when_the_tck_is_missing(tmp_path):
    check = ["-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/tck/test_tck_ratchet.py::test_tck_is_present_under_ci"]
    assert _run(check, CI="true", RELATE_TCK_DIR=str(tmp_path / "missing")).returncode == 1
    assert _run(check, CI="", RELATE_TCK_DIR=str(tmp_path / "missing")).returncode == 0
