"""Storage throughput numbers (not a test): python tests/integration/storage_bench.py [N]

Loads N nodes with a 384-d FLOAT32 vector in 1000-node transactions (WAL, fsync per commit),
N plain nodes and N relationships in one transaction each, then times reads, a checkpoint and a
reopen, and prints the resident memory.
"""
import os
import shutil
import sys
import tempfile
import time

import numpy as np

from relate.server.storage import GraphStore
from relate.values import Vector


def rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 1e6


def timed(label: str, count: int, fn) -> None:
    start = time.perf_counter()
    fn()
    elapsed = time.perf_counter() - start
    print(f"{label:<48} {elapsed:7.2f}s  {count / elapsed:>10,.0f}/s")


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    directory = tempfile.mkdtemp(prefix="relate-bench-")
    try:
        base = rss_mb()
        store = GraphStore.open(directory, sync=True, checkpoint_every=10**9, checkpoint_bytes=1 << 40)
        vectors = np.random.default_rng(0).standard_normal((n, 384)).astype(np.float32)

        def load_vectors():
            for batch in range(0, n, 1000):
                tx = store.begin_write()
                for i in range(batch, min(batch + 1000, n)):
                    tx.create_node(["Doc"], {"id": i, "title": f"doc {i}", "score": i * 0.5,
                                             "embedding": Vector(vectors[i])})
                tx.commit()
        timed("vector nodes, 1000-node txs, fsync", n, load_vectors)
        print(f"{'resident memory after vector load':<48} {rss_mb() - base:7.0f} MB")
        vectors = None          # frees the array (the closure above still refers to the name)

        def big_nodes():
            tx = store.begin_write()
            for i in range(n):
                tx.create_node(["P"], {"id": i, "name": "x"})
            tx.commit()
        timed("create_node, one transaction", n, big_nodes)

        def big_rels():
            tx = store.begin_write()
            for i in range(n):
                tx.create_rel("R", n + i, n + (i * 7) % n, {"w": i})
            tx.commit()
        timed("create_rel, one transaction", n, big_rels)

        def small_commits():
            for i in range(2000):
                tx = store.begin_write()
                tx.set_node_prop(n + i, "name", "y")
                tx.commit()
        timed("single-property commits, fsync each", 2000, small_commits)

        rd = store.begin_read()
        node_prop = rd.node_prop
        timed("node_prop", n, lambda: [node_prop(n + i, "id") for i in range(n)])
        timed("expand out (1 rel each)", n, lambda: [list(rd.expand(n + i, "out")) for i in range(n)])
        timed("label scan", n, lambda: sum(1 for _ in rd.nodes_by_label("P")))
        rd.close()
        timed("checkpoint", 3 * n, store.checkpoint)
        store.close()
        timed("reopen from snapshot", 3 * n, lambda: GraphStore.open(directory).close())
    finally:
        shutil.rmtree(directory, ignore_errors=True)


if __name__ == "__main__":
    main()
