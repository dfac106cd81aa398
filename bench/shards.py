"""Sharded search benchmark: vector and hybrid search on 1, 2 and 4 Ray shards next to one in-process index.

    python bench/shards.py --n 100000                      # exact search, placements local,1,2,4
    python bench/shards.py --n 100000 --hnsw               # HNSW (FAISS) in every placement
    python bench/shards.py --n 1000000 --out bench/results/shards-n1000000

Rows are generated: `--n` random 384-float vectors (float32, one numpy block) and texts of 12 words out
of 5,000. Every placement runs in its own child process (its memory is freed before the next starts;
sharded ones start their own local Ray on 127.0.0.1). The in-process index is fed through its own
write path; a sharded one through the placement's (`ShardedVector.upsert_block`: one vectorised hash,
each shard's part one numpy array through Ray's object store; texts analysed by the coordinator),
in numbered batches of `--chunk` rows that the shards apply in parallel.

Per placement: build seconds; median / p95 ms of a vector top-10, a full-text top-10 (BM25 with
global statistics) and a hybrid search (both, fused by reciprocal rank as SEARCH ... COMBINE does);
vector queries per second from 4 client threads at once; recall@10 of the vector answers against a
numpy brute force; whether the full-text answers equal the in-process index's (ids, scores to 6
decimals); resident memory of the coordinator and of each shard process; and per shard: the time of
one shard's search called alone, the merge time and the bytes a query moves.
"""
from __future__ import annotations

import argparse
import json
import os
import pickle
import statistics
import subprocess
import sys
import threading
import time

import numpy as np

VOCABULARY = 5000
WORDS_PER_TEXT = 12
TOP = 10


# ---- data -------------------------------------------------------------------------------------
def vectors_of(n: int, dims: int, seed: int = 1) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal((n, dims), dtype=np.float32)


def texts_of(n: int, seed: int = 1) -> list[str]:
    words = np.random.default_rng(seed + 1).integers(0, VOCABULARY, (n, WORDS_PER_TEXT))
    return [" ".join(f"w{w}" for w in row) for row in words.tolist()]


def queries_of(count: int, dims: int) -> tuple[np.ndarray, list[str]]:
    rng = np.random.default_rng(2)
    vq = rng.standard_normal((count, dims), dtype=np.float32)
    tq = [" ".join(f"w{w}" for w in row) for row in rng.integers(0, VOCABULARY, (count, 3)).tolist()]
    return vq, tq


def exact_top(vectors: np.ndarray, queries: np.ndarray, k: int = TOP, block: int = 100_000) -> list[set[int]]:
    """Brute-force cosine top k per query (ids = row numbers), in blocks of rows."""
    q = queries / np.linalg.norm(queries, axis=1, keepdims=True)
    best_s = np.full((len(q), 0), -np.inf, dtype=np.float32)
    best_i = np.zeros((len(q), 0), dtype=np.int64)
    for start in range(0, len(vectors), block):
        part = vectors[start:start + block]
        scores = (q @ part.T) / np.linalg.norm(part, axis=1)[None, :]
        s = np.concatenate([best_s, scores], axis=1)
        i = np.concatenate([best_i, np.broadcast_to(np.arange(start, start + len(part)), scores.shape)], axis=1)
        keep = np.argsort(-s, axis=1)[:, :k]
        best_s, best_i = np.take_along_axis(s, keep, 1), np.take_along_axis(i, keep, 1)
    return [set(row.tolist()) for row in best_i]


def rrf(*lists, k: int = 60, limit: int = TOP):
    score: dict[int, float] = {}
    for hits in lists:
        for rank, (key, _) in enumerate(hits):
            score[key] = score.get(key, 0.0) + 1.0 / (k + rank + 1)
    return sorted(score.items(), key=lambda kv: (-kv[1], kv[0]))[:limit]


def timed(fn, items) -> tuple[list, float, float]:
    out, times = [], []
    for item in items:
        start = time.perf_counter()
        out.append(fn(item))
        times.append((time.perf_counter() - start) * 1000)
    times.sort()
    return out, statistics.median(times), times[int(0.95 * (len(times) - 1))]


def concurrent_qps(fn, items, threads: int = 4) -> float:
    """Queries per second with ``threads`` clients searching at once."""
    items = list(items)
    share = [items[i::threads] for i in range(threads)]
    workers = [threading.Thread(target=lambda part: [fn(x) for x in part], args=(part,)) for part in share]
    start = time.perf_counter()
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    return len(items) / (time.perf_counter() - start)


def rss_mib() -> float:
    from relate.server.index.sharded.shard import rss_bytes
    return (rss_bytes() or 0) / 2**20


# ---- one placement (child process) --------------------------------------------------------------
def vector_config(args):
    from relate.server.index.vector import VectorConfig
    # exact: HNSW never replaces the flat index; hnsw: from the first rows on (efSearch calibrated)
    return VectorConfig(args.dims, "cosine", hnsw_min_size=1 if args.hnsw else 10**12)


