"""Physical operators that read the graph: scans, seeks, expansion, filters.

Every operator is stateless (a plan is shared by concurrent runs): ``rows(ctx, arg)`` is a generator
over dict rows, reading from its source with the same ``arg``. Operators never mutate the rows they
receive; they yield new dicts (``dict(row)`` then set) or pass the row on unchanged.
Cancellation: loops over storage or lists count each item (``ctx.check()`` / ``checked``), see context.py.
"""
from __future__ import annotations

import time
from typing import Any, Callable, Iterator, Optional

from relate.protocol.errors import CypherTypeError

from ...context import checked
from ...refs import NodeRef, PathRef, RelRef
from ..values.ops import group_key, type_name
from ..values.ops import order_key as cypher_order_key


class Operator:
    """Base of physical operators; ``name`` and ``details()`` describe it in EXPLAIN."""
    __slots__ = ("source",)
    name = "Operator"

    def children(self) -> list["Operator"]:
        source = getattr(self, "source", None)
        return [source] if source is not None else []

    def nested(self) -> list["Operator"]:
        return []

    def details(self) -> str:
        return ""

    def rows(self, ctx, arg: dict) -> Iterator[dict]:
        raise NotImplementedError

    def count(self, ctx, arg: dict) -> int:
        """How many rows ``rows`` would yield (operators override it to skip building them)."""
        n = 0
        for _ in self.rows(ctx, arg):
            n += 1
        return n

    def exists(self, ctx, arg: dict) -> bool:
        """Whether ``rows`` would yield a row (operators override it to skip building one)."""
        it = self.rows(ctx, arg)
        try:
            for _ in it:
                return True
            return False
        finally:
            close = getattr(it, "close", None)
            if close is not None:
                close()


class Profiled(Operator):
    """Wraps an operator for PROFILE: rows produced and time spent in it (children included)."""
    __slots__ = ("inner", "row_count", "seconds")

    def __init__(self, inner: Operator):
        self.inner = inner
        self.row_count = 0
        self.seconds = 0.0

    @property
    def name(self):
        return self.inner.name

    def children(self):
        return self.inner.children()

    def nested(self):
        return self.inner.nested()

    def details(self):
        return self.inner.details()

    def rows(self, ctx, arg):
        it = self.inner.rows(ctx, arg)
        clock = time.perf_counter
        while True:
            start = clock()
            try:
                row = next(it)
            except StopIteration:
                self.seconds += clock() - start
                return
            self.seconds += clock() - start
            self.row_count += 1
            yield row


class Argument(Operator):
    """The leaf of every plan: yields the row the plan runs with."""
    __slots__ = ("bound",)
    name = "Argument"

    def __init__(self, bound):
        self.source = None
        self.bound = bound

    def details(self):
        return ", ".join(b for b in self.bound if not b.startswith(" "))

    def rows(self, ctx, arg):
        yield arg


def label_test(labels) -> Optional[Callable[[frozenset], bool]]:
    """A predicate over a node's label set, from an ast.LabelExpr (None = any node)."""
    if labels is None:
        return None
    from ..expressions import _label_predicate    # the expression compiler's label semantics
    return _label_predicate(labels)


# ---------------------------------------------------------------- node scans and seeks
class AllNodesScan(Operator):
    """Every node; ``key``, ``value`` and ``compare`` as for NodeByLabelScan."""
    __slots__ = ("var", "key", "value", "compare", "transform", "also")
    name = "AllNodesScan"

    def __init__(self, source, var, key=None, value=None, compare="=", transform=None, also=()):
        self.source, self.var = source, var
        self.key, self.value, self.compare, self.transform = key, value, compare, transform
        self.also = also

    def details(self):
        return self.var

    def rows(self, ctx, arg):
        var, check = self.var, ctx.check
        key, value_fn = self.key, self.value
        for row in self.source.rows(ctx, arg):
            nodes = None
            if value_fn is not None:
                sought = _row_sought(self, row, ctx)
                if sought is _NOTHING:
                    continue
                if sought is not None:
                    nodes = _looked_up(ctx, "node", None, key, sought, self.transform, self.also, row)
                    if nodes is None:
                        nodes = ctx.tx.all_nodes_with_values(key, sought, check)
            for nid in (ctx.tx.all_nodes() if nodes is None else nodes):
                check()
                out = dict(row)
                out[var] = NodeRef(nid)
                yield out

    def count(self, ctx, arg) -> int:
        # ``count(*)`` of every node: the store's count for the snapshot (with a write's own changes)
        if self.value is not None or type(self.source) is not Argument:
            return super().count(ctx, arg)
        return ctx.tx.count_nodes()


