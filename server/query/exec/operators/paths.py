"""Path operators: variable-length expansion (DFS), shortest paths (BFS), named path construction."""
from __future__ import annotations

from relate.protocol.errors import CypherTypeError

from ...context import checked
from ...refs import NodeRef, PathRef, RelRef
from .base import Operator, expansion_ends, label_test, used_rel_ids
from ..values.ops import equals, type_name


def _rel_matches(tx, rid: int, props: dict) -> bool:
    for key, value in props.items():
        if equals(tx.rel_prop(rid, key), value) is not True:
            return False
    return True


class VarExpand(Operator):
    """``(a)-[r*min..max]->(b)``: every path without a repeated relationship, depth first."""
    __slots__ = ("start", "rel", "end", "types", "direction", "into", "min", "max", "end_test",
                 "rel_props", "unique_with", "backwards", "repeatable")

    def __init__(self, source, start, rel, end, types, direction, into, length, end_labels, rel_props,
                 unique_with, backwards, repeatable=False):
        self.source, self.start, self.rel, self.end = source, start, rel, end
        self.types, self.direction, self.into = types or None, direction, into
        self.min, self.max = length
        self.end_test = label_test(end_labels)
        self.rel_props, self.unique_with, self.backwards = rel_props, unique_with, backwards
        self.repeatable = repeatable       # REPEATABLE ELEMENTS: walks (a relationship may come again)

    @property
    def name(self):
        return "VarLengthExpand(Into)" if self.into else "VarLengthExpand(All)"

    def details(self):
        hi = "" if self.max is None else self.max
        return f"({self.start.strip()})-[{self.rel.strip()}*{self.min}..{hi}]-({self.end.strip()})"

    def rows(self, ctx, arg):
        for row in self.source.rows(ctx, arg):
            ends = expansion_ends(row, self.start, self.end, self.into)
            if ends is None:
                continue
            start, target = ends
            props = self.rel_props(row, ctx) if self.rel_props is not None else None
            if props is not None and not isinstance(props, dict):
                raise CypherTypeError("Relationship property map expected", detail="InvalidArgumentType",
                                      phase="runtime")
            used = used_rel_ids(row, self.unique_with) if self.unique_with else set()
            for end_id, rels in self._paths(ctx, start, used, props):
                if target is not None and end_id != target:
                    continue
                if self.end_test is not None and target is None and not self.end_test(ctx.tx.node_labels(end_id)):
                    continue
                out = dict(row)
                refs = [RelRef(r) for r in rels]
                if self.backwards:
                    refs.reverse()
                out[self.rel] = refs
                if target is None:
                    out[self.end] = NodeRef(end_id)
                yield out

    def _paths(self, ctx, start: int, used: set, props):
        tx, types, direction = ctx.tx, self.types, self.direction
        lo, hi = self.min, self.max
        rels: list[int] = []
        on_path: set[int] = set()
        repeatable = self.repeatable
        if lo == 0:
            yield start, []
        if hi is not None and hi < 1:
            return
        # Explicit stack of (node, iterator over its relationships) keeps deep paths off the C stack.
        stack = [iter(tx.expand(start, direction, types))]
        while stack:
            ctx.check()
            step = next(stack[-1], None)
            if step is None:
                stack.pop()
                if rels:
                    on_path.discard(rels.pop())
                continue
            rid, other = step
            if not repeatable and (rid in on_path or rid in used):
                continue
            if props and not _rel_matches(tx, rid, props):
                continue
            rels.append(rid)
            if not repeatable:
                on_path.add(rid)
            depth = len(rels)
            if depth >= lo:
                yield other, list(rels)
            if hi is None or depth < hi:
                stack.append(iter(tx.expand(other, direction, types)))
            else:
                on_path.discard(rels.pop())


