"""Quantified path patterns: ``(a) ((x)-[r]->(y) WHERE ...){m,n} (b)``, the inner path repeated m to n
times, each iteration starting on the node where the previous one ended, no relationship walked twice."""
from __future__ import annotations

from ...refs import NodeRef, RelRef
from .base import Operator, expansion_ends, used_rel_ids
from .paths import build_path


class QuantifiedExpand(Operator):
    """Depth first over iterations (an explicit stack: long chains stay off the C stack); within an
    iteration, depth first over the inner relationships, its predicates checked once all are bound."""
    __slots__ = ("start", "end", "nodes", "hops", "predicates", "min", "max", "rels", "groups", "into",
                 "unique_with", "backwards", "shortest_k", "by_length", "path", "path_predicate", "repeatable")
    name = "QuantifiedExpand"

    def __init__(self, source, start, end, nodes, hops, predicates, low, high, rels, groups, into,
                 unique_with, backwards, shortest_k=0, by_length=False, path=None, path_predicate=None,
                 repeatable=False):
        self.source, self.start, self.end = source, start, end
        self.nodes = nodes              # inner node variables, in walking order
        self.hops = hops                # (rel variable, types or None, direction) between them
        self.predicates = predicates    # compiled, over the row plus one iteration's bindings
        self.min, self.max = low, high
        self.rels, self.groups, self.into = rels, groups, into
        self.unique_with, self.backwards = unique_with, backwards
        # SHORTEST k [GROUPS]: walks by increasing length, ``path`` bound for ``path_predicate``
        self.shortest_k, self.by_length, self.path, self.path_predicate = shortest_k, by_length, path, path_predicate
        self.repeatable = repeatable    # REPEATABLE ELEMENTS: walks (a relationship may come again)

    def details(self):
        hi = "" if self.max is None else self.max
        return f"({self.start.strip()}) (...){{{self.min},{hi}}} ({self.end.strip()})"

    def rows(self, ctx, arg):
        for row in self.source.rows(ctx, arg):
            ends = expansion_ends(row, self.start, self.end, self.into)
            if ends is None:
                continue
            start, target = ends
            used = used_rel_ids(row, self.unique_with) if self.unique_with else set()
            if self.shortest_k:
                if target is not None:
                    yield from self._shortest(ctx, row, start, target, used)
                continue
            for end_id, iterations in self._walks(ctx, row, start, used, self.min, self.max):
                if target is not None and end_id != target:
                    continue
                yield self._output(row, end_id, iterations, target is None)

    def _output(self, row: dict, end_id: int, iterations: list, new_end: bool) -> dict:
        out = dict(row)
        if self.backwards:
            iterations = iterations[::-1]
        rels: list[RelRef] = []
        for _, walked in iterations:
            rels.extend(RelRef(r) for r in (walked[::-1] if self.backwards else walked))
        out[self.rels] = rels
        for name in self.groups:
            out[name] = [binding[name] for binding, _ in iterations]
        if new_end:
            out[self.end] = NodeRef(end_id)
        return out

    def _shortest(self, ctx, row: dict, start: int, target: int, used: set):
        """The rows of the k shortest walks from start to target (every walk of the k shortest lengths
        with GROUPS), by iterative deepening over the iteration count."""
        k, by_length = self.shortest_k, self.by_length
        deepest = self.max if self.max is not None else max(1, ctx.tx.count_rels() // max(1, len(self.hops)))
        kept: list[dict] = []
        lengths = 0
        for depth in range(self.min, deepest + 1):
            found = 0
            for end_id, iterations in self._walks(ctx, row, start, used, depth, depth):
                if end_id != target:
                    continue
                out = self._output(row, end_id, iterations, False)
                if self.path:
                    out[self.path] = build_path(ctx.tx, out, (("node", self.start), ("rels", self.rels)))
                if self.path_predicate is not None and self.path_predicate(out, ctx) is not True:
                    continue
                kept.append(out)
                found += 1
                if not by_length and len(kept) >= k:
                    return kept
            lengths += 1 if found else 0
            if by_length and lengths >= k:
                break
        return kept

    def _walks(self, ctx, row: dict, start: int, used: set, low: int, high):
        """(end node, [(bindings, relationship ids)] per iteration) of every walk of low..high iterations."""
        if low == 0:
            yield start, []
        if high is not None and high < 1:
            return
        walked: set[int] = set(used)       # relationships on the current walk (and the pattern's others)
        iterations: list = []              # the active match of each frame below the top
        stack = [self._iterations(ctx, row, start, walked)]
        while stack:
            ctx.check()
            if len(iterations) == len(stack):          # the top frame's previous match: step past it
                walked.difference_update(iterations.pop()[1])
            step = next(stack[-1], None)
            if step is None:
                stack.pop()
                continue
            end_id, binding, rel_ids = step
            iterations.append((binding, rel_ids))
            walked.update(rel_ids)
            if len(iterations) >= low:
                yield end_id, list(iterations)
            if high is None or len(iterations) < high:
                stack.append(self._iterations(ctx, row, end_id, walked))

    def _iterations(self, ctx, row: dict, start: int, walked: set):
        """(end node, bindings, relationship ids) of each match of the inner path from ``start``."""
        tx, nodes, hops, predicates = ctx.tx, self.nodes, self.hops, self.predicates
        last = len(hops)
        repeatable = self.repeatable
        binding: dict = {nodes[0]: NodeRef(start)}
        rel_ids: list[int] = []

        def extend(depth: int, at: int):
            if depth == last:
                scope = {**row, **binding}
                if all(p(scope, ctx) is True for p in predicates):
                    yield at, {name: binding[name] for name in nodes + [h[0] for h in hops]}, list(rel_ids)
                return
            rel_var, types, direction = hops[depth]
            for rid, other in tx.expand(at, direction, types):
                if not repeatable and (rid in walked or rid in rel_ids):
                    continue
                rel_ids.append(rid)
                binding[rel_var] = RelRef(rid)
                binding[nodes[depth + 1]] = NodeRef(other)
                yield from extend(depth + 1, other)
                rel_ids.pop()
        return extend(0, start)