class NodeByLabelScan(Operator):
    """The label's nodes; with ``key`` and ``value`` (a compiled expression of the input row) only those
    whose property ``key`` may pass ``key <compare> value``, tested by the store as it scans, when the
    value is one the scan can compare (else every node is yielded: the filter above decides)."""
    __slots__ = ("var", "label", "key", "value", "compare", "transform", "also")
    name = "NodeByLabelScan"

    def __init__(self, source, var, label, key=None, value=None, compare="=", transform=None, also=()):
        self.source, self.var, self.label = source, var, label
        self.key, self.value, self.compare, self.transform = key, value, compare, transform
        self.also = also            # ((key, compiled value), ...): other equalities, for the lookup

    def details(self):
        return f"{self.var}:{self.label}"

    def rows(self, ctx, arg):
        var, label, check = self.var, self.label, ctx.check
        key, value_fn = self.key, self.value
        for row in self.source.rows(ctx, arg):
            nodes = None
            if value_fn is not None:
                sought = _row_sought(self, row, ctx)
                if sought is _NOTHING:
                    continue
                if sought is not None:
                    nodes = _looked_up(ctx, "node", label, key, sought, self.transform, self.also, row)
                    if nodes is None:
                        nodes = ctx.tx.nodes_by_label_and_values(label, key, sought, check)
            if nodes is None:
                nodes = ctx.tx.nodes_by_label(label)
            for nid in nodes:
                check()
                out = dict(row)
                out[var] = NodeRef(nid)
                yield out

    def count(self, ctx, arg) -> int:
        # ``MATCH (n:L) RETURN count(n)``: the store's count of the label (NodeCountFromCountStore in Neo4j);
        # only as the plan's first operator (a product of scans still counts its rows, as it did)
        if self.value is not None or type(self.source) is not Argument:
            return super().count(ctx, arg)
        return ctx.tx.count_nodes(self.label)


_SCALARS = frozenset((str, int, float, bool))
_NUMBERS = (int, float)
_NOTHING = frozenset()

# A scan for a property's value repeated per input row (UNWIND ... MERGE (n:L {key: ...}) with no index
# on the key; of a label, of every node or of a relationship type) builds a transient hash index for the
# rest of the statement (relate.server.storage.value_lookup) from its LOOKUP_AFTER-th run, once the set
# holds LOOKUP_MIN entities: below that a scan costs about what a lookup does, and one or two scans
# cost less than building the map.
LOOKUP_AFTER = 3
LOOKUP_MIN = 128
_LOOKUP = object()          # ctx.memo key prefix: (_LOOKUP, entity, name, key, transform) -> scans so far, or the lookup


def _looked_up(ctx, entity: str, name: str | None, key: str, sought, transform: str | None, also=(), row=None):
    """The set's entities whose ``key`` may pass ``sought`` (a scan's: values to be among, for ``=`` and
    ``IN``, also of toLower/toUpper of the key), through the statement's transient index; None for
    another test, or while scanning is cheaper (the caller scans). With ``also`` (the scan's other
    equalities) and one value sought, the index is keyed by all of them."""
    keys: tuple = (key,)
    if transform is None:
        if type(sought) is not frozenset:
            return None
        if also and len(sought) == 1:
            values = _also_values(also, row, ctx)
            if values is not None:
                keys = (key, *(other for other, _ in also))
                sought = frozenset(((*sought, *values),))
    else:
        sought = getattr(sought, "among", None)
        if sought is None:
            return None
    slot = (_LOOKUP, entity, name, keys, transform)
    memo = ctx.memo
    lookup = memo.get(slot, 0)
    if type(lookup) is int:
        tx = ctx.tx
        size = tx.count_nodes(name) if entity == "node" else tx.count_rels(name)
        if lookup + 1 < LOOKUP_AFTER or size < LOOKUP_MIN:
            memo[slot] = lookup + 1
            return None
        lookup = memo[slot] = tx.value_lookup(entity, name, keys, ctx.check, transform)
    return lookup.find(ctx.tx, sought, ctx.check)