def build_local(args, vectors, texts):
    from relate.server.index.fulltext import FullTextIndex
    from relate.server.index.vector import VectorIndex
    vec = VectorIndex(vector_config(args), [])
    text = FullTextIndex(["text"], "standard-no-stop-words", "tantivy", None)
    started = time.perf_counter()
    for start in range(0, len(vectors), args.chunk):
        end = min(start + args.chunk, len(vectors))
        for part in range(start, end, 25_000):      # the engine's own path, in bounded pieces
            vec.upsert_many([(i, vectors[i], {}) for i in range(part, min(part + 25_000, end))])
        vec.sync(1)
        text.apply({i: text.analyze({"text": texts[i]}) for i in range(start, end)})
        text.flush_engine()
    return vec, text, time.perf_counter() - started


def build_sharded(args, shards: int, vectors, texts):
    from relate.server.index.providers import get_provider
    from relate.server.index.sharded.placement import sharded_index
    where = {"shards": shards, "replicas": 1}
    min_size = 1 if args.hnsw else 10**12
    vdef = get_provider("VECTOR").definition(f"bench_v{shards}", "node", ["Doc"], ["e"], [],
                                             {"indexConfig": {"vector.dimensions": args.dims,
                                                              "vector.hnsw.min_size": min_size}}, {})
    tdef = get_provider("FULLTEXT").definition(f"bench_t{shards}", "node", ["Doc"], ["text"], [], None,
                                               {"fulltext_engine": "tantivy"})
    vdef.config.update(where)
    tdef.config.update(where)
    vec, text = sharded_index(vdef, None, True), sharded_index(tdef, None, True)
    started = time.perf_counter()
    for ts, start in enumerate(range(0, len(vectors), args.chunk), 1):
        end = min(start + args.chunk, len(vectors))
        vec.upsert_block(np.arange(start, end), vectors[start:end])
        vec.committed(ts)                  # every shard applies its part at once
        text.apply({i: text.analyze({"text": texts[i]}) for i in range(start, end)})
        text.committed(ts)
    seconds = time.perf_counter() - started
    for placement in (vec, text):          # no store here, so no checkpoint: drop the replay log as one would
        for shard in placement.shards:
            shard.log.clear()
    return vec, text, seconds


