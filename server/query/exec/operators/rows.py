"""Row-shaping operators: projection, aggregation, DISTINCT, ORDER BY, top-k, SKIP/LIMIT, UNWIND, results."""
from __future__ import annotations

import heapq
from itertools import count
from operator import is_

import numpy as np

from relate.protocol.errors import ArgumentError

from ...context import checked
from ...refs import NodeRef, RelRef
from .base import Operator
from ..values.ops import aggregator_factory, group_key, order_key, order_key_desc, type_name


class Project(Operator):
    """Compute named expressions against the incoming row; ``keep`` extends it, else replaces it."""
    __slots__ = ("items", "keep", "names", "fns")
    name = "Projection"

    def __init__(self, source, items, keep):
        self.source, self.items, self.keep = source, items, keep
        self.names = tuple(n for n, _ in items)
        self.fns = tuple(f for _, f in items)

    def details(self):
        return ", ".join(n for n in self.names if not n.startswith(" "))

    def rows(self, ctx, arg):
        items = self.items
        if self.keep:
            for row in self.source.rows(ctx, arg):
                out = dict(row)
                for name, fn in items:
                    out[name] = fn(row, ctx)
                yield out
        else:
            names, fns = self.names, self.fns
            for row in self.source.rows(ctx, arg):
                yield {name: fn(row, ctx) for name, fn in zip(names, fns)}


class Aggregate(Operator):
    """Group by the grouping expressions; one aggregator per (group, aggregate)."""
    __slots__ = ("grouping", "aggregates", "counting")
    name = "EagerAggregation"

    def __init__(self, source, grouping, aggregates, counting=False):
        # grouping: [(name, fn)]; aggregates: [(name, function name, distinct, [arg fns])]
        # counting: every aggregate counts rows (count(*), or count(v) of a never-null v)
        self.source, self.grouping, self.aggregates = source, grouping, aggregates
        self.counting = counting

    def details(self):
        return ", ".join(n for n, _ in self.grouping)

    def rows(self, ctx, arg):
        if not self.grouping:
            yield self._single_group(ctx, arg)
            return
        key_names = [n for n, _ in self.grouping]
        key_fns = [f for _, f in self.grouping]
        specs = self.aggregates
        arg_fns = [fns for _, _, _, fns in specs]
        factories = [aggregator_factory(fname, distinct) for _, fname, distinct, _ in specs]
        # one argument each (the usual case): called directly, without an argument list per row
        one_arg = [fns[0] for fns in arg_fns] if all(len(fns) == 1 for fns in arg_fns) else None
        groups: dict = {}
        single = len(key_fns) == 1
        for row in self.source.rows(ctx, arg):
            values = [fn(row, ctx) for fn in key_fns]
            key = group_key(values[0]) if single else tuple(group_key(v) for v in values)
            entry = groups.get(key)
            if entry is None:
                entry = (values, [make() for make in factories])
                groups[key] = entry
            if one_arg is not None:
                for agg, f in zip(entry[1], one_arg):
                    agg.add(f(row, ctx))
            else:
                for agg, fns in zip(entry[1], arg_fns):
                    agg.add(*[f(row, ctx) for f in fns])
        for values, aggs in checked(list(groups.values()), ctx):
            out = dict(zip(key_names, values))
            for (name, _, _, _), agg in zip(specs, aggs):
                out[name] = agg.result()
            yield out

    def _single_group(self, ctx, arg) -> dict:
        """No grouping keys: one row, even over no input (count(*) is then 0)."""
        specs = self.aggregates
        aggs = [aggregator_factory(fname, distinct)() for _, fname, distinct, _ in specs]
        if self.counting:
            n = self.source.count(ctx, arg)
            return {name: n for name, _, _, _ in specs}
        rows = self.source.rows(ctx, arg)
        if len(specs) == 1 and len(specs[0][3]) == 1:
            add, fn = aggs[0].add, specs[0][3][0]
            for row in rows:
                add(fn(row, ctx))
        else:
            pairs = [(agg.add, fns) for agg, (_, _, _, fns) in zip(aggs, specs)]
            for row in rows:
                for add, fns in pairs:
                    add(*[f(row, ctx) for f in fns])
        return {name: agg.result() for (name, _, _, _), agg in zip(specs, aggs)}