def _also_values(also, row, ctx):
    """The values of a scan's other equalities in ``row`` when each is one a key can hold (a string,
    number or boolean, not NaN); None otherwise (the lookup then goes by the scan's own key alone)."""
    values = []
    for _, value in also:
        try:
            v = value(row, ctx)
        except Exception:           # the filter above raises it, per entity, as without the lookup
            return None
        if type(v) not in _SCALARS or v != v:
            return None
        values.append(v)
    return values


def _row_sought(scan, row, ctx):
    """``_sought`` for a prefiltering scan's value in ``row``; None (scan everything) when computing the
    value fails: the filter above raises that error per entity, as it would without the scan's test."""
    try:
        return _sought(scan.value(row, ctx), scan.compare, scan.transform)
    except Exception:
        return None


def _sought(value, compare: str, transform: str | None = None):
    """What a property must be to pass ``property <compare> value``: a frozenset of scalars it must be
    among (``=``, ``IN``: Python's equality, a superset of Cypher's), or a test of one property value
    (``<``, ``STARTS WITH``, ...: True for every value that may pass); _NOTHING when none can (null,
    NaN, an empty list); None when the scan cannot tell (lists, maps, temporals: it yields everything).
    With ``transform`` ("lower", "upper") the property is compared as toLower/toUpper gives it; a value
    that is not a string passes (the filter's toLower raises for it, as it would without the scan's test)."""
    sought = _plain_sought(value, compare)
    if transform is None or sought is None:
        return sought
    if sought is _NOTHING:              # no string passes; others still reach the filter (it raises)
        return _not_a_string
    case = str.lower if transform == "lower" else str.upper
    if isinstance(sought, frozenset):
        def among_cased(v) -> bool:
            return type(v) is not str or case(v) in sought
        among_cased.among = sought          # type: ignore[attr-defined]  # for a transient lookup
        return among_cased
    return lambda v: type(v) is not str or sought(case(v))


def _not_a_string(value) -> bool:
    return type(value) is not str


_not_a_string.among = _NOTHING          # type: ignore[attr-defined]


def _plain_sought(value, compare: str):
    if value is None:
        return _NOTHING                             # a comparison with null holds for nothing
    kind = type(value)
    if compare == "=":
        if value != value:                          # NaN: equal to nothing
            return _NOTHING
        return frozenset((value,)) if kind in _SCALARS else None
    if compare == "IN":
        if kind is not list or not set(map(type, value)) <= _SCALARS | {type(None)}:
            return None
        return frozenset(item for item in value if item is not None and item == item)
    if compare in _STRING_TESTS:
        return _STRING_TESTS[compare](value) if kind is str else None
    if (kind is int or kind is float) and value == value:
        return _RANGE_TESTS[compare](value, _NUMBERS)
    if kind is float:
        return _NOTHING                             # NaN: every order comparison is false
    if kind is str:
        return _RANGE_TESTS[compare](value, str)
    return None


# Ordering tests: numbers compare with numbers, strings with strings (anything else is null in Cypher).
_RANGE_TESTS = {
    "<": lambda bound, kinds: lambda v: isinstance(v, kinds) and type(v) is not bool and v < bound,
    "<=": lambda bound, kinds: lambda v: isinstance(v, kinds) and type(v) is not bool and v <= bound,
    ">": lambda bound, kinds: lambda v: isinstance(v, kinds) and type(v) is not bool and v > bound,
    ">=": lambda bound, kinds: lambda v: isinstance(v, kinds) and type(v) is not bool and v >= bound,
}
_STRING_TESTS = {
    "STARTS WITH": lambda text: lambda v: type(v) is str and v.startswith(text),
    "ENDS WITH": lambda text: lambda v: type(v) is str and v.endswith(text),
    "CONTAINS": lambda text: lambda v: type(v) is str and text in v,
}


