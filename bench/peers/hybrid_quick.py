"""Times the cookbook's RECALL (Relate embedded) against the raw floor's hybrid on one kept database: a
quick A/B for work on the hybrid statement, without a whole bench/peers run.

    python bench/peers/hybrid_quick.py --n 30000 --seed 11 --dir /work/tmp/h30k --reps 200
    python bench/peers/hybrid_quick.py --dir /work/tmp/h30k --parts        # each list and the fusion too
    python bench/peers/hybrid_quick.py --dir /work/tmp/h30k --profile out.prof --reps 300

The first run loads the workload into DIR/relate-data (and builds the indexes); later runs reopen it.
The floor (FAISS + tantivy + a Python RRF and hop, systems/floor.py) is rebuilt in memory each run, its
HNSW graph read from DIR/floor.faiss once written. Calls alternate in blocks, as run.py does, and the
answers of both are checked to agree before anything is timed.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

from peers import ops as O  # noqa: E402
from peers import workload as W  # noqa: E402
from peers.systems.floor import HNSW_MIN_SIZE, FaissTantivyFloor  # noqa: E402
from peers.systems.relate_db import S, RelateSystem  # noqa: E402


def open_relate(wl: W.Workload, directory: str) -> RelateSystem:
    """Relate embedded on DIR/relate-data, loaded and indexed on first use."""
    system = RelateSystem()
    done = os.path.join(directory, "relate-loaded")
    fresh = not os.path.exists(done)
    if fresh and os.path.exists(os.path.join(directory, "relate-data")):
        raise SystemExit(f"{directory}/relate-data exists but was not fully loaded: remove it first")
    system.start(directory)
    if fresh:
        for step in ("load_nodes", "load_edges", "build_indexes"):
            t0 = time.perf_counter()
            getattr(system, step)(wl)
            print(f"relate {step}: {time.perf_counter() - t0:.1f} s", flush=True)
        open(done, "w").close()
    else:
        system.run("CALL db.awaitIndexes(3600)")
        system.hnsw = wl.n >= HNSW_MIN_SIZE
    return system


def open_floor(wl: W.Workload, directory: str) -> FaissTantivyFloor:
    """The floor, its FAISS index read from DIR/floor.faiss when an earlier run saved it."""
    import faiss
    floor = FaissTantivyFloor()
    floor.start(directory)
    floor.load_nodes(wl)
    floor.load_edges(wl)
    saved = os.path.join(directory, "floor.faiss")
    t0 = time.perf_counter()
    if os.path.exists(saved):
        faiss.omp_set_num_threads(1)
        floor.index = faiss.read_index(saved)
        if isinstance(floor.index, faiss.IndexHNSWFlat):
            floor.index.hnsw.efSearch = floor.levels()[0]["ef_search"]
    else:
        floor.build_vector_index(wl)
        faiss.write_index(floor.index, saved)
    floor.build_text_index(wl)
    print(f"floor indexes: {time.perf_counter() - t0:.1f} s", flush=True)
    return floor


def median_ms(times: list[float]) -> float:
    return statistics.median(times) * 1000


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=30_000)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--dir", default="/work/tmp/h30k")
    ap.add_argument("--reps", type=int, default=200)
    ap.add_argument("--blocks", type=int, default=5)
    ap.add_argument("--parts", action="store_true", help="also time the vector list, the full-text list and RRF")
    ap.add_argument("--profile", help="cProfile RECALL only (reps calls) into this .prof file; no floor")
    ap.add_argument("--cache", default=os.path.join(tempfile.gettempdir(), "relate-bench-peers"))
    args = ap.parse_args(argv)
    os.makedirs(args.dir, exist_ok=True)
    wl, _ = W.cached(args.n, args.seed, args.cache)
    relate = open_relate(wl, args.dir)
    op = O.OPS_BY_NAME["hybrid"]
    params = [O.params(wl, op, r) for r in range(len(wl.questions))]
    rel_params = [{"q": p["q"], "v": p["v"].tolist(), "k": p["k"], "since": p["since"]} for p in params]
    recall = relate.ops()["hybrid"]
    for p in params[:5]:
        recall(p)                                     # warm-up: plan cache, index readers
    if args.profile:
        import cProfile
        prof = cProfile.Profile()
        prof.enable()
        for r in range(args.reps):
            recall(params[r % len(params)])
        prof.disable()
        prof.dump_stats(args.profile)
        print(f"wrote {args.profile}")
        relate.close()
        return 0
    floor = open_floor(wl, args.dir)
    hybrid = floor.ops()["hybrid"]
    bad = [i for i, p in enumerate(params) if sorted(recall(p)) != sorted(hybrid(p))]
    print(f"answers: {len(params) - len(bad)} of {len(params)} questions agree" + (f"; differ: {bad[:10]}" if bad else ""))

    cells: dict[str, tuple] = {"relate RECALL": (recall, params), "floor hybrid": (hybrid, params)}
    if args.parts:
        for name, text in (("relate VECTOR_LIST", S.VECTOR_LIST), ("relate FULLTEXT_LIST", S.FULLTEXT_LIST),
                           ("relate RRF", S.RRF)):
            cells[name] = ((lambda p, t=text: relate.run(t, p)), rel_params)
        cells["floor vector"] = ((lambda p: floor._vector(p["v"], p["k"], p["since_ms"])), params)
        cells["floor full-text"] = ((lambda p: floor._fulltext(p["q"], p["k"] * 3)), params)
    times: dict[str, list[float]] = {name: [] for name in cells}
    per_block = max(1, args.reps // args.blocks)
    clock = time.perf_counter
    for b in range(args.blocks):
        for name, (fn, ps) in cells.items():
            out = times[name]
            for r in range(b * per_block, (b + 1) * per_block):
                p = ps[r % len(ps)]
                t0 = clock()
                fn(p)
                out.append(clock() - t0)
    load = os.getloadavg()[0]
    print(f"N={args.n} seed={args.seed} reps={per_block * args.blocks} load={load:.2f}")
    for name, ts in times.items():
        print(f"  {name:22s} median {median_ms(ts):7.3f} ms  p10 {sorted(ts)[len(ts) // 10] * 1000:7.3f} ms")
    ratio = median_ms(times["relate RECALL"]) / median_ms(times["floor hybrid"])
    print(f"  ratio RECALL / floor: {ratio:.2f}")
    relate.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
