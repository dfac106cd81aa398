"""Expand(Best): one hop that hands on, per input row, only the relationships an ordered
``head(collect(r.x))`` can take (the planner rule is planner/best_per_row.py)."""
from __future__ import annotations

from relate.protocol.errors import CypherTypeError

from ...refs import NodeRef, RelRef
from ..values.ops import order_key, type_name
from .base import Expand, used_rel_ids
from ..values.ops import Reversed


class ExpandBest(Expand):
    """Per input row: the first relationship in ORDER BY order, and for each collected property the
    first whose value is not null; in expansion order, so ties resolve as a stable sort would.

    What a node's expansion keeps depends only on the snapshot, so on read snapshots it is memoized
    per (snapshot ts, node), across the statements that run this cached plan: a snapshot with the
    same ts sees the same graph (MVCC), and the first snapshot past a commit starts a new memo. A hit
    charges the work budget what walking the relationships again would."""
    __slots__ = ("keys", "values", "text", "_memo")
    name = "Expand(Best)"

    def __init__(self, source, start, rel, end, types, direction, end_labels, unique_with, best):
        super().__init__(source, start, rel, end, types, direction, False, end_labels, unique_with)
        self.keys, self.values = best.keys, best.values
        self.text = ", ".join(f"{rel.strip()}.{k}" + (" DESC" if d else "") for k, d in best.keys)
        self._memo: tuple[int, dict] | None = None      # (snapshot ts, node id -> (kept, walked))

    def details(self):
        return f"{super().details()} first by {self.text}"

    def rows(self, ctx, arg):
        start_var, rel_var, end_var = self.start, self.rel, self.end
        types, direction, end_test, unique_with = self.types, self.direction, self.end_test, self.unique_with
        tx = ctx.tx
        expand = tx.expand_props
        memo = self._memo_for(tx)
        for row in self.source.rows(ctx, arg):
            node = row[start_var]
            if node is None:
                continue
            if type(node) is not NodeRef:
                raise CypherTypeError(f"Expected `{start_var}` to be a node, got {type_name(node)}",
                                      detail="InvalidArgumentType", phase="runtime")
            used = used_rel_ids(row, unique_with) if unique_with else None
            kept = memo.get(node.id) if memo is not None and not used else None
            if kept is None:
                found = expand(node.id, direction, types)
                walked = len(found) + 1
                ctx.charge(walked)
                if used:
                    found = [f for f in found if f[0] not in used]
                if end_test is not None:
                    labels = tx.node_labels
                    found = [f for f in found if end_test(labels(f[1]))]
                if len(found) > 1:
                    found = self._chosen(found)
                kept = ([(rid, other) for rid, other, _ in found], walked)
                if memo is not None and not used and len(memo) < _MEMO_NODES:
                    memo[node.id] = kept
            else:
                ctx.charge(kept[1])
            for rid, other in kept[0]:
                out = dict(row)
                out[rel_var] = RelRef(rid)
                out[end_var] = NodeRef(other)
                yield out

    def _memo_for(self, tx) -> dict | None:
        """The memo of the snapshot ``tx`` reads, or None (a write transaction sees its own writes;
        an older snapshot than the memo's computes without one)."""
        if not getattr(tx, "fixed", False):
            return None
        ts, memo = tx.ts, self._memo
        if memo is None or memo[0] < ts:
            memo = self._memo = (ts, {})
        return memo[1] if memo[0] == ts else None

    def _chosen(self, found: list) -> list:
        props = [f[2] for f in found]
        keys = self.keys
        descending = keys[0][1]
        if len(keys) == 1:
            name = keys[0][0]
            raw = [p.get(name) for p in props]
            # integers order as order_key orders them: skip the wrapping in the common case
            ranks = raw if all(type(v) is int for v in raw) else [order_key(v) for v in raw]
        elif all(d == descending for _, d in keys):
            ranks = [tuple(order_key(p.get(n)) for n, _ in keys) for p in props]
        else:
            ranks = [tuple(Reversed(order_key(p.get(n))) if d else order_key(p.get(n)) for n, d in keys)
                     for p in props]
            descending = False
        # max/min return the first of equal candidates: the earliest row, as the stable sort kept it
        pick = max if descending else min
        rank = ranks.__getitem__
        first = pick(range(len(found)), key=rank)
        chosen = {first}
        for name in self.values:
            if props[first].get(name) is not None:
                continue                  # the first row overall is also the first with a value
            present = [i for i, p in enumerate(props) if p.get(name) is not None]
            if present:
                chosen.add(pick(present, key=rank))
        return [found[i] for i in sorted(chosen)]


_MEMO_NODES = 20_000           # nodes one memo keeps (~200 bytes each: <= ~4 MB per plan); past it, computed each time
