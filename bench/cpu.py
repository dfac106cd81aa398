"""CPU time per statement (µs), embedded and over the wire (server and client process apart): a
before/after measure that a busy machine disturbs far less than wall-clock latency, since it counts
only the cycles this code spends, not the time it waits for a core.

    python bench/cpu.py [--n 20000] [--rounds 5] [--json out.json]

Each figure is the best of ``rounds`` rounds of ``n`` statements (after a warm-up). Uses only the public
API (``relate.connect``, ``python -m relate.server``), so an older checkout's venv can run it too.
"""
from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

import relate
from figures import report   # bench/ is on sys.path: run as python bench/cpu.py

AUTH = ("neo4j", "bench-password")
LOOKUP = "MATCH (p:CpuBench {id: $id}) RETURN p.name AS name"
TWO_HOP = "MATCH (p:CpuBench {id: $id})-[:NEXT]->()-[:NEXT]->(c) RETURN c.id AS id"
SETUP = ["CREATE CONSTRAINT cpu_bench_id IF NOT EXISTS FOR (p:CpuBench) REQUIRE p.id IS UNIQUE",
         "UNWIND range(0, 9999) AS i CREATE (:CpuBench {id: i, name: 'n' + toString(i)})",
         "MATCH (a:CpuBench) WHERE a.id < 9999 MATCH (b:CpuBench {id: a.id + 1}) CREATE (a)-[:NEXT]->(b)"]
STATEMENTS = {"return1": ("RETURN 1 AS one", lambda i: {}), "lookup": (LOOKUP, lambda i: {"id": i % 10000}),
              "two_hop": (TWO_HOP, lambda i: {"id": i % 9998})}


def process_cpu(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` (Linux /proc)."""
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rounds(conn, query: str, params, n: int, count: int, server_pid: int | None) -> tuple[float, float | None]:
    """Best (client µs/stmt, server µs/stmt) over ``count`` rounds."""
    for i in range(min(n, 2000)):
        conn.execute(query, params(i)).fetchall()
    best_client, best_server = float("inf"), float("inf")
    for _ in range(count):
        server0 = process_cpu(server_pid) if server_pid else 0.0
        client0 = time.process_time()
        for i in range(n):
            conn.execute(query, params(i)).fetchall()
        best_client = min(best_client, (time.process_time() - client0) / n * 1e6)
        if server_pid:
            best_server = min(best_server, (process_cpu(server_pid) - server0) / n * 1e6)
    return best_client, (best_server if server_pid else None)


def start_server(data: str) -> tuple[subprocess.Popen, str]:
    ready = os.path.join(data, "ready.json")
    process = subprocess.Popen([sys.executable, "-m", "relate.server", "--data", os.path.join(data, "db"),
                                "--listen", "127.0.0.1:0", "--ready-file", ready, "--init-password", AUTH[1],
                                "--log-level", "error"], stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while not os.path.exists(ready):
        if process.poll() is not None or time.monotonic() > deadline:
            raise SystemExit("relate-server did not start")
        time.sleep(0.05)
    time.sleep(0.1)
    with open(ready) as file:
        return process, "relate://" + json.load(file)["listen"]


def main(argv: list[str] | None = None) -> int:
    # CPU per statement counts work, not waiting: both sides' busy polling (which spends idle cycles
    # on purpose, to answer sooner) is off here; an older server or driver ignores these variables.
    os.environ["RELATE_BUSY_POLL_US"] = os.environ["RELATE_DRIVER_BUSY_POLL_US"] = "0"
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=20000, help="statements per round")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--json", help="also write the figures here")
    args = ap.parse_args(argv)
    figures: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="relate-cpu-") as tmp:
        with relate.connect(os.path.join(tmp, "embedded")) as local:
            for query in SETUP:
                local.execute(query).consume()
            for name, (query, params) in STATEMENTS.items():
                figures[f"embedded_{name}_us"], _ = rounds(local, query, params, args.n, args.rounds, None)
        server, url = start_server(tmp)
        try:
            with relate.connect(url, auth=AUTH) as remote:
                for query in SETUP:
                    remote.execute(query).consume()
                for name, (query, params) in STATEMENTS.items():
                    client, served = rounds(remote, query, params, args.n // 4, args.rounds, server.pid)
                    figures[f"wire_{name}_client_us"], figures[f"wire_{name}_server_us"] = client, served or 0.0
        finally:
            server.send_signal(signal.SIGTERM)
            server.wait(30)
    return report(f"relate CPU per statement (best of {args.rounds} rounds; µs)", figures, args.json,
                  lambda value: f"{value:8.2f}")


if __name__ == "__main__":
    sys.exit(main())
