"""Wire fuzzer: mutated frame sequences (handshake, HELLO, LOGON, RUN, PULL, BEGIN, ...) sent to a real
server process over loopback. The server must never crash, never keep a session open after its client
left (the /health connection count returns to its baseline), never log an unexpected exception, and
must keep serving a control client throughout.

    python -m tests.fuzz.wire_fuzz [--seconds S] [--sessions N] [--workers W] [--seed K]
"""
from __future__ import annotations

import argparse
import json
import os
import random
import socket
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

import msgpack

import relate
from relate.driver.hydration import value_codec
from relate.protocol import frame
from relate.protocol import handshake as hs
from relate.protocol import messages as m
from tests.server.conftest import AUTH, ServerProcess

CODEC = value_codec()
USERS = [f"fuzz{i}" for i in range(16)]
PASSWORD = "fuzz-password-1"


def _nested_ext(depth: int) -> msgpack.ExtType:
    payload = msgpack.packb([])
    for _ in range(depth):
        payload = msgpack.packb([msgpack.ExtType(99, payload)])
    return msgpack.ExtType(99, payload)


def _value(rng: random.Random, depth: int = 0):
    kind = rng.randrange(11 if depth < 3 else 6)
    choices = [None, True, rng.randint(-2 ** 63, 2 ** 63 - 1), rng.random(), "x" * rng.randint(0, 40),
               bytes(rng.randrange(256) for _ in range(rng.randint(0, 16)))]
    if kind < 6:
        return choices[kind]
    if kind == 6:
        return msgpack.ExtType(rng.randint(0, 127), bytes(rng.randrange(256) for _ in range(rng.randint(0, 12))))
    if kind == 7:
        return _nested_ext(rng.choice([2, 20, 300]))
    if kind == 8:
        value = []
        for _ in range(rng.choice([2, 100, 500])):
            value = [value]
        return value
    if kind == 9:
        return [_value(rng, depth + 1) for _ in range(rng.randint(0, 5))]
    return {str(rng.randint(0, 9)): _value(rng, depth + 1) for _ in range(rng.randint(0, 4))}


def _messages(rng: random.Random, users: list[str]) -> list:
    user = rng.choice(users)
    seq: list = [[m.HELLO, {"user_agent": "fuzz"}],
                 [m.LOGON, {"scheme": "basic", "principal": user, "credentials": PASSWORD}]]
    for _ in range(rng.randint(0, 6)):
        kind = rng.randrange(9)
        if kind < 3:
            seq.append([m.RUN, rng.choice(["RETURN $p AS p", "UNWIND range(1, 50) AS x RETURN x",
                                           "CREATE (:Fz {v: $p})", "MATCH (n:Fz) DELETE n", "RETURN 1 +",
                                           "UNWIND range(1, 100000000) AS x RETURN count(x)"]),
                        {"p": _value(rng)}, {}])
            seq.append([m.PULL, {"n": rng.choice([-1, 1, 10])}])
        elif kind == 3:
            seq.append([m.BEGIN, {}])
        elif kind == 4:
            seq.append([m.COMMIT])
        elif kind == 5:
            seq.append([m.RESET])
        elif kind == 6:
            seq.append([m.DISCARD, {"n": -1}])
        elif kind == 7:
            seq.append([rng.randint(0, 255), _value(rng)])
        else:
            seq.append([m.GOODBYE])
    if rng.random() < 0.3:
        rng.shuffle(seq)
    return seq


def _mutate(rng: random.Random, data: bytearray) -> bytearray:
    for _ in range(rng.randint(0, 3)):
        op = rng.randrange(6)
        if not data:
            break
        i = rng.randrange(len(data))
        if op == 0:
            data[i] ^= 1 << rng.randrange(8)
        elif op == 1:
            data[i:i] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))
        elif op == 2:
            del data[i:i + rng.randint(1, 8)]
        elif op == 3:
            data = data[:i]                                  # cut short
        elif op == 4:
            data[i:i] = b"\xff\xff"                          # a chunk header announcing 64 KiB
        else:
            j = rng.randrange(i, len(data)) + 1
            data[i:i] = data[i:j]
    return data


def session_bytes(rng: random.Random, users: list[str] = USERS) -> bytes:
    payloads = []
    for message in _messages(rng, users):
        try:
            payloads.append(frame(CODEC.pack(message)))
        except Exception:  # a value even the fuzzer cannot pack: send its type byte instead
            payloads.append(frame(bytes([0x91, message[0] & 0x7F])))
    data = bytearray(hs.client_handshake() + b"".join(payloads))
    if rng.random() < 0.8:
        data = _mutate(rng, data)
    return bytes(data)


class Counts:
    def __init__(self):
        self.lock = threading.Lock()
        self.sessions = self.replies = self.closed_by_server = 0
        self.errors: list[str] = []
        self.control_failures: list[str] = []

    def add(self, replies: int, closed: bool) -> None:
        with self.lock:
            self.sessions += 1
            self.replies += replies
            self.closed_by_server += closed


