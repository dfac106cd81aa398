"""Wire fuzzer: mutated frame sequences (handshake, HELLO, LOGON, RUN, PULL, BEGIN, ...) sent to one
real server process over loopback, on both listeners (native msgpack and Bolt PackStream), from many
concurrent connections (asyncio; each from its own 127.x.y.z address). The server must never crash,
never keep a session open after its client left (the /health connection count returns to its
baseline), never log an unexpected exception, and must keep serving control clients (native and
Bolt) throughout. Logins mostly use bearer tokens (from POST /login), so scrypt (50 ms a login, by
design) does not bound the rate; a share still logs in with passwords.

    python -m tests.fuzz.wire_fuzz [--seconds S] [--sessions N] [--workers W] [--bolt SHARE] [--seed K]
"""
from __future__ import annotations

import argparse
import asyncio
import base64
import json
import os
import random
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
from tests.fuzz import bolt_frames
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


def logon_auth(rng: random.Random, users: list[str], tokens: list[str] | None = None) -> dict:
    """Mostly a bearer token (cheap to check), now and then a password (scrypt)."""
    if tokens and rng.random() < 0.97:
        return {"scheme": "bearer", "credentials": rng.choice(tokens)}
    return {"scheme": "basic", "principal": rng.choice(users), "credentials": PASSWORD}


def _messages(rng: random.Random, users: list[str], tokens: list[str] | None = None) -> list:
    seq: list = [[m.HELLO, {"user_agent": "fuzz"}], [m.LOGON, logon_auth(rng, users, tokens)]]
    for _ in range(rng.randint(0, 6)):
        kind = rng.randrange(9)
        if kind < 3:
            query = rng.choice(["RETURN $p AS p", "UNWIND range(1, 50) AS x RETURN x", "CREATE (:Fz {v: $p})",
                                "MATCH (n:Fz) DELETE n", "RETURN 1 +", "UNWIND range(1, 2000) AS x RETURN count(x)"])
            if rng.random() < 0.01:    # a long statement, cancelled when the client leaves (costly: rare)
                query = "UNWIND range(1, 100000000) AS x RETURN count(x)"
            seq.append([m.RUN, query, {"p": _value(rng)}, {}])
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


def session_bytes(rng: random.Random, users: list[str] = USERS, tokens: list[str] | None = None) -> bytes:
    payloads = []
    for message in _messages(rng, users, tokens):
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
        self.sessions = self.replies = self.closed_by_server = self.bolt = 0
        self.errors: list[str] = []
        self.control_failures: list[str] = []

    def add(self, replies: int, closed: bool) -> None:
        with self.lock:
            self.sessions += 1
            self.replies += replies
            self.closed_by_server += closed


async def one_session(port: int, data: bytes, rng: random.Random, counts: Counts) -> None:
    """Connect from a random loopback address, send ``data``, read replies until the server is quiet
    for 0.2 s (at most 1 s) or closes, then leave."""
    source = f"127.{rng.randrange(1, 250)}.{rng.randrange(1, 250)}.{rng.randrange(1, 250)}"
    try:
        reader, writer = await asyncio.wait_for(
            asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0)), 5)
    except (OSError, asyncio.TimeoutError) as exc:
        counts.errors.append(f"connect failed: {exc!r}")
        return
    replies, closed = 0, False
    try:
        try:
            writer.write(data)
        except OSError:
            pass
        deadline = time.monotonic() + 1.0
        while time.monotonic() < deadline:
            try:
                chunk = await asyncio.wait_for(reader.read(65536), 0.2)
            except asyncio.TimeoutError:
                break
            except OSError:
                closed = True
                break
            if not chunk:
                closed = True
                break
            replies += chunk.count(b"\x00\x00")
    finally:
        writer.transport.abort()
    counts.add(replies, closed)


def health(server) -> dict:
    with urllib.request.urlopen(f"http://{server.info['http']}/health", timeout=10) as response:
        return json.loads(response.read())


def control_check(server, counts: "Counts") -> float:
    """Real clients' RETURN 1 over both listeners (seconds the slower took); a failure is a finding."""
    started = time.perf_counter()
    try:
        with relate.connect(server.url, auth=AUTH) as conn:
            assert conn.execute("RETURN 1").fetchall() == [(1,)]
    except Exception as exc:
        counts.control_failures.append(f"native: {exc!r}")
    if server.bolt_address:
        from neo4j import GraphDatabase
        try:
            with GraphDatabase.driver(f"bolt://{server.bolt_address}", auth=AUTH) as driver:
                records, _, _ = driver.execute_query("RETURN 1 AS one")
                assert records[0]["one"] == 1
        except Exception as exc:
            counts.control_failures.append(f"bolt: {exc!r}")
    return time.perf_counter() - started


def issue_tokens(server, n: int) -> list[str]:
    """Bearer tokens from POST /login (Basic credentials)."""
    basic = base64.b64encode(f"{AUTH[0]}:{AUTH[1]}".encode()).decode()
    tokens = []
    for _ in range(n):
        request = urllib.request.Request(f"http://{server.info['http']}/login", data=b"", method="POST",
                                         headers={"Authorization": f"Basic {basic}"})
        with urllib.request.urlopen(request, timeout=30) as response:
            tokens.append(json.loads(response.read())["token"])
    return tokens