class ShortestPath(Operator):
    """shortestPath / allShortestPaths between two bound nodes, breadth first; SHORTEST k (k paths)
    and SHORTEST k GROUPS (every path of the k shortest lengths) by iterative deepening over trails."""
    __slots__ = ("start", "end", "rel", "path", "types", "direction", "min", "max", "all_paths",
                 "rel_props", "predicate", "k")

    def __init__(self, source, start, end, rel, path, types, direction, length, all_paths, rel_props, predicate,
                 k=1):
        self.source, self.start, self.end, self.rel, self.path = source, start, end, rel, path
        self.types, self.direction = types or None, direction
        self.min, self.max = length
        self.all_paths, self.rel_props, self.predicate, self.k = all_paths, rel_props, predicate, k

    @property
    def name(self):
        return "AllShortestPaths" if self.all_paths else "ShortestPath"

    def rows(self, ctx, arg):
        for row in self.source.rows(ctx, arg):
            a, b = row[self.start], row[self.end]
            if a is None or b is None:
                continue
            props = self.rel_props(row, ctx) if self.rel_props is not None else None
            if self.predicate is None and not props and self.k == 1:
                found = self._bfs(ctx, a.id, b.id)
            else:
                found = self._deepening(ctx, row, a.id, b.id, props)
            for nodes, rels in checked(found, ctx):
                out = dict(row)
                if self.path:
                    out[self.path] = PathRef(tuple(NodeRef(n) for n in nodes), tuple(RelRef(r) for r in rels))
                if self.rel:
                    out[self.rel] = [RelRef(r) for r in rels]
                if self.predicate is not None and self.predicate(out, ctx) is not True:
                    continue
                yield out

    def _bfs(self, ctx, start: int, end: int):
        if start == end:
            return [([start], [])] if self.min == 0 else []
        tx, types, direction = ctx.tx, self.types, self.direction
        parents: dict[int, list[tuple[int, int]]] = {start: []}
        frontier = [start]
        depth = 0
        while frontier and end not in parents:
            if self.max is not None and depth >= self.max:
                return []
            depth += 1
            level: dict[int, list[tuple[int, int]]] = {}
            check = ctx.check
            for nid in frontier:
                for rid, other in tx.expand(nid, direction, types):
                    check()
                    if other in parents:
                        continue
                    level.setdefault(other, []).append((nid, rid))
            parents.update(level)
            frontier = list(level)
        if end not in parents or depth < self.min:
            return []
        paths = []
        # Walk parents back from the end; allShortestPaths follows every parent.
        stack = [(end, [end], [])]
        while stack:
            ctx.check()
            nid, nodes, rels = stack.pop()
            if nid == start:
                paths.append((nodes[::-1], rels[::-1]))
                if not self.all_paths:
                    break
                continue
            options = parents[nid] if self.all_paths else parents[nid][:1]
            for prev, rid in options:
                stack.append((prev, nodes + [prev], rels + [rid]))
        return paths

    def _deepening(self, ctx, row, start: int, end: int, props):
        """With predicates: the shortest lengths whose paths pass, by iterative deepening."""
        tx, types, direction = ctx.tx, self.types, self.direction
        limit = self.max if self.max is not None else max(1, tx.count_rels())
        k, trails = self.k, self.k > 1        # the k shortest may revisit a node (never a relationship)
        kept: list = []
        groups = 0
        for length in range(max(self.min, 0 if start == end else 1), limit + 1):
            if trails:
                found = [path for path in self._passing(ctx, row, tx, start, end, length, props, True)]
                if found:
                    groups += 1
                    kept.extend(found if self.all_paths else found[:k - len(kept)])
                if (groups if self.all_paths else len(kept)) >= k:
                    break
                continue
            found = []
            for nodes, rels in _paths_of_length(ctx, tx, start, end, length, direction, types, props):
                candidate = dict(row)
                if self.path:
                    candidate[self.path] = PathRef(tuple(NodeRef(n) for n in nodes),
                                                   tuple(RelRef(r) for r in rels))
                if self.rel:
                    candidate[self.rel] = [RelRef(r) for r in rels]
                if self.predicate is None or self.predicate(candidate, ctx) is True:
                    found.append((nodes, rels))
                    if not self.all_paths:
                        return found
            if found:
                return found
        return kept

    def _passing(self, ctx, row, tx, start, end, length, props, trails):
        """The paths of one length whose rows pass the statement's path predicates."""
        for nodes, rels in _paths_of_length(ctx, tx, start, end, length, self.direction, self.types, props, trails):
            if self.predicate is not None:
                candidate = dict(row)
                if self.path:
                    candidate[self.path] = PathRef(tuple(NodeRef(n) for n in nodes), tuple(RelRef(r) for r in rels))
                if self.rel:
                    candidate[self.rel] = [RelRef(r) for r in rels]
                if self.predicate(candidate, ctx) is not True:
                    continue
            yield nodes, rels


