"""Exact vector search straight from a store snapshot, for a vector index that is still POPULATING:
searches answer at once (exactly) instead of waiting for the population to finish.

The scan is cached per (index, last commit ts), so a burst of searches during a population reads the
store once; it goes away when the index comes online.
"""
from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from .definitions import NODE, IndexDefinition
from .vector import VectorIndex

if TYPE_CHECKING:
    from typing import AbstractSet, Any, Callable, Iterable

    from relate.server.storage.store import GraphStore
    from relate.server.storage.versions import Props

    from .providers.base import Filter

_NEVER_HNSW = 1 << 62


class ExactFallback:
    """``search(store, definition, vector, k, filters)`` as the index would answer once ONLINE."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._cached: dict[str, tuple[int, VectorIndex]] = {}

    def search(self, store: GraphStore, definition: IndexDefinition, vector: Any, k: int,
               filters: Iterable[Filter], keys: AbstractSet[int] | None = None) -> list[tuple[int, float]]:
        ts = store.last_commit_ts
        with self._lock:
            cached = self._cached.get(definition.name)
            if cached is None or cached[0] != ts:
                cached = self._cached[definition.name] = (ts, self._scan(store, definition))
        if keys is not None:
            return cached[1].search_keys(vector, k, keys, list(filters))
        return cached[1].search(vector, k, list(filters))

    def forget(self, name: str) -> None:
        with self._lock:
            self._cached.pop(name, None)

    @staticmethod
    def _scan(store: GraphStore, definition: IndexDefinition) -> VectorIndex:
        from .providers.vector import vector_config      # the providers import this module
        config = vector_config(definition)
        config.hnsw_min_size = _NEVER_HNSW           # exact: the whole point
        index = VectorIndex(config, definition.filter_properties)
        prop = definition.properties[0]
        items = []
        read: Callable[[int], Props]
        with store.begin_read() as tx:
            if definition.entity == NODE:
                ids = dict.fromkeys(k for token in definition.tokens for k in tx.nodes_by_label(token))
                read = tx.node_props
            else:
                ids = dict.fromkeys(k for token in definition.tokens for k in tx.rels_by_type(token))
                read = tx.rel_props
            for key in ids:
                props = read(key)
                value = props.get(prop)
                if value is not None:
                    items.append((key, value, props))
        index.upsert_many(items)
        index.sync()
        return index
