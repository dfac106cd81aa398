"""APOC's path expanders, the graph-retrieval workhorses of GraphRAG tools: ``apoc.path.expand``,
``apoc.path.expandConfig``, ``apoc.path.subgraphNodes``, ``apoc.path.subgraphAll`` and
``apoc.path.spanningTree``.

They behave as APOC 5 documents them:

* relationshipFilter: ``TYPE>`` (outgoing), ``<TYPE`` (incoming), ``TYPE`` (either), ``>`` / ``<`` (any type, one
  direction), alternatives joined by ``|``, and a repeating sequence of steps separated by ``,``;
* labelFilter: ``-Label`` denylist, ``/Label`` termination (paths end there, expansion stops), ``>Label`` end node
  (paths end there, expansion goes on), ``+Label`` or a bare ``Label`` allowlist, ``A:B`` all of A and B, ``*`` any
  node; alternatives joined by ``|``, per-depth sequences by ``,``. The denylist wins over termination, termination
  over end node, end node over the allowlist; with termination or end-node labels only paths ending at one are
  returned. The start node is exempt unless ``filterStartNode`` is true;
* minLevel (default: none, so the start node's 0-length path comes too) and maxLevel (-1: unlimited);
* uniqueness ``RELATIONSHIP_PATH`` (default), ``NODE_PATH``, ``NODE_GLOBAL``, ``RELATIONSHIP_GLOBAL``, ``NONE``;
* breadth first unless ``bfs: false``; ``limit`` stops the traversal once that many paths were returned;
* endNodes / terminatorNodes / allowlistNodes / denylistNodes (lists of nodes) and ``sequence``.

Each traversal step counts through ``ctx.check()``, so timeouts and cancellation stop a runaway expansion.
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Iterator, Optional

from relate.protocol.errors import ArgumentError

from .refs import NodeRef, PathRef, RelRef

UNIQUENESS = ("RELATIONSHIP_PATH", "NODE_PATH", "NODE_GLOBAL", "RELATIONSHIP_GLOBAL", "NONE")
_UNSUPPORTED_UNIQUENESS = ("NODE_RECENT", "RELATIONSHIP_RECENT", "NODE_LEVEL", "RELATIONSHIP_LEVEL")

_CONFIG_KEYS = {"minlevel", "maxlevel", "relationshipfilter", "labelfilter", "uniqueness", "bfs", "limit",
                "filterstartnode", "optional", "endnodes", "terminatornodes", "allowlistnodes", "denylistnodes",
                "whitelistnodes", "blacklistnodes", "sequence", "beginsequenceatstart"}

_EXPAND_CONFIG_DOC = ("{minLevel, maxLevel, relationshipFilter, labelFilter, uniqueness, bfs, limit, filterStartNode, "
                      "optional, endNodes, terminatorNodes, allowlistNodes, denylistNodes, sequence, "
                      "beginSequenceAtStart}")


def register_paths(registry) -> None:
    """Add the apoc.path.* procedures to ``registry``."""
    registry.register("apoc.path.expand", [("startNode", "ANY?"), ("relationshipFilter", "STRING?"),
                                           ("labelFilter", "STRING?"), ("minLevel", "INTEGER?"),
                                           ("maxLevel", "INTEGER?")],
                      [("path", "PATH?")], expand,
                      description="Paths from the start node(s) following a relationship filter ('TYPE>|<TYPE|TYPE') "
                                  "and a label filter ('+Allow|-Deny|/Terminate|>End'), from minLevel to maxLevel "
                                  "hops (APOC).")
    registry.register("apoc.path.expandConfig", [("startNode", "ANY?"), ("config", "MAP?", {})],
                      [("path", "PATH?")], expand_config,
                      description="Paths from the start node(s) under a config " + _EXPAND_CONFIG_DOC + " (APOC).")
    registry.register("apoc.path.subgraphNodes", [("startNode", "ANY?"), ("config", "MAP?", {})],
                      [("node", "NODE?")], subgraph_nodes,
                      description="The nodes reachable from the start node(s) under relationship and label "
                                  "filters, each once, the start node included (APOC).")
    registry.register("apoc.path.subgraphAll", [("startNode", "ANY?"), ("config", "MAP?", {})],
                      [("nodes", "LIST? OF NODE?"), ("relationships", "LIST? OF RELATIONSHIP?")], subgraph_all,
                      description="The subgraph reachable from the start node(s): its nodes and the relationships "
                                  "between them that the relationship filter allows (APOC).")
    registry.register("apoc.path.spanningTree", [("startNode", "ANY?"), ("config", "MAP?", {})],
                      [("path", "PATH?")], spanning_tree,
                      description="One path to each node reachable from the start node(s): together they form a "
                                  "spanning tree (APOC).")


# -- filters ---------------------------------------------------------------------------------------

_DIRECTIONS = ("out", "in", "both")


@dataclass(frozen=True)
class RelStep:
    """One step of a relationship filter: per direction, the types it may follow (None: any type)."""
    by_direction: tuple      # ((direction, types | None), ...)


ANY_STEP = RelStep((("both", None),))


def _unquote(name: str) -> str:
    name = name.strip()
    if len(name) >= 2 and name[0] == "`" and name[-1] == "`":
        return name[1:-1]
    return name


def parse_rel_step(text: Optional[str]) -> RelStep:
    """``'KNOWS>|<LIKES|FOLLOWS'`` as a RelStep; blank: any type in either direction."""
    if text is None or not text.strip():
        return ANY_STEP
    wanted: dict[str, Optional[set]] = {}
    for token in text.split("|"):
        token = token.strip()
        if not token:
            raise ArgumentError(f"Invalid relationship filter {text!r}: an empty alternative")
        incoming, outgoing = token.startswith("<"), token.endswith(">")
        if incoming and outgoing and len(token) > 1:
            raise ArgumentError(f"Invalid relationship filter {text!r}: {token!r} has two directions; "
                                f"use 'TYPE' for either direction")
        name = _unquote(token.strip("<>"))
        direction = "in" if incoming else ("out" if outgoing else "both")
        if not name:
            if direction == "both":
                raise ArgumentError(f"Invalid relationship filter {text!r}")
            wanted[direction] = None
            continue
        if any(c in name for c in "<>,") or name.startswith(("+", "-", "/")):
            raise ArgumentError(f"Invalid relationship filter {text!r}: bad relationship type {name!r}")
        if direction in wanted and wanted[direction] is None:
            continue
        wanted.setdefault(direction, set()).add(name)   # type: ignore[union-attr]
    return RelStep(tuple((d, None if wanted[d] is None else tuple(sorted(wanted[d])))   # type: ignore[arg-type]
                         for d in _DIRECTIONS if d in wanted))


def parse_rel_filter(text: Optional[str]) -> list[RelStep]:
    """A relationship filter as its steps (one unless it is a ``,``-separated sequence)."""
    if text is None or not text.strip():
        return [ANY_STEP]
    return [parse_rel_step(part) for part in text.split(",")]


ANY_LABEL = frozenset(["*"])


@dataclass
class LabelGroup:
    """One label filter (no commas): denylist, termination, end-node and allowlist label sets; each entry is a
    frozenset of labels a node must all have (``A:B``), ``{'*'}`` matching any node."""
    allow: list = field(default_factory=list)
    deny: list = field(default_factory=list)
    terminate: list = field(default_factory=list)
    end: list = field(default_factory=list)

    @property
    def end_nodes_only(self) -> bool:
        return bool(self.terminate or self.end)

    @staticmethod
    def _matches(entries: list, labels: frozenset) -> bool:
        return any(entry is ANY_LABEL or entry <= labels for entry in entries)

    def evaluate(self, labels: frozenset, below_min: bool, end_nodes_only: bool) -> tuple[bool, bool]:
        """(include, continue) for a node with ``labels``, precedence deny > terminate > end > allow."""
        if self._matches(self.deny, labels):
            return False, False
        if self._matches(self.terminate, labels):
            return (False, True) if below_min else (True, False)
        if self._matches(self.end, labels):
            return (False, True) if below_min else (True, True)
        if not self.allow or self._matches(self.allow, labels):
            return (not (end_nodes_only or below_min)), True
        return False, False


def parse_label_group(text: Optional[str]) -> LabelGroup:
    """``'+Person|-Banned|/Company|>City'`` as a LabelGroup; blank: everything allowed."""
    group = LabelGroup()
    if text is None or not text.strip():
        return group
    targets = {"+": group.allow, "-": group.deny, "/": group.terminate, ">": group.end}
    for token in text.split("|"):
        token = token.strip()
        if not token:
            raise ArgumentError(f"Invalid label filter {text!r}: an empty alternative")
        target = targets.get(token[0])
        if target is None:
            target = group.allow
        else:
            token = token[1:].strip()
        if not token:
            raise ArgumentError(f"Invalid label filter {text!r}: an operator without a label")
        if token == "*":
            target.append(ANY_LABEL)
            continue
        labels = frozenset(_unquote(part) for part in token.split(":"))
        if not all(labels) or any(c in label for label in labels for c in "+-/><,*"):
            raise ArgumentError(f"Invalid label filter {text!r}: bad label {token!r}")
        target.append(labels)
    return group


def parse_label_filter(text: Optional[str]) -> list[LabelGroup]:
    """A label filter as its groups (one unless it is a ``,``-separated sequence); empty when blank."""
    if text is None or not text.strip():
        return []
    return [parse_label_group(part) for part in text.split(",")]


# -- configuration ---------------------------------------------------------------------------------

@dataclass
class Expansion:
    """A parsed expander configuration."""
    min_level: int = -1
    max_level: int = -1
    rel_steps: list = field(default_factory=lambda: [ANY_STEP])
    initial_step: Optional[RelStep] = None      # beginSequenceAtStart false: the hop that reaches the sequence
    label_groups: list = field(default_factory=list)
    uniqueness: str = "RELATIONSHIP_PATH"
    bfs: bool = True
    limit: int = -1
    filter_start: bool = False
    begin_at_start: bool = True
    optional: bool = False
    end_nodes: frozenset = frozenset()
    terminator_nodes: frozenset = frozenset()
    allowlist: Optional[frozenset] = None
    denylist: frozenset = frozenset()

    def rel_step(self, depth: int) -> RelStep:
        """The relationship step for the hop leaving a path of ``depth`` relationships."""
        if self.initial_step is not None:
            if depth == 0:
                return self.initial_step
            depth -= 1
        return self.rel_steps[depth % len(self.rel_steps)]

    def rel_types(self) -> Optional[set]:
        """Every relationship type any step names (None: some step allows any type)."""
        steps = list(self.rel_steps) + ([self.initial_step] if self.initial_step is not None else [])
        found: set = set()
        for step in steps:
            for _, types in step.by_direction:
                if types is None:
                    return None
                found.update(types)
        return found


def _int(config: dict, key: str, default: int, name: str) -> int:
    value = config.get(key, default)
    if value is None:
        return default
    if type(value) is float and value.is_integer():
        value = int(value)
    if type(value) is not int:
        raise ArgumentError(f"{name}: {key} must be an integer, not {value!r}")
    return value


def _bool(config: dict, key: str, default: bool, name: str) -> bool:
    value = config.get(key, default)
    if value is None:
        return default
    if type(value) is not bool:
        raise ArgumentError(f"{name}: {key} must be a boolean, not {value!r}")
    return value


def _text(config: dict, key: str, name: str) -> Optional[str]:
    value = config.get(key)
    if value is not None and not isinstance(value, str):
        raise ArgumentError(f"{name}: {key} must be a string, not {value!r}")
    return value


def _node_set(ctx, config: dict, keys: tuple[str, ...], name: str) -> Optional[frozenset]:
    """The node ids of a node-list option (nodes, ids or element ids); None when absent."""
    value = next((config[k] for k in keys if config.get(k) is not None), None)
    if value is None:
        return None
    return frozenset(_node_ids(ctx, value, f"{name}: {keys[0]}", check_exists=False))


def parse_config(ctx, config, name: str) -> Expansion:
    """An expander configuration map as an Expansion, every key and value checked."""
    if config is None:
        config = {}
    if not isinstance(config, dict):
        raise ArgumentError(f"{name}: the config must be a map")
    unknown = [k for k in config if str(k).lower() not in _CONFIG_KEYS]
    if unknown:
        raise ArgumentError(f"{name}: unknown config key(s) {', '.join(sorted(map(str, unknown)))}; "
                            f"known keys: {_EXPAND_CONFIG_DOC}")
    spec = Expansion()
    spec.min_level = _int(config, "minLevel", -1, name)
    spec.max_level = _int(config, "maxLevel", -1, name)
    if spec.min_level < -1 or spec.max_level < -1:
        raise ArgumentError(f"{name}: minLevel and maxLevel must be -1 (no bound) or at least 0")
    uniqueness = config.get("uniqueness") or "RELATIONSHIP_PATH"
    if not isinstance(uniqueness, str):
        raise ArgumentError(f"{name}: uniqueness must be a string")
    spec.uniqueness = uniqueness.strip().upper()
    if spec.uniqueness not in UNIQUENESS:
        hint = " is not supported by Relate" if spec.uniqueness in _UNSUPPORTED_UNIQUENESS else " is not a uniqueness"
        raise ArgumentError(f"{name}: uniqueness {uniqueness!r}{hint}; use one of {', '.join(UNIQUENESS)}")
    spec.bfs = _bool(config, "bfs", True, name)
    spec.limit = _int(config, "limit", -1, name)
    spec.filter_start = _bool(config, "filterStartNode", False, name)
    spec.begin_at_start = _bool(config, "beginSequenceAtStart", True, name)
    spec.optional = _bool(config, "optional", False, name)
    sequence = _text(config, "sequence", name)
    if sequence is not None and sequence.strip():
        labels: list[str] = []
        rels: list[str] = []
        for index, part in enumerate(sequence.split(",")):
            (labels if (index if spec.begin_at_start else index - 1) % 2 == 0 else rels).append(part)
        spec.label_groups = [parse_label_group(part) for part in labels]
        rel_steps = [parse_rel_step(part) for part in rels] or [ANY_STEP]
    else:
        spec.label_groups = parse_label_filter(_text(config, "labelFilter", name))
        rel_steps = parse_rel_filter(_text(config, "relationshipFilter", name))
    if not spec.begin_at_start and len(rel_steps) > 1:
        spec.initial_step, rel_steps = rel_steps[0], rel_steps[1:]
    spec.rel_steps = rel_steps
    spec.end_nodes = _node_set(ctx, config, ("endNodes",), name) or frozenset()
    spec.terminator_nodes = _node_set(ctx, config, ("terminatorNodes",), name) or frozenset()
    spec.allowlist = _node_set(ctx, config, ("allowlistNodes", "whitelistNodes"), name)
    spec.denylist = _node_set(ctx, config, ("denylistNodes", "blacklistNodes"), name) or frozenset()
    return spec


# -- start nodes -----------------------------------------------------------------------------------

def _node_id(value, what: str) -> int:
    if type(value) is NodeRef:
        return value.id
    if type(value) is int:
        return value
    if isinstance(value, str):
        text = value[2:] if value.startswith("n:") else value
        if text.isdigit():
            return int(text)
        raise ArgumentError(f"{what}: {value!r} is not a node element id")
    raise ArgumentError(f"{what}: expected a node, a node id or an element id, not {value!r}")


def _node_ids(ctx, value, what: str, check_exists: bool = True) -> list[int]:
    """Node ids, in order and once each, from a node, an id, an element id or a list of them."""
    items = value if isinstance(value, list) else [value]
    ids: dict[int, None] = {}
    for item in items:
        if item is None:
            continue
        nid = _node_id(item, what)
        if check_exists and not ctx.tx.node_exists(nid):
            continue
        ids[nid] = None
    return list(ids)


# -- traversal -------------------------------------------------------------------------------------

def _evaluate(tx, spec: Expansion, nodes: tuple, depth: int) -> tuple[bool, bool]:
    """(include, continue) for the path ending at ``nodes[-1]`` after ``depth`` hops: every evaluator must
    include it for it to be returned and let it continue for it to be expanded (Neo4j's traversal rules)."""
    node = nodes[-1]
    include = depth >= spec.min_level
    go_on = spec.max_level < 0 or depth < spec.max_level
    below_min = depth < spec.min_level
    groups = spec.label_groups
    if groups:
        end_only = any(g.end_nodes_only for g in groups)
        if depth == 0 and (not spec.filter_start or not spec.begin_at_start):
            inc, cont = (not end_only), True
        else:
            group = groups[(depth if spec.begin_at_start else depth - 1) % len(groups)]
            inc, cont = group.evaluate(tx.node_labels(node), below_min, end_only)
        include, go_on = include and inc, go_on and cont
    if spec.end_nodes or spec.terminator_nodes:
        if node in spec.terminator_nodes:
            inc, cont = (False, True) if below_min else (True, False)
        elif node in spec.end_nodes:
            inc, cont = (False, True) if below_min else (True, True)
        else:
            inc, cont = False, True
        include, go_on = include and inc, go_on and cont
    if spec.allowlist is not None and depth > 0 and node not in spec.allowlist \
            and node not in spec.end_nodes and node not in spec.terminator_nodes:
        return False, False
    if node in spec.denylist:
        return False, False
    return include, go_on


class _Traversal:
    """One traversal from every start node, with its uniqueness state shared between them (as in APOC)."""

    def __init__(self, ctx, spec: Expansion):
        self.ctx, self.tx, self.spec = ctx, ctx.tx, spec
        self.seen_nodes: set[int] = set()
        self.seen_rels: set[int] = set()

    def _admit_root(self, nid: int) -> bool:
        if self.spec.uniqueness == "NODE_GLOBAL":
            if nid in self.seen_nodes:
                return False
            self.seen_nodes.add(nid)
        return True

    def children(self, nodes: tuple, rels: tuple) -> Iterator[tuple[tuple, tuple]]:
        """The paths one hop longer, created lazily and admitted by the uniqueness rule as they are made."""
        ctx, tx, uniqueness = self.ctx, self.tx, self.spec.uniqueness
        step = self.spec.rel_step(len(rels))
        last = nodes[-1]
        offered: set[int] = set()
        for direction, types in step.by_direction:
            for rid, other in tx.expand(last, direction, types):
                ctx.check()
                if rid in offered:
                    continue
                offered.add(rid)
                if uniqueness == "RELATIONSHIP_PATH":
                    if rid in rels:
                        continue
                elif uniqueness == "NODE_PATH":
                    if other in nodes:
                        continue
                elif uniqueness == "NODE_GLOBAL":
                    if other in self.seen_nodes:
                        continue
                    self.seen_nodes.add(other)
                elif uniqueness == "RELATIONSHIP_GLOBAL":
                    if rid in self.seen_rels:
                        continue
                    self.seen_rels.add(rid)
                yield nodes + (other,), rels + (rid,)

    def paths(self, starts: list[int]) -> Iterator[tuple[tuple, tuple]]:
        """(node ids, relationship ids) of each returned path, breadth or depth first, up to ``limit``."""
        if self.spec.limit == 0:
            return
        remaining = self.spec.limit if self.spec.limit > 0 else -1
        for path in self._walk(starts):
            yield path
            remaining -= 1
            if remaining == 0:
                return

    def _walk(self, starts: list[int]) -> Iterator[tuple[tuple, tuple]]:
        """Every path the filters return (each root's first); below a path only where they go on."""
        spec, tx = self.spec, self.tx
        roots = (((start,), ()) for start in starts if self._admit_root(start))
        if spec.bfs:
            queue: deque = deque(roots)
            while queue:
                path = queue.popleft()
                include, go_on = _evaluate(tx, spec, path[0], len(path[1]))
                if include:
                    yield path
                if go_on:
                    queue.extend(self.children(*path))
            return
        stack: list[Iterator] = [roots]     # iterators, not recursion: deep paths stay off the C stack
        while stack:
            path = next(stack[-1], None)
            if path is None:
                stack.pop()
                continue
            include, go_on = _evaluate(tx, spec, path[0], len(path[1]))
            if include:
                yield path
            if go_on:
                stack.append(self.children(*path))


def _path(nodes: tuple, rels: tuple) -> PathRef:
    return PathRef(tuple(NodeRef(n) for n in nodes), tuple(RelRef(r) for r in rels))


def _run(ctx, start, spec: Expansion, name: str) -> Iterator[tuple[tuple, tuple]]:
    starts = [] if start is None else _node_ids(ctx, start, f"{name}: startNode")
    return _Traversal(ctx, spec).paths(starts)


# -- the procedures --------------------------------------------------------------------------------

def expand(ctx, start, rel_filter=None, label_filter=None, min_level=None, max_level=None):
    """apoc.path.expand: expandConfig with positional filters and levels (RELATIONSHIP_PATH, breadth first)."""
    name = "apoc.path.expand"
    config = {"relationshipFilter": rel_filter, "labelFilter": label_filter,
              "minLevel": -1 if min_level is None else min_level,
              "maxLevel": -1 if max_level is None else max_level}
    return _paths(ctx, start, parse_config(ctx, config, name), name)


def expand_config(ctx, start, config=None):
    name = "apoc.path.expandConfig"
    return _paths(ctx, start, parse_config(ctx, config, name), name)


def _paths(ctx, start, spec: Expansion, name: str):
    found = False
    for nodes, rels in _run(ctx, start, spec, name):
        found = True
        yield {"path": _path(nodes, rels)}
    if not found and spec.optional:
        yield {"path": None}


def _subgraph_spec(ctx, config, name: str) -> Expansion:
    """A subgraph expansion: NODE_GLOBAL uniqueness, minLevel 0 unless set to 1 (APOC allows only these)."""
    if config is not None and not isinstance(config, dict):
        raise ArgumentError(f"{name}: the config must be a map")
    config = dict(config or {})
    min_level = config.get("minLevel", 0)
    if min_level is None:
        min_level = 0
    if min_level not in (0, 1) or type(min_level) is bool:
        raise ArgumentError(f"{name}: minLevel can only be 0 or 1, not {min_level!r}")
    config["minLevel"] = min_level
    config["uniqueness"] = "NODE_GLOBAL"
    return parse_config(ctx, config, name)


def subgraph_nodes(ctx, start, config=None):
    name = "apoc.path.subgraphNodes"
    spec = _subgraph_spec(ctx, config, name)
    found = False
    for nodes, _ in _run(ctx, start, spec, name):
        found = True
        yield {"node": NodeRef(nodes[-1])}
    if not found and spec.optional:
        yield {"node": None}


def subgraph_all(ctx, start, config=None):
    """The subgraph's nodes, and every relationship between two of them that the relationship filter allows
    (of a type it names; a relationship leaves one subgraph node and enters another, so either direction fits)."""
    name = "apoc.path.subgraphAll"
    spec = _subgraph_spec(ctx, config, name)
    ids = [nodes[-1] for nodes, _ in _run(ctx, start, spec, name)]
    members = set(ids)
    tx = ctx.tx
    types = spec.rel_types()
    wanted = None if types is None else tuple(sorted(types))
    rels: dict[int, None] = {}
    for nid in ids:
        for rid, other in tx.expand(nid, "out", wanted):     # each relationship once, from its start node
            ctx.check()
            if other in members:
                rels[rid] = None
    return [{"nodes": [NodeRef(n) for n in ids], "relationships": [RelRef(r) for r in rels]}]


def spanning_tree(ctx, start, config=None):
    name = "apoc.path.spanningTree"
    spec = _subgraph_spec(ctx, config, name)
    return _paths(ctx, start, spec, name)
