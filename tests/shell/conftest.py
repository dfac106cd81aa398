"""Helpers for running the real ``relate`` shell (and, where it exists, a real ``relate-server``)."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
PASSWORD = "shell-test-pw"


def shell_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    """A clean environment: no stray RELATE_* settings, history and HOME inside the test's directory."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("RELATE_")}
    env.update(HOME=str(tmp_path), RELATE_HISTORY=str(tmp_path / "history"), PYTHONUNBUFFERED="1",
               PATH=f"{BIN}{os.pathsep}{env.get('PATH', '')}", **extra)
    return env


def run_shell(tmp_path: Path, *args: str, stdin: str = "", env: dict | None = None,
              timeout: float = 60) -> subprocess.CompletedProcess:
    """``relate ARGS`` with ``stdin`` piped in (so never interactive)."""
    return subprocess.run([sys.executable, "-m", "relate.shell", *args], input=stdin, text=True,
                          capture_output=True, cwd=tmp_path, env=env or shell_env(tmp_path), timeout=timeout)


class Server:
    """A ``relate-server`` child on an ephemeral loopback port with user neo4j / PASSWORD."""

    def __init__(self, tmp_path: Path):
        self.ready = tmp_path / "server-ready.json"
        self.log_path = tmp_path / "server.log"
        self._log = open(self.log_path, "wb")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "relate.server", "--data", str(tmp_path / "server-data"),
             "--listen", "127.0.0.1:0", "--ready-file", str(self.ready), "--init-password", PASSWORD,
             "--log-format", "json"], stdout=self._log, stderr=subprocess.STDOUT, cwd=tmp_path)
        self.url = "relate://" + self._ready_info()["listen"]

    def _ready_info(self) -> dict:
        deadline = time.monotonic() + 60
        while True:
            try:
                return json.loads(self.ready.read_text())
            except (OSError, ValueError):   # not written yet, or half written
                pass
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError("relate-server did not start:\n" + self.log_path.read_text())
            time.sleep(0.05)

    def stop(self) -> int:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self._log.close()
        return self.process.returncode


@pytest.fixture
def server(tmp_path):
    running = Server(tmp_path)
    yield running
    running.stop()