class OrderedHeadAggregate(Operator):
    """``ORDER BY k`` then ``WITH g, collect(x) AS c`` where ``c`` is only read as ``head(c)``: per group,
    the first non-null ``x`` in ORDER BY order, found in one pass instead of sorting every row.

    Each aggregate yields ``[x]`` (or ``[]`` when no row of the group has a non-null ``x``), so
    ``head(c)`` is what it was over the whole collected list. Ties keep input order (the sort was
    stable) and groups come out in the order the sorted stream would have first shown them.
    """
    __slots__ = ("grouping", "aggregates", "keys", "key_fn", "reverse", "plain", "lazy")
    name = "EagerAggregation"

    def __init__(self, source, grouping, aggregates, keys, plain=None, lazy=None):
        # grouping: [(name, fn)]; aggregates: [(name, arg fn)] (each a collect consumed by head());
        # keys: [(fn, descending)] of the ORDER BY this replaces; plain: when every grouping
        # expression is a variable, their names (read from the row directly)
        self.source, self.grouping, self.aggregates, self.keys = source, grouping, aggregates, keys
        self.key_fn, self.reverse = sort_key(keys)
        self.plain = plain
        # lazy: per aggregate, the variable v when its argument is ``v.key``: on a fixed snapshot, with
        # v a node, relationship or null, that cannot fail, so rows that cannot be first skip it
        self.lazy = lazy or [None] * len(aggregates)

    def details(self):
        return ", ".join(n for n, _ in self.grouping)

    def rows(self, ctx, arg):
        key_names = [n for n, _ in self.grouping]
        key_fns = [f for _, f in self.grouping]
        arg_fns = [f for _, f in self.aggregates]
        n_aggs = len(arg_fns)
        key_fn, reverse = self.key_fn, self.reverse
        single = len(key_fns) == 1
        plain = self.plain
        lazy = self.lazy if getattr(ctx.tx, "fixed", False) else [None] * n_aggs
        # group key -> [grouping values, best order key, its sequence number, [per aggregate: key, value]]
        groups: dict = {}
        seq = 0
        last_values = last_entry = None
        for row in self.source.rows(ctx, arg):
            k = key_fn(row, ctx)
            if key_fns:
                try:
                    values = [row[v] for v in plain] if plain else [fn(row, ctx) for fn in key_fns]
                except KeyError:
                    values = [fn(row, ctx) for fn in key_fns]     # raises the undefined-variable error
                # Rows expanded from one input row carry the very same grouping objects: same group.
                if last_values is not None and all(map(is_, values, last_values)):
                    entry = last_entry
                else:
                    gkey = group_key(values[0]) if single else tuple(map(group_key, values))
                    entry = groups.get(gkey)
            else:
                values, gkey = [], None
                entry = groups.get(gkey)
            if entry is None:
                entry = [values, k, seq, [None] * n_aggs, [None] * n_aggs]
                groups[gkey] = entry
            elif (k > entry[1]) if reverse else (k < entry[1]):
                entry[1], entry[2] = k, seq
            best_keys, best_values = entry[3], entry[4]
            for i in range(n_aggs):
                if best_values[i] is None or ((k > best_keys[i]) if reverse else (k < best_keys[i])):
                    x = arg_fns[i](row, ctx)
                    if x is not None:
                        best_keys[i], best_values[i] = k, x
                elif lazy[i] is None or type(row.get(lazy[i], _cannot_fail)) not in _CANNOT_FAIL:
                    arg_fns[i](row, ctx)           # not needed, but evaluated for the errors it may raise
            seq += 1
            last_values, last_entry = values, entry
        if not key_fns and not groups:
            groups[None] = [[], None, 0, [None] * n_aggs, [None] * n_aggs]
        entries = sorted(groups.values(), key=_seq)
        if key_fns:
            entries.sort(key=_best_key, reverse=reverse)      # stable: equal keys stay in stream order
        names = [n for n, _ in self.aggregates]
        for values, _, _, _, best_values in checked(entries, ctx):
            out = dict(zip(key_names, values))
            for name, value in zip(names, best_values):
                out[name] = [] if value is None else [value]
            yield out


