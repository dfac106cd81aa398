"""Soak: N clients x T minutes of mixed reads, writes and searches against a real server on loopback.
Prints throughput, p50/p99 latency, errors (must be 0) and the server's RSS over time (must level off);
while it runs, a line every ``--sample`` seconds: RSS, operations and throughput in that window.

    python -m tests.fuzz.soak [--clients N] [--seconds S] [--sample S]
"""
from __future__ import annotations

import argparse
import random
import sys
import tempfile
import threading
import time
from pathlib import Path

import relate
from tests.server.conftest import AUTH, ServerProcess

# The working set is bounded (writes upsert or delete one of KEYS nodes), so once it has filled, the data
# no longer grows and the server's RSS must level off: growth after that is a leak, not data.
KEYS = 2_000
SETUP = ["CREATE INDEX soak_k IF NOT EXISTS FOR (n:Soak) ON (n.k)",
         "CREATE VECTOR INDEX soak_e IF NOT EXISTS FOR (n:Soak) ON (n.e) "
         "OPTIONS {indexConfig: {`vector.dimensions`: 4, `vector.similarity_function`: 'cosine'}}",
         "CREATE FULLTEXT INDEX soak_t IF NOT EXISTS FOR (n:Soak) ON EACH [n.text]"]
WORDS = ["kafka", "tenant", "oauth", "tokens", "alert", "lag", "topic", "retention"]


def operation(conn, rng: random.Random, client: int) -> None:
    kind = rng.random()
    if kind < 0.35:
        conn.execute("MATCH (n:Soak) WHERE n.c = $c RETURN count(n), max(n.i)", {"c": client % 8}).fetchall()
    elif kind < 0.55:
        conn.execute("MERGE (n:Soak {k: $k}) SET n.i = $i, n.c = $c, n.text = $t, n.e = $e",
                     {"k": rng.randrange(KEYS), "i": rng.randrange(10 ** 9), "c": client % 8,
                      "t": " ".join(rng.choices(WORDS, k=4)), "e": [rng.uniform(-1, 1) for _ in range(4)]}).consume()
    elif kind < 0.65:
        conn.execute("MATCH (n:Soak {k: $k}) SET n.text = $t",
                     {"k": rng.randrange(KEYS), "t": " ".join(rng.choices(WORDS, k=3))}).consume()
    elif kind < 0.70:
        conn.execute("MATCH (n:Soak {k: $k}) DETACH DELETE n", {"k": rng.randrange(KEYS)}).consume()
    elif kind < 0.85:
        conn.execute("MATCH (n:Soak) SEARCH n IN (VECTOR INDEX soak_e FOR $q LIMIT 10) SCORE AS s RETURN n.i, s",
                     {"q": [rng.uniform(-1, 1) for _ in range(4)]}).fetchall()
    else:
        conn.execute("MATCH (n:Soak) SEARCH n IN (FULLTEXT INDEX soak_t FOR $q LIMIT 10) SCORE AS s RETURN n.i, s",
                     {"q": rng.choice(WORDS)}).fetchall()


def run(clients: int, seconds: float, sample: float, directory: Path, out=sys.stdout, progress: bool = False) -> dict:
    server = ServerProcess(directory, "--max-connections", str(max(1000, clients * 2)))
    latencies: list[float] = []
    errors: list[str] = []
    rss: list[tuple[float, int]] = []
    lock = threading.Lock()
    done = [0]                     # operations so far (for the progress lines)
    try:
        with relate.connect(server.url, auth=AUTH) as admin:
            for statement in SETUP:
                admin.execute(statement).consume()
        started = time.monotonic()
        stop = started + seconds

        def client(index: int) -> None:
            rng = random.Random(index)
            mine = []
            try:
                with relate.connect(server.url, auth=AUTH) as conn:
                    while time.monotonic() < stop:
                        t0 = time.perf_counter()
                        try:
                            operation(conn, rng, index)
                        except relate.TransientError:
                            pass          # a retryable conflict is an answer, not an error
                        except Exception as exc:
                            with lock:
                                errors.append(repr(exc))
                        mine.append(time.perf_counter() - t0)
                        done[0] += 1
            except Exception as exc:
                with lock:
                    errors.append(f"client {index}: {exc!r}")
            with lock:
                latencies.extend(mine)

        threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
        for thread in threads:
            thread.start()
        before = 0
        while any(t.is_alive() for t in threads):
            now, count = time.monotonic() - started, done[0]
            rss.append((round(now), server.rss_kib() // 1024))
            if progress:
                print(f"  t={now:4.0f} s  rss {rss[-1][1]} MiB  operations {count}  "
                      f"({(count - before) / sample:.0f}/s in the last {sample:g} s)", file=out, flush=True)
            before = count
            time.sleep(sample)
        for thread in threads:
            thread.join()
        elapsed = time.monotonic() - started
    finally:
        alive = server.alive()
        server.stop()
    latencies.sort()
    pick = lambda q: latencies[min(len(latencies) - 1, int(q * len(latencies)))] * 1000 if latencies else 0.0  # noqa: E731
    return {"clients": clients, "seconds": round(elapsed), "operations": len(latencies),
            "throughput_per_s": round(len(latencies) / elapsed, 1), "p50_ms": round(pick(0.5), 2),
            "p99_ms": round(pick(0.99), 2), "errors": len(errors), "first_errors": errors[:3],
            "server_alive": alive, "rss_mib_over_time": rss,
            "rss_growth_second_half_mib": _second_half_growth(rss)}


def _second_half_growth(rss: list[tuple[float, int]]) -> int:
    """RSS at the end minus RSS at half time (MiB): ~0 when memory has levelled off."""
    if len(rss) < 2:
        return 0
    end = rss[-1][0]
    half = min(rss, key=lambda sample: abs(sample[0] - end / 2))
    return rss[-1][1] - half[1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=64)
    parser.add_argument("--seconds", type=float, default=600)
    parser.add_argument("--sample", type=float, default=30, help="seconds between RSS samples")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        report = run(args.clients, args.seconds, args.sample, Path(directory), progress=True)
    print("soak: " + ", ".join(f"{k} {v}" for k, v in report.items()))
    return 0 if report["errors"] == 0 and report["server_alive"] else 1


if __name__ == "__main__":
    sys.exit(main())
