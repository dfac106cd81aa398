"""Memory per entity in FalkorDB and Kuzu on bench/memory.py's data: N nodes ``:P {i, name}``, a range
index on ``P.i``, a chain of N - 1 ``NEXT`` relationships, one more integer property each; or
(``--vectors``) N notes ``{i, e}`` with a 384-d FLOAT32 embedding.

    bench/peers/.venv/bin/python -m bench.peers.memory --n 1000000 [--vectors] [--only falkordb|kuzu]

FalkorDB (in memory): redis ``INFO memory`` used_memory and the redis-server RSS, growth per step.
Kuzu is disk-based with a buffer pool: the process RSS growth per step (pages it touched) and the
database's size on disk after a checkpoint. Each system runs in a fresh process.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

BATCH = 100_000


def falkordb(workdir: str, n: int, vectors: bool) -> dict:
    from .systems.base import proc_status_kib
    from .systems.falkordb_db import FalkorSystem
    system = FalkorSystem()
    system.start(workdir)
    graph = system.graph

    def used() -> tuple[int, int]:
        return (int(system.db.connection.info("memory")["used_memory"]),
                proc_status_kib(system.server.pid, "VmRSS") * 1024)

    out: dict = {"system": "falkordb", "notes": system.notes}
    try:
        graph.query("CREATE (:Warm)")          # the graph's own structures exist before the baseline
        graph.query("MATCH (w:Warm) DELETE w")
        steps = [("base", used())]
        start = time.perf_counter()
        if vectors:
            import numpy as np
            rng = np.random.default_rng(1)
            for lo in range(0, n, 1000):
                rows = [{"i": i, "e": rng.standard_normal(384).astype(np.float32).tolist()}
                        for i in range(lo, min(n, lo + 1000))]
                graph.query("UNWIND $rows AS r CREATE (:Note {i: r.i, e: vecf32(r.e)})", {"rows": rows})
            steps.append(("note_with_vector", used()))
        else:
            for lo in range(0, n, BATCH):
                graph.query("UNWIND range($lo, $hi) AS i CREATE (:P {i: i, name: 'name' + toString(i)})",
                            {"lo": lo, "hi": min(n, lo + BATCH) - 1})
            steps.append(("node_2_props", used()))
            graph.query("CREATE INDEX FOR (p:P) ON (p.i)")
            system._await_indexes()
            steps.append(("range_index_entry", used()))
            for lo in range(0, n - 1, BATCH):
                graph.query("MATCH (a:P) WHERE a.i >= $lo AND a.i < $hi MATCH (b:P {i: a.i + 1}) "
                            "CREATE (a)-[:NEXT]->(b)", {"lo": lo, "hi": min(n - 1, lo + BATCH)})
            steps.append(("relationship", used()))
            for lo in range(0, n, BATCH):
                graph.query("MATCH (a:P) WHERE a.i >= $lo AND a.i < $hi SET a.extra = a.i * 2",
                            {"lo": lo, "hi": min(n, lo + BATCH)})
            steps.append(("extra_int_property", used()))
        out["load_s"] = round(time.perf_counter() - start, 1)
        for (_, (m0, r0)), (name, (m1, r1)) in zip(steps, steps[1:]):
            count = n - 1 if name == "relationship" else n
            out[f"used_memory_bytes_per_{name}"] = round((m1 - m0) / count)
            out[f"rss_bytes_per_{name}"] = round((r1 - r0) / count)
        out["used_memory_mib"] = round(steps[-1][1][0] / 2**20)
        out["server_rss_mib"] = round(steps[-1][1][1] / 2**20)
    finally:
        system.close()
    return out


def disk_bytes(path: str) -> int:
    if os.path.isfile(path):
        return os.path.getsize(path)
    return sum(os.path.getsize(os.path.join(d, f)) for d, _, files in os.walk(path) for f in files)


def kuzu(workdir: str, n: int, vectors: bool) -> dict:
    import kuzu as kz
    import numpy as np
    import pyarrow as pa

    from .systems.base import self_rss_kib
    path = os.path.join(workdir, "kuzu-db")
    db = kz.Database(path)
    conn = kz.Connection(db)
    out: dict = {"system": "kuzu", "notes": f"Kuzu {kz.__version__} embedded, on disk (buffer pool), COPY from pyarrow"}

    def used() -> int:
        return self_rss_kib() * 1024

    steps = [("base", used())]
    start = time.perf_counter()
    if vectors:
        conn.execute("CREATE NODE TABLE Note(i INT64 PRIMARY KEY, e FLOAT[384])")
        rng = np.random.default_rng(1)
        for lo in range(0, n, BATCH):
            count = min(n, lo + BATCH) - lo
            flat = np.concatenate([rng.standard_normal(384).astype(np.float32) for _ in range(count)])
            notes = pa.table({"i": pa.array(range(lo, lo + count), pa.int64()),  # noqa: F841 - COPY reads it
                              "e": pa.FixedSizeListArray.from_arrays(pa.array(flat, pa.float32()), 384)})
            conn.execute("COPY Note FROM notes")
        steps.append(("note_with_vector", used()))
    else:
        # Kuzu needs a primary key: i is one (so its hash index counts with the nodes, no separate index).
        conn.execute("CREATE NODE TABLE P(i INT64 PRIMARY KEY, name STRING)")
        conn.execute("CREATE REL TABLE NEXT(FROM P TO P)")
        nodes = pa.table({"i": pa.array(range(n), pa.int64()),  # noqa: F841
                          "name": pa.array([f"name{i}" for i in range(n)], pa.string())})
        conn.execute("COPY P FROM nodes")
        del nodes
        steps.append(("node_2_props_with_pk_index", used()))
        rels = pa.table({"from": pa.array(range(n - 1), pa.int64()),  # noqa: F841
                         "to": pa.array(range(1, n), pa.int64())})
        conn.execute("COPY NEXT FROM rels")
        del rels
        steps.append(("relationship", used()))
        conn.execute("ALTER TABLE P ADD extra INT64")
        for lo in range(0, n, BATCH):
            conn.execute("MATCH (a:P) WHERE a.i >= $lo AND a.i < $hi SET a.extra = a.i * 2",
                         {"lo": lo, "hi": min(n, lo + BATCH)})
        steps.append(("extra_int_property", used()))
    conn.execute("CHECKPOINT")
    out["load_s"] = round(time.perf_counter() - start, 1)
    for (_, r0), (name, r1) in zip(steps, steps[1:]):
        count = n - 1 if name == "relationship" else n
        out[f"rss_bytes_per_{name}"] = round((r1 - r0) / count)
    out["rss_growth_mib"] = round((steps[-1][1] - steps[0][1]) / 2**20)
    conn.close()
    db.close()
    size = disk_bytes(path)
    out["disk_mib"] = round(size / 2**20)
    out["disk_bytes_per_node"] = round(size / n)     # everything on disk over N (nodes + rels + props)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--vectors", action="store_true")
    ap.add_argument("--only", choices=["falkordb", "kuzu"])
    ap.add_argument("--step", choices=["falkordb", "kuzu"], help=argparse.SUPPRESS)
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="relate-peers-memory-")
    try:
        if args.step:
            result = (falkordb if args.step == "falkordb" else kuzu)(tmp, args.n, args.vectors)
            print(json.dumps(result))
            return 0
        report = {"n": args.n, "vectors": args.vectors, "systems": []}
        for system in [args.only] if args.only else ["falkordb", "kuzu"]:
            command = [sys.executable, "-m", "bench.peers.memory", "--step", system, "--n", str(args.n)]
            done = subprocess.run(command + (["--vectors"] if args.vectors else []), check=True,
                                  capture_output=True, text=True)
            report["systems"].append(json.loads(done.stdout.strip().splitlines()[-1]))
        print(json.dumps(report))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
