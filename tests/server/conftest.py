"""Real server processes on ephemeral loopback ports, a fresh data directory per test."""
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
PASSWORD = "s3cret-pw"
AUTH = ("neo4j", PASSWORD)


class ServerProcess:
    """A relate-server child process; ``url`` once it listens."""

    def __init__(self, tmp_path: Path, *args: str, scripted: bool = False, loop: str = "uvloop",
                 env: dict | None = None):
        self.ready_file = tmp_path / f"ready-{time.monotonic_ns()}.json"
        self.log_path = tmp_path / f"server-{time.monotonic_ns()}.log"
        module = "tests.server.scripted_engine" if scripted else "relate.server"
        command = [sys.executable, "-m", module, "--listen", "127.0.0.1:0", "--ready-file", str(self.ready_file),
                   "--loop", loop, "--log-format", "json", *args]
        if not scripted and "--data" not in args:
            command += ["--data", str(tmp_path / "data")]
        if "--bolt-listen" not in args:
            command += ["--bolt-listen", "127.0.0.1:0"]        # never the shared default port in tests
        if "--no-auth" not in args and "--init-password" not in args:
            command += ["--init-password", PASSWORD]
        self._log = open(self.log_path, "wb")
        self.process = subprocess.Popen(command, cwd=ROOT, stdout=self._log, stderr=subprocess.STDOUT,
                                        env={**os.environ, "PYTHONUNBUFFERED": "1", **(env or {})})
        deadline = time.monotonic() + 60
        while not self.ready_file.exists():
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"server did not start:\n{self.log()}")
            time.sleep(0.02)
        self.info = json.loads(self.ready_file.read_text())
        self.host, port = self.info["listen"].rsplit(":", 1)
        self.port = int(port)
        self.url = f"relate://127.0.0.1:{self.port}"
        self.bolt_address = self.info.get("bolt")          # "127.0.0.1:port" when Bolt listens

    @property
    def pid(self) -> int:
        return self.process.pid

    def rss_kib(self) -> int:
        for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
        raise RuntimeError("no VmRSS")

    def log(self) -> str:
        if not self._log.closed:
            self._log.flush()
        return self.log_path.read_text(errors="replace")

    def alive(self) -> bool:
        return self.process.poll() is None

    def stop(self, timeout: float = 30) -> int:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self._log.close()
        return self.process.returncode


@pytest.fixture(params=["uvloop", "asyncio"])
def loop_flag(request):
    return request.param


@pytest.fixture
def scripted_server(tmp_path, loop_flag):
    server = ServerProcess(tmp_path, scripted=True, loop=loop_flag)
    yield server
    server.stop()


@pytest.fixture
def start_server(tmp_path):
    started = []

    def start(*args, **kwargs):
        server = ServerProcess(tmp_path, *args, **kwargs)
        started.append(server)
        return server
    yield start
    for server in started:
        server.stop()
