"""SEARCH: index scans of any search-index kind (through its provider), and COMBINE (weighted reciprocal
rank fusion)."""
from __future__ import annotations

import time

from relate.protocol.errors import ArgumentError
from relate.server.index.providers import get_provider

from ...context import checked
from ...refs import NodeRef, RelRef
from .base import Operator
from .search_filters import candidate_keys, property_filter
from relate.server.relevance.scope import node_filter

DEFAULT_RRF_CONSTANT = 60


class ArmStats(Operator):
    """PROFILE's view of one COMBINE arm: the hits it returned and the time its index search took."""
    __slots__ = ("arm", "row_count", "seconds")

    def __init__(self, arm):
        self.arm, self.row_count, self.seconds = arm, 0, 0.0

    name = "SearchArm"

    def children(self):
        return []

    def details(self):
        return self.arm.describe()


class IndexSource:
    """One compiled ``<kind> INDEX name FOR q [WHERE ...] [SKIP s] LIMIT l [WEIGHT w]``."""
    __slots__ = ("kind", "index", "query", "filters", "skip", "limit", "weight", "stats")

    def __init__(self, kind, index, query, filters, skip, limit, weight):
        self.kind, self.index, self.query = kind, index, query
        self.filters = filters            # [(property, op, value fn)]; property None: `n IN candidates`
        self.skip, self.limit, self.weight = skip, limit, weight
        self.stats = None                 # ArmStats under PROFILE

    def describe(self) -> str:
        return f"{self.kind} INDEX {self.index}"

    def hits(self, ctx, row, visible) -> list[tuple[int, float]]:
        if self.stats is None:
            return self._hits(ctx, row, visible)
        start = time.perf_counter()
        found = self._hits(ctx, row, visible)
        self.stats.seconds += time.perf_counter() - start
        self.stats.row_count += len(found)
        return found

    def _hits(self, ctx, row, visible) -> list[tuple[int, float]]:
        manager = ctx.db.index_manager
        limit = _count(self.limit(row, ctx), "LIMIT")
        query = self.query(row, ctx)
        if query is None:
            return []
        keys, filters = None, []
        for prop, op, fn in self.filters:
            if prop is None:
                keys = candidate_keys(fn(row, ctx), keys)
            else:
                filters.append((prop, op, fn(row, ctx)))
        if keys is not None and not keys:
            return []
        provider = get_provider(self.kind)
        query = provider.prepare_query(ctx, self.index, query)
        skip = _count(self.skip(row, ctx), "SKIP") if self.skip is not None else 0
        accept = None
        if filters and not provider.native_filters:    # the kind keeps no filter columns: test the snapshot
            accept = property_filter(ctx.tx, manager.get(self.index).definition.entity, filters)
            filters = []
        # SEARCH ... FOR takes a user's words: plain mode (full-text), never a query-syntax error
        found = manager.search(self.index, query, limit, kind=self.kind, skip=skip, filters=filters, keys=keys,
                               accept=accept, mode="plain", tx=ctx.tx)
        return [(eid, score) for eid, score in found if visible(eid)]


class CombineSource:
    """``COMBINE (src, ...) USING WRRF [WITH CONSTANT c] LIMIT l``: Σ wᵢ / (c + rankᵢ) over the sources."""
    __slots__ = ("sources", "constant", "limit", "weight")

    def __init__(self, sources, constant, limit, weight):
        self.sources, self.constant, self.limit, self.weight = sources, constant, limit, weight

    def describe(self) -> str:
        return "COMBINE(" + ", ".join(s.describe() for s in self.sources) + ")"

    def hits(self, ctx, row, visible) -> list[tuple[int, float]]:
        constant = DEFAULT_RRF_CONSTANT if self.constant is None else self.constant(row, ctx)
        if type(constant) not in (int, float) or constant < 0:
            raise ArgumentError(f"WITH CONSTANT expects a non-negative number, got {constant!r}",
                                detail="InvalidArgumentValue", phase="runtime")
        limit = _count(self.limit(row, ctx), "LIMIT")
        fused: dict[int, float] = {}
        for source in self.sources:
            weight = 1.0 if source.weight is None else source.weight(row, ctx)
            if type(weight) not in (int, float):
                raise ArgumentError(f"WEIGHT expects a number, got {weight!r}", detail="InvalidArgumentValue",
                                    phase="runtime")
            for rank, (eid, _) in enumerate(source.hits(ctx, row, visible), start=1):
                fused[eid] = fused.get(eid, 0.0) + weight / (constant + rank)
        # Best fused score first; equal scores keep the order in which ids were first seen.
        ranked = sorted(fused.items(), key=lambda item: -item[1])
        return ranked[:limit]


def _count(value, what: str) -> int:
    if type(value) is not int or value < 0:
        raise ArgumentError(f"SEARCH {what} expects a non-negative integer, got {value!r}",
                            detail="InvalidArgumentValue", phase="runtime")
    return value


class Search(Operator):
    """Binds the searched variable (and its score) for every hit visible in the transaction."""
    __slots__ = ("var", "entity", "spec", "score", "duplicate")

    def __init__(self, source, var, entity, spec, score, duplicate):
        self.source, self.var, self.entity, self.spec = source, var, entity, spec
        self.score, self.duplicate = score, duplicate

    @property
    def name(self):
        return "NodeIndexSearch" if self.entity == "node" else "RelationshipIndexSearch"

    def details(self):
        return f"{self.var} IN {self.spec.describe()}"

    def nested(self):
        # under PROFILE, each COMBINE arm shows its own hits and milliseconds
        sources = getattr(self.spec, "sources", ())
        return [s.stats for s in sources if getattr(s, "stats", None) is not None]

    def rows(self, ctx, arg):
        var, score_var, spec = self.var, self.score, self.spec
        is_node = self.entity == "node"
        make = NodeRef if is_node else RelRef
        times = 2 if self.duplicate else 1
        scoped = node_filter(ctx, active_only=False) if is_node else None
        for row in self.source.rows(ctx, arg):
            tx = ctx.tx
            visible = scoped or (tx.node_exists if is_node else tx.rel_exists)
            for eid, score in checked(spec.hits(ctx, row, visible), ctx):
                out = dict(row)
                out[var] = make(eid)
                if score_var is not None:
                    out[score_var] = score
                for _ in range(times):
                    yield out
