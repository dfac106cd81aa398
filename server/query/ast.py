"""The Cypher abstract syntax tree: the contract between the parser and the later query stages.

Nodes are plain dataclasses. Every node has ``pos`` = (line, column), 1-based, of its first token,
so semantic and runtime errors can point at the source. Names keep their source spelling except
where noted (function names are matched case-insensitively by later stages).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional, Union

Pos = Optional[tuple[int, int]]


def _pos():
    return field(default=None, kw_only=True, compare=False, repr=False)


# --------------------------------------------------------------------------------------------
# Expressions
# --------------------------------------------------------------------------------------------
class Expr:
    """Base class of all expressions."""
    __slots__ = ()


@dataclass(slots=True)
class Literal(Expr):
    value: Any                      # int | float | str | bool | None
    pos: Pos = _pos()


@dataclass(slots=True)
class Parameter(Expr):
    name: str                       # without the "$"; positional $0 keeps "0"
    pos: Pos = _pos()


@dataclass(slots=True)
class Variable(Expr):
    name: str
    pos: Pos = _pos()


@dataclass(slots=True)
class Property(Expr):
    subject: Expr
    key: str
    pos: Pos = _pos()
    key_pos: Pos = _pos()            # of the key after the dot


@dataclass(slots=True)
class Subscript(Expr):
    """``subject[index]``: list index or dynamic map/property key."""
    subject: Expr
    index: Expr
    pos: Pos = _pos()


@dataclass(slots=True)
class Slice(Expr):
    """``subject[start..end]``; either bound may be None."""
    subject: Expr
    start: Optional[Expr]
    end: Optional[Expr]
    pos: Pos = _pos()


@dataclass(slots=True)
class ListLiteral(Expr):
    items: list[Expr]
    pos: Pos = _pos()


@dataclass(slots=True)
class MapLiteral(Expr):
    entries: list[tuple[str, Expr]]  # in source order
    pos: Pos = _pos()
    key_pos: list[Pos] = field(default_factory=list, kw_only=True, compare=False, repr=False)   # per entry


@dataclass(slots=True)
class FunctionCall(Expr):
    """``name(args)``; ``name`` keeps namespaces, e.g. ``datetime.fromEpochMillis``."""
    name: str
    args: list[Expr]
    distinct: bool = False
    pos: Pos = _pos()


@dataclass(slots=True)
class CountStar(Expr):
    """``count(*)``."""
    pos: Pos = _pos()


# Binary operators (``op`` values): OR AND XOR = <> < <= > >= + - * / % ^ IN
# "STARTS WITH" "ENDS WITH" CONTAINS =~
# A comparison chain ``a < b < c`` is parsed as ``(a < b) AND (b < c)``.
@dataclass(slots=True)
class BinaryOp(Expr):
    op: str
    left: Expr
    right: Expr
    pos: Pos = _pos()


@dataclass(slots=True)
class UnaryOp(Expr):
    op: str                          # NOT | - | +
    operand: Expr
    pos: Pos = _pos()


@dataclass(slots=True)
class IsNull(Expr):
    operand: Expr
    negated: bool = False            # IS NOT NULL
    pos: Pos = _pos()


@dataclass(slots=True)
class TypePredicate(Expr):
    """``operand IS [NOT] :: type`` (also ``IS [NOT] TYPED type``, ``operand :: type``); ``type_name`` is
    normalized (``INTEGER | STRING``, ``LIST<FLOAT NOT NULL>``)."""
    operand: Expr
    type_name: str
    negated: bool = False
    pos: Pos = _pos()


# Label expressions, used in node patterns and in ``n:A:B`` / ``n:A|B`` predicates.
class LabelExpr:
    __slots__ = ()


@dataclass(slots=True)
class LabelName(LabelExpr):
    name: str
    pos: Pos = _pos()                # of the name itself (notifications point at it, as Neo4j's do)


@dataclass(slots=True)
class LabelAnd(LabelExpr):
    items: list[LabelExpr]           # ``:A:B`` and ``:A&B``


@dataclass(slots=True)
class LabelOr(LabelExpr):
    items: list[LabelExpr]           # ``:A|B``


@dataclass(slots=True)
class LabelNot(LabelExpr):
    item: LabelExpr                  # ``:!A``


@dataclass(slots=True)
class LabelAny(LabelExpr):
    """``:%`` - any label."""


@dataclass(slots=True)
class LabelDynamic(LabelExpr):
    """``:$(e)`` / ``:$all(e)`` (every label given) or ``:$any(e)`` (one of them): ``e``, a string or a
    list of strings computed per row, is ``args[index]`` of the LabelCheck or pattern that holds it."""
    index: int
    mode: str                        # "all" | "any"


@dataclass(slots=True)
class LabelCheck(Expr):
    """``subject:A:B`` as a predicate (for relationships it checks the type)."""
    subject: Expr
    labels: LabelExpr
    pos: Pos = _pos()
    args: list[Expr] = field(default_factory=list, kw_only=True)   # of the LabelDynamic atoms in labels


@dataclass(slots=True)
class Case(Expr):
    """Simple CASE when ``subject`` is set, searched CASE otherwise."""
    subject: Optional[Expr]
    whens: list[tuple[Expr, Expr]]
    default: Optional[Expr]
    pos: Pos = _pos()


@dataclass(slots=True)
class ListComprehension(Expr):
    """``[variable IN source WHERE where | projection]``."""
    variable: str
    source: Expr
    where: Optional[Expr]
    projection: Optional[Expr]
    pos: Pos = _pos()


@dataclass(slots=True)
class Quantifier(Expr):
    """``all/any/none/single(variable IN source WHERE where)``."""
    kind: str                        # all | any | none | single
    variable: str
    source: Expr
    where: Optional[Expr]
    pos: Pos = _pos()


@dataclass(slots=True)
class Reduce(Expr):
    """``reduce(accumulator = init, variable IN source | expression)``."""
    accumulator: str
    init: Expr
    variable: str
    source: Expr
    expression: Expr
    pos: Pos = _pos()


@dataclass(slots=True)
class MapProjectionItem:
    """One element of ``n{...}``: kind is ``property`` (.key), ``literal`` (key: expr),
    ``variable`` (a bare variable name), or ``all`` (.*)."""
    kind: str
    key: Optional[str] = None
    expr: Optional[Expr] = None


@dataclass(slots=True)
class MapProjection(Expr):
    subject: str                     # the variable being projected
    items: list[MapProjectionItem]
    pos: Pos = _pos()


@dataclass(slots=True)
class PatternComprehension(Expr):
    """``[p = (a)-->(b) WHERE where | projection]``."""
    path_variable: Optional[str]
    pattern: "PatternPart"
    where: Optional[Expr]
    projection: Expr
    pos: Pos = _pos()


@dataclass(slots=True)
class PatternPredicate(Expr):
    """A relationship pattern used as a boolean, e.g. ``WHERE (n)-[:KNOWS]->()``."""
    pattern: "PatternPart"
    pos: Pos = _pos()


@dataclass(slots=True)
class ExistsSubquery(Expr):
    """``EXISTS { ... }``: ``query`` is a full Query, or a Query built from a bare pattern
    (``EXISTS { (n)-->() WHERE ... }`` becomes ``MATCH (n)-->() WHERE ...``)."""
    query: "Query"
    pos: Pos = _pos()


@dataclass(slots=True)
class CountSubquery(Expr):
    """``COUNT { ... }``, same shapes as ExistsSubquery."""
    query: "Query"
    pos: Pos = _pos()


@dataclass(slots=True)
class CollectSubquery(Expr):
    """``COLLECT { ... RETURN x }``."""
    query: "Query"
    pos: Pos = _pos()


# --------------------------------------------------------------------------------------------
# Patterns
# --------------------------------------------------------------------------------------------
@dataclass(slots=True)
class NodePattern:
    variable: Optional[str]
    labels: Optional[LabelExpr]      # None = no label constraint
    properties: Optional[Expr]       # MapLiteral or Parameter
    where: Optional[Expr] = None     # ``(n:A WHERE n.x > 1)``
    pos: Pos = _pos()
    label_args: list[Expr] = field(default_factory=list, kw_only=True)   # of LabelDynamic atoms in labels


@dataclass(slots=True)
class RelPattern:
    variable: Optional[str]
    types: list[str]                 # alternatives (``:A|B``); empty = any type
    direction: str                   # out (-->), in (<--), both (-- or <-->)
    properties: Optional[Expr]
    length: Optional[tuple[Optional[int], Optional[int]]] = None
    # length: None = exactly one hop; ``*`` = (None, None); ``*2`` = (2, 2); ``*1..3`` = (1, 3);
    # ``*..3`` = (None, 3); ``*2..`` = (2, None). A None minimum means 1.
    where: Optional[Expr] = None     # ``-[r WHERE r.x > 1]->``
    pos: Pos = _pos()
    # ``-[:$(e)]->`` / ``-[:A|$any(e)]->``: the type alternatives as a label expression (types is empty)
    type_labels: Optional[LabelExpr] = field(default=None, kw_only=True)
    type_args: list[Expr] = field(default_factory=list, kw_only=True)
    type_pos: list[Pos] = field(default_factory=list, kw_only=True, compare=False, repr=False)   # per type


@dataclass(slots=True)
class QuantifiedPath:
    """``((a)-[r]->(b) WHERE ...){min,max}`` between two node patterns of a path (Neo4j 5.9+): the
    inner path repeated; each iteration starts on the node where the previous one ended. After the
    match each inner variable is a list (one entry per iteration); ``variable`` (hidden) holds the
    relationships walked, in order."""
    elements: list[Union[NodePattern, RelPattern]]
    inner_where: Optional[Expr]
    min: int
    max: Optional[int]
    pos: Pos = _pos()
    variable: Optional[str] = field(default=None, kw_only=True)
    properties: None = field(default=None, kw_only=True)      # as a RelPattern's, for pattern walkers
    where: None = field(default=None, kw_only=True)


@dataclass(slots=True)
class PatternPart:
    """One comma-separated part of a pattern: ``p = (a)-[r]->(b)<-[s]-(c)``.

    ``elements`` alternates NodePattern, RelPattern, NodePattern, ... and always starts and ends
    with a NodePattern. ``shortest`` is None, "shortest" (shortestPath) or "all" (allShortestPaths).
    """
    variable: Optional[str]
    elements: list[Union[NodePattern, RelPattern]]
    shortest: Optional[str] = None
    pos: Pos = _pos()
    shortest_k: int = field(default=1, kw_only=True)     # SHORTEST k (paths), SHORTEST k GROUPS (lengths)
    # ``SHORTEST 1 ((a)-->+(b) WHERE ...)``: a filter of the whole path pattern, applied before a selector
    # picks paths (a MATCH's own WHERE comes after it, as in Neo4j)
    where: Optional[Expr] = field(default=None, kw_only=True)
    selector: bool = field(default=False, kw_only=True)  # a GQL selector (SHORTEST k, ANY, ...), not shortestPath()


# --------------------------------------------------------------------------------------------
# Clauses
# --------------------------------------------------------------------------------------------
class Clause:
    __slots__ = ()


@dataclass(slots=True)
class IndexSearch:
    """One index source of a SEARCH: ``VECTOR INDEX name FOR q [WHERE w] [SKIP s] LIMIT l [WEIGHT x]``."""
    kind: str                        # VECTOR | FULLTEXT
    index: str
    query: Expr
    where: Optional[Expr]
    skip: Optional[Expr]
    limit: Optional[Expr]            # required by the rules, checked semantically
    weight: Optional[Expr] = None    # only meaningful inside COMBINE
    pos: Pos = _pos()


@dataclass(slots=True)
class CombineSearch:
    """``COMBINE (src, src, ...) USING WRRF [WITH CONSTANT c] LIMIT l [WEIGHT x]``."""
    sources: list[Union[IndexSearch, "CombineSearch"]]
    method: str                      # WRRF | RRF
    constant: Optional[Expr]
    limit: Optional[Expr]
    weight: Optional[Expr] = None
    pos: Pos = _pos()


@dataclass(slots=True)
class Search:
    """``SEARCH variable IN (spec) [SCORE AS score]``, attached to the MATCH before it."""
    variable: str
    spec: Union[IndexSearch, CombineSearch]
    score_variable: Optional[str]
    pos: Pos = _pos()


@dataclass(slots=True)
class Match(Clause):
    """MATCH / OPTIONAL MATCH. With a SEARCH, ``where`` filters the searched rows afterwards."""
    pattern: list[PatternPart]
    where: Optional[Expr]
    optional: bool = False
    search: Optional[Search] = None
    pos: Pos = _pos()
    repeatable: bool = field(default=False, kw_only=True)   # MATCH REPEATABLE ELEMENTS: walks, not trails


@dataclass(slots=True)
class Unwind(Clause):
    expr: Expr
    variable: str
    pos: Pos = _pos()


@dataclass(slots=True)
class LoadCsv(Clause):
    """LOAD CSV [WITH HEADERS] FROM url AS variable [FIELDTERMINATOR 'c'] (also Parquet / Arrow IPC)."""
    url: Expr
    variable: str
    headers: bool = False
    terminator: Optional[str] = None
    pos: Pos = _pos()


@dataclass(slots=True)
class ProjectionItem:
    expr: Expr
    alias: Optional[str]             # AS name; None when absent
    text: str                        # the source text of ``expr``, used as the column name
    pos: Pos = _pos()

    @property
    def name(self) -> str:
        return self.alias if self.alias is not None else self.text


@dataclass(slots=True)
class SortItem:
    expr: Expr
    descending: bool = False
    pos: Pos = _pos()


@dataclass(slots=True)
class Projection:
    items: list[ProjectionItem]
    star: bool = False               # ``RETURN *`` / ``WITH *`` (items may follow the star)
    distinct: bool = False
    order_by: list[SortItem] = field(default_factory=list)
    skip: Optional[Expr] = None
    limit: Optional[Expr] = None


@dataclass(slots=True)
class With(Clause):
    projection: Projection
    where: Optional[Expr] = None
    pos: Pos = _pos()


@dataclass(slots=True)
class Finish(Clause):
    """``FINISH``: the query runs to its end and returns no rows (Cypher 25)."""
    pos: Pos = _pos()


@dataclass(slots=True)
class Return(Clause):
    projection: Projection
    pos: Pos = _pos()


@dataclass(slots=True)
class Create(Clause):
    pattern: list[PatternPart]
    pos: Pos = _pos()


@dataclass(slots=True)
class SetProperty:
    """``target.key = value`` where target is Property(subject, key), or ``subject[key] = value``
    (a Subscript: the key computed per row)."""
    target: Union[Property, Subscript]
    value: Expr
    pos: Pos = _pos()


@dataclass(slots=True)
class SetVariable:
    """``n = map`` (merge False) or ``n += map`` (merge True)."""
    variable: str
    value: Expr
    merge: bool
    pos: Pos = _pos()


@dataclass(slots=True)
class SetLabels:
    variable: str
    labels: list[str]                # SET n:$(expr) holds the Expr in its place (SET only)
    pos: Pos = _pos()


SetItem = Union[SetProperty, SetVariable, SetLabels]


@dataclass(slots=True)
class Set(Clause):
    items: list[SetItem]
    pos: Pos = _pos()


@dataclass(slots=True)
class RemoveProperty:
    target: Union[Property, Subscript]
    pos: Pos = _pos()


@dataclass(slots=True)
class RemoveLabels:
    variable: str
    labels: list[str]                # REMOVE n:$(expr) holds the Expr in its place
    pos: Pos = _pos()


@dataclass(slots=True)
class Remove(Clause):
    items: list[Union[RemoveProperty, RemoveLabels]]
    pos: Pos = _pos()


@dataclass(slots=True)
class Delete(Clause):
    exprs: list[Expr]
    detach: bool = False
    pos: Pos = _pos()


@dataclass(slots=True)
class Merge(Clause):
    part: PatternPart
    on_create: list[SetItem] = field(default_factory=list)
    on_match: list[SetItem] = field(default_factory=list)
    pos: Pos = _pos()


@dataclass(slots=True)
class Foreach(Clause):
    variable: str
    source: Expr
    clauses: list[Clause]
    pos: Pos = _pos()


@dataclass(slots=True)
class CallSubquery(Clause):
    """``CALL (a, b) { ... }`` / ``CALL (*) { ... }`` / ``CALL () { ... }`` / legacy ``CALL { WITH a ... }``.

    ``imports`` is None for the legacy form (imports come from a leading WITH), ``["*"]`` for
    ``(*)``, else the listed variable names. ``in_transactions`` is the ``IN TRANSACTIONS`` suffix, with
    its options: ``on_error`` (FAIL, CONTINUE, BREAK or RETRY; ``retry_for`` seconds, then ``retry_then``)
    and ``report_status`` (the variable of ``REPORT STATUS AS``).
    """
    query: "Query"
    imports: Optional[list[str]]
    optional: bool = False
    in_transactions: bool = False
    batch_size: Optional[Expr] = None
    pos: Pos = _pos()
    on_error: str = "FAIL"
    retry_for: Optional[Expr] = None
    retry_then: str = "FAIL"
    report_status: Optional[str] = None


@dataclass(slots=True)
class YieldItem:
    name: str                        # the procedure's output column
    alias: Optional[str] = None


@dataclass(slots=True)
class CallProcedure(Clause):
    """``CALL ns.name(args) YIELD a, b AS c WHERE ...``; ``args`` None = implicit (from parameters).
    ``yields`` None = no YIELD clause; ``yield_star`` for ``YIELD *``."""
    name: str
    args: Optional[list[Expr]]
    yields: Optional[list[YieldItem]]
    yield_star: bool = False
    where: Optional[Expr] = None
    pos: Pos = _pos()
    optional: bool = False           # added by the parser: ``OPTIONAL CALL proc()``


# --------------------------------------------------------------------------------------------
# Queries and statements
# --------------------------------------------------------------------------------------------
@dataclass(slots=True)
class SingleQuery:
    clauses: list[Clause]
    pos: Pos = _pos()


@dataclass(slots=True)
class Query:
    """One or more single queries joined by UNION; ``union_all[i]`` joins parts i and i + 1."""
    parts: list[SingleQuery]
    union_all: list[bool] = field(default_factory=list)
    pos: Pos = _pos()


@dataclass(slots=True)
class CreateIndex:
    """CREATE [RANGE|TEXT|POINT|VECTOR|FULLTEXT] INDEX [name] [IF NOT EXISTS] FOR ... ON ...

    ``labels`` holds the label alternatives of a node index (``(n:A|B)``) or the relationship
    types; ``with_properties`` is the vector index's ``WITH [n.a, n.b]`` filter list.
    """
    kind: str                        # RANGE | TEXT | POINT | VECTOR | FULLTEXT | LOOKUP
    name: Optional[str]
    entity: str                      # node | relationship
    variable: str
    labels: list[str]
    properties: list[str]
    with_properties: list[str] = field(default_factory=list)
    options: Optional[Expr] = None
    if_not_exists: bool = False
    pos: Pos = _pos()


@dataclass(slots=True)
class DropIndex:
    """DROP INDEX name [IF EXISTS], or the 4.x (and FalkorDB) form DROP INDEX ON :Label(key, ...): ``name``
    None and the index found by ``label`` and ``properties``."""
    name: Optional[str]
    if_exists: bool = False
    pos: Pos = _pos()
    label: Optional[str] = None
    properties: list[str] = field(default_factory=list)


@dataclass(slots=True)
class CreateConstraint:
    """CREATE CONSTRAINT [name] [IF NOT EXISTS] FOR (n:L) | ()-[r:T]-() REQUIRE ...

    kind: UNIQUE | NOT_NULL | KEY (node/relationship key) | TYPE (``IS :: INTEGER``).
    """
    kind: str
    name: Optional[str]
    entity: str                      # node | relationship
    variable: str
    label: str
    properties: list[str]
    type_name: Optional[str] = None  # for TYPE, e.g. "INTEGER", "STRING", "LIST<INTEGER NOT NULL>"
    options: Optional[Expr] = None
    if_not_exists: bool = False
    pos: Pos = _pos()


@dataclass(slots=True)
class DropConstraint:
    name: str
    if_exists: bool = False
    pos: Pos = _pos()


@dataclass(slots=True)
class ShowCommand:
    """SHOW INDEXES | CONSTRAINTS | PROCEDURES | FUNCTIONS | USERS | TRANSACTIONS | DATABASES [YIELD ...] [WHERE ...]
    [RETURN ...]."""
    kind: str
    yield_items: Optional[list[YieldItem]] = None
    yield_star: bool = False
    where: Optional[Expr] = None
    returns: Optional[Projection] = None
    pos: Pos = _pos()
    filter: Optional[str] = None     # added by the parser: ALL | RANGE | TEXT | POINT | VECTOR | FULLTEXT |
    #                                  LOOKUP for indexes, ALL | [NODE |RELATIONSHIP ]UNIQUE | KEY | EXISTS |
    #                                  TYPE for constraints, the database name of SHOW DATABASE name
    order_by: list[SortItem] = field(default_factory=list)     # YIELD ... ORDER BY ... SKIP ... LIMIT ...
    skip: Optional[Expr] = None
    limit: Optional[Expr] = None
    # SHOW PROCEDURES | FUNCTIONS EXECUTABLE [BY name]: "" for the current user, None without EXECUTABLE
    executable_by: Optional[str] = None
    # SHOW ... PRIVILEGES AS COMMANDS ("GRANT") or AS REVOKE COMMANDS ("REVOKE"); None: as columns. (The
    # role or user names of SHOW ROLE | USER names PRIVILEGES and SHOW ALIAS name are in ``filter``, one a line.)
    as_commands: Optional[str] = None


@dataclass(slots=True)
class CreateUser:
    name: str
    password: Expr
    change_required: bool = False
    if_not_exists: bool = False
    pos: Pos = _pos()
    encrypted: bool = False          # SET ENCRYPTED PASSWORD: refused (Relate hashes what it stores)
    suspended: Optional[bool] = None     # SET STATUS SUSPENDED | ACTIVE
    home: Optional[str] = None           # SET HOME DATABASE name ("" : REMOVE HOME DATABASE)
    replace: bool = False                # CREATE OR REPLACE USER


@dataclass(slots=True)
class AlterUser:
    name: str
    password: Optional[Expr]
    change_required: Optional[bool] = None
    if_exists: bool = False
    pos: Pos = _pos()
    encrypted: bool = False
    suspended: Optional[bool] = None
    home: Optional[str] = None


@dataclass(slots=True)
class RenameUser:
    """RENAME USER old [IF EXISTS] TO new."""
    old: str
    new: str
    if_exists: bool = False
    pos: Pos = _pos()


@dataclass(slots=True)
class DropUser:
    name: str
    if_exists: bool = False
    pos: Pos = _pos()


@dataclass(slots=True)
class AlterCurrentPassword:
    """ALTER CURRENT USER SET PASSWORD FROM old TO new."""
    old: Expr
    new: Expr
    pos: Pos = _pos()


@dataclass(slots=True)
class CreateRelevanceJoin:
    """CREATE RELEVANCE JOIN name FOR (a:A|B)-[:TYPE]->(t:T) ON a.prop [OPTIONS {...}]."""
    name: str
    anchor_labels: list[str]
    rel_type: str
    target_label: str
    anchor_property: str
    options: Optional[Expr] = None
    if_not_exists: bool = False
    pos: Pos = _pos()


@dataclass(slots=True)
class GrantRole:
    """GRANT ROLE r1, r2 TO user (``revoke``: REVOKE ROLE ... FROM user)."""
    roles: list[str]
    user: str
    revoke: bool = False
    pos: Pos = _pos()


@dataclass(slots=True)
class DropRelevanceJoin:
    name: str
    if_exists: bool = False
    pos: Pos = _pos()


@dataclass(slots=True)
class CreateLabel:
    """CREATE LABEL name [OPTIONS {parents: [...], lifecycle: {active: [...], never: [...]}}]."""
    name: str
    options: Optional[Expr] = None
    if_not_exists: bool = False
    pos: Pos = _pos()


@dataclass(slots=True)
class DropLabel:
    name: str
    if_exists: bool = False
    pos: Pos = _pos()


@dataclass(slots=True)
class TableColumn:
    """A column of a Kuzu table: its name, its Kuzu type as written (upper case: INT64, FLOAT[384]),
    whether it is the (inline) primary key, and its DEFAULT."""
    name: str
    type: str
    primary: bool = False
    default: Optional[Expr] = None


@dataclass(slots=True)
class CreateTable:
    """Kuzu's CREATE NODE TABLE name (col TYPE, ..., PRIMARY KEY (col)) or CREATE REL TABLE name (FROM a TO
    b, ..., col TYPE, ..., [MANY_ONE | ...]): ``entity`` "node" or "relationship"."""
    entity: str
    name: str
    columns: list[TableColumn]
    primary_key: Optional[str] = None
    ends: list[tuple[str, str]] = field(default_factory=list)
    multiplicity: Optional[str] = None
    if_not_exists: bool = False
    pos: Pos = _pos()


@dataclass(slots=True)
class DropTable:
    name: str
    if_exists: bool = False
    pos: Pos = _pos()


@dataclass(slots=True)
class Extension:
    """Kuzu's INSTALL name / LOAD [EXTENSION] name (``action`` "INSTALL" or "LOAD")."""
    action: str
    name: str
    pos: Pos = _pos()


@dataclass(slots=True)
class CopyFrom:
    """Kuzu's COPY table FROM 'file' [(header=true, delim=',')]: ``source`` a string or a parameter."""
    table: str
    source: Expr
    options: dict[str, Expr] = field(default_factory=dict)
    pos: Pos = _pos()


@dataclass(slots=True)
class TerminateTransactions:
    """``TERMINATE TRANSACTIONS id, ...``: each id a string (or a list of them), as SHOW TRANSACTIONS gives."""
    ids: list[Expr]
    pos: Pos = _pos()


Command = Union[CreateIndex, DropIndex, CreateConstraint, DropConstraint, ShowCommand,
                CreateUser, AlterUser, DropUser, RenameUser, AlterCurrentPassword, GrantRole, CreateRelevanceJoin,
                DropRelevanceJoin, CreateLabel, DropLabel, TerminateTransactions]


@dataclass(slots=True)
class Statement:
    """A whole statement: ``mode`` is None, "EXPLAIN" or "PROFILE"; ``body`` a Query or a Command."""
    body: Union[Query, Command]
    mode: Optional[str] = None
    text: str = ""                   # the statement's source text
    pos: Pos = _pos()
