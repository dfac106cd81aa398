"""Profiles Relate embedded on one benchmark operation (or load step) with pyinstrument, on the same
workload and statements as run.py; writes the call tree as text under bench/results/profiles/.

    python bench/peers/profile_relate.py --n 100000 --ops fulltext,hybrid --reps 100
    python bench/peers/profile_relate.py --n 20000 --ops load_nodes,load_edges
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

from peers import ops as O  # noqa: E402
from peers import workload as W  # noqa: E402
from peers.run import LOAD_STEPS, RESULTS  # noqa: E402
from peers.systems.relate_db import RelateSystem  # noqa: E402


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--ops", required=True, help="comma-separated operation names and/or load steps: "
                                                 + ", ".join(LOAD_STEPS))
    ap.add_argument("--reps", type=int, default=100)
    ap.add_argument("--wire", action="store_true", help="profile the driver side of Relate over the wire")
    ap.add_argument("--interval", type=float, default=0.0005, help="sampling interval, seconds")
    ap.add_argument("--cache", default=os.path.join(tempfile.gettempdir(), "relate-bench-peers"))
    ap.add_argument("--out", default=os.path.join(RESULTS, "profiles"))
    args = ap.parse_args(argv)
    from pyinstrument import Profiler    # bench-only: bench/peers/requirements.txt

    wl, _ = W.cached(args.n, args.seed, args.cache)
    wanted = [o.strip() for o in args.ops.split(",") if o.strip()]
    profiles = {}
    with tempfile.TemporaryDirectory(prefix="relate-profile-") as workdir:
        system = RelateSystem(wire=args.wire)
        system.start(workdir)
        try:
            searches = any(O.OPS_BY_NAME[n].kind in ("vector", "fulltext", "hybrid") for n in wanted if n in O.OPS_BY_NAME)
            for step in LOAD_STEPS:
                if step == "build_indexes" and not (searches or step in wanted):
                    continue                    # counts and lookups need no search index: skip the build
                profiler = Profiler(interval=args.interval)
                if step in wanted:
                    profiler.start()
                t0 = time.perf_counter()
                getattr(system, step)(wl)
                if step in wanted:
                    profiler.stop()
                    profiles[step] = profiler
                print(f"{step}: {time.perf_counter() - t0:.2f} s", flush=True)
            fns = system.ops()
            for name in wanted:
                if name in LOAD_STEPS:
                    continue
                op, fn = O.OPS_BY_NAME[name], fns[name]
                # The global 2-hop count walks every DECIDED pair: a few calls are enough samples.
                reps = max(1, args.reps // 20) if name == "two_hop_global" else args.reps
                for r in range(min(5, reps)):       # warm-up: plan cache, index readers
                    fn(O.params(wl, op, r))
                profiler = Profiler(interval=args.interval)
                profiler.start()
                t0 = time.perf_counter()
                for r in range(reps):
                    fn(O.params(wl, op, r))
                profiler.stop()
                profiles[name] = profiler
                print(f"{name}: {(time.perf_counter() - t0) / reps * 1000:.3f} ms per call ({reps} calls)", flush=True)
        finally:
            system.close()
    os.makedirs(args.out, exist_ok=True)
    for name, profiler in profiles.items():
        stem = os.path.join(args.out, f"{name}-n{args.n}" + ("-wire" if args.wire else ""))
        with open(stem + ".txt", "w") as f:
            f.write(profiler.output_text(unicode=True, color=False, show_all=False))
        print(f"wrote {stem}.txt")
    return 0


if __name__ == "__main__":
    sys.exit(main())