async def _drive(server, seconds: float, sessions: int | None, workers: int, seed: int, names: list[str],
                 tokens: list[str], bolt_share: float, counts: Counts, out, every: float) -> None:
    """``workers`` concurrent session loops until ``seconds`` pass or ``sessions`` ran."""
    stop = time.monotonic() + seconds
    bolt_port = int(server.bolt_address.rsplit(":", 1)[1]) if server.bolt_address else None
    started = last = time.monotonic()

    async def loop(index: int) -> None:
        rng = random.Random(seed * 1000 + index)
        while time.monotonic() < stop and (sessions is None or counts.sessions < sessions):
            if bolt_port and rng.random() < bolt_share:
                with counts.lock:
                    counts.bolt += 1
                await one_session(bolt_port, bolt_frames.session_bytes(rng, names, tokens, PASSWORD), rng, counts)
            else:
                await one_session(server.port, session_bytes(rng, names, tokens), rng, counts)

    async def progress() -> None:
        nonlocal last
        while True:
            await asyncio.sleep(1)
            if time.monotonic() - last >= every:
                last = time.monotonic()
                print(f"  wire fuzz: {counts.sessions} sessions ({counts.bolt} Bolt) in {last - started:.0f} s "
                      f"({counts.sessions / (last - started):.0f}/s)", file=out, flush=True)

    reporter = asyncio.ensure_future(progress())
    await asyncio.gather(*(loop(i) for i in range(workers)))
    reporter.cancel()


def run(seconds: float, sessions: int | None, workers: int, seed: int, directory: Path, out=sys.stdout,
        settle_s: float = 40, users: int = len(USERS), bolt_share: float = 0.5, every: float = 30) -> dict:
    server = ServerProcess(directory, "--http-listen", "127.0.0.1:0", "--login-timeout", "2",
                           "--message-timeout", "2", "--max-unauthenticated", "500")
    try:
        with relate.connect(server.url, auth=AUTH) as admin:
            names = USERS[:users]
            for user in names:
                admin.execute(f"CREATE USER {user} IF NOT EXISTS SET PASSWORD '{PASSWORD}' CHANGE NOT REQUIRED")
                admin.execute(f"GRANT ROLE admin TO {user}")
        tokens = issue_tokens(server, 4)
        baseline = health(server)["connections"]
        counts = Counts()
        control_worst = 0.0
        driver = threading.Thread(target=lambda: asyncio.run(_drive(server, seconds, sessions, workers, seed, names,
                                                                    tokens, bolt_share, counts, out, every)))
        fuzz_started = time.monotonic()
        driver.start()
        while driver.is_alive():
            driver.join(2)
            if server.alive():
                control_worst = max(control_worst, control_check(server, counts))
        fuzz_s = time.monotonic() - fuzz_started
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
            stuck = [name for name in stuck if name.startswith("relate-")]
            print("session threads still running:", stuck[:10], file=out)
        unexpected = log.count("connection failed") + log.count("request failed unexpectedly") + \
            log.count("Traceback")
        report = {"sessions": counts.sessions, "fuzz_s": round(fuzz_s, 1),
                  "sessions_per_s": round(counts.sessions / max(fuzz_s, 1e-9)), "bolt_sessions": counts.bolt,
                  "replies": counts.replies,
                  "closed_by_server": counts.closed_by_server,
                  "server_alive": alive, "leaked_connections": leaked, "unexpected_log_errors": unexpected,
                  "control_worst_s": round(control_worst, 3), "rss_mib": round(server.rss_kib() / 1024) if alive else None,
                  "client_errors": len(counts.errors), "control_failures": len(counts.control_failures)}
        for failure in counts.control_failures[:3]:
            print("control client failed:", failure, file=out)
        if counts.control_failures:     # what the server said about its loopback (control) peers
            said = [line[:300] for line in log.splitlines() if "connection refused" in line or (
                '"peer": "127.0.0.1:' in line and ("deadline" in line or "failed" in line))]
            print(f"server log about 127.0.0.1 peers ({len(said)} lines):", *said[:5], sep="\n  ", file=out)
        for error in counts.errors[:3]:
            print("client error:", error, file=out)
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
    parser.add_argument("--workers", type=int, default=64, help="concurrent client connections")
    parser.add_argument("--bolt", type=float, default=0.5, help="share of sessions on the Bolt listener")
    parser.add_argument("--seed", type=int, default=int.from_bytes(os.urandom(4), "little"))
    args = parser.parse_args()
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as directory:
        report = run(args.seconds, args.sessions, args.workers, args.seed, Path(directory), bolt_share=args.bolt)
    elapsed = time.monotonic() - started
    print(f"wire fuzz: {report['sessions']} sessions in {elapsed:.1f} s in all (seed {args.seed}): " + ", ".join(f"{k} {v}" for k, v in report.items() if k != "sessions"))
    ok = report["server_alive"] and not report["leaked_connections"] and not report["unexpected_log_errors"] \
        and not report["control_failures"] and not report["client_errors"]
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
