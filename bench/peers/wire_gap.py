"""The over-the-wire cost of the bench's vector statements: Relate embedded against relate-server on
127.0.0.1, same data, same statements (the cookbook's VECTOR_LIST with the ts filters keeping 100%, 30%
and 1%, at ef_search 'auto' and 32), blocks interleaved; prints medians, ratios and the wire's extra
time, then RETURN 1 and a point lookup (one round trip, the floor of the extra).

    bench/peers/.venv/bin/python bench/peers/wire_gap.py --n 30000 --reps 400 [--dir DIR]

The database is loaded once into DIR (default: a temporary directory) and copied for the server, so
both sides open equal directories; keep DIR to time again without loading. The embedded side runs in a
child process, so the driver here is its process's only thread (as in the bench's own workers): the
blocking driver polls for replies only then (client/driver/transport.py).
"""
from __future__ import annotations

import argparse
import multiprocessing
import os
import shutil
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from peers import ops as O  # noqa: E402
from peers import workload as W  # noqa: E402
from peers.systems.relate_db import SET_EF, RelateSystem, S  # noqa: E402

CASES = [("top-10", "vector"), ("30% filter", "vector_ts30"), ("1% filter", "vector_ts1")]
WARM = 10


def build(wl: W.Workload, directory: str) -> None:
    """Load the workload into DIR/embedded (the bench's own loader), indexes built and saved."""
    system = RelateSystem(wire=False)
    system.start(os.path.join(directory, "embedded"))
    started = time.perf_counter()
    system.load_nodes(wl)
    system.load_edges(wl)
    system.build_indexes(wl)
    system.close()
    print(f"loaded N = {wl.n} in {time.perf_counter() - started:.1f} s")


def timed(system: RelateSystem, query: str, params: list[dict], reps: int) -> list[float]:
    """Milliseconds per call, after WARM calls (parameters cycle through the questions)."""
    out = []
    for r in range(reps + WARM):
        started = time.perf_counter()
        system.run(query, params[r % len(params)])
        if r >= WARM:
            out.append((time.perf_counter() - started) * 1000)
    return out


def embedded_child(conn, directory: str) -> None:
    """The embedded side, in its own process: ('run', query, params) -> rows, ('time', query, params,
    reps) -> milliseconds per call, ('close',)."""
    system = RelateSystem(wire=False)
    system.start(directory)
    try:
        while True:
            command = conn.recv()
            if command[0] == "close":
                break
            if command[0] == "run":
                conn.send(system.run(command[1], command[2]))
            else:
                conn.send(timed(system, command[1], command[2], command[3]))
    finally:
        system.close()
        conn.close()


class EmbeddedProcess:
    """RelateSystem(wire=False) behind a pipe: ``run`` as the system's, ``timed`` runs in the child."""

    def __init__(self, directory: str):
        self._conn, child = multiprocessing.get_context("spawn").Pipe()
        self._process = multiprocessing.get_context("spawn").Process(target=embedded_child,
                                                                      args=(child, directory))
        self._process.start()

    def run(self, query: str, params: dict | None = None) -> list:
        self._conn.send(("run", query, params or {}))
        return self._conn.recv()

    def timed(self, query: str, params: list[dict], reps: int) -> list[float]:
        self._conn.send(("time", query, params, reps))
        return self._conn.recv()

    def close(self) -> None:
        self._conn.send(("close",))
        self._process.join(60)


def interleaved(systems: dict, query: str, params: list[dict], reps: int, blocks: int = 8) -> dict:
    """Each system's samples, taken in blocks that alternate the order (load hits both alike)."""
    samples: dict[str, list[float]] = {name: [] for name in systems}
    order = list(systems)
    for block in range(blocks):
        for name in (order if block % 2 == 0 else order[::-1]):
            system, n = systems[name], max(1, reps // blocks)
            samples[name] += (system.timed(query, params, n) if isinstance(system, EmbeddedProcess)
                              else timed(system, query, params, n))
    return {name: statistics.median(values) for name, values in samples.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=10_000)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--reps", type=int, default=400, help="timed calls per cell and system")
    ap.add_argument("--dir", help="database directory to load into (kept) or reuse")
    args = ap.parse_args()
    directory = args.dir or tempfile.mkdtemp(prefix="relate-wire-gap-")
    wl, _ = W.cached(args.n, args.seed, os.path.join(tempfile.gettempdir(), "relate-bench-peers"))
    if not os.path.exists(os.path.join(directory, "embedded", "relate-data")):
        os.makedirs(os.path.join(directory, "embedded"), exist_ok=True)
        build(wl, directory)
    shutil.rmtree(os.path.join(directory, "wire"), ignore_errors=True)      # a fresh copy: new password
    shutil.copytree(os.path.join(directory, "embedded"), os.path.join(directory, "wire"))
    wire = RelateSystem(wire=True)
    systems: dict = {"embedded": EmbeddedProcess(os.path.join(directory, "embedded")),
                     "wire": wire}
    try:
        wire.start(os.path.join(directory, "wire"))
        for system in systems.values():
            system.run("CALL db.awaitIndexes(600)")
        print(f"N = {args.n}, {args.reps} calls per cell, medians in ms")
        for ef in ("auto", 32):
            for system in systems.values():
                system.run(SET_EF, {"ef": ef})
            for label, op_name in CASES:
                op = O.OPS_BY_NAME[op_name]
                params = []
                for r in range(len(wl.questions)):
                    p = O.params(wl, op, r)
                    params.append({"v": p["v"].tolist(), "k": p["k"], "since": p["since"]})
                m = interleaved(systems, S.VECTOR_LIST, params, args.reps)
                print(f"ef {ef!s:>4}  {label:10}  embedded {m['embedded']:.3f}  wire {m['wire']:.3f}  "
                      f"ratio {m['wire'] / m['embedded']:.2f}  extra {1000 * (m['wire'] - m['embedded']):.0f} us")
        for label, query, params in (("RETURN 1", O.RETURN_1, [{}]),
                                     ("point lookup", O.POINT_LOOKUP, [{"id": wl.ids[i]} for i in wl.lookups])):
            m = interleaved(systems, query, params, args.reps)
            print(f"{label:16}  embedded {m['embedded']:.3f}  wire {m['wire']:.3f}  "
                  f"extra {1000 * (m['wire'] - m['embedded']):.0f} us")
    finally:
        for system in systems.values():
            system.close()
        if not args.dir:
            shutil.rmtree(directory, ignore_errors=True)


if __name__ == "__main__":
    main()
