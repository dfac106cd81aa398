"""Sharded search benchmark: vector and hybrid search on 1, 2 and 4 Ray shards next to one in-process index.

    python bench/shards.py --n 20000            # generated vectors (and texts), local Ray
    python bench/shards.py --n 20000 --ray-address 127.0.0.1:6379

Each placement is fed the same generated rows (random unit vectors, `--dims`; texts of random words)
through the placement's own write path (numbered batches to every shard), then answers the same
queries. Reported per placement: build seconds, median / p95 latency of a vector top-10, a full-text
top-10 (BM25 with global statistics) and a hybrid search (both, fused by reciprocal rank as SEARCH
... COMBINE does), and resident memory of the coordinator and of each shard process. Results are
checked equal to the in-process index (exact search).
"""
from __future__ import annotations

import argparse
import os
import random
import statistics
import time

import numpy as np

from relate.server.index.providers import get_provider
from relate.server.index.fulltext import FullTextIndex
from relate.server.index.sharded import cluster
from relate.server.index.sharded.placement import sharded_index
from relate.server.index.sharded.shard import rss_bytes
from relate.server.index.vector import VectorIndex, VectorConfig

WORDS = [f"w{i}" for i in range(5000)]
CHUNK = 20_000
EXACT = 10**9          # rows from which HNSW would replace exact search: never, here (exact merges compare)


def rows(n: int, dims: int, seed: int = 1):
    rng = np.random.default_rng(seed)
    vectors = rng.standard_normal((n, dims)).astype(np.float32)
    words = random.Random(seed)
    texts = [" ".join(words.choice(WORDS) for _ in range(12)) for _ in range(n)]
    return vectors, texts


def rrf(*lists, k: int = 60, limit: int = 10):
    score: dict[int, float] = {}
    for hits in lists:
        for rank, (key, _) in enumerate(hits):
            score[key] = score.get(key, 0.0) + 1.0 / (k + rank + 1)
    return sorted(score.items(), key=lambda kv: (-kv[1], kv[0]))[:limit]


def timed(fn, queries) -> tuple[list, float, float]:
    out, times = [], []
    for q in queries:
        start = time.perf_counter()
        out.append(fn(q))
        times.append((time.perf_counter() - start) * 1000)
    times.sort()
    return out, statistics.median(times), times[int(0.95 * (len(times) - 1))]


def build_local(vectors, texts, dims):
    started = time.perf_counter()
    vec = VectorIndex(VectorConfig(dims, "cosine", hnsw_min_size=EXACT), [])
    text = FullTextIndex(["text"], "standard-no-stop-words", "tantivy", None)
    for start in range(0, len(vectors), CHUNK):
        vec.upsert_many([(i, vectors[i], {}) for i in range(start, min(start + CHUNK, len(vectors)))])
        vec.sync(1)
        text.apply({i: text.analyze({"text": texts[i]}) for i in range(start, min(start + CHUNK, len(texts)))})
        text.flush_engine()
    return vec, text, time.perf_counter() - started


def build_sharded(vectors, texts, dims, shards: int):
    started = time.perf_counter()
    where = {"shards": shards, "replicas": 1}
    vdef = get_provider("VECTOR").definition(f"bench_v{shards}", "node", ["Doc"], ["e"], [],
                                             {"indexConfig": {"vector.dimensions": dims,
                                                              "vector.hnsw.min_size": EXACT}}, {})
    tdef = get_provider("FULLTEXT").definition(f"bench_t{shards}", "node", ["Doc"], ["text"], [], None,
                                               {"fulltext_engine": "tantivy"})
    vdef.config.update(where)
    tdef.config.update(where)
    vec, text = sharded_index(vdef, None, True), sharded_index(tdef, None, True)
    for ts, start in enumerate(range(0, len(vectors), CHUNK), 1):
        end = min(start + CHUNK, len(vectors))
        vec.upsert_many([(i, vectors[i], {}) for i in range(start, end)])
        text.apply({i: text.analyze({"text": texts[i]}) for i in range(start, end)})
        vec.committed(ts)
        text.committed(ts)
    return vec, text, time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=20_000)
    parser.add_argument("--dims", type=int, default=384)
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--shards", default="1,2,4")
    parser.add_argument("--ray-address")
    args = parser.parse_args()
    cluster.configure(args.ray_address)
    vectors, texts = rows(args.n, args.dims)
    rng = np.random.default_rng(2)
    vqueries = list(rng.standard_normal((args.queries, args.dims)).astype(np.float32))
    tqueries = [" ".join(random.Random(i).choice(WORDS) for _ in range(3)) for i in range(args.queries)]
    print(f"N = {args.n:,} vectors of {args.dims} floats (exact search), {args.queries} queries, "
          f"{os.cpu_count()} CPUs")
    base_rss = rss_bytes()
    vec, text, seconds = build_local(vectors, texts, args.dims)
    local_v, vm, vp = timed(lambda q: vec.search(q, 10), vqueries)
    local_t, tm, tp = timed(lambda q: text.search(q, 0, 10), tqueries)
    _, hm, hp = timed(lambda i: rrf(vec.search(vqueries[i], 10), text.search(tqueries[i], 0, 10)),
                      range(args.queries))
    print("| placement | build s | vector p50 / p95 ms | full-text p50 / p95 ms | hybrid p50 / p95 ms | "
          "memory per process MiB |")
    print("|---|---|---|---|---|---|")
    print(f"| in-process | {seconds:.1f} | {vm:.2f} / {vp:.2f} | {tm:.2f} / {tp:.2f} | {hm:.2f} / {hp:.2f} | "
          f"{(rss_bytes() - base_rss) / 2**20:.0f} (index growth of the server) |")
    vec = text = None    # free the in-process indexes before the shards start
    cluster.ray_module()
    for shards in [int(s) for s in args.shards.split(",")]:
        svec, stext, seconds = build_sharded(vectors, texts, args.dims, shards)
        got_v, vm, vp = timed(lambda q: svec.search(q, 10), vqueries)
        got_t, tm, tp = timed(lambda q: stext.search(q, 0, 10), tqueries)
        _, hm, hp = timed(lambda i: rrf(svec.search(vqueries[i], 10), stext.search(tqueries[i], 0, 10)),
                          range(args.queries))
        same_v = all([k for k, _ in a] == [k for k, _ in b] for a, b in zip(got_v, local_v))
        same_t = all([(k, round(s, 6)) for k, s in a] == [(k, round(s, 6)) for k, s in b]
                     for a, b in zip(got_t, local_t))
        mem = [info["rss"] / 2**20 for info in svec._sizes()] + [info["rss"] / 2**20 for info in stext._sizes()]
        print(f"| {shards} shard(s) | {seconds:.1f} | {vm:.2f} / {vp:.2f} | {tm:.2f} / {tp:.2f} | "
              f"{hm:.2f} / {hp:.2f} | vector shards {', '.join(f'{m:.0f}' for m in mem[:shards])}; "
              f"text shards {', '.join(f'{m:.0f}' for m in mem[shards:])} |"
              f"{'' if same_v and same_t else ' MISMATCH'}")
        svec.destroy()
        stext.destroy()


if __name__ == "__main__":
    main()
