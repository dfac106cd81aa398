"""Logical plan operators: what to compute, with AST expressions; physical.py turns them into generators.

Every operator but the leaves reads rows from ``source``. ``Argument`` is the leaf of every plan: it
yields the row the plan is run with (``{}`` at the top, the outer row inside subqueries and OPTIONAL
MATCH), so nested plans see the variables of their caller.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

from .. import ast


@dataclass(eq=False)
class LogicalOp:
    def inputs(self) -> list["LogicalOp"]:
        return [v for k, v in vars(self).items() if isinstance(v, LogicalOp)]

    def nested(self) -> list["LogicalOp"]:
        """Plans run per row (OPTIONAL MATCH, subqueries, MERGE matchers), shown in EXPLAIN."""
        return []


@dataclass(eq=False)
class Argument(LogicalOp):
    bound: tuple[str, ...] = ()


# ---------------------------------------------------------------- leaves that find entities
@dataclass(eq=False)
class AllNodesScan(LogicalOp):
    """Every node; ``key``, ``value`` and ``compare`` as for NodeByLabelScan."""
    source: LogicalOp
    var: str
    key: Optional[str] = None
    value: Optional[ast.Expr] = None
    compare: str = "="
    transform: Optional[str] = None    # "lower"/"upper": the property is compared as toLower/toUpper gives it
    # other ``key = value`` filters beside an equality ``key``: a repeated scan's transient lookup is
    # keyed by all of them (MERGE (n:E {type: r.type, name: r.name}) per row: not by type alone)
    also: tuple = ()


@dataclass(eq=False)
class NodeByLabelScan(LogicalOp):
    """The label's nodes; with ``key`` only those whose ``key`` may pass ``key <compare> value`` (``=``,
    ``IN``, ``<``, ``<=``, ``>``, ``>=``, ``STARTS WITH``, ``ENDS WITH``, ``CONTAINS``; ``value`` read per
    input row): the filters above the scan stay, this only spares them the nodes that cannot pass."""
    source: LogicalOp
    var: str
    label: str
    key: Optional[str] = None
    value: Optional[ast.Expr] = None
    compare: str = "="
    transform: Optional[str] = None    # "lower"/"upper": the property is compared as toLower/toUpper gives it
    # other ``key = value`` filters beside an equality ``key``: a repeated scan's transient lookup is
    # keyed by all of them (MERGE (n:E {type: r.type, name: r.name}) per row: not by type alone)
    also: tuple = ()


@dataclass(eq=False)
class NodeIndexSeek(LogicalOp):
    """Equality on an indexed property; ``many`` means the value is a list to look each up (IN)."""
    source: LogicalOp
    var: str
    label: str
    key: str
    value: ast.Expr
    many: bool = False


@dataclass(eq=False)
class NodeIndexRange(LogicalOp):
    """The label's nodes whose ``key`` may pass ``key <compare> value`` (``<``, ``<=``, ``>``, ``>=``,
    ``STARTS WITH``, ``ENDS WITH``, ``CONTAINS``) and ``upper`` (``<``/``<=`` and a value, for a lower bound) through a property index;
    the filters above stay and decide."""
    source: LogicalOp
    var: str
    label: str
    key: str
    compare: str
    value: ast.Expr
    upper: Optional[tuple[str, ast.Expr]] = None
    descending: Optional[bool] = None      # set: yields in the key's order (False ascending), for ORDER BY


@dataclass(eq=False)
class NodeByIdSeek(LogicalOp):
    source: LogicalOp
    var: str
    ids: ast.Expr
    many: bool = False


@dataclass(eq=False)
class RelTypeScan(LogicalOp):
    """``()-[r:T]->()`` with nothing bound: scan relationships by type, bind both endpoints; ``key``,
    ``value`` and ``compare`` as for NodeByLabelScan (the relationship's property); ``indexed``: each
    type's property index on ``key`` gives the candidates (an index seek) instead of the scan."""
    source: LogicalOp
    start: str
    rel: str
    end: str
    types: tuple[str, ...]
    direction: str
    start_labels: Optional[ast.LabelExpr] = None
    end_labels: Optional[ast.LabelExpr] = None
    unique_with: tuple[str, ...] = ()
    key: Optional[str] = None
    value: Optional[ast.Expr] = None
    compare: str = "="
    transform: Optional[str] = None    # "lower"/"upper": the property is compared as toLower/toUpper gives it
    # other ``key = value`` filters beside an equality ``key``: a repeated scan's transient lookup is
    # keyed by all of them (MERGE (n:E {type: r.type, name: r.name}) per row: not by type alone)
    also: tuple = ()
    indexed: bool = False
    upper: Optional[tuple[str, ast.Expr]] = None     # indexed: as NodeIndexRange's


@dataclass(eq=False)
class Expand(LogicalOp):
    """From ``start`` along ``rel`` to ``end``; ``into`` when ``end`` is already bound.
    ``length`` (min, max) for variable length (max None = unbounded); ``rel_props`` a map every
    relationship on a variable-length path must match; ``unique_with`` relationship variables of the
    same MATCH the new relationships must differ from."""
    source: LogicalOp
    start: str
    rel: str
    end: str
    types: tuple[str, ...]
    direction: str
    into: bool = False
    length: Optional[tuple[int, Optional[int]]] = None
    end_labels: Optional[ast.LabelExpr] = None
    rel_props: Optional[ast.Expr] = None
    unique_with: tuple[str, ...] = ()
    backwards: bool = False          # planned against the pattern's direction: reverse the list
    relevance: Any = None            # (via, intent, relaxed, statuses, ai): the type names a relevance join
                                     # (relevance.planning.edge_selectors)
    best: Any = None                 # best_per_row.Best: per input row, only the rows an ordered head() needs
    repeatable: bool = False         # MATCH REPEATABLE ELEMENTS: a variable-length walk may repeat relationships
    degree: Optional[str] = None     # Expand(Degree): each row once, with its expansions' number here
                                     # instead of ``rel`` and ``end`` (rule degree_count)


@dataclass(eq=False)
class PinnedAnchor(LogicalOp):
    """``(c:Label {k: v})`` anchoring a relevance join: stored matches, else a query-time node."""
    source: LogicalOp
    var: str
    label: str
    props: ast.Expr


@dataclass(eq=False)
class QuantifiedExpand(LogicalOp):
    """``(start) ((a)-[r]->(b) WHERE ...){min,max} (end)``: the inner path repeated; ``inner`` alternates
    node and relationship patterns (named, predicates in ``predicates``), ``rels`` the hidden variable of
    every relationship walked, ``groups`` the inner variables bound as lists (one entry per iteration)."""
    source: LogicalOp
    start: str
    end: str
    inner: list
    predicates: list
    min: int
    max: Optional[int]
    rels: str
    groups: tuple[str, ...]
    into: bool = False
    unique_with: tuple[str, ...] = ()
    backwards: bool = False
    shortest_k: int = 0                  # SHORTEST k: keep the k shortest walks (0: every walk)
    by_length: bool = False              # SHORTEST k GROUPS: every walk of the k shortest lengths
    path: Optional[str] = None           # the path variable a selector binds (its predicate may read it)
    predicate: Optional[ast.Expr] = None
    repeatable: bool = False             # MATCH REPEATABLE ELEMENTS: walks may repeat relationships


@dataclass(eq=False)
class ShortestPath(LogicalOp):
    source: LogicalOp
    start: str
    end: str
    rel: Optional[str]
    path: Optional[str]
    types: tuple[str, ...]
    direction: str
    length: tuple[int, Optional[int]]
    all_paths: bool = False
    k: int = 1                                  # paths (groups of equal length when all_paths) to keep
    rel_props: Optional[ast.Expr] = None
    predicate: Optional[ast.Expr] = None       # WHERE terms that read the path (checked per path)


@dataclass(eq=False)
class Reimport(LogicalOp):
    """Inside a subquery, after a WITH: the outer variables ``names`` again, from the subquery's argument."""
    source: LogicalOp
    names: tuple[str, ...]


@dataclass(eq=False)
class SelectPaths(LogicalOp):
    """A selector over every path its source matched between one pair of ends (the source runs once per
    pair): the ``k`` shortest, or with ``groups`` every path of the ``k`` shortest lengths."""
    source: LogicalOp
    path: str
    k: int
    groups: bool = False


@dataclass(eq=False)
class NamedPath(LogicalOp):
    """Bind ``var`` to the path through ``elements`` (node and relationship variables in order)."""
    source: LogicalOp
    var: str
    elements: tuple[tuple[str, str], ...]      # ("node" | "rel" | "rels", variable)


@dataclass(eq=False)
class Filter(LogicalOp):
    source: LogicalOp
    predicate: ast.Expr


@dataclass(eq=False)
class Optional_(LogicalOp):
    """OPTIONAL MATCH: rows of ``inner`` run per input row, or the input row with ``new_vars`` null."""
    source: LogicalOp
    inner: LogicalOp
    new_vars: tuple[str, ...]

    def nested(self):
        return [self.inner]

    def inputs(self):
        return [self.source]


@dataclass(eq=False)
class Apply(LogicalOp):
    """CALL subquery: ``inner`` per input row; ``imports`` None passes the whole row.
    ``in_transactions``: commit every ``batch`` input rows (None = 1000), CALL { ... } IN TRANSACTIONS."""
    source: LogicalOp
    inner: LogicalOp
    imports: Optional[tuple[str, ...]]
    columns: tuple[str, ...]
    unit: bool = False             # no RETURN: yield each input row once
    optional: bool = False
    in_transactions: bool = False
    batch: Optional[ast.Expr] = None
    on_error: str = "FAIL"                   # IN TRANSACTIONS ... ON ERROR: FAIL, CONTINUE, BREAK or RETRY
    retry_for: Optional[ast.Expr] = None     # RETRY FOR n SECONDS
    retry_then: str = "FAIL"                 # what a batch still failing after its retries does
    report_status: Optional[str] = None      # REPORT STATUS AS this variable

    def nested(self):
        return [self.inner]

    def inputs(self):
        return [self.source]


@dataclass(eq=False)
class Search(LogicalOp):
    """SEARCH over a vector / full-text index, or a COMBINE fusion of several."""
    source: LogicalOp
    var: str
    entity: str                                # node | relationship
    spec: Any                                  # ast.IndexSearch | ast.CombineSearch
    score: Optional[str]
    duplicate: bool = False                    # undirected relationship pattern: each hit twice


# ---------------------------------------------------------------- rows and projections
@dataclass(eq=False)
class Unwind(LogicalOp):
    source: LogicalOp
    expr: ast.Expr
    var: str


@dataclass(eq=False)
class LoadCsv(LogicalOp):
    source: LogicalOp
    url: ast.Expr
    var: str
    headers: bool
    terminator: Optional[str]


@dataclass(eq=False)
class Project(LogicalOp):
    """Compute ``items``; ``keep`` extends the input row instead of replacing it."""
    source: LogicalOp
    items: list[tuple[str, ast.Expr]]
    keep: bool = False


@dataclass(eq=False)
class Aggregate(LogicalOp):
    source: LogicalOp
    grouping: list[tuple[str, ast.Expr]]
    aggregates: list[tuple[str, ast.Expr]]     # (hidden name, FunctionCall | CountStar)
    # ORDER BY keys of a Sort this replaces: every aggregate is a collect() read only through head(),
    # so each keeps the first non-null value in that order (see projection._heads_of_collects)
    order: Optional[list[tuple[ast.Expr, bool]]] = None


@dataclass(eq=False)
class Distinct(LogicalOp):
    source: LogicalOp
    columns: tuple[str, ...]


@dataclass(eq=False)
class Sort(LogicalOp):
    source: LogicalOp
    keys: list[tuple[ast.Expr, bool]]          # (expr, descending)


@dataclass(eq=False)
class Top(LogicalOp):
    """ORDER BY ... [SKIP s] LIMIT l: the first skip + limit rows in order, stable among ties."""
    source: LogicalOp
    keys: list[tuple[ast.Expr, bool]]
    limit: ast.Expr
    skip: Optional[ast.Expr] = None
    exhaustive: bool = False                   # the input writes: LIMIT 0 must still run it


@dataclass(eq=False)
class Skip(LogicalOp):
    source: LogicalOp
    count: ast.Expr


@dataclass(eq=False)
class Limit(LogicalOp):
    """The first ``count`` rows; ``exhaustive`` runs a writing input to its end all the same."""
    source: LogicalOp
    count: ast.Expr
    exhaustive: bool = False


@dataclass(eq=False)
class Select(LogicalOp):
    """Keep only ``columns`` (drops helper and pre-projection variables)."""
    source: LogicalOp
    columns: tuple[str, ...]


@dataclass(eq=False)
class Union(LogicalOp):
    parts: list[LogicalOp]
    distinct: bool
    columns: tuple[str, ...]

    def inputs(self):
        return list(self.parts)


@dataclass(eq=False)
class Eager(LogicalOp):
    """Read every input row before passing any on (reads must not see later writes)."""
    source: LogicalOp


@dataclass(eq=False)
class ProcedureCall(LogicalOp):
    source: LogicalOp
    name: str
    args: Optional[list[ast.Expr]]             # None: taken from parameters of the same names
    yields: list[tuple[str, str]]              # (output, variable)
    optional: bool = False                     # OPTIONAL CALL: a row of nulls when nothing comes back
    writes: bool = False                       # a WRITE procedure: the statement runs in a write transaction
    pass_through: bool = False                 # a void procedure after other clauses: rows go on unchanged
    mode: str = "READ"                         # the procedure's mode (READ, WRITE, SCHEMA, DBMS): who may call it


@dataclass(eq=False)
class ProduceResults(LogicalOp):
    source: LogicalOp
    columns: tuple[str, ...]


@dataclass(eq=False)
class EmptyResult(LogicalOp):
    """Consume the input for its effects, yield nothing (statements without RETURN)."""
    source: LogicalOp


# ---------------------------------------------------------------- updates
@dataclass(eq=False)
class Create(LogicalOp):
    source: LogicalOp
    parts: list[ast.PatternPart]               # variables already named (hidden names for anonymous)


@dataclass(eq=False)
class Merge(LogicalOp):
    source: LogicalOp
    part: ast.PatternPart
    matcher: LogicalOp                         # plan of the pattern as a MATCH over Argument
    on_create: list[Any]
    on_match: list[Any]
    new_vars: tuple[str, ...]

    def nested(self):
        return [self.matcher]

    def inputs(self):
        return [self.source]


@dataclass(eq=False)
class SetItems(LogicalOp):
    source: LogicalOp
    items: list[Any]                           # ast.SetProperty | SetVariable | SetLabels


@dataclass(eq=False)
class RemoveItems(LogicalOp):
    source: LogicalOp
    items: list[Any]


@dataclass(eq=False)
class Delete(LogicalOp):
    source: LogicalOp
    exprs: list[ast.Expr]
    detach: bool


@dataclass(eq=False)
class Foreach(LogicalOp):
    source: LogicalOp
    var: str
    list_expr: ast.Expr
    inner: LogicalOp

    def nested(self):
        return [self.inner]

    def inputs(self):
        return [self.source]


WRITE_OPS = (Create, Merge, SetItems, RemoveItems, Delete, Foreach)


def walk(op: LogicalOp):
    """Every operator of a plan, nested plans included."""
    yield op
    for child in op.inputs() + op.nested():
        yield from walk(child)


def is_updating(op: LogicalOp) -> bool:
    return any(isinstance(o, WRITE_OPS) or (isinstance(o, ProcedureCall) and o.writes) for o in walk(op))


def is_batched(op: LogicalOp) -> bool:
    """The plan commits in batches (CALL { ... } IN TRANSACTIONS)."""
    return any(isinstance(o, Apply) and o.in_transactions for o in walk(op))


@dataclass
class QueryPlan:
    """A planned query: the logical root and its result columns."""
    root: LogicalOp
    columns: list[str] = field(default_factory=list)
    updating: bool = False
