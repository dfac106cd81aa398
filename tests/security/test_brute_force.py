"""Brute force: failures throttled per IP and per user (parallel connections do not help), a lockout,
a bounded failure table, and a flood of wrong-password logins that does not balloon server memory."""
import socket
import threading
import time

import pytest

import relate
from relate.errors import ClientError
from relate.protocol import messages as m
from relate.server import login_throttle
from relate.server.login_throttle import LoginThrottle, client_ip
from tests.security.conftest import AUTH
from tests.server.raw_client import RawClient


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


def test_client_ip_drops_the_port():
    assert client_ip("10.0.0.1:5555") == client_ip("10.0.0.1:6666") == "10.0.0.1"
    assert client_ip("[::1]:7688") == "::1"


def test_failures_count_per_ip_across_ports_and_per_user_across_ips():
    clock = Clock()
    throttle = LoginThrottle(clock=clock)
    delays = [throttle.failed("10.0.0.1", "neo4j") for _ in range(5)]
    assert delays == [0.25, 0.5, 1.0, 2.0, 4.0]
    assert throttle.failed("10.0.0.2", "neo4j") == 5.0         # another IP, same user: still slow
    assert throttle.failed("10.0.0.1", "other") == 5.0         # same IP, another user: still slow
    assert throttle.failed("10.0.0.3", "fresh") == 0.25


def test_lockout_after_repeated_failures_then_expiry():
    clock = Clock()
    throttle = LoginThrottle(clock=clock)
    for i in range(login_throttle.LOCKOUT_AFTER):
        assert throttle.locked_for(f"10.1.0.{i}", "neo4j") == 0
        throttle.failed(f"10.1.0.{i}", "neo4j")
    assert throttle.locked_for("10.9.9.9", "neo4j") == pytest.approx(login_throttle.LOCKOUT_S)
    clock.now += login_throttle.LOCKOUT_S + 1
    assert throttle.locked_for("10.9.9.9", "neo4j") == 0


def test_the_failure_table_is_bounded_and_pruned(monkeypatch):
    monkeypatch.setattr(login_throttle, "MAX_ENTRIES", 100)
    clock = Clock()
    throttle = LoginThrottle(clock=clock)
    for i in range(5000):
        throttle.failed(f"10.{i // 250}.{i % 250}.1", f"user{i}")
    assert len(throttle) <= 100
    clock.now += login_throttle.WINDOW_S + login_throttle.LOCKOUT_S + 1
    throttle.failed("10.0.0.1", None)
    assert len(throttle) == 1


def _wrong_login(port: int, results: list, source: str = "127.0.0.1", user: str = "neo4j") -> None:
    client = RawClient(port, timeout=60)
    client.sock.close()
    client.sock = socket.create_connection(("127.0.0.1", port), timeout=60, source_address=(source, 0))
    client.handshake()
    client.send(m.Hello({"user_agent": "guess"}),
                m.Logon({"scheme": "basic", "principal": user, "credentials": "wrong-password"}))
    client.recv()
    results.append(client.recv())
    client.sock.close()


def test_parallel_connections_do_not_multiply_guesses_and_lock_the_user(start_server):
    server = start_server()
    results: list = []
    started = time.monotonic()
    threads = [threading.Thread(target=_wrong_login, args=(server.port, results)) for _ in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(results) == 16 and all(isinstance(r, m.Failure) for r in results)
    assert time.monotonic() - started >= 2.0          # the later guesses waited
    with pytest.raises(ClientError) as caught:           # locked: even the right password waits
        relate.connect(server.url, auth=AUTH)
    assert caught.value.code == "Neo.ClientError.Security.AuthenticationRateLimit"


def test_a_flood_of_wrong_password_logins_keeps_memory_bounded(start_server):
    server = start_server("--max-unauthenticated", "1000")
    with relate.connect(server.url, auth=AUTH) as conn:
        conn.execute("RETURN 1").fetchall()
    before = server.rss_kib()
    results: list = []
    # Distinct loopback addresses and users, so every login really hashes (no lockout shortcut).
    threads = [threading.Thread(target=_wrong_login, args=(server.port, results, f"127.0.{i // 200}.{i % 200 + 1}",
                                                           f"user{i}")) for i in range(200)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert len(results) == 200
    grown_mib = (server.rss_kib() - before) / 1024
    assert grown_mib < 150, f"RSS grew by {grown_mib:.0f} MiB"
