"""The server process: flags and config, timeouts, shutdown, health checks, TLS, memory under a
large result, killed clients, many concurrent clients. The engine is scripted (scripted_engine.py)."""
from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
import time
import urllib.request

import pytest

import relate
from relate.protocol import messages as m
from relate.server.config import load_config

from .conftest import AUTH, ROOT, ServerProcess
from .raw_client import RawClient


def test_config_precedence_defaults_toml_env_flags(tmp_path):
    toml = tmp_path / "relate.toml"
    toml.write_text('[server]\nlisten = "0.0.0.0:9000"\nquery_timeout = 5.0\nlog_format = "json"\nauth = false\n')
    config = load_config(["--config", str(toml), "--query-timeout", "2"],
                         {"RELATE_LOG_FORMAT": "console", "RELATE_PASSWORD": "pw", "RELATE_MAX_CONNECTIONS": "7"})
    assert (config.listen, config.query_timeout, config.log_format, config.auth) == ("0.0.0.0:9000", 2.0,
                                                                                    "console", False)
    assert (config.init_password, config.max_connections, config.loop) == ("pw", 7, "uvloop")
    with pytest.raises(SystemExit):
        bad = tmp_path / "bad.toml"
        bad.write_text("listen_on = 1\n")
        load_config(["--config", str(bad)], {})


def test_query_timeout_ends_a_runaway_query_with_a_clear_error(tmp_path):
    server = ServerProcess(tmp_path, "--query-timeout", "0.5", scripted=True)
    try:
        with relate.connect(server.url, auth=AUTH) as conn:
            started = time.perf_counter()
            with pytest.raises(relate.QueryTimeout) as info:
                conn.execute("SLEEP 20").fetchall()
            assert time.perf_counter() - started < 3
            assert "time limit" in str(info.value)
            assert conn.execute("RETURN 1").fetchall() == [(1,)]
    finally:
        server.stop()


def test_sigterm_drains_checkpoints_and_exits(tmp_path):
    server = ServerProcess(tmp_path, scripted=True)
    results = {}

    def slow_client():
        with relate.connect(server.url, auth=AUTH) as conn:
            results["rows"] = conn.execute("SLEEP 1").fetchall()
    thread = threading.Thread(target=slow_client)
    thread.start()
    time.sleep(0.3)
    started = time.perf_counter()
    assert server.stop() == 0
    thread.join()
    assert results["rows"] == [(1.0,)]                    # the running request finished first
    assert time.perf_counter() - started < 5
    log = server.log()
    assert "checkpointed" in log and "stopped" in log


def test_health_endpoint_and_check_cli(tmp_path):
    server = ServerProcess(tmp_path, "--http-listen", "127.0.0.1:0", scripted=True)
    try:
        with urllib.request.urlopen(f"http://{server.info['http']}/health", timeout=5) as response:
            assert response.status == 200 and json.loads(response.read())["status"] == "ok"
        check = [sys.executable, "-m", "relate.server", "--check"]
        ok = subprocess.run([*check, f"127.0.0.1:{server.port}"], cwd=ROOT, capture_output=True, text=True)
        assert ok.returncode == 0 and ok.stdout.startswith("ok: Relate/")
        http = subprocess.run([*check, f"http://{server.info['http']}/health"], cwd=ROOT, capture_output=True)
        assert http.returncode == 0
    finally:
        server.stop()
    down = subprocess.run([*check, f"127.0.0.1:{server.port}"], cwd=ROOT, capture_output=True, text=True)
    assert down.returncode == 1 and down.stdout.startswith("unhealthy")


def test_tls(tmp_path):
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out",
                    str(cert), "-days", "1", "-subj", "/CN=localhost"], check=True, capture_output=True)
    server = ServerProcess(tmp_path, "--tls-cert", str(cert), "--tls-key", str(key), scripted=True)
    try:
        assert server.info["tls"] is True
        url = f"relate+ssc://127.0.0.1:{server.port}"
        with relate.connect(url, auth=AUTH) as conn:
            assert len(conn.execute("ROWS 3000").fetchall()) == 3000
        trusted = f"relate+s://localhost:{server.port}"
        with relate.connect(trusted, auth=AUTH, trusted_certificates=str(cert)) as conn:
            assert conn.execute("RETURN 1").fetchall() == [(1,)]
        with pytest.raises(relate.ServiceUnavailable):
            relate.connect(f"relate+s://localhost:{server.port}", auth=AUTH)      # unknown CA
        with pytest.raises(relate.ServiceUnavailable):
            relate.connect(f"relate://127.0.0.1:{server.port}", auth=AUTH)        # plaintext to a TLS port
        check = subprocess.run([sys.executable, "-m", "relate.server", "--check", url], cwd=ROOT,
                               capture_output=True, text=True)
        assert check.returncode == 0, check.stdout
    finally:
        server.stop()


