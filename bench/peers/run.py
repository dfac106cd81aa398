"""Relate against FalkorDB, Kuzu and raw FAISS/tantivy/Whoosh floors on one seeded workload, interleaved in
one run; writes bench/results/peers-n{N}.md and .json.

    python bench/peers/run.py --quick            # N = 2,000, small budgets (make bench)
    python bench/peers/run.py --n 100000         # make bench-full
    python bench/peers/run.py --n 2000 --systems relate,floor --budget 1

Systems whose packages are missing are skipped (bench/peers/setup_env.sh installs them in bench/peers/.venv).
"""
from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))          # bench/ on the path: `peers` is a package

from peers import ops as O  # noqa: E402
from peers import report, systems  # noqa: E402
from peers import workload as W  # noqa: E402
from peers.checks import Checker, first_mismatch  # noqa: E402
from peers.harness import Plan, Worker, WorkerFailed, calibrate, measure  # noqa: E402
from peers.reference import Reference  # noqa: E402

RESULTS = os.path.join(os.path.dirname(HERE), "results")
LOAD_STEPS = ("load_nodes", "load_edges", "build_indexes")


def parse(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=2000, help="notes (default 2000)")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--quick", action="store_true", help="smaller time budget per cell (2 s)")
    ap.add_argument("--systems", default=",".join(systems.DEFAULT_ORDER),
                    help="comma-separated, from: " + ", ".join(systems.SYSTEMS))
    ap.add_argument("--ops", default=",".join(op.name for op in O.OPS), help="comma-separated operation names")
    ap.add_argument("--budget", type=float, help="timed seconds per (operation, system); default 2 (quick), "
                                                 "5, or 15 from N 50,000")
    ap.add_argument("--max-reps", type=int, default=200)
    ap.add_argument("--target-recall", type=float, default=0.95, help="similar-recall pass target (0 = skip it)")
    ap.add_argument("--calibration-questions", type=int, default=20)
    ap.add_argument("--out", default=RESULTS, help="results directory")
    ap.add_argument("--cache", default=os.path.join(tempfile.gettempdir(), "relate-bench-peers"),
                    help="where generated workloads are cached")
    ap.add_argument("--workdir", help="database directories (default: a temporary directory, removed)")
    args = ap.parse_args(argv)
    if args.budget is None:
        args.budget = 2.0 if args.quick else 15.0 if args.n >= 50_000 else 5.0
    return args


def log(text: str) -> None:
    print(text, flush=True)


def run(args) -> dict:
    """The whole benchmark; returns the results dict (also what the smoke test inspects)."""
    started = time.time()
    wanted = [s.strip() for s in args.systems.split(",") if s.strip()]
    unknown = [s for s in wanted if s not in systems.SYSTEMS]
    if unknown:
        raise SystemExit(f"unknown systems: {unknown}")
    op_list = [O.OPS_BY_NAME[o.strip()] for o in args.ops.split(",") if o.strip()]
    skipped = {s: "packages not installed (bench/peers/setup_env.sh)" for s in wanted if not systems.installed(s)}
    names = [s for s in wanted if s not in skipped]
    log(f"workload: N={args.n} seed={args.seed}; systems: {', '.join(names)}"
        + (f"; skipped: {', '.join(skipped)}" if skipped else ""))
    t0 = time.perf_counter()
    wl, stem = W.cached(args.n, args.seed, args.cache)
    checker = Checker(Reference(wl))
    log(f"workload ready in {time.perf_counter() - t0:.1f} s: {len(wl.about)} ABOUT, {len(wl.decided)} DECIDED")
    workdir = args.workdir or tempfile.mkdtemp(prefix="relate-bench-peers-")
    plan = Plan(budget_s=args.budget, max_reps=args.max_reps, log=log)
    workers = [Worker(name, os.path.join(workdir, name), stem) for name in names]
    res = {"n": args.n, "seed": args.seed, "started": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(started)),
           "machine": report.machine(), "budget_s": args.budget, "systems": [], "skipped": skipped,
           "load": {}, "defaults": {}, "tuned": {}, "rss_mib": {}, "disagreements": []}
    try:
        for w in workers:
            try:
                w.info.update(w.call("start"))
            except WorkerFailed as e:
                w.fail(str(e).strip().splitlines()[-1])
                skipped[w.name] = f"failed to start: {w.failed}"
        for step in LOAD_STEPS:
            for w in workers:
                if w.failed:
                    continue
                try:
                    value = w.call("phase", step)
                except WorkerFailed as e:
                    w.fail(f"{step}: " + str(e).strip().splitlines()[-1])
                    skipped[w.name] = w.failed
                    log(f"  {w.name} failed: {w.failed}")
                    continue
                if isinstance(value, dict):
                    w.info.update(ops=value["ops"], levels=value["levels"])
                    value = value["seconds"]
                res["load"].setdefault(w.name, {})[step] = value
                log(f"  {step:14s} {w.name:12s} {value:8.2f} s")
        live = [w for w in workers if not w.failed]
        res["systems"] = [{"name": w.name, "role": w.info["role"], "notes": w.info["notes"]} for w in live]
        log("operations at defaults:")
        res["defaults"] = _measure_all(live, op_list, plan, checker, res["disagreements"])
        vector_ops = [op for op in op_list if op.kind == "vector"]
        if args.target_recall > 0 and vector_ops:
            log(f"similar recall (target {args.target_recall}):")
            calibration = {}
            for w in live:
                try:
                    calibration[w.name] = calibrate(w, checker, args.target_recall, args.calibration_questions, log)
                    w.call("tuned")
                except WorkerFailed as e:
                    calibration[w.name] = {"error": str(e).strip().splitlines()[-1]}
            res["tuned"] = {"target": args.target_recall, "calibration": calibration,
                            "ops": _measure_all(live, vector_ops, plan, checker, None)}
        for w in live:
            try:
                res["rss_mib"][w.name] = w.call("rss") / 1024
            except WorkerFailed:
                pass
    finally:
        for w in workers:
            w.close()
        if not args.workdir:
            shutil.rmtree(workdir, ignore_errors=True)
    res["elapsed_s"] = time.time() - started
    return res


def _measure_all(workers, op_list, plan, checker, disagreements) -> dict:
    out = {}
    for op in op_list:
        cells = measure(workers, op, plan)
        row = {}
        for name, cell in cells.items():
            quality = checker.score(op, cell.results) if cell.results else None
            row[name] = {"stats": cell.stats(), "quality": quality}
            exact_op = op.kind in ("count", "lookup", "trivial")
            mismatch = exact_op and quality and quality["agree"] != 1.0 and first_mismatch(checker, op, cell.results)
            if disagreements is not None and mismatch:
                r, got, want = mismatch
                disagreements.append(f"{name} {op.name}: repetition {r} returned {got!r}, exact {want!r}")
        out[op.name] = row
    return out


def main(argv=None) -> int:
    args = parse(argv)
    res = run(args)
    json_path, md_path = report.write(res, args.out, f"peers-n{args.n}")
    log(f"wrote {md_path} and {json_path} in {res['elapsed_s'] / 60:.1f} min")
    print(report.markdown(res))
    return 0


if __name__ == "__main__":
    sys.exit(main())