_CANNOT_FAIL = (NodeRef, RelRef, type(None))
_cannot_fail = object()          # a missing variable: evaluate, to raise its error


def _seq(entry):
    return entry[2]


def _best_key(entry):
    return entry[1]


class Distinct(Operator):
    __slots__ = ("columns",)
    name = "Distinct"

    def __init__(self, source, columns):
        self.source, self.columns = source, columns

    def details(self):
        return ", ".join(self.columns)

    def rows(self, ctx, arg):
        seen = set()
        columns = self.columns
        for row in self.source.rows(ctx, arg):
            key = tuple(group_key(row[c]) for c in columns)
            if key in seen:
                continue
            seen.add(key)
            yield row


def sort_key(keys):
    """(key function, reverse) for ORDER BY ``keys`` = [(fn, descending)], where ctx is bound later.

    One direction sorts ascending keys (reversed for DESC); mixed directions give each DESC item
    ``order_key_desc``. Up to three items the key is built without a generator (per row, per sort)."""
    fns = [f for f, _ in keys]
    descending = [d for _, d in keys]
    if all(descending) or not any(descending):
        reverse = descending[0]
        convs = [order_key] * len(fns)
    else:
        reverse = False
        convs = [order_key_desc if d else order_key for d in descending]
    if len(fns) == 1:
        f0, c0 = fns[0], convs[0]
        return (lambda row, ctx: c0(f0(row, ctx))), reverse
    if len(fns) == 2:
        (f0, f1), (c0, c1) = fns, convs
        return (lambda row, ctx: (c0(f0(row, ctx)), c1(f1(row, ctx)))), reverse
    if len(fns) == 3:
        (f0, f1, f2), (c0, c1, c2) = fns, convs
        return (lambda row, ctx: (c0(f0(row, ctx)), c1(f1(row, ctx)), c2(f2(row, ctx)))), reverse
    pairs = list(zip(convs, fns))
    return (lambda row, ctx: tuple([c(f(row, ctx)) for c, f in pairs])), reverse


class Sort(Operator):
    __slots__ = ("keys", "key_fn", "reverse", "text")
    name = "Sort"

    def __init__(self, source, keys, text=""):
        self.source, self.keys = source, keys
        self.key_fn, self.reverse = sort_key(keys)
        self.text = text                  # "n.ts DESC, n.id", for EXPLAIN

    def details(self):
        return self.text

    def rows(self, ctx, arg):
        key_fn = self.key_fn
        decorated = [(key_fn(row, ctx), row) for row in self.source.rows(ctx, arg)]
        decorated.sort(key=_first, reverse=self.reverse)   # stable: ties keep input order
        for _, row in checked(decorated, ctx):
            yield row


def _first(pair):
    return pair[0]


