"""Drives the worker processes: loads each system, then measures every operation on every system in
interleaved blocks (warm-up first), and walks each system's recall knob for the similar-recall pass."""
from __future__ import annotations

import multiprocessing as mp
import os
from dataclasses import dataclass, field

import numpy as np

from . import ops as O
from . import worker

BLOCKS = 5                  # each system's repetitions are split into this many interleaved blocks
CALL_TIMEOUT_S = 3600       # one command to a worker; a system past it is marked failed


class WorkerFailed(RuntimeError):
    pass


class Worker:
    """A system in its own spawned process, driven through a pipe."""

    def __init__(self, name: str, workdir: str, stem: str):
        self.name = name
        self.failed: str | None = None
        self.info: dict = {}
        os.makedirs(workdir, exist_ok=True)
        ctx = mp.get_context("spawn")
        self.conn, child = ctx.Pipe()
        self.process = ctx.Process(target=worker.serve, args=(child, name, workdir, stem), daemon=True,
                                   name=f"bench-{name}")
        self.process.start()

    def call(self, *message, timeout: float = CALL_TIMEOUT_S):
        if self.failed:
            raise WorkerFailed(self.failed)
        self.conn.send(message)
        if not self.conn.poll(timeout):
            self.fail(f"{message[0]} timed out after {timeout:.0f} s")
            raise WorkerFailed(self.failed)
        status, value = self.conn.recv()
        if status != "ok":
            raise WorkerFailed(value)
        return value

    def fail(self, why: str) -> None:
        self.failed = why
        if self.process.is_alive():
            self.process.terminate()
            self.process.join(10)

    def close(self) -> None:
        if not self.failed and self.process.is_alive():
            try:
                self.call("close", timeout=300)
            except WorkerFailed:
                pass
        self.process.join(30)
        if self.process.is_alive():
            self.process.terminate()
            self.process.join(10)


@dataclass
class Plan:
    budget_s: float = 2.0       # timed seconds per (operation, system), which bounds slow operations' reps
    max_reps: int = 200
    warmup: int = 20            # untimed calls before the first block (fewer for slow operations)
    log: callable = print


@dataclass
class Cell:
    """One (operation, system) measurement."""
    seconds: list[float] = field(default_factory=list)
    results: list = field(default_factory=list)
    error: str | None = None

    def stats(self) -> dict:
        if not self.seconds:
            return {"reps": 0, "error": self.error}
        ms = np.asarray(self.seconds) * 1000
        return {"reps": len(ms), "median_ms": float(np.median(ms)), "p95_ms": float(np.percentile(ms, 95)),
                "mean_ms": float(ms.mean()), "min_ms": float(ms.min())}


def measure(workers: list[Worker], op: O.Op, plan: Plan) -> dict[str, Cell]:
    """Every worker runs op: one probe call (warm-up, and the cost estimate), warm-up calls, then its
    repetitions in BLOCKS blocks, the systems' blocks interleaved (rotated order)."""
    cells: dict[str, Cell] = {}
    reps: dict[str, int] = {}
    active = [w for w in workers if not w.failed and op.name in w.info.get("ops", ())]
    for w in active:
        cell = cells[w.name] = Cell()
        try:
            (probe, _), = w.call("run", op.name, 0, 1)
            if probe < plan.budget_s / 20:          # the first call compiles and warms caches: probe again
                probe = float(np.median([s for s, _ in w.call("run", op.name, 1, 3)]))
            reps[w.name] = max(1, min(plan.max_reps, int(plan.budget_s / max(probe, 1e-9))))
            warmup = min(plan.warmup, reps[w.name] // 10)
            if warmup:
                w.call("run", op.name, reps[w.name], warmup)      # other questions than the timed ones
        except WorkerFailed as e:
            cell.error = str(e).strip().splitlines()[-1]
    running = [w for w in active if cells[w.name].error is None]
    for block in range(BLOCKS):
        order = running[block % len(running):] + running[:block % len(running)] if running else []
        for w in order:
            cell, n = cells[w.name], reps[w.name]
            first, last = n * block // BLOCKS, n * (block + 1) // BLOCKS
            if last <= first or cell.error:
                continue
            try:
                for seconds, result in w.call("run", op.name, first, last - first):
                    cell.seconds.append(seconds)
                    cell.results.append(result)
            except WorkerFailed as e:
                cell.error = str(e).strip().splitlines()[-1]
    for name, cell in cells.items():
        s = cell.stats()
        if s["reps"]:
            plan.log(f"  {op.name:18s} {name:12s} median {s['median_ms']:9.3f} ms  p95 {s['p95_ms']:9.3f} ms"
                     f"  reps {s['reps']}")
        else:
            plan.log(f"  {op.name:18s} {name:12s} FAILED: {cell.error}")
    return cells


def calibrate(w: Worker, checker, target: float, questions: int, log=print) -> dict:
    """Find w's cheapest recall setting that reaches recall@10 ≥ target on unfiltered vector search (over
    ``questions`` questions). ``levels`` is [default, then every candidate from cheapest to dearest, the
    default among them]: the default's recall is measured first (no change), then the candidates are walked
    upward from the cheapest, settings below the default included, and the first to reach the target is
    kept (the dearest when none does). Returns the ladder walked, in walking order, and the level kept."""
    vector = O.OPS_BY_NAME["vector"]
    levels = w.info.get("levels") or []
    if not levels:
        return {"ladder": [], "level": None}
    default, candidates = levels[0], list(levels[1:]) or [levels[0]]

    def recall_now() -> float:
        answers = [result for _, result in w.call("run", "vector", 0, questions)]
        return checker.score(vector, answers)["recall"]

    known = {repr(default): recall_now()}
    log(f"  calibrate {w.name:12s} {default} recall@10 {known[repr(default)]:.3f} (default)")
    ladder, chosen, current = [], None, default
    for level in candidates:
        set_s = 0.0
        if repr(level) in known:
            recall = known[repr(level)]
        else:
            set_s = w.call("level", level)
            current = level
            recall = known[repr(level)] = recall_now()
            log(f"  calibrate {w.name:12s} {level} recall@10 {recall:.3f} (set in {set_s:.1f} s)")
        ladder.append({"level": level, "recall": recall, "set_s": set_s, "default": level == default})
        chosen = level
        if recall >= target:
            break
    if chosen != current:
        w.call("level", chosen)
    return {"ladder": ladder, "level": chosen, "default": default}
