"""Expand(Best): one hop that hands on, per input row, only the relationships an ordered
``head(collect(r.x))`` can take (the planner rule is planner/best_per_row.py)."""
from __future__ import annotations

from relate.protocol.errors import CypherTypeError

from ...refs import NodeRef, RelRef
from ..values.ops import order_key, type_name
from .base import Expand, used_rel_ids
from .rows import _Descending


class ExpandBest(Expand):
    """Per input row: the first relationship in ORDER BY order, and for each collected property the
    first whose value is not null; in expansion order, so ties resolve as a stable sort would."""
    __slots__ = ("keys", "values", "text")
    name = "Expand(Best)"

    def __init__(self, source, start, rel, end, types, direction, end_labels, unique_with, best):
        super().__init__(source, start, rel, end, types, direction, False, end_labels, unique_with)
        self.keys, self.values = best.keys, best.values
        self.text = ", ".join(f"{rel.strip()}.{k}" + (" DESC" if d else "") for k, d in best.keys)

    def details(self):
        return f"{super().details()} first by {self.text}"

    def rows(self, ctx, arg):
        start_var, rel_var, end_var = self.start, self.rel, self.end
        types, direction, end_test, unique_with = self.types, self.direction, self.end_test, self.unique_with
        tx = ctx.tx
        expand = tx.expand_props
        for row in self.source.rows(ctx, arg):
            node = row[start_var]
            if node is None:
                continue
            if type(node) is not NodeRef:
                raise CypherTypeError(f"Expected `{start_var}` to be a node, got {type_name(node)}",
                                      detail="InvalidArgumentType", phase="runtime")
            used = used_rel_ids(row, unique_with) if unique_with else None
            found = expand(node.id, direction, types)
            ctx.charge(len(found) + 1)
            if used:
                found = [f for f in found if f[0] not in used]
            if end_test is not None:
                labels = tx.node_labels
                found = [f for f in found if end_test(labels(f[1]))]
            if len(found) > 1:
                found = self._chosen(found)
            for rid, other, _ in found:
                out = dict(row)
                out[rel_var] = RelRef(rid)
                out[end_var] = NodeRef(other)
                yield out

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
            ranks = [tuple(_Descending(order_key(p.get(n))) if d else order_key(p.get(n)) for n, d in keys)
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
