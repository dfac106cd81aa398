"""docker/entrypoint.sh and docker/healthcheck.sh, run outside Docker (no Docker engine here): the same
scripts the image runs, against a temporary data directory and ephemeral loopback ports."""
import json
import os
import signal
import socket
import subprocess
import sys
import time

import pytest

from .conftest import ROOT, shell_env

ENTRYPOINT = ROOT / "docker" / "entrypoint.sh"
HEALTHCHECK = ROOT / "docker" / "healthcheck.sh"
SMOKE = ROOT / "docker" / "smoke.cypher"
PASSWORD = "container-pw-1"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def container_env(tmp_path, **overrides) -> dict:
    env = shell_env(tmp_path, RELATE_DATA=str(tmp_path / "data"), RELATE_LISTEN=f"127.0.0.1:{free_port()}",
                    RELATE_HTTP_LISTEN=f"127.0.0.1:{free_port()}", RELATE_LOG_FORMAT="json",
                    RELATE_PASSWORD=PASSWORD)
    env.update(overrides)
    return {k: v for k, v in env.items() if v is not None}


class Container:
    """The entrypoint as a process, the way Docker runs it (PID 1 aside)."""

    def __init__(self, tmp_path, env):
        self.env = env
        self.log_path = tmp_path / f"entrypoint-{time.monotonic_ns()}.log"
        self._log = open(self.log_path, "wb")
        self.process = subprocess.Popen(["sh", str(ENTRYPOINT)], env=env, cwd=tmp_path, stdout=self._log,
                                        stderr=subprocess.STDOUT)

    def log(self) -> str:
        if not self._log.closed:
            self._log.flush()
        return self.log_path.read_text(errors="replace")

    def healthcheck(self) -> subprocess.CompletedProcess:
        return subprocess.run(["sh", str(HEALTHCHECK)], env=self.env, capture_output=True, text=True, timeout=30)

    def wait_healthy(self, timeout: float = 60) -> str:
        deadline = time.monotonic() + timeout
        while True:
            check = self.healthcheck()
            if check.returncode == 0:
                return check.stdout
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"never healthy ({check.stdout.strip()}):\n{self.log()}")
            time.sleep(0.2)

    def shell(self, *args, stdin="", password=PASSWORD) -> subprocess.CompletedProcess:
        env = {**self.env, "RELATE_PASSWORD": password}
        url = "relate://" + self.env["RELATE_LISTEN"]
        return subprocess.run([sys.executable, "-m", "relate.shell", url, "-u", "neo4j", *args], input=stdin,
                              env=env, capture_output=True, text=True, timeout=60)

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


def test_first_start_health_smoke_script_and_sigterm(tmp_path):
    container = Container(tmp_path, container_env(tmp_path))
    try:
        assert "ok: HTTP 200" in container.wait_healthy()
        # exec: the entrypoint's process *is* the server, so SIGTERM from Docker reaches it directly.
        cmdline = open(f"/proc/{container.process.pid}/cmdline", "rb").read().split(b"\0")
        assert any(part.endswith(b"relate-server") for part in cmdline), cmdline
        smoke = container.shell("-f", str(SMOKE))
        assert smoke.returncode == 0, smoke.stderr
        assert '| "step 3" | 2    |' in smoke.stdout and "| 3           |" in smoke.stdout
    finally:
        code = container.stop()
    log = container.log()
    assert code == 0, log
    assert "first start" in log
    events = [json.loads(line)["event"] for line in log.splitlines() if line.startswith("{")]
    assert "created the initial user" in events and events[-1] == "stopped"
    assert container.healthcheck().returncode == 1


def test_restart_keeps_data_and_checks_the_protocol_when_http_is_off(tmp_path):
    first = Container(tmp_path, container_env(tmp_path))
    try:
        first.wait_healthy()
        assert first.shell(stdin="CREATE (:Kept {n: 1});").returncode == 0
    finally:
        assert first.stop() == 0
    env = container_env(tmp_path, RELATE_PASSWORD=None, RELATE_HTTP_LISTEN="",
                        RELATE_LISTEN=first.env["RELATE_LISTEN"])
    second = Container(tmp_path, env)
    try:
        assert "protocol" in second.wait_healthy()      # a handshake on the Relate port, not HTTP
        kept = second.shell("--format", "csv", stdin="MATCH (k:Kept) RETURN k.n AS n;")
        assert kept.returncode == 0 and kept.stdout == "n\n1\n"
        assert second.shell(stdin="RETURN 1;", password="wrong-password").returncode == 2
    finally:
        assert second.stop() == 0
    assert "first start" not in second.log()


@pytest.mark.parametrize("overrides, message", [
    ({"RELATE_PASSWORD": None}, "first start: set RELATE_PASSWORD"),
    ({"RELATE_PASSWORD": "short"}, "at least 8 characters"),
    ({"RELATE_LOG_FORMAT": "xml"}, "RELATE_LOG_FORMAT must be json or console"),
    ({"RELATE_LISTEN": "7688"}, "RELATE_LISTEN must be host:port"),
    ({"RELATE_HTTP_LISTEN": "localhost:http"}, "RELATE_HTTP_LISTEN must be host:port"),
    ({"RELATE_PASSWORD_FILE": "/nonexistent/secret"}, "is not readable"),
])
def test_configuration_errors_fail_fast(tmp_path, overrides, message):
    done = subprocess.run(["sh", str(ENTRYPOINT)], env=container_env(tmp_path, **overrides), capture_output=True,
                          text=True, timeout=30)
    assert done.returncode == 64 and message in done.stderr


def test_password_file_and_plain_commands(tmp_path):
    secret = tmp_path / "secret"
    secret.write_text("from-a-secret-file")
    container = Container(tmp_path, container_env(tmp_path, RELATE_PASSWORD=None, RELATE_PASSWORD_FILE=str(secret)))
    try:
        container.wait_healthy()
        assert container.shell(stdin="RETURN 1;", password="from-a-secret-file").returncode == 0
    finally:
        assert container.stop() == 0
    version = subprocess.run(["sh", str(ENTRYPOINT), "relate", "--version"], env=container_env(tmp_path),
                             capture_output=True, text=True, timeout=30)
    assert version.returncode == 0 and version.stdout.startswith("relate ")


def test_unwritable_data_directory(tmp_path):
    data = tmp_path / "readonly"
    data.mkdir(mode=0o500)
    # Root writes anywhere unless it gives up the capabilities that bypass file modes (CI runs as root).
    drop = ["setpriv", "--bounding-set", "-dac_override,-dac_read_search", "--"] if os.geteuid() == 0 else []
    done = subprocess.run([*drop, "sh", str(ENTRYPOINT)], env=container_env(tmp_path, RELATE_DATA=str(data)),
                          capture_output=True, text=True, timeout=30)
    assert done.returncode == 64 and "not writable" in done.stderr