list_iterator = type(iter([]))
# Operators whose rows are new dicts, not kept after they are yielded (a consumer may extend them).
FRESH_ROW_SOURCES = frozenset(("Unwind", "NodeIndexSeek", "LoadCsv"))


class NodeIndexSeek(Operator):
    """``n:Label`` with ``n.key = value`` (or ``IN list``) through a property index."""
    __slots__ = ("var", "label", "key", "value", "many", "value_text")
    name = "NodeIndexSeek"

    def __init__(self, source, var, label, key, value, many=False, value_text=""):
        self.source, self.var, self.label, self.key, self.value, self.many = source, var, label, key, value, many
        self.value_text = value_text          # the sought value as Cypher, for EXPLAIN

    def details(self):
        return f"{self.var}:{self.label}({self.key}) {'IN' if self.many else '='} {self.value_text}".rstrip()

    def rows(self, ctx, arg):
        var, label, key, value_fn, many = self.var, self.label, self.key, self.value, self.many
        check = ctx.check
        seek = ctx.tx.index_seek
        # A source that yields a new dict per row and never touches it again: one match extends it in place.
        fresh = type(self.source).__name__ in FRESH_ROW_SOURCES
        for row in self.source.rows(ctx, arg):
            value = value_fn(row, ctx)
            if value is None:
                continue
            if not many:
                ids = seek("node", label, key, value)
                if fresh and type(ids) is list_iterator and ids.__length_hint__() == 1:
                    check()
                    row[var] = NodeRef(next(ids))
                    yield row
                    continue
                for nid in ids:
                    check()
                    out = dict(row)
                    out[var] = NodeRef(nid)
                    yield out
                continue
            if many:
                if not isinstance(value, list):
                    raise CypherTypeError(f"IN expected a list, got {type_name(value)}",
                                          detail="InvalidArgumentType", phase="runtime")
                seen = set()
                ids = []
                for v in value:
                    if v is None:
                        continue
                    k = group_key(v)
                    if k in seen:
                        continue
                    seen.add(k)
                    ids.extend(seek("node", label, key, v))
            else:
                ids = seek("node", label, key, value)
            check = ctx.check
            for nid in ids:
                check()
                out = dict(row)
                out[var] = NodeRef(nid)
                yield out


_INDEX_SCAN_NAMES = {"IS NOT NULL": "NodeIndexScan", "CONTAINS": "NodeIndexContainsScan",
                     "ENDS WITH": "NodeIndexEndsWithScan"}


class NodeIndexRange(Operator):
    """``n:Label`` with ``n.key`` in a range (``<``, ``>=``, ...), ``STARTS WITH`` a prefix, ``CONTAINS`` or
    ``ENDS WITH`` a string, or ``IS NOT NULL``,
    through a property index; the filter above decides. What the index cannot answer (a list bound, a
    NaN left out of it, an order across kinds) scans the label (sorted as ORDER BY sorts, when ordered)."""
    __slots__ = ("var", "label", "key", "compare", "value", "upper", "range_text", "descending")

    @property
    def name(self):
        # Neo4j's names: every node with the key (IS NOT NULL) is its index scan, a substring its own scan
        return _INDEX_SCAN_NAMES.get(self.compare, "NodeIndexSeekByRange")

    def __init__(self, source, var, label, key, compare, value, upper=None, range_text="", descending=None):
        self.source, self.var, self.label, self.key = source, var, label, key
        self.compare, self.value, self.upper, self.range_text = compare, value, upper, range_text
        self.descending = descending        # not None: rows in the key's order (an ORDER BY relies on it)

    def details(self):
        order = "" if self.descending is None else f" ORDER BY {self.key} {'DESC' if self.descending else 'ASC'}"
        return f"{self.var}:{self.label}({self.key}) {self.range_text}{order}".rstrip()

    def rows(self, ctx, arg):
        var, label, key, compare, value_fn = self.var, self.label, self.key, self.compare, self.value
        tx = ctx.tx
        check = ctx.check
        for row in self.source.rows(ctx, arg):
            ids = tx.index_candidates("node", label, key, compare, value_fn(row, ctx), _upper(self.upper, row, ctx),
                                      self.descending)
            if ids is None:
                ids = tx.nodes_by_label(label)
                if self.descending is not None:     # a bound the index cannot order (a list): sort as ORDER BY
                    ids = sorted(ids, key=lambda nid: cypher_order_key(tx.node_prop(nid, key)),
                                 reverse=self.descending)
            for nid in ids:
                check()
                out = dict(row)
                out[var] = NodeRef(nid)
                yield out


