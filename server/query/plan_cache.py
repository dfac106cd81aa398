"""An LRU cache of compiled plans keyed by query text and the schema generation they were planned for."""
from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any


class PlanCache:
    """Thread-safe LRU; a schema change bumps ``generation`` so older plans are never reused."""

    def __init__(self, capacity: int = 1000):
        self.capacity = capacity
        self.generation = 0
        self._plans: OrderedDict[tuple[str, int], Any] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def get(self, text: str) -> Any:
        key = (text, self.generation)
        with self._lock:
            plan = self._plans.get(key)
            if plan is None:
                self.misses += 1
                return None
            self._plans.move_to_end(key)
            self.hits += 1
            return plan

    def put(self, text: str, plan: Any, generation: int | None = None) -> None:
        key = (text, self.generation if generation is None else generation)
        with self._lock:
            self._plans[key] = plan
            self._plans.move_to_end(key)
            while len(self._plans) > self.capacity:
                self._plans.popitem(last=False)

    def invalidate(self) -> None:
        """Forget every plan (indexes or constraints changed)."""
        with self._lock:
            self.generation += 1
            self._plans.clear()

    def __len__(self) -> int:
        return len(self._plans)