def per_shard_costs(vec, vq) -> dict:
    """One shard's search alone (round trip through Ray), the coordinator's merge, bytes per query."""
    import heapq
    ray = vec.ray
    options = vec.options()
    alone, merge, sent, back = [], [], 0, 0
    for q in vq[:20]:
        args = (q, TOP, [], None, options)
        parts = []
        for shard in vec.shards:
            start = time.perf_counter()
            parts.append(ray.get(shard.replicas[0].handle.search_vector_at.remote(*args)))
            alone.append((time.perf_counter() - start) * 1000)
        start = time.perf_counter()
        heapq.nsmallest(TOP, (hit for _, part in parts for hit in part), key=lambda h: (-h[1], h[0]))
        merge.append((time.perf_counter() - start) * 1000)
        sent += len(vec.shards) * len(pickle.dumps(args))
        back += sum(len(pickle.dumps(part)) for part in parts)
    count = min(20, len(vq))
    return {"shard_search_ms": statistics.median(alone), "merge_ms": statistics.median(merge),
            "bytes_per_query_out": sent // count, "bytes_per_query_back": back // count}


def run_one(args) -> dict:
    placement = args.only
    base = rss_mib()
    vectors, texts = vectors_of(args.n, args.dims), texts_of(args.n)
    vq, tq = queries_of(args.queries, args.dims)
    truth = exact_top(vectors, vq)
    data_mib = rss_mib() - base
    result = {"placement": placement, "n": args.n, "dims": args.dims, "queries": args.queries,
              "index": "hnsw" if args.hnsw else "exact", "cpus": os.cpu_count(),
              "load_average_1m_at_start": os.getloadavg()[0]}
    if placement == "local":
        before = rss_mib()
        vec, text, seconds = build_local(args, vectors, texts)
        grown = rss_mib() - before
        vsearch = lambda q: vec.search(q, TOP)
        tsearch = lambda q: text.search(q, 0, TOP)
        memory = {"coordinator_mib": rss_mib(), "index_growth_mib": grown, "generated_data_mib": data_mib}
        shards_rss, costs = [], {}
    else:
        from relate.server.index.sharded import cluster
        cluster.configure(None)
        cluster.ray_module()
        before = rss_mib()
        vec, text, seconds = build_sharded(args, int(placement), vectors, texts)
        vsearch = lambda q: vec.search(q, TOP)
        tsearch = lambda q: text.search(q, 0, TOP)
        vinfo, tinfo = vec._sizes(), text._sizes()
        shards_rss = {"vector": [i["rss"] / 2**20 for i in vinfo], "text": [i["rss"] / 2**20 for i in tinfo],
                      "vector_rows": [i["size"] for i in vinfo]}
        memory = {"coordinator_mib": rss_mib(), "coordinator_growth_mib": rss_mib() - before,
                  "generated_data_mib": data_mib}
        costs = per_shard_costs(vec, vq)
    got_v, vm, vp = timed(vsearch, vq)
    got_t, tm, tp = timed(tsearch, tq)
    _, hm, hp = timed(lambda i: rrf(vsearch(vq[i]), tsearch(tq[i])), range(len(vq)))
    qps = concurrent_qps(vsearch, vq)
    recall = float(np.mean([len(truth[i] & {k for k, _ in hits}) / TOP for i, hits in enumerate(got_v)]))
    result.update({"build_s": seconds, "vector_ms": [vm, vp], "text_ms": [tm, tp], "hybrid_ms": [hm, hp],
                   "vector_qps_4_threads": qps, "recall_at_10": recall, "memory": memory,
                   "shards_mib": shards_rss, "per_shard": costs,
                   "text_answers": [[(k, round(s, 6)) for k, s in hits] for hits in got_t]})
    if placement != "local":
        vec.destroy()
        text.destroy()
    return result


# ---- the report ---------------------------------------------------------------------------------
def report(results: list[dict]) -> str:
    local = next((r for r in results if r["placement"] == "local"), None)
    first = results[0]
    lines = [f"N = {first['n']:,} vectors of {first['dims']} floats ({first['index']} search), "
             f"{first['queries']} queries, {first['cpus']} CPUs", "",
             "| placement (1-min load average at its start) | build s | vector p50 / p95 ms | full-text p50 / p95 ms | hybrid p50 / p95 ms | "
             "vector q/s, 4 threads | recall@10 | BM25 = in-process | memory per process MiB |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in results:
        same = "-" if local is None or r is local else ("yes" if r["text_answers"] == local["text_answers"] else "NO")
        m = r["memory"]
        if r["placement"] == "local":
            mem = f"{m['coordinator_mib']:.0f} (index {m['index_growth_mib']:.0f} + data {m['generated_data_mib']:.0f})"
            name = "in-process"
        else:
            s = r["shards_mib"]
            mem = (f"coordinator {m['coordinator_mib']:.0f} (data {m['generated_data_mib']:.0f}); vector shards "
                   f"{', '.join(f'{x:.0f}' for x in s['vector'])}; text shards {', '.join(f'{x:.0f}' for x in s['text'])}")
            name = f"{r['placement']} shard{'s' if r['placement'] != '1' else ''}"
        name += f" (load {r['load_average_1m_at_start']:.1f})"
        lines.append(f"| {name} | {r['build_s']:.1f} | {r['vector_ms'][0]:.2f} / {r['vector_ms'][1]:.2f} | "
                     f"{r['text_ms'][0]:.2f} / {r['text_ms'][1]:.2f} | {r['hybrid_ms'][0]:.2f} / {r['hybrid_ms'][1]:.2f} | "
                     f"{r['vector_qps_4_threads']:.1f} | {r['recall_at_10']:.3f} | {same} | {mem} |")
    sharded = [r for r in results if r["placement"] != "local"]
    if sharded:
        lines += ["", "| placement | one shard's vector search alone ms | merge ms | bytes out / back per query |",
                  "|---|---|---|---|"]
        for r in sharded:
            c = r["per_shard"]
            lines.append(f"| {r['placement']} | {c['shard_search_ms']:.2f} | {c['merge_ms']:.3f} | "
                         f"{c['bytes_per_query_out']:,} / {c['bytes_per_query_back']:,} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=20_000)
    parser.add_argument("--dims", type=int, default=384)
    parser.add_argument("--queries", type=int, default=50)
    parser.add_argument("--chunk", type=int, default=50_000)
    parser.add_argument("--placements", default="local,1,2,4")
    parser.add_argument("--hnsw", action="store_true", help="HNSW instead of exact search")
    parser.add_argument("--out", help="write OUT.md and OUT.json")
    parser.add_argument("--only", help=argparse.SUPPRESS)       # one placement, in a child process
    parser.add_argument("--result", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.only:
        with open(args.result, "w") as fh:
            json.dump(run_one(args), fh)
        return
    results = []
    for placement in args.placements.split(","):
        path = f"/tmp/bench-shards-{os.getpid()}-{placement}.json"
        command = [sys.executable, __file__, "--only", placement, "--result", path, "--n", str(args.n),
                   "--dims", str(args.dims), "--queries", str(args.queries), "--chunk", str(args.chunk)]
        started = time.perf_counter()
        subprocess.run(command + (["--hnsw"] if args.hnsw else []), check=True)
        with open(path) as fh:
            results.append(json.load(fh))
        os.remove(path)
        print(f"{placement}: done in {time.perf_counter() - started:.0f} s", file=sys.stderr, flush=True)
        print(report(results[-1:]), file=sys.stderr, flush=True)
    text = report(results)
    print(text)
    if args.out:
        with open(args.out + ".md", "w") as fh:
            fh.write(text)
        with open(args.out + ".json", "w") as fh:
            json.dump([{k: v for k, v in r.items() if k != "text_answers"} for r in results], fh, indent=1)


if __name__ == "__main__":
    main()
