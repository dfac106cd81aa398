"""Wire benchmarks: RETURN 1 round trips, point lookups, rows/s streamed, the cookbook's RECALL over
the wire vs embedded, and throughput with 16 concurrent clients; the Bolt listener beside the native
protocol (``--bolt-only`` runs just that comparison). Starts its own relate-server on free ports.

    python bench/wire.py [--quick] [--bolt-only] [--loop uvloop|asyncio] [--json out.json]
"""
from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import relate
from figures import report   # bench/ is on sys.path: run as python bench/wire.py

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "hybrid-recall"
PASSWORD = "bench-password"
AUTH = ("neo4j", PASSWORD)
STREAM = "UNWIND range(1, $n) AS i RETURN i, i * 2 AS j, 'x' AS s"


def start_server(data: str, loop: str) -> tuple[subprocess.Popen, str, str]:
    ready = os.path.join(data, "ready.json")
    process = subprocess.Popen([sys.executable, "-m", "relate.server", "--data", os.path.join(data, "db"),
                                "--listen", "127.0.0.1:0", "--bolt-listen", "127.0.0.1:0", "--ready-file", ready, "--init-password", PASSWORD,
                                "--loop", loop, "--log-level", "warning"], cwd=ROOT)
    deadline = time.monotonic() + 60
    while not os.path.exists(ready):
        if process.poll() is not None or time.monotonic() > deadline:
            raise SystemExit("relate-server did not start")
        time.sleep(0.05)
    with open(ready) as file:
        bound = json.load(file)
    return process, "relate://" + bound["listen"], bound["bolt"]


def median_us(samples: list[float]) -> float:
    return statistics.median(samples) * 1e6


def round_trips(conn, n: int) -> list[float]:
    samples = []
    for _ in range(n):
        started = time.perf_counter()
        conn.execute("RETURN 1 AS one").fetchall()
        samples.append(time.perf_counter() - started)
    return samples


async def async_round_trips(url: str, n: int) -> list[float]:
    import relate.aio
    samples = []
    async with await relate.aio.connect(url, auth=AUTH) as conn:
        for _ in range(n):
            started = time.perf_counter()
            await (await conn.execute("RETURN 1 AS one")).fetchall()
            samples.append(time.perf_counter() - started)
    return samples


def round_trips_beside_a_long_query(url: str, conn, n: int) -> list[float]:
    """RETURN 1 on one connection while another runs a CPU-bound query (GIL and loop fairness)."""
    import threading
    done = threading.Event()

    def long_query():
        with relate.connect(url, auth=AUTH) as other:
            other.execute("UNWIND range(1, 3000000) AS i WITH i WHERE i < 0 RETURN count(i)").fetchall()
        done.set()
    thread = threading.Thread(target=long_query)
    thread.start()
    time.sleep(0.3)
    samples = []
    while not done.is_set() and len(samples) < n:
        samples.extend(round_trips(conn, 1))
    thread.join()
    return samples


def point_lookups(conn, n: int) -> list[float]:
    """A point lookup by a uniquely constrained id (the peer benchmark's), ``n`` times."""
    conn.execute("CREATE CONSTRAINT wire_bench_id IF NOT EXISTS FOR (p:WireBench) REQUIRE p.id IS UNIQUE").consume()
    conn.execute("UNWIND range(0, 999) AS i MERGE (p:WireBench {id: 'p' + toString(i)}) "
                 "SET p.text = 'text ' + toString(i)").consume()
    samples = []
    for i in range(n):
        started = time.perf_counter()
        rows = conn.execute("MATCH (p:WireBench {id: $id}) RETURN p.text AS text", id=f"p{i % 1000}").fetchall()
        samples.append(time.perf_counter() - started)
    assert len(rows) == 1
    return samples


def stream_rate(conn, n: int) -> float:
    started = time.perf_counter()
    count = sum(1 for _ in conn.execute(STREAM, n=n))
    assert count == n
    return n / (time.perf_counter() - started)


