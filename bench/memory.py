"""Memory per entity: RSS growth for N small nodes ``{i, name}``, then N relationships, then one more
property each, and (``--vectors``) notes with 384-d embeddings; then the reopen time and its peak RSS.

    python bench/memory.py --n 1000000            # small nodes
    python bench/memory.py --n 100000 --vectors   # notes with embeddings
    python bench/memory.py --n 10000000 --nodes-only   # small nodes only (no index, relationships)
Each measurement runs in a fresh process (RSS of one process only grows back slowly after frees).
"""
from __future__ import annotations

import argparse
import gc
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time


def rss() -> int:
    gc.collect()
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def build(path: str, n: int, vectors: bool, nodes_only: bool = False) -> dict:
    import relate
    out = {}
    db = relate.connect(path)
    db.execute("RETURN 1").consume()
    base = rss()
    batch = 100_000
    if vectors:
        import numpy as np
        rng = np.random.default_rng(1)
        start = time.perf_counter()
        for lo in range(0, n, batch):
            rows = [{"i": i, "e": rng.standard_normal(384).astype(np.float32)} for i in range(lo, min(n, lo + batch))]
            db.execute("UNWIND $rows AS r CREATE (:Note {i: r.i, e: r.e})", {"rows": rows}).consume()
        out["load_s"] = round(time.perf_counter() - start, 1)
        out["bytes_per_note_with_vector"] = round((rss() - base) / n)
    else:
        start = time.perf_counter()
        for lo in range(0, n, batch):
            db.execute("UNWIND range($lo, $hi) AS i CREATE (:P {i: i, name: 'name' + i})",
                       {"lo": lo, "hi": min(n, lo + batch) - 1}).consume()
        out["load_s"] = round(time.perf_counter() - start, 1)
        after_nodes = rss()
        out["bytes_per_node_2_props"] = round((after_nodes - base) / n)
        if nodes_only:
            out["rss_mib"] = round(rss() / 2**20)
            db.close()
            return out
        # The range index on p.i (the relationship step's lookups need it) is measured on its own.
        db.execute("CREATE INDEX p_i IF NOT EXISTS FOR (p:P) ON (p.i)").consume()
        after_index = rss()
        out["bytes_per_range_index_entry"] = round((after_index - after_nodes) / n)
        for lo in range(0, n - 1, batch):
            db.execute("MATCH (a:P) WHERE $lo <= a.i < $hi MATCH (b:P {i: a.i + 1}) CREATE (a)-[:NEXT]->(b)",
                       {"lo": lo, "hi": min(n - 1, lo + batch)}).consume()
        after_rels = rss()
        out["bytes_per_relationship"] = round((after_rels - after_index) / (n - 1))
        for lo in range(0, n, batch):
            db.execute("MATCH (a:P) WHERE $lo <= a.i < $hi SET a.extra = a.i * 2",
                       {"lo": lo, "hi": min(n, lo + batch)}).consume()
        out["bytes_per_extra_int_property"] = round((rss() - after_rels) / n)
    out["rss_mib"] = round(rss() / 2**20)
    db.close()
    return out


def reopen(path: str, n: int, vectors: bool, nodes_only: bool = False) -> dict:
    """Open the database in a fresh process: time, peak RSS, and the steady RSS the graph adds
    (after the load's temporaries are gone: the figure to size memory by)."""
    import relate
    import relate.server.engine  # noqa: F401 - loaded before the baseline is taken
    with relate.connect(":memory:") as empty:
        empty.execute("RETURN 1").consume()
    base = rss()
    start = time.perf_counter()
    db = relate.connect(path, read_only=True)
    seconds = time.perf_counter() - start
    graph = rss() - base
    db.close()
    out = {"reopen_s": round(seconds, 2),
           "reopen_peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
           "open_graph_mib": round(graph / 2**20)}
    if vectors:
        out["open_bytes_per_note_with_vector"] = round(graph / n)
    elif nodes_only:
        out["open_bytes_per_node_2_props"] = round(graph / n)
    else:
        out["open_bytes_per_node_rel_3_props"] = round(graph / n)   # n nodes {i, name, extra} + n-1 rels
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--vectors", action="store_true")
    ap.add_argument("--nodes-only", action="store_true", help="only the small nodes (for very large N)")
    ap.add_argument("--step", choices=["build", "reopen"], help=argparse.SUPPRESS)
    ap.add_argument("--path", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.step:
        result = (build if args.step == "build" else reopen)(args.path, args.n, args.vectors, args.nodes_only)
        print(json.dumps(result))
        return 0
    tmp = tempfile.mkdtemp(prefix="relate-memory-")
    try:
        path = os.path.join(tmp, "db")
        report = {"n": args.n, "vectors": args.vectors, "nodes_only": args.nodes_only}
        for step in ("build", "reopen"):
            command = [sys.executable, __file__, "--step", step, "--path", path, "--n", str(args.n)]
            flags = (["--vectors"] if args.vectors else []) + (["--nodes-only"] if args.nodes_only else [])
            done = subprocess.run(command + flags, check=True,
                                  capture_output=True, text=True)
            report.update(json.loads(done.stdout.strip().splitlines()[-1]))
        print(json.dumps(report))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
