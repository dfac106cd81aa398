"""relate-server start-up failures: one line on stderr and exit code 2, never a traceback;
--version for the server and the shell."""
from __future__ import annotations

import socket
import subprocess
import sys

import pytest

import relate

from .conftest import ROOT

SERVER = [sys.executable, "-m", "relate.server"]


def _run(*args, cwd=ROOT):
    return subprocess.run([*SERVER, *args], capture_output=True, text=True, timeout=60, cwd=cwd)


def _one_line_exit_2(done, *words):
    assert done.returncode == 2, (done.returncode, done.stderr)
    assert "Traceback" not in done.stderr, done.stderr
    # Log lines may come first (e.g. "created the initial user"); the failure is one line, the last.
    failures = [line for line in done.stderr.strip().splitlines() if line.startswith("relate-server: ")]
    assert len(failures) == 1 and done.stderr.strip().endswith(failures[0]), done.stderr
    for word in words:
        assert word in failures[0], failures[0]


@pytest.mark.parametrize("listen", ["nonsense", "127.0.0.1:99999", "127.0.0.1:port"])
def test_bad_listen_address(listen):
    _one_line_exit_2(_run("--listen", listen, "--no-auth"), "--listen", listen)


def test_port_in_use(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = _run("--listen", f"127.0.0.1:{port}", "--data", str(tmp_path / "db"), "--init-password", "pw-123456")
    _one_line_exit_2(done, f"cannot listen on 127.0.0.1:{port}", "already in use")
    with relate.connect(tmp_path / "db") as db:             # the failed start released the directory
        assert db.execute("RETURN 1 AS one").single().one == 1


def test_data_directory_already_open(tmp_path):
    with relate.connect(tmp_path / "db"):
        done = _run("--listen", "127.0.0.1:0", "--data", str(tmp_path / "db"), "--init-password", "pw-123456")
    _one_line_exit_2(done, "cannot open the database", "already open")


def test_no_user_and_no_password_refuses_to_start(tmp_path):
    done = _run("--listen", "127.0.0.1:0", "--data", str(tmp_path / "db"))
    _one_line_exit_2(done, "--init-password", "--no-auth")


def test_a_too_short_initial_password_refuses_to_start(tmp_path):
    done = _run("--listen", "127.0.0.1:0", "--data", str(tmp_path / "db"), "--init-password", "short")
    _one_line_exit_2(done, "initial user neo4j", "at least 8 characters")


def test_missing_config_file_and_tls_key():
    _one_line_exit_2(_run("--config", "/nonexistent/relate.toml"), "cannot read")
    _one_line_exit_2(_run("--no-auth", "--listen", "127.0.0.1:0", "--tls-cert", "/nonexistent.pem",
                          "--tls-key", "/nonexistent.key"), "TLS certificate")


def test_version_flags():
    server = _run("--version")
    assert server.returncode == 0 and server.stdout.strip() == f"relate-server {relate.__version__}"
    shell = subprocess.run([sys.executable, "-m", "relate.shell", "--version"], capture_output=True, text=True,
                           timeout=60, cwd=ROOT)
    assert shell.returncode == 0 and shell.stdout.strip() == f"relate {relate.__version__}"


def test_http_port_in_use(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = _run("--listen", "127.0.0.1:0", "--http-listen", f"127.0.0.1:{port}", "--no-auth",
                    "--data", str(tmp_path / "db"))
    _one_line_exit_2(done, f"cannot listen on 127.0.0.1:{port}")