class Top(Operator):
    """ORDER BY ... [SKIP s] LIMIT l without sorting everything: a heap of skip + limit rows.

    heapq.nsmallest / nlargest equal ``sorted(...)[:n]`` (ties keep their input order).
    ``exhaustive``: the input writes, so LIMIT 0 still runs it (Neo4j's ExhaustiveLimit)."""
    __slots__ = ("keys", "limit", "skip", "key_fn", "reverse", "exhaustive", "text", "by_props", "props_key")

    def __init__(self, source, keys, limit, skip, exhaustive=False, text="", by_props=None):
        self.source, self.keys, self.limit, self.skip = source, keys, limit, skip
        self.key_fn, self.reverse = sort_key(keys)
        self.exhaustive = exhaustive
        self.text = text                  # "n.ts DESC, n.id SKIP 1 LIMIT 5", for EXPLAIN
        # (var, label, property keys, keys filtered IS NOT NULL) when the input is the label's scan of one
        # row and every key a property of its node: the nodes are ranked from their properties, rows built
        # for the kept only; ``props_key`` is the sort key of a node's properties
        self.by_props = by_props
        self.props_key = None if by_props is None else \
            sort_key([((lambda props, ctx, k=k: props.get(k)), d) for k, (_, d) in zip(by_props[2], keys)])[0]

    def details(self):
        return self.text

    @property
    def name(self):
        return "ExhaustiveTop" if self.exhaustive else "Top"

    def rows(self, ctx, arg):
        limit = count_value(self.limit, ctx, arg, "LIMIT")
        skip = count_value(self.skip, ctx, arg, "SKIP") if self.skip is not None else 0
        if limit == 0:
            if self.exhaustive:
                drain(self.source.rows(ctx, arg))
            return
        pick = heapq.nlargest if self.reverse else heapq.nsmallest
        if self.by_props is not None:
            yield from self._by_props(ctx, arg, pick, skip, limit)
            return
        key_fn = self.key_fn
        decorated = ((key_fn(row, ctx), row) for row in self.source.rows(ctx, arg))
        best = pick(skip + limit, decorated, key=_first)
        for _, row in checked(best[skip:], ctx):
            yield row

    def _by_props(self, ctx, arg, pick, skip: int, limit: int):
        """The label scan's nodes ranked by their properties (the same keys, order and ties as rows
        would get), and rows built only for those kept."""
        var, label, names, present = self.by_props
        found = ctx.tx.nodes_by_label_with_props(label, ctx.check)
        # WHERE n.key IS NOT NULL (one sort key's is applied as its values are read)
        others = tuple(k for k in present if len(names) != 1 or k != names[0])
        if len(others) == 1:
            other = others[0]
            found = ((nid, props) for nid, props in found if props.get(other) is not None)
        elif others:
            found = ((nid, props) for nid, props in found if all(props.get(k) is not None for k in others))
        # ties go by position (earlier first, as heapq's own key= would); (key, position, id) compare in C
        step = -1 if self.reverse else 1
        if len(names) == 1:
            name = names[0]
            pairs = ((nid, props.get(name)) for nid, props in found)
            if name in present:
                pairs = ((nid, value) for nid, value in pairs if value is not None)
            ids, values = [], []
            for nid, value in pairs:
                ids.append(nid)
                values.append(value)
            kept = ranked_numbers(ids, values, self.reverse, skip + limit)
            if kept is None:
                decorated = ((order_key(v), i, nid) for i, nid, v in zip(count(0, step), ids, values))
                kept = [nid for _, _, nid in pick(skip + limit, decorated)]
        else:
            key_fn = self.props_key
            decorated = ((key_fn(props, ctx), i, nid) for i, (nid, props) in zip(count(0, step), found))
            kept = [nid for _, _, nid in pick(skip + limit, decorated)]
        for nid in checked(kept[skip:], ctx):
            out = dict(arg)
            out[var] = NodeRef(nid)
            yield out


def ranked_numbers(ids: list, values: list, descending: bool, n: int) -> list | None:
    """The first ``n`` of ``ids`` in ORDER BY order of ``values`` (ties by position), when every value is
    null or every other one an integer (or every one a float): a stable numpy sort instead of a heap
    fed in Python (a timestamp read newest first fills the heap at every row). None otherwise."""
    types = set(map(type, values))
    has_nulls = type(None) in types
    types.discard(type(None))
    if types == {int}:
        dtype = np.int64
    elif types == {float}:
        dtype = np.float64          # NaN sorts above every number, as in Cypher
    else:
        return None
    nulls = [i for i, v in enumerate(values) if v is None] if has_nulls else []
    if nulls:
        present = [i for i, v in enumerate(values) if v is not None]
        values = [values[i] for i in present]
    try:
        array = np.array(values, dtype=dtype)
    except OverflowError:
        return None
    if descending:                  # stable descending: ascending over the reversed array, reversed
        order = (len(array) - 1 - np.argsort(array[::-1], kind="stable")[::-1])
    else:
        order = np.argsort(array, kind="stable")
    order = order[:n].tolist()
    if nulls:
        order = [present[i] for i in order]
        # nulls sort last ascending, so first descending (in their input order either way)
        order = (nulls + order)[:n] if descending else (order + nulls)[:n]
    return [ids[i] for i in order]