def _upper(upper, row, ctx):
    """An index range's upper bound (comparison, value) for ``row``, or None."""
    return None if upper is None else (upper[0], upper[1](row, ctx))


class NodeByIdSeek(Operator):
    __slots__ = ("var", "ids", "many")
    name = "NodeByIdSeek"

    def __init__(self, source, var, ids, many=False):
        self.source, self.var, self.ids, self.many = source, var, ids, many

    def details(self):
        return self.var

    def rows(self, ctx, arg):
        var = self.var
        for row in self.source.rows(ctx, arg):
            value = self.ids(row, ctx)
            values = value if self.many and isinstance(value, list) else [value]
            seen = set()
            for v in checked(values, ctx):
                if type(v) is not int or v in seen or not ctx.tx.node_exists(v):
                    continue
                seen.add(v)
                out = dict(row)
                out[var] = NodeRef(v)
                yield out


# ---------------------------------------------------------------- relationships
def expansion_ends(row: dict, start: str, end: str, into: bool) -> Optional[tuple[int, Optional[int]]]:
    """(start node id, the bound end's id when expanding into it) of a row to expand from; None when
    either is null (the row has no match)."""
    node = row[start]
    if node is None:
        return None
    if type(node) is not NodeRef:
        raise CypherTypeError(f"Expected a node, got {type_name(node)}", detail="InvalidArgumentType",
                              phase="runtime")
    if not into:
        return node.id, None
    bound = row[end]
    return None if bound is None else (node.id, bound.id)


def used_rel_ids(row: dict, names) -> set:
    """Ids of relationships bound to ``names`` (single relationships or var-length lists)."""
    used = set()
    for name in names:
        value = row.get(name)
        if type(value) is RelRef:
            used.add(value.id)
        elif type(value) is list:
            used.update(r.id for r in value if type(r) is RelRef)
    return used