def _paths_of_length(ctx, tx, start, end, length, direction, types, props, trails=False):
    """Paths of exactly ``length`` hops from start to end: simple paths, or trails (nodes may repeat)."""
    def walk(nid, nodes, rels):
        ctx.check()
        if len(rels) == length:
            if nid == end:
                yield list(nodes), list(rels)
            return
        for rid, other in tx.expand(nid, direction, types):
            if rid in rels or (not trails and other in nodes):
                continue
            if props and not _rel_matches(tx, rid, props):
                continue
            nodes.append(other)
            rels.append(rid)
            yield from walk(other, nodes, rels)
            nodes.pop()
            rels.pop()
    if length == 0:
        if start == end:
            yield [start], []
        return
    yield from walk(start, [start], [])


class SelectPaths(Operator):
    """SHORTEST k [GROUPS] / ALL SHORTEST / ANY k over a path pattern no walk planner takes whole: every
    path its source matched between one pair of ends (it runs once per pair), shortest first; the first
    ``k``, or with ``groups`` every path of the ``k`` shortest lengths."""
    __slots__ = ("path", "k", "groups")
    name = "SelectPaths"

    def __init__(self, source, path, k, groups):
        self.source, self.path, self.k, self.groups = source, path, k, groups

    def details(self):
        return f"{self.path}: SHORTEST {self.k}{' GROUPS' if self.groups else ''}"

    def rows(self, ctx, arg):
        path = self.path
        found = [(len(row[path].rels), row) for row in self.source.rows(ctx, arg)]
        found.sort(key=_length)                 # stable: paths of one length keep the order they came in
        if not self.groups:
            for _, row in checked(found[:self.k], ctx):
                yield row
            return
        lengths = sorted({length for length, _ in found})[:self.k]
        if lengths:
            last = lengths[-1]
            for length, row in checked(found, ctx):
                if length > last:
                    break
                yield row


def _length(pair):
    return pair[0]


class NamedPath(Operator):
    """Bind ``p = (a)-[r]->(b)...`` from the element variables already in the row."""
    __slots__ = ("var", "elements")
    name = "NamedPath"

    def __init__(self, source, var, elements):
        self.source, self.var, self.elements = source, var, elements

    def details(self):
        return self.var

    def rows(self, ctx, arg):
        for row in self.source.rows(ctx, arg):
            out = dict(row)
            out[self.var] = build_path(ctx.tx, row, self.elements)
            yield out


def _not_an_entity(name: str, value, what: str) -> CypherTypeError:
    return CypherTypeError(f"`{name.strip()}` in a path must be {what}, but it is {type_name(value)}",
                           detail="InvalidArgumentType", phase="runtime")


def build_path(tx, row, elements):
    nodes, rels = [], []
    current = None
    for kind, name in elements:
        value = row.get(name)
        if value is None:
            return None
        if kind == "node":
            if type(value) is not NodeRef:       # a variable bound to something else before the MATCH
                raise _not_an_entity(name, value, "a node")
            if not nodes:
                nodes.append(value)
            current = value.id
        elif kind == "rel":
            if type(value) is not RelRef:
                raise _not_an_entity(name, value, "a relationship")
            rels.append(value)
            s, e = tx.rel_endpoints(value.id)
            current = e if s == current else s
            nodes.append(NodeRef(current))
        else:
            for rel in value:
                rels.append(rel)
                s, e = tx.rel_endpoints(rel.id)
                current = e if s == current else s
                nodes.append(NodeRef(current))
    return PathRef(tuple(nodes), tuple(rels))
