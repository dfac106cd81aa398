"""One system under test in its own process: the coordinator (run.py) sends commands over a pipe, the worker
times the calls locally and sends back seconds and normalized results."""
from __future__ import annotations

import time
import traceback

from . import ops as O
from . import systems
from . import workload as W
from .systems.base import self_rss_kib


def _call(system, op_fns, op, wl, first: int, count: int) -> list[tuple[float, object]]:
    fn = op_fns[op.name]
    out = []
    for r in range(first, first + count):
        p = O.params(wl, op, r)
        t0 = time.perf_counter()
        result = fn(p)
        out.append((time.perf_counter() - t0, result))
    return out


def serve(conn, name: str, workdir: str, stem: str) -> None:
    """The worker's loop: ('start'), ('phase', name), ('run', op, first, count), ('level', dict),
    ('tuned',), ('rss',), ('close',); each answered ('ok', value) or ('error', text)."""
    wl = W.load(stem)
    system = systems.create(name)
    system.baseline_kib = self_rss_kib()     # interpreter + workload arrays, before the system exists
    op_fns: dict = {}
    while True:
        message = conn.recv()
        command, args = message[0], message[1:]
        try:
            if command == "start":
                system.start(workdir)
                value = {"name": system.name, "role": system.role, "notes": system.notes}
            elif command == "phase":
                t0 = time.perf_counter()
                getattr(system, args[0])(wl)
                value = time.perf_counter() - t0
                if args[0] == "build_indexes":
                    op_fns = system.ops()
                    value = {"seconds": value, "ops": sorted(op_fns), "levels": system.levels()}
            elif command == "run":
                value = _call(system, op_fns, O.OPS_BY_NAME[args[0]], wl, args[1], args[2])
            elif command == "level":
                t0 = time.perf_counter()
                system.set_level(args[0], wl)
                value = time.perf_counter() - t0
            elif command == "tuned":
                system.enter_tuned_phase()
                value = None
            elif command == "rss":
                value = system.peak_rss_kib()
            elif command == "close":
                system.close()
                conn.send(("ok", None))
                return
            else:
                raise ValueError(f"unknown command {command!r}")
            conn.send(("ok", value))
        except Exception:  # reported to the coordinator, which marks the system failed for this step
            conn.send(("error", traceback.format_exc()))