class RelTypeScan(Operator):
    """``(a)-[r:T]->(b)`` with nothing bound: every relationship of the types, both endpoints bound;
    ``indexed``: those whose ``key`` may pass ``key <compare> value``, through each type's property index
    (the filters above decide)."""
    __slots__ = ("start", "rel", "end", "types", "direction", "start_test", "end_test", "unique_with", "key",
                 "value", "compare", "transform", "indexed", "upper", "range_text", "also")

    def __init__(self, source, start, rel, end, types, direction, start_labels, end_labels, unique_with,
                 key=None, value=None, compare="=", transform=None, indexed=False, upper=None, range_text="",
                 also=()):
        self.source, self.start, self.rel, self.end = source, start, rel, end
        self.types, self.direction = types, direction
        self.start_test, self.end_test = label_test(start_labels), label_test(end_labels)
        self.unique_with = unique_with
        # as NodeByLabelScan's, for the relationship
        self.key, self.value, self.compare, self.transform = key, value, compare, transform
        self.indexed, self.upper, self.range_text = indexed, upper, range_text
        self.also = also

    @property
    def name(self):
        # Neo4j's names: the scan, or the seek through a property index (by range for <, STARTS WITH, ...)
        kind = "Directed" if self.direction != "both" else "Undirected"
        if not self.indexed:
            return kind + "RelationshipTypeScan"
        if self.compare in ("CONTAINS", "ENDS WITH"):
            return kind + "RelationshipIndex" + ("ContainsScan" if self.compare == "CONTAINS" else "EndsWithScan")
        return kind + ("RelationshipIndexSeek" if self.compare in ("=", "IN") else "RelationshipIndexSeekByRange")

    def details(self):
        arrow = {"out": "-[{}]->", "in": "<-[{}]-", "both": "-[{}]-"}[self.direction]
        pattern = f"({self.start.strip()}){arrow.format(self.rel.strip() + ':' + '|'.join(self.types))}" \
                  f"({self.end.strip()})"
        if self.indexed:
            pattern += f" WHERE {self.rel.strip()}.{self.key} {self.range_text}".rstrip()
        return pattern

    def count(self, ctx, arg) -> int:
        # ``MATCH ()-[r:T]->() RETURN count(r)``: the store's count of each type, when every relationship
        # of the types gives one row (directed, no end-label test, no other relationship to differ from)
        if self.value is not None or self.direction == "both" or self.start_test is not None or \
                self.end_test is not None or self.unique_with or type(self.source) is not Argument:
            return super().count(ctx, arg)
        return sum(ctx.tx.count_rels(t) for t in self.types)

    def _candidates(self, ctx, row, tx, rel_type, value, upper, tick):
        """The relationship ids of ``rel_type`` to try for one input row (all of them, or the index's)."""
        if self.indexed:
            ids = tx.index_candidates("relationship", rel_type, self.key, self.compare, value, upper)
            return tx.rels_by_type(rel_type) if ids is None else ids
        if value is None:
            return tx.rels_by_type(rel_type)
        ids = _looked_up(ctx, "relationship", rel_type, self.key, value, self.transform, self.also, row)
        if ids is not None:
            return ids
        return tx.rels_by_type_and_values(rel_type, self.key, value, tick)

    def rows(self, ctx, arg):
        tx = ctx.tx
        start_var, rel_var, end_var = self.start, self.rel, self.end
        start_test, end_test, direction = self.start_test, self.end_test, self.direction
        value_fn, indexed = self.value, self.indexed
        for row in self.source.rows(ctx, arg):
            sought = upper = None
            if indexed:
                sought, upper = value_fn(row, ctx), _upper(self.upper, row, ctx)
                if sought is None:
                    continue                # equal to, below or after null: nothing
            elif value_fn is not None:
                sought = _row_sought(self, row, ctx)
                if sought is _NOTHING:
                    continue
            used = used_rel_ids(row, self.unique_with) if self.unique_with else None
            for rel_type in self.types:
                for rid in self._candidates(ctx, row, tx, rel_type, sought, upper, ctx.check):
                    ctx.check()
                    if used and rid in used:
                        continue
                    s, e = tx.rel_endpoints(rid)
                    if direction == "in":
                        pairs = ((e, s),)
                    elif direction == "both" and s != e:
                        pairs = ((s, e), (e, s))
                    else:
                        pairs = ((s, e),)
                    for a, b in pairs:
                        if start_test is not None and not start_test(tx.node_labels(a)):
                            continue
                        if end_test is not None and not end_test(tx.node_labels(b)):
                            continue
                        out = dict(row)
                        out[start_var] = NodeRef(a)
                        out[rel_var] = RelRef(rid)
                        out[end_var] = NodeRef(b)
                        yield out


class ExpandDegree(Operator):
    """Each input row once, with how many relationships of ``types`` its ``start`` node has in
    ``direction`` (what Expand would yield for it) in ``degree``; none for a null node or no
    relationship, as Expand yields none (rule degree_count: the counts are all that is read)."""
    __slots__ = ("start", "types", "direction", "degree")
    name = "Expand(Degree)"

    def __init__(self, source, start, types, direction, degree):
        self.source, self.start, self.types, self.direction, self.degree = source, start, types or None, direction, degree

    def details(self):
        arrow = {"out": "-[{}]->", "in": "<-[{}]-", "both": "-[{}]-"}[self.direction]
        return f"({self.start.strip()}){arrow.format(':' + '|'.join(self.types) if self.types else '')}()"

    def rows(self, ctx, arg):
        start, types, direction, name = self.start, self.types, self.direction, self.degree
        degree, check = ctx.tx.degree, ctx.check
        for row in self.source.rows(ctx, arg):
            node = row[start]
            if node is None:
                continue
            if type(node) is not NodeRef:
                raise CypherTypeError(f"Expected `{start}` to be a node, got {type_name(node)}",
                                      detail="InvalidArgumentType", phase="runtime")
            check()
            found = degree(node.id, direction, types)
            if found:
                out = dict(row)
                out[name] = found
                yield out