def recall_times(conn, repeat: int) -> list[float] | None:
    if not (EXAMPLE / "statements.py").exists():
        return None
    sys.path.insert(0, str(EXAMPLE))
    import statements as S
    fixture = S.load_fixture()
    try:
        for query in S.SETUP:
            conn.execute(query).consume()
        if not conn.execute("MATCH (n:Note) RETURN count(n)").fetchone()[0]:
            for query in (S.LOAD_NOTES, S.LOAD_DECISIONS):
                conn.execute(query, S.load_params(fixture)).consume()
        params = S.question_params(fixture, "oauth")
        conn.execute(S.RECALL, params).fetchall()
        samples = []
        for _ in range(repeat):
            started = time.perf_counter()
            conn.execute(S.RECALL, params).fetchall()
            samples.append(time.perf_counter() - started)
        return samples
    except Exception as exc:  # noqa: BLE001 - the search part may not be ready; report, don't crash
        print(f"  RECALL unavailable: {exc!r}", file=sys.stderr)
        return None


def _client_worker(url: str, seconds: float, barrier, queue) -> None:
    conn = relate.connect(url, auth=AUTH)
    conn.execute("RETURN 1").fetchall()
    barrier.wait()                        # every client connected before the clock starts
    done, end = 0, time.perf_counter() + seconds
    while time.perf_counter() < end:
        conn.execute("MATCH (n:Bench) WHERE n.i = $i RETURN n.i AS i", i=done % 100).fetchall()
        done += 1
    conn.close()
    queue.put(done)


def concurrent_throughput(url: str, clients: int, seconds: float) -> float:
    """Statements per second, 16 client processes each running a small indexed-free read in a loop."""
    with relate.connect(url, auth=AUTH) as conn:
        conn.execute("UNWIND range(0, 99) AS i MERGE (:Bench {i: i})").consume()
    context = multiprocessing.get_context("spawn")
    queue, barrier = context.Queue(), context.Barrier(clients + 1)
    workers = [context.Process(target=_client_worker, args=(url, seconds, barrier, queue)) for _ in range(clients)]
    for worker in workers:
        worker.start()
    barrier.wait()
    total = sum(queue.get() for _ in workers)
    for worker in workers:
        worker.join()
    return total / seconds


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer iterations (a smoke run)")
    ap.add_argument("--loop", default="uvloop", choices=["uvloop", "asyncio"])
    ap.add_argument("--bolt-only", action="store_true", help="only the Bolt vs native comparison")
    ap.add_argument("--json", help="also write the figures here")
    args = ap.parse_args(argv)
    trips, rows, recalls, seconds = (300, 100_000, 5, 2.0) if args.quick else (3000, 1_000_000, 30, 5.0)
    figures: dict[str, float | None] = {}
    with tempfile.TemporaryDirectory(prefix="relate-bench-") as tmp:
        server, url, bolt = start_server(tmp, args.loop)
        try:
            from wire_bolt import compare
            figures.update(compare(url, bolt, AUTH, trips, rows, STREAM))
            if args.bolt_only:
                return _report(args, figures)
            with relate.connect(url, auth=AUTH) as remote, relate.connect(os.path.join(tmp, "embedded")) as local:
                round_trips(remote, 100)
                figures["return1_remote_median_us"] = median_us(round_trips(remote, trips))
                figures["return1_remote_async_median_us"] = median_us(asyncio.run(async_round_trips(url, trips)))
                figures["return1_remote_beside_long_query_median_us"] = median_us(
                    round_trips_beside_a_long_query(url, remote, trips))
                round_trips(local, 100)
                figures["return1_embedded_median_us"] = median_us(round_trips(local, trips))
                point_lookups(remote, 100)
                figures["point_lookup_remote_median_us"] = median_us(point_lookups(remote, trips))
                point_lookups(local, 100)
                figures["point_lookup_embedded_median_us"] = median_us(point_lookups(local, trips))
                figures["stream_remote_rows_per_s"] = stream_rate(remote, rows)
                figures["stream_embedded_rows_per_s"] = stream_rate(local, rows)
                remote_recall, local_recall = recall_times(remote, recalls), recall_times(local, recalls)
                figures["recall_remote_median_ms"] = remote_recall and statistics.median(remote_recall) * 1e3
                figures["recall_embedded_median_ms"] = local_recall and statistics.median(local_recall) * 1e3
            figures["concurrent16_queries_per_s"] = concurrent_throughput(url, 16, seconds)
        finally:
            server.send_signal(signal.SIGTERM)
            server.wait(30)
    return _report(args, figures)


def _report(args, figures: dict) -> int:
    return report(f"relate wire benchmark ({args.loop}, {os.cpu_count()} CPUs{', quick' if args.quick else ''})",
                  figures, args.json, lambda value: f"{value:,.1f}")


if __name__ == "__main__":
    sys.exit(main())
