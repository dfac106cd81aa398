"""`make tck`: run every TCK scenario, print pass/fail/error per folder, write a JSON report.

    python -m tests.tck.run [--features DIR] [--report FILE] [--update-ratchet] [-k TEXT] [--jobs N]
"""
from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import signal
import sys
from collections import defaultdict
from pathlib import Path

from .runner import HERE, Outcome, default_features_dir, load_list, load_scenarios, run_scenario

PASSING = HERE / "passing.txt"
EXCLUDED = HERE / "excluded.txt"
SCENARIO_TIMEOUT_S = 20


class _Timeout(Exception):
    pass


def _alarm(signum, frame):
    raise _Timeout()


def _run_one(args) -> Outcome:
    scenario, graphs_dir = args
    signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, SCENARIO_TIMEOUT_S)
    try:
        return run_scenario(scenario, graphs_dir)
    except _Timeout:
        return Outcome(scenario.id, scenario.folder, "error", f"timed out after {SCENARIO_TIMEOUT_S}s")
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


def run_all(features: Path, *, jobs: int = 2, contains: str | None = None, ids: set[str] | None = None):
    """Run the selected scenarios; returns outcomes in file order (excluded ones marked so)."""
    graphs = features.parent / "graphs"
    graphs_dir = graphs if graphs.is_dir() else None
    excluded = load_list(EXCLUDED)
    work, outcomes = [], []
    for sc in load_scenarios(features):
        if contains and contains not in sc.id:
            continue
        if ids is not None and sc.id not in ids:
            continue
        if sc.id in excluded:
            outcomes.append(Outcome(sc.id, sc.folder, "excluded", excluded[sc.id]))
            continue
        work.append((sc, graphs_dir))
    if jobs > 1 and len(work) > 20:
        with mp.get_context("fork").Pool(jobs, maxtasksperchild=200) as pool:
            outcomes.extend(pool.imap(_run_one, work, chunksize=8))
    else:
        outcomes.extend(map(_run_one, work))
    return outcomes


def summarize(outcomes) -> str:
    per = defaultdict(lambda: defaultdict(int))
    for o in outcomes:
        per[o.folder][o.status] += 1
    lines = [f"{'folder':36} {'pass':>5} {'fail':>5} {'error':>5} {'excl':>5} {'total':>6} {'rate':>7}"]
    totals = defaultdict(int)
    for folder in sorted(per):
        c = per[folder]
        total = sum(c.values())
        for k, v in c.items():
            totals[k] += v
        rate = 100.0 * c["passed"] / total if total else 0.0
        lines.append(f"{folder:36} {c['passed']:5} {c['failed']:5} {c['error']:5} {c['excluded']:5} {total:6} {rate:6.1f}%")
    total = sum(totals.values())
    rate = 100.0 * totals["passed"] / total if total else 0.0
    lines.append(f"{'TOTAL':36} {totals['passed']:5} {totals['failed']:5} {totals['error']:5} "
                 f"{totals['excluded']:5} {total:6} {rate:6.1f}%")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--features", type=Path, default=None)
    ap.add_argument("--report", type=Path, default=None)
    ap.add_argument("--update-ratchet", action="store_true", help="add newly passing scenarios to passing.txt")
    ap.add_argument("-k", dest="contains", default=None, help="only scenarios whose id contains TEXT")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--show-failures", type=int, default=0, help="print the first N failure messages")
    args = ap.parse_args(argv)
    features = args.features or default_features_dir()
    if features is None or not features.is_dir():
        print("TCK features not found: set RELATE_TCK_DIR or pass --features DIR", file=sys.stderr)
        return 2
    outcomes = run_all(features, jobs=args.jobs, contains=args.contains)
    print(summarize(outcomes))
    if args.show_failures:
        shown = 0
        for o in outcomes:
            if o.status in ("failed", "error") and shown < args.show_failures:
                print(f"\n--- {o.id} [{o.status}]\n{o.message}")
                shown += 1
    if args.report:
        args.report.write_text(json.dumps(
            {o.id: {"status": o.status, "folder": o.folder, "message": o.message, "seconds": round(o.seconds, 4)}
             for o in outcomes}, indent=1))
        print(f"report written to {args.report}")
    if args.update_ratchet:
        passing = load_list(PASSING)
        new = [o.id for o in outcomes if o.status == "passed" and o.id not in passing]
        if new:
            with PASSING.open("a", encoding="utf-8") as fh:
                for sid in new:
                    fh.write(sid + "\n")
        print(f"ratchet: {len(passing) + len(new)} scenarios listed ({len(new)} added)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