class Expand(Operator):
    """One hop from a bound node; ``into`` checks the far end against a bound node instead."""
    __slots__ = ("start", "rel", "end", "types", "direction", "into", "end_test", "end_label", "end_key",
                 "unique_with")

    def __init__(self, source, start, rel, end, types, direction, into, end_labels, unique_with):
        self.source, self.start, self.rel, self.end = source, start, rel, end
        self.types = types or None
        self.direction, self.into = direction, into
        self.end_test = label_test(end_labels)
        # One plain label (the usual case): the store tests membership itself (expand_rel_ids).
        self.end_label = getattr(end_labels, "name", None) if type(end_labels).__name__ == "LabelName" else None
        # The far-end test as a cache key (it depends on labels alone; the AST's repr is structural).
        self.end_key = None if end_labels is None else repr(end_labels)
        self.unique_with = unique_with

    @property
    def name(self):
        return "Expand(Into)" if self.into else "Expand(All)"

    def details(self):
        arrow = {"out": "-[{}]->", "in": "<-[{}]-", "both": "-[{}]-"}[self.direction]
        rel = self.rel.strip() + (":" + "|".join(self.types) if self.types else "")
        return f"({self.start.strip()}){arrow.format(rel)}({self.end.strip()})"

    def rows(self, ctx, arg):
        start_var, rel_var, end_var = self.start, self.rel, self.end
        types, direction, into, end_test = self.types, self.direction, self.into, self.end_test
        unique_with = self.unique_with
        check = ctx.check
        tx = ctx.tx
        expand = tx.expand
        small_start = None          # the last start node known to be small: expanded from (_into_ends)
        for row in self.source.rows(ctx, arg):
            node = row[start_var]
            if node is None:
                continue
            if type(node) is not NodeRef:
                raise CypherTypeError(f"Expected `{start_var}` to be a node, got {type_name(node)}",
                                      detail="InvalidArgumentType", phase="runtime")
            used = used_rel_ids(row, unique_with) if unique_with else None
            if into:
                target = row[end_var]
                if target is None:
                    continue
                near, far = node.id, target.id
                if near != small_start:
                    near, far, small = _into_ends(tx, near, far, direction, types)
                    if small:
                        small_start = near
                for rid, other in expand(near, direction if near == node.id else _REVERSED[direction], types):
                    check()
                    if other == far and not (used and rid in used):
                        out = dict(row)
                        out[rel_var] = RelRef(rid)
                        yield out
                continue
            for rid, other in expand(node.id, direction, types):
                check()
                if used and rid in used:
                    continue
                if end_test is not None and not end_test(tx.node_labels(other)):
                    continue
                out = dict(row)
                out[rel_var] = RelRef(rid)
                out[end_var] = NodeRef(other)
                yield out

    def _degree_of(self, ctx, arg, at_most=None):
        """The expansions of the one input row, when they are its node's relationships of the types
        (``(n)-[:T]->()`` in a pattern predicate, EXISTS or COUNT: no end label, none to differ from);
        None when the plain path must decide."""
        if self.into or self.end_test is not None or self.unique_with or type(self.source) is not Argument:
            return None
        node = arg.get(self.start)
        if type(node) is not NodeRef:
            return None             # a null yields nothing, another value raises: as rows() does
        return ctx.tx.degree(node.id, self.direction, self.types, at_most)

    def exists(self, ctx, arg) -> bool:
        found = self._degree_of(ctx, arg, 1)
        return super().exists(ctx, arg) if found is None else found > 0

    def count(self, ctx, arg) -> int:
        """The expansions there would be, without building their rows (``count(*)`` over a pattern).

        On a fixed snapshot (``tx.fixed``: a read-only statement) the far ends a node reaches are the
        same for every row that expands it, so they are found once per start node and kept as the set
        of relationship ids that pass the end-label test; a row then adds that set's size less the
        relationships it already uses. A 2-hop count thus walks each hub's relationships once, not
        once per path (40M paths over 200k relationships: ~50x faster). The memo holds at most
        ``_COUNT_MEMO_LIMIT`` ids; past that, nodes are expanded uncached as before. The sets come
        from ``tx.expand_rel_id_set``, which keeps them across statements while no commit changes
        the graph's structure (relationships, labels, node deletions), so a repeated anchored 2-hop
        count does not walk the hub again.
        """
        found = self._degree_of(ctx, arg)
        if found is not None:
            return found
        start_var, end_var = self.start, self.end
        types, direction, into, end_test = self.types, self.direction, self.into, self.end_test
        unique_with, check = self.unique_with, ctx.check
        tx = ctx.tx
        expand = tx.expand
        memo = {} if (not into and getattr(tx, "fixed", False)) else None
        if memo is not None:
            end_label = self.end_label
            far_test = end_test if end_label is None else None
            # Kept across statements by the store while its structure is unchanged (read_tx.py).
            rel_ids = getattr(tx, "expand_rel_id_set", None)
            end_key = self.end_key
        room = _COUNT_MEMO_LIMIT
        n = 0
        small_start = None
        for row in self.source.rows(ctx, arg):
            node = row[start_var]
            if node is None:
                continue
            if type(node) is not NodeRef:
                raise CypherTypeError(f"Expected `{start_var}` to be a node, got {type_name(node)}",
                                      detail="InvalidArgumentType", phase="runtime")
            used = used_rel_ids(row, unique_with) if unique_with else None
            if memo is not None:
                reached = memo.get(node.id)
                if reached is None:
                    if rel_ids is not None:
                        reached = rel_ids(node.id, direction, types, far_test, end_label, end_key)
                        ctx.charge(len(reached) + 1)
                    else:
                        reached = set()
                        for rid, other in expand(node.id, direction, types):
                            check()
                            if end_test is None or end_test(tx.node_labels(other)):
                                reached.add(rid)
                    if room >= len(reached):
                        room -= len(reached)
                        memo[node.id] = reached
                else:
                    ctx.charge(len(reached))      # the same work budget as walking them again
                n += len(reached) - len(used & reached) if used else len(reached)
                continue
            target_id, near, way = None, node.id, direction
            if into:
                target = row[end_var]
                if target is None:
                    continue
                target_id = target.id
                if near != small_start:
                    near, target_id, small = _into_ends(tx, near, target_id, direction, types)
                    if small:
                        small_start = near
                    elif near != node.id:
                        way = _REVERSED[direction]
            for rid, other in expand(near, way, types):
                check()
                if used and rid in used:
                    continue
                if into:
                    if other == target_id:
                        n += 1
                elif end_test is None or end_test(tx.node_labels(other)):
                    n += 1
        return n