def one_session(port: int, data: bytes, rng: random.Random, counts: Counts) -> None:
    source = f"127.{rng.randrange(1, 250)}.{rng.randrange(1, 250)}.{rng.randrange(1, 250)}"
    try:
        sock = socket.create_connection(("127.0.0.1", port), timeout=5, source_address=(source, 0))
    except OSError as exc:
        counts.errors.append(f"connect failed: {exc}")
        return
    replies, closed = 0, False
    try:
        sock.settimeout(0.2)
        try:
            sock.sendall(data)
        except OSError:
            pass
        deadline = time.monotonic() + 1.0
        while time.monotonic() < deadline:
            try:
                chunk = sock.recv(65536)
            except socket.timeout:
                break
            except OSError:
                closed = True
                break
            if not chunk:
                closed = True
                break
            replies += chunk.count(b"\x00\x00")
    finally:
        sock.close()
    counts.add(replies, closed)


def health(server) -> dict:
    with urllib.request.urlopen(f"http://{server.info['http']}/health", timeout=10) as response:
        return json.loads(response.read())


def control_check(server, counts: "Counts") -> float:
    """A real client's RETURN 1 (seconds it took); a failure is a finding."""
    started = time.perf_counter()
    try:
        with relate.connect(server.url, auth=AUTH) as conn:
            assert conn.execute("RETURN 1").fetchall() == [(1,)]
    except Exception as exc:
        counts.control_failures.append(repr(exc))
    return time.perf_counter() - started


def run(seconds: float, sessions: int | None, workers: int, seed: int, directory: Path, out=sys.stdout,
        settle_s: float = 40, users: int = len(USERS)) -> dict:
    server = ServerProcess(directory, "--http-listen", "127.0.0.1:0", "--login-timeout", "2",
                           "--message-timeout", "2", "--max-unauthenticated", "500")
    try:
        with relate.connect(server.url, auth=AUTH) as admin:
            names = USERS[:users]
            for user in names:
                admin.execute(f"CREATE USER {user} IF NOT EXISTS SET PASSWORD '{PASSWORD}' CHANGE NOT REQUIRED")
                admin.execute(f"GRANT ROLE admin TO {user}")
        baseline = health(server)["connections"]
        counts = Counts()
        stop = time.monotonic() + seconds
        control_worst = 0.0

        def worker(index: int) -> None:
            rng = random.Random(seed * 1000 + index)
            while time.monotonic() < stop and (sessions is None or counts.sessions < sessions):
                one_session(server.port, session_bytes(rng, names), rng, counts)
                if not server.alive():
                    return

        threads = [threading.Thread(target=worker, args=(i,)) for i in range(workers)]
        for thread in threads:
            thread.start()
        while any(t.is_alive() for t in threads):
            time.sleep(2)
            if server.alive():
                control_worst = max(control_worst, control_check(server, counts))
        for thread in threads:
            thread.join()
        alive = server.alive()
        leaked = None
        if alive:
            settle = time.monotonic() + settle_s
            while time.monotonic() < settle:
                leaked = health(server)["connections"] - baseline
                if leaked <= 0:
                    break
                print(f"  still open after the run: {leaked}", file=out)
                time.sleep(0.5)
            control_worst = max(control_worst, control_check(server, counts))
        log = server.log()
        if leaked:
            stuck = sorted(open(f"/proc/{server.pid}/task/{t}/comm").read().strip()
                           for t in os.listdir(f"/proc/{server.pid}/task"))
            stuck = [name for name in stuck if name.startswith("relate-c")]
            print("sessions still open:", stuck[:10], file=out)
            for name in stuck[:3]:
                conn = name.split("-", 1)[1]
                events = [line[:300] for line in log.splitlines() if f'"conn": "{conn}"' in line]
                print(f"  {conn}:", *events[-6:], sep="\n    ", file=out)
        unexpected = log.count("connection failed") + log.count("request failed unexpectedly") + \
            log.count("Traceback")
        report = {"sessions": counts.sessions, "replies": counts.replies, "closed_by_server": counts.closed_by_server,
                  "server_alive": alive, "leaked_connections": leaked, "unexpected_log_errors": unexpected,
                  "control_worst_s": round(control_worst, 3), "rss_mib": round(server.rss_kib() / 1024) if alive else None,
                  "client_errors": len(counts.errors), "control_failures": len(counts.control_failures)}
        for failure in counts.control_failures[:3]:
            print("control client failed:", failure, file=out)
        bad = [line for line in log.splitlines()
               if "connection failed" in line or "failed unexpectedly" in line or "Traceback" in line]
        for line in bad[:3]:
            print(line[:4000].replace("\\n", "\n"), file=out)
        return report
    finally:
        server.stop()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=120)
    parser.add_argument("--sessions", type=int)
    parser.add_argument("--workers", type=int, default=12)
    parser.add_argument("--seed", type=int, default=int.from_bytes(os.urandom(4), "little"))
    args = parser.parse_args()
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as directory:
        report = run(args.seconds, args.sessions, args.workers, args.seed, Path(directory))
    elapsed = time.monotonic() - started
    print(f"wire fuzz: {report['sessions']} sessions in {elapsed:.1f} s (seed {args.seed}): " +
          ", ".join(f"{k} {v}" for k, v in report.items() if k != "sessions"))
    ok = report["server_alive"] and not report["leaked_connections"] and not report["unexpected_log_errors"] \
        and not report["control_failures"]
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