def count_value(fn, ctx, arg, what: str) -> int:
    """The value of a SKIP / LIMIT expression: a non-negative integer."""
    value = fn(arg, ctx)
    if type(value) is not int:
        raise ArgumentError(f"{what}: {value!r} is not a valid value, it must be a non-negative integer "
                            f"(got {type_name(value)})", detail="InvalidArgumentType", phase="runtime")
    if value < 0:
        raise ArgumentError(f"{what}: {value} is not a valid value, it must be a non-negative integer",
                            detail="NegativeIntegerArgument", phase="runtime")
    return value


class Skip(Operator):
    __slots__ = ("count",)
    name = "Skip"

    def __init__(self, source, count):
        self.source, self.count = source, count

    def rows(self, ctx, arg):
        n = count_value(self.count, ctx, arg, "SKIP")
        for row in self.source.rows(ctx, arg):
            if n:
                n -= 1
                continue
            yield row


class Limit(Operator):
    """The first n rows; it stops pulling its input once they came (LIMIT 0 never starts it).
    ``exhaustive``: the input writes, so it runs to the end anyway (Neo4j's ExhaustiveLimit)."""
    __slots__ = ("count", "exhaustive")

    def __init__(self, source, count, exhaustive=False):
        self.source, self.count, self.exhaustive = source, count, exhaustive

    @property
    def name(self):
        return "ExhaustiveLimit" if self.exhaustive else "Limit"

    def rows(self, ctx, arg):
        n = count_value(self.count, ctx, arg, "LIMIT")
        if n == 0:
            if self.exhaustive:
                drain(self.source.rows(ctx, arg))
            return
        rows = self.source.rows(ctx, arg)
        for row in rows:
            yield row
            n -= 1
            if n == 0:
                if self.exhaustive:
                    drain(rows)
                return


def drain(rows) -> None:
    """Run ``rows`` to the end for their effects."""
    for _ in rows:
        pass


class Select(Operator):
    __slots__ = ("columns",)
    name = "Select"

    def __init__(self, source, columns):
        self.source, self.columns = source, columns

    def rows(self, ctx, arg):
        columns = self.columns
        for row in self.source.rows(ctx, arg):
            yield {c: row[c] for c in columns}


class Unwind(Operator):
    __slots__ = ("expr", "var")
    name = "Unwind"

    def __init__(self, source, expr, var):
        self.source, self.expr, self.var = source, expr, var

    def details(self):
        return self.var

    def rows(self, ctx, arg):
        expr, var = self.expr, self.var
        for row in self.source.rows(ctx, arg):
            value = expr(row, ctx)
            if value is None:
                continue
            kind = type(value)
            if kind is not list and kind is not range:      # range: a lazy UNWIND range(...)
                value = value.tolist() if hasattr(value, "to_numpy") else [value]
            for item in checked(value, ctx):
                out = dict(row)
                out[var] = item
                yield out


class ProduceResults(Operator):
    """Rows as tuples in column order (what the engine streams to the caller)."""
    __slots__ = ("columns",)
    name = "ProduceResults"

    def __init__(self, source, columns):
        self.source, self.columns = source, columns

    def details(self):
        return ", ".join(self.columns)

    def rows(self, ctx, arg):
        columns = self.columns
        if len(columns) == 1:
            column = columns[0]
            for row in self.source.rows(ctx, arg):
                yield (row[column],)
        else:
            for row in self.source.rows(ctx, arg):
                yield tuple([row[c] for c in columns])


class ProjectResults(Operator):
    """A final RETURN projection fused with ProduceResults: tuples straight from the expressions."""
    __slots__ = ("columns", "fns")
    name = "ProduceResults"

    def __init__(self, source, columns, fns):
        self.source, self.columns, self.fns = source, columns, tuple(fns)

    def details(self):
        return ", ".join(self.columns)

    def rows(self, ctx, arg):
        fns = self.fns
        if len(fns) == 1:
            fn = fns[0]
            for row in self.source.rows(ctx, arg):
                yield (fn(row, ctx),)
        else:
            for row in self.source.rows(ctx, arg):
                yield tuple([fn(row, ctx) for fn in fns])


class EmptyResult(Operator):
    """Runs the input for its effects and yields nothing (statements without RETURN)."""
    __slots__ = ()
    name = "EmptyResult"

    def __init__(self, source):
        self.source = source

    def rows(self, ctx, arg):
        drain(self.source.rows(ctx, arg))
        return
        yield