_COUNT_MEMO_LIMIT = 2_000_000     # relationship ids Expand.count keeps memoized (~100 MB at most)
_REVERSED = {"out": "in", "in": "out", "both": "both"}
# Expand(Into) walks the start's relationships unless it has more than INTO_SWAP_AT of them and the end
# has a quarter as many or fewer: then the end's, reversed (MERGE (hub)-[:HAS]->(n) per row walked
# every relationship the hub gained so far; Neo4j's Expand(Into) also expands the smaller side).
# Small nodes keep the start's order (the same rows either way, but not always in the same order).
INTO_SWAP_AT = 32


def _into_ends(tx, start: int, end: int, direction: str, types) -> tuple[int, int, bool]:
    """(node to expand from, node its far end must be, whether ``start`` is small: expanded from
    whatever the end, which the caller may remember for the rows that follow with the same start)."""
    # every type first: an upper bound read at once, so that most rows (small nodes) stop here
    if tx.adjacency_size(start, direction) <= INTO_SWAP_AT:
        return start, end, True
    near = tx.adjacency_size(start, direction, types)
    if near <= INTO_SWAP_AT:
        return start, end, True
    if start != end and 4 * tx.adjacency_size(end, _REVERSED[direction], types) <= near:
        return end, start, False
    return start, end, False


class Filter(Operator):
    __slots__ = ("predicate", "text")
    name = "Filter"

    def __init__(self, source, predicate, text=""):
        self.source, self.predicate, self.text = source, predicate, text

    def details(self):
        return self.text

    def rows(self, ctx, arg):
        predicate = self.predicate
        for row in self.source.rows(ctx, arg):
            if predicate(row, ctx) is True:
                yield row


def expect_path_entity(value: Any, what: str):
    if value is not None and type(value) not in (NodeRef, RelRef, PathRef):
        raise CypherTypeError(f"{what} expected a node, relationship or path, got {type_name(value)}",
                              detail="InvalidArgumentType", phase="runtime")
