"""Per-step timings and counts of one retrieval, as plain maps (the search playground shows them)."""
from __future__ import annotations

import time
from contextlib import contextmanager


class Diagnostics:
    def __init__(self):
        self.steps: list[dict] = []
        self.degraded: list[dict] = []

    @contextmanager
    def step(self, name: str):
        """Times the block; the yielded dict collects the step's counts."""
        entry = {"name": name}
        start = time.perf_counter()
        try:
            yield entry
        finally:
            entry["ms"] = round((time.perf_counter() - start) * 1000, 3)
            self.steps.append(entry)

    def degrade(self, step: str, error: BaseException, fallback: str) -> None:
        code = getattr(error, "code", None)
        self.degraded.append({"step": step, "error": f"{type(error).__name__}: {error}"[:300],
                              "code": code, "fallback": fallback})

    def as_map(self) -> dict:
        return {"steps": [dict(s) for s in self.steps], "degraded": [dict(d) for d in self.degraded]}