SLOW_READER = """
import sys, time, relate
conn = relate.connect(sys.argv[1], auth=("neo4j", sys.argv[2]))
for i, row in enumerate(conn.execute(sys.argv[3])):
    if i == 0:
        print("streaming", flush=True)
    if i % 50_000 == 0:
        time.sleep(0.05)
print("done", i + 1, flush=True)
"""


@pytest.mark.slow
@pytest.mark.parametrize("loop", ["uvloop", "asyncio"])
def test_million_rows_stream_with_bounded_server_memory(tmp_path, loop):
    server = ServerProcess(tmp_path, scripted=True, loop=loop)
    try:
        baseline = server.rss_kib()
        reader = subprocess.Popen([sys.executable, "-c", SLOW_READER, server.url, AUTH[1], "ROWS 1000000"],
                                  cwd=ROOT, stdout=subprocess.PIPE, text=True)
        peak = baseline
        while reader.poll() is None:
            peak = max(peak, server.rss_kib())
            time.sleep(0.02)
        assert reader.stdout.read().split()[-1] == "1000000"
        # The whole result as Python tuples would take > 150 MiB; the server holds one batch at a time.
        assert peak - baseline < 40 * 1024, (baseline, peak)
    finally:
        server.stop()


def test_client_killed_mid_stream_leaves_the_server_healthy(tmp_path):
    server = ServerProcess(tmp_path, scripted=True)
    try:
        reader = subprocess.Popen([sys.executable, "-c", SLOW_READER, server.url, AUTH[1], "ROWS 5000000"],
                                  cwd=ROOT, stdout=subprocess.PIPE, text=True)
        assert reader.stdout.readline().strip() == "streaming"
        reader.send_signal(signal.SIGKILL)
        reader.wait()
        with relate.connect(server.url, auth=AUTH) as conn:
            assert conn.execute("RETURN 1").fetchall() == [(1,)]
            assert len(conn.execute("ROWS 10000").fetchall()) == 10000
        assert server.alive()
    finally:
        server.stop()


def test_32_concurrent_clients_mixed_reads_and_writes(tmp_path):
    server = ServerProcess(tmp_path, scripted=True)
    errors, per_client = [], 20
    try:
        def client(n):
            try:
                with relate.connect(server.url, auth=AUTH) as conn:
                    for i in range(per_client):
                        with conn.transaction() as tx:
                            tx.execute(f"SET c{n}-{i} {i}")
                        assert conn.execute(f"GET c{n}-{i}").fetchone().value == str(i)
                        assert len(conn.execute("ROWS 200").fetchall()) == 200
            except Exception as exc:   # noqa: BLE001 - reported by the assertion below
                errors.append(exc)
        threads = [threading.Thread(target=client, args=(n,)) for n in range(32)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert errors == []
        with relate.connect(server.url, auth=AUTH) as conn:
            missing = [(n, i) for n in range(32) for i in range(per_client)
                       if conn.execute(f"GET c{n}-{i}").fetchone().value != str(i)]
        assert missing == []
    finally:
        server.stop()


def test_no_auth_mode_accepts_clients_without_credentials(tmp_path):
    server = ServerProcess(tmp_path, "--no-auth", scripted=True)
    try:
        with relate.connect(server.url) as conn:
            assert conn.execute("RETURN 1").fetchall() == [(1,)]
        client = RawClient(server.port)
        hello, logon = client.login("whoever", "whatever")
        assert isinstance(logon, m.Success)
        client.close()
    finally:
        server.stop()


def test_asyncio_debug_mode_run_logs_no_loop_errors(tmp_path):
    server = ServerProcess(tmp_path, scripted=True, loop="asyncio", env={"PYTHONASYNCIODEBUG": "1"})
    try:
        with relate.connect(server.url, auth=AUTH) as conn:
            assert len(conn.execute("ROWS 20000").fetchall()) == 20000
            with pytest.raises(relate.CypherSyntaxError):
                conn.execute("FAIL Neo.ClientError.Statement.SyntaxError")
            with conn.transaction() as tx:
                tx.execute("SET debug on")
        client = RawClient(server.port)
        client.login("neo4j", AUTH[1])
        client.send(m.Run("SLEEP 10"), m.Pull())
        time.sleep(0.2)
        client.close()                                  # dropped mid-query
        time.sleep(0.3)
    finally:
        assert server.stop() == 0
    log = server.log()
    for sign in ("Traceback", "never awaited", "never retrieved", "Executing <", "Unclosed"):
        assert sign not in log, log


def test_generated_sync_driver_matches_its_async_source():
    from relate.driver import unasync
    assert unasync.stale() == [], "run: python -m relate.driver.unasync"
