"""The expression compiler: an AST expression becomes nested Python closures ``fn(row, ctx) -> value``.

Compiled once per plan. Common shapes get specialised closures (a variable's property, a literal,
a parameter, a comparison with a constant); sub-expressions made only of constants are folded at
compile time (errors while folding are left to runtime, where Cypher reports them).
"""
from __future__ import annotations

import sys

from typing import Any, Callable

from relate.protocol.errors import (ArgumentError, CypherSemanticError, CypherSyntaxError, CypherTypeError,
                                    ParameterMissing)
from relate.protocol.values import Duration, Point, Vector
from relate.server.query import ast
from relate.server.query.context import checked
from relate.server.query.exec import functions
from relate.server.query.exec.values import ops as values_ops
from relate.server.query.exec.functions.aggregates import is_aggregate
from relate.server.query.exec.values.ops import equals, temporal_rank, type_name
from relate.server.query.exec.regex_match import compile_regex, full_match
from relate.server.query.refs import NodeRef, RelRef

__all__ = ["compile_expression", "get_property", "in_list", "label_predicate", "Compiled"]

Compiled = Callable[[dict, Any], Any]


def compile_expression(expr: ast.Expr, scope: Any = None) -> Compiled:
    """Compile ``expr`` into ``fn(row, ctx)``; ``scope`` (the planner's CompileScope) compiles
    subqueries and patterns, and may be None for expressions that have none."""
    return _Compiler(scope).compile(expr)


# --------------------------------------------------------------------------------------------
# Constants
# --------------------------------------------------------------------------------------------
def _constant(value: Any) -> Compiled:
    def constant(row, ctx):
        return value
    constant.constant_value = value
    return constant


def _is_const(fn: Compiled) -> bool:
    return hasattr(fn, "constant_value")


# --------------------------------------------------------------------------------------------
# Per-statement values: an expression of parameters and literals only (``datetime($since).epochMillis``)
# gives one value for the whole statement; it is computed once per ExecContext, not once per row.
# --------------------------------------------------------------------------------------------
# Functions of their arguments and the statement's own state (default zone, statement clock).
_STATEMENT_FUNCTIONS = frozenset(("date", "datetime", "localdatetime", "time", "localtime"))
# Only values nothing can change in place are kept (lists and maps are built again per use).
_KEPT_TYPES = frozenset((int, float, str, bool, type(None), Duration, Point))
_MISSING = object()


def _per_statement_input(fn: Compiled) -> bool:
    return _is_const(fn) or hasattr(fn, "per_statement")


def _per_statement(fn: Compiled, expr: ast.Expr | None = None) -> Compiled:
    """``fn`` evaluated once per statement (its value kept in ``ctx.memo``) when it is immutable.
    With ``expr``, every occurrence of the same expression (its structural repr) shares the value:
    ``datetime($since)`` in two branches of a UNION is parsed once."""
    from relate.protocol.temporal import Date, DateTime, LocalDateTime, LocalTime, Time
    kept = _KEPT_TYPES | {Date, DateTime, LocalDateTime, LocalTime, Time}

    def once(row, ctx):
        memo = getattr(ctx, "memo", None)
        if memo is None:
            return fn(row, ctx)
        value = memo.get(key, _MISSING)
        if value is _MISSING:
            value = fn(row, ctx)
            if type(value) in kept:
                memo[key] = value
        return value
    key = once if expr is None else ("per statement", repr(expr))
    once.per_statement = True        # type: ignore[attr-defined]
    return once


def _fold(fn: Compiled, children: list[Compiled]) -> Compiled:
    """``fn`` evaluated now when every child is a constant and evaluation succeeds."""
    if not all(_is_const(c) for c in children):
        return fn
    try:
        return _constant(fn({}, None))
    except Exception:               # e.g. 1/0 under a CASE branch never taken: fail at runtime only
        return fn


# --------------------------------------------------------------------------------------------
# Errors
# --------------------------------------------------------------------------------------------
def _compile_error(message: str, detail: str, expr: Any, cls=CypherSyntaxError):
    pos = getattr(expr, "pos", None)
    line, column = pos if pos else (None, None)
    return cls(message, detail=detail, phase="compile time", line=line, column=column)


def _runtime_type_error(message: str):
    return CypherTypeError(message, detail="InvalidArgumentType", phase="runtime")


_NO_KIND = object()
# Static kinds each graph/list function accepts as its first argument (checked at compile time).
_ENTITY = frozenset({"node", "relationship", "map"})
_ARGUMENT_KINDS = {
    "labels": frozenset({"node"}), "type": frozenset({"relationship"}),
    "length": frozenset({"path"}), "nodes": frozenset({"path"}), "relationships": frozenset({"path"}),
    "size": frozenset({"string", "list"}), "properties": _ENTITY, "keys": _ENTITY,
    "startnode": frozenset({"relationship"}), "endnode": frozenset({"relationship"}),
}
_KNOWN_KINDS = frozenset({"integer", "float", "string", "boolean", "list", "map", "node",
                          "relationship", "path"})
# Kinds that never have properties (a subject of these kinds fails at compile time).
_NO_PROPERTY_KINDS = frozenset({"integer", "float", "string", "boolean", "list", "path"})
_NUMERIC_KINDS = ("integer", "float")


def _element_kind(source: Any) -> str | None:
    """The one kind shared by every item of a literal list, else None."""
    if type(source) is not ast.ListLiteral or not source.items:
        return None
    kinds = {_literal_kind(item) for item in source.items}
    return kinds.pop() if len(kinds) == 1 and None not in kinds and "null" not in kinds else None


def _invalid_arithmetic(op: str, left: str | None, right: str | None) -> bool:
    """True when ``left op right`` fails for every value of these static kinds."""
    if left is None or right is None or left == "null" or right == "null":
        return False
    if left in _NUMERIC_KINDS and right in _NUMERIC_KINDS:
        return False
    if op == "+":
        if left == "list" or right == "list":
            return False
        if left == "string" or right == "string":
            return not ({left, right} <= {"string", "integer", "float", "boolean"})
    return True


def _literal_kind(expr: Any) -> str | None:
    """The static type of a literal expression (``integer``, ``list``, ...), None when unknown."""
    t = type(expr)
    if t is ast.Literal:
        v = expr.value
        if v is None:
            return "null"
        return {bool: "boolean", int: "integer", float: "float", str: "string"}.get(type(v))
    if t is ast.ListLiteral:
        return "list"
    if t is ast.MapLiteral:
        return "map"
    return None


# --------------------------------------------------------------------------------------------
# Runtime helpers
# --------------------------------------------------------------------------------------------
def _temporal_ops():
    from relate.server.query.exec.functions import temporal as temporal_functions
    return temporal_functions


def get_property(value: Any, key: str, ctx: Any) -> Any:
    """``value.key`` for nodes, relationships, maps, temporal values and durations; null on null."""
    t = type(value)
    if t is NodeRef:
        return ctx.tx.node_prop(value.id, key)
    if t is RelRef:
        return ctx.tx.rel_prop(value.id, key)
    if t is dict:
        return value.get(key)
    if value is None:
        return None
    if t is Duration or temporal_rank(value) is not None:
        return _temporal_ops().temporal_property(value, key)
    if t is Point:
        return point_property(value, key)
    raise _runtime_type_error(f"Type mismatch: expected a map, node or relationship but was "
                              f"{type_name(value)} (accessing property `{key}`)")


_POINT_FIELDS = {"x": 0, "y": 1, "z": 2, "longitude": 0, "latitude": 1, "height": 2}


def point_property(value: Point, key: str) -> Any:
    """``p.x``, ``p.y``, ``p.z``, ``p.longitude``, ``p.latitude``, ``p.height``, ``p.crs``, ``p.srid``:
    the geographic names on WGS-84 points only, z and height on 3-D points only (as Neo4j)."""
    if key == "crs":
        return value.crs
    if key == "srid":
        return value.srid
    index = _POINT_FIELDS.get(key)
    if index is None or (key in ("longitude", "latitude", "height") and not value.geographic) \
            or index >= len(value.coordinates):
        raise ArgumentError(f"Field: {key} is not available on a point of the {value.crs} CRS: {value}",
                            detail="InvalidArgumentValue", phase="runtime")
    return value.coordinates[index]


def _all_properties(value: Any, ctx: Any) -> dict:
    t = type(value)
    if t is NodeRef:
        return ctx.tx.node_props(value.id)
    if t is RelRef:
        return ctx.tx.rel_props(value.id)
    if t is dict:
        return value
    raise _runtime_type_error(f"Type mismatch: expected a map, node or relationship but was "
                              f"{type_name(value)}")


def _bool_operand(op: str, v: Any):
    raise _runtime_type_error(f"Type mismatch: {op} expected Boolean but was {type_name(v)}")


def _traversable(v: Any) -> list:
    """The items ``x IN v`` walks in a list comprehension, quantifier or reduce: a value that is not a list
    is a list of itself, as in Neo4j (``any(n IN p.nationality WHERE ...)`` over a string property)."""
    if type(v) is list:
        return v
    if type(v) is Vector:
        return v.tolist()
    return [v]


def _check_traversable(source: Any) -> None:
    """A literal that is not a list cannot be walked (Neo4j refuses it when compiling)."""
    kind = _literal_kind(source)
    if kind not in (None, "null", "list"):
        raise _compile_error(f"Type mismatch: expected List<T> but was {kind.capitalize()}", "InvalidArgumentType",
                             source)


def _as_list(v: Any, what: str) -> list:
    if type(v) is list:
        return v
    if type(v) is Vector:
        return v.tolist()
    raise _runtime_type_error(f"Type mismatch: {what} expected a List but was {type_name(v)}")


def in_list(value: Any, items: Any) -> bool | None:
    """Cypher ``value IN items`` with null semantics (``2 IN [1, null]`` is null)."""
    if items is None:
        return None
    items = _as_list(items, "IN")
    if value is None:
        return None if items else False
    unknown = False
    for x in items:
        r = equals(value, x)
        if r:
            return True
        if r is None:
            unknown = True
    return None if unknown else False


# ``x IN list`` with a long list met again (a parameter, a collected list carried by WITH: the same object
# row after row) looks a scalar up in a set built at its second sighting, instead of comparing it with
# every item (``WHERE NOT n.id IN $seen`` over 50k nodes and 10k ids: 60 s). Kept per statement, in
# ctx.memo (one list per IN expression: the last one met).
MEMBERS_AT = 32
_HASHED = frozenset((int, float, str, bool))
_TRUE, _FALSE = object(), object()       # booleans stand apart: Cypher's true is not 1, Python's is


def _members(items: list) -> tuple[set, bool]:
    """(the scalar items as set keys, whether null is among the items) of a list. Equality of a scalar
    with a list, map or other value is false, never null, so those items cannot change an answer."""
    keys: set = set()
    has_null = False
    for item in items:
        kind = type(item)
        if kind is int or kind is str or (kind is float and item == item):     # NaN equals nothing
            keys.add(item)
        elif kind is bool:
            keys.add(_TRUE if item else _FALSE)
        elif item is None:
            has_null = True
    return keys, has_null


def _in_members(site: Any, items: list, value: Any, ctx) -> Any:
    """``value IN items`` through the set of ``items`` when this IN (``site``) meets the same list again;
    _MISSING the first time (the caller compares item by item)."""
    memo = getattr(ctx, "memo", None)
    if memo is None:
        return _MISSING
    held = memo.get(site)
    if held is None or held[0] is not items or held[1] != len(items):
        memo[site] = (items, len(items), None)
        return _MISSING
    members = held[2]
    if members is None:
        members = _members(items)
        memo[site] = (items, len(items), members)
    keys, has_null = members
    if (value if type(value) is not bool else _TRUE if value else _FALSE) in keys:
        return True
    return None if has_null else False


def _compile_regex(pattern: str):
    return compile_regex(pattern)


def label_predicate(labels: ast.LabelExpr) -> Callable[[frozenset], bool]:
    """A predicate over a label set (a relationship passes ``{type}``) from a label expression."""
    t = type(labels)
    if t is ast.LabelName:
        name = labels.name
        return lambda present: name in present
    if t is ast.LabelAnd:
        names = [i.name for i in labels.items if type(i) is ast.LabelName]
        if len(names) == len(labels.items):
            required = frozenset(names)
            return lambda present: required <= present
        preds = [label_predicate(i) for i in labels.items]
        return lambda present: all(p(present) for p in preds)
    if t is ast.LabelOr:
        preds = [label_predicate(i) for i in labels.items]
        return lambda present: any(p(present) for p in preds)
    if t is ast.LabelNot:
        pred = label_predicate(labels.item)
        return lambda present: not pred(present)
    if t is ast.LabelAny:
        return lambda present: len(present) > 0
    raise CypherSemanticError(f"Unsupported label expression {labels!r}", phase="compile time")


_label_predicate = label_predicate     # the name operators.py imported first


def dynamic_names(value: Any) -> list[str]:
    """What a ``$(e)`` label or type gave: a non-empty string or a list of them (else a type error)."""
    names = value if type(value) is list else [value]
    for name in names:
        if type(name) is not str or not name:
            raise _runtime_type_error(f"A dynamic label or relationship type must be a non-empty String, not "
                                      f"{type_name(name)}")
    return names


def dynamic_label_predicate(labels: ast.LabelExpr, args: list) -> Callable[[frozenset, dict, Any], bool]:
    """Like label_predicate, for an expression with ``$(e)`` atoms: ``args`` are their compiled
    expressions, evaluated per row (``$all``: every name present, ``$any``: one of them)."""
    t = type(labels)
    if t is ast.LabelDynamic:
        arg = args[labels.index]
        if labels.mode == "any":
            return lambda present, row, ctx: any(n in present for n in dynamic_names(arg(row, ctx)))
        return lambda present, row, ctx: all(n in present for n in dynamic_names(arg(row, ctx)))
    if t is ast.LabelAnd or t is ast.LabelOr:
        preds = [dynamic_label_predicate(i, args) for i in labels.items]
        if t is ast.LabelAnd:
            return lambda present, row, ctx: all(p(present, row, ctx) for p in preds)
        return lambda present, row, ctx: any(p(present, row, ctx) for p in preds)
    if t is ast.LabelNot:
        pred = dynamic_label_predicate(labels.item, args)
        return lambda present, row, ctx: not pred(present, row, ctx)
    static = label_predicate(labels)
    return lambda present, row, ctx: static(present)


_ARITHMETIC = {"+": values_ops.add, "-": values_ops.subtract, "*": values_ops.multiply,
               "/": values_ops.divide, "%": values_ops.modulo, "^": values_ops.power}
_INT64_MIN, _INT64_MAX = -2 ** 63, 2 ** 63 - 1
_ORDERING = {"<": values_ops.less, "<=": values_ops.less_equal, ">": values_ops.greater,
             ">=": values_ops.greater_equal}
# Plain Python comparisons: right for two numbers (NaN compares false) or two strings.
_NUMERIC_ORDERING = {"<": lambda a, b: a < b, "<=": lambda a, b: a <= b,
                     ">": lambda a, b: a > b, ">=": lambda a, b: a >= b}


# --------------------------------------------------------------------------------------------
# The compiler
# --------------------------------------------------------------------------------------------
class _Compiler:
    """Walks the AST once; each ``_<node>`` method returns the closure for that node."""

    def __init__(self, scope: Any):
        self.scope = scope
        # Static kinds of comprehension variables drawn from literal lists (``x IN ['a', 'b']``),
        # so type errors such as ``x % 2`` on strings are reported at compile time, as Cypher does.
        self.kinds: dict[str, str] = {}

    def _kind(self, expr: Any) -> str | None:
        """The static kind of ``expr`` when known: a literal's, a typed comprehension variable's, or
        what the scope knows of a variable (optional ``scope.variable_kind(name)`` -> ``node``,
        ``relationship``, ``path``, ``integer``, ... or None)."""
        if type(expr) is ast.Variable:
            kind = self.kinds.get(expr.name)
            if kind is None and expr.name not in self.kinds:
                lookup = getattr(self.scope, "variable_kind", None)
                kind = lookup(expr.name) if lookup is not None else None
            return kind
        return _literal_kind(expr)

    def _with_element_kind(self, var: str, source: ast.Expr, compile_body):
        """Compile ``compile_body()`` with ``var`` typed by the literal list ``source`` (if any)."""
        saved = self.kinds.get(var, _NO_KIND)
        kind = _element_kind(source)
        if kind is None:
            self.kinds.pop(var, None)
        else:
            self.kinds[var] = kind
        try:
            return compile_body()
        finally:
            if saved is _NO_KIND:
                self.kinds.pop(var, None)
            else:
                self.kinds[var] = saved

    def compile(self, expr: ast.Expr) -> Compiled:
        method = getattr(self, "_" + type(expr).__name__, None)
        if method is None:
            raise CypherSemanticError(f"Cannot evaluate {type(expr).__name__} here",
                                      phase="compile time")
        return method(expr)

    def _need_scope(self, expr):
        if self.scope is None:
            raise _compile_error(f"{type(expr).__name__} needs a query scope", "UnexpectedSyntax",
                                 expr, CypherSemanticError)
        return self.scope

    # -- leaves --------------------------------------------------------------------------------
    def _Literal(self, e: ast.Literal) -> Compiled:
        return _constant(e.value)

    def _Parameter(self, e: ast.Parameter) -> Compiled:
        name = e.name

        def parameter(row, ctx):
            try:
                return ctx.params[name]
            except KeyError:
                raise ParameterMissing(f"Expected parameter(s): {name}", detail="MissingParameter",
                                       phase="runtime") from None
        parameter.per_statement = True   # type: ignore[attr-defined]
        return parameter

    def _Variable(self, e: ast.Variable) -> Compiled:
        name = e.name

        def variable(row, ctx):
            try:
                return row[name]
            except KeyError:
                raise CypherSemanticError(f"Variable `{name}` not defined",
                                          detail="UndefinedVariable", phase="runtime") from None
        return variable

    # -- property access -----------------------------------------------------------------------
    def _Property(self, e: ast.Property) -> Compiled:
        key = e.key
        kind = self._kind(e.subject)
        if kind in _NO_PROPERTY_KINDS:
            raise _compile_error(f"Type mismatch: expected Map, Node or Relationship but was {kind}",
                                 "InvalidArgumentType", e)
        if type(e.subject) is ast.Variable:
            name = e.subject.name

            def variable_property(row, ctx):
                try:
                    value = row[name]
                except KeyError:
                    raise CypherSemanticError(f"Variable `{name}` not defined",
                                              detail="UndefinedVariable", phase="runtime") from None
                t = type(value)
                if t is NodeRef:
                    return ctx.tx.node_prop(value.id, key)
                if t is dict:                  # a plain map (``UNWIND $rows AS r ... r.key``)
                    return value.get(key)
                if t is RelRef:
                    return ctx.tx.rel_prop(value.id, key)
                return get_property(value, key, ctx)
            return variable_property
        subject = self.compile(e.subject)

        def property_of(row, ctx):
            return get_property(subject(row, ctx), key, ctx)
        if hasattr(subject, "per_statement"):       # never an entity: parameters hold none
            return _per_statement(property_of, e)
        return _fold(property_of, [subject])

    def _Subscript(self, e: ast.Subscript) -> Compiled:
        subject, index = self.compile(e.subject), self.compile(e.index)

        def subscript(row, ctx):
            s = subject(row, ctx)
            i = index(row, ctx)
            if s is None or i is None:
                return None
            ts = type(s)
            if ts is list or ts is Vector:
                if type(i) is not int:
                    raise _runtime_type_error(f"List element access expects an Integer index, "
                                              f"got {type_name(i)}")
                try:
                    return s[i]
                except IndexError:
                    return None
            if type(i) is not str:
                raise _runtime_type_error(f"Map element access expects a String key, got "
                                          f"{type_name(i)}")
            return get_property(s, i, ctx)
        return _fold(subscript, [subject, index])

    def _Slice(self, e: ast.Slice) -> Compiled:
        subject = self.compile(e.subject)
        start = self.compile(e.start) if e.start is not None else _constant(0)
        end = self.compile(e.end) if e.end is not None else None

        def slice_(row, ctx):
            s = subject(row, ctx)
            if s is None:
                return None
            lo = start(row, ctx)
            hi = end(row, ctx) if end is not None else None
            if lo is None or (end is not None and hi is None):
                return None
            s = _as_list(s, "slice")
            if type(lo) is not int or (hi is not None and type(hi) is not int):
                raise _runtime_type_error("List slice bounds must be Integers")
            return s[lo:hi]
        return _fold(slice_, [subject, start] + ([end] if end is not None else []))

    # -- literals ------------------------------------------------------------------------------
    def _ListLiteral(self, e: ast.ListLiteral) -> Compiled:
        items = [self.compile(i) for i in e.items]
        if all(_is_const(i) for i in items):
            return _constant([i.constant_value for i in items])

        def list_literal(row, ctx):
            return [item(row, ctx) for item in items]
        return list_literal

    def _MapLiteral(self, e: ast.MapLiteral) -> Compiled:
        # Interned keys: the store keeps interned property keys, and takes a CREATE's fresh map as it
        # is when its keys are those very strings (storage/store.py _adopt_props).
        entries = [(sys.intern(k), self.compile(v)) for k, v in e.entries]
        if all(_is_const(v) for _, v in entries):
            return _constant({k: v.constant_value for k, v in entries})

        def map_literal(row, ctx):
            return {k: v(row, ctx) for k, v in entries}
        return map_literal

    # -- operators -----------------------------------------------------------------------------
    def _BinaryOp(self, e: ast.BinaryOp) -> Compiled:
        op = e.op.upper() if e.op[0].isalpha() else e.op
        if op in ("AND", "OR", "XOR"):
            return self._boolean(op, e)
        left, right = self.compile(e.left), self.compile(e.right)
        if op in _ARITHMETIC:
            if _invalid_arithmetic(op, self._kind(e.left), self._kind(e.right)):
                raise _compile_error(f"Type mismatch: cannot apply {op} to {self._kind(e.left)} and "
                                     f"{self._kind(e.right)}", "InvalidArgumentType", e)
            computed = _fold(_arithmetic(op, left, right), [left, right])
            if not _is_const(computed) and _per_statement_input(left) and _per_statement_input(right):
                return _per_statement(computed, e)      # datetime() - duration('P30D'): once, not per row
            return computed
        if op == "=" or op == "<>":
            result = self._equality(left, right, negate=(op == "<>"))
        elif op in _ORDERING:
            result = self._ordering(op, left, right)
        elif op == "IN":
            kind = _literal_kind(e.right)
            if kind not in (None, "null", "list"):
                raise _compile_error(f"Type mismatch: IN expected a List but was {kind}",
                                     "InvalidArgumentType", e.right)
            result = self._in(left, right)
        elif op in ("STARTS WITH", "ENDS WITH", "CONTAINS"):
            result = self._string_predicate(op, left, right)
        elif op == "=~":
            result = self._regex(left, right)
        elif op == "||":
            result = _concatenation(left, right)
        else:
            raise _compile_error(f"Unknown operator {e.op}", "UnexpectedSyntax", e)
        return _fold(result, [left, right])

    def _boolean(self, op: str, e: ast.BinaryOp) -> Compiled:
        for side in (e.left, e.right):
            kind = self._kind(side)
            if kind not in (None, "null", "boolean"):
                raise _compile_error(f"Type mismatch: {op} expected Boolean but was {kind}",
                                     "InvalidArgumentType", side)
        left, right = self.compile(e.left), self.compile(e.right)
        if op == "AND":
            def and_(row, ctx):
                a = left(row, ctx)
                if a is False:
                    return False
                if a is not True and a is not None:
                    _bool_operand("AND", a)
                b = right(row, ctx)
                if b is False:
                    return False
                if b is not True and b is not None:
                    _bool_operand("AND", b)
                return None if a is None or b is None else True
            return _fold(and_, [left, right])
        if op == "OR":
            def or_(row, ctx):
                a = left(row, ctx)
                if a is True:
                    return True
                if a is not False and a is not None:
                    _bool_operand("OR", a)
                b = right(row, ctx)
                if b is True:
                    return True
                if b is not False and b is not None:
                    _bool_operand("OR", b)
                return None if a is None or b is None else False
            return _fold(or_, [left, right])

        def xor(row, ctx):
            a, b = left(row, ctx), right(row, ctx)
            if a is not True and a is not False and a is not None:
                _bool_operand("XOR", a)
            if b is not True and b is not False and b is not None:
                _bool_operand("XOR", b)
            return None if a is None or b is None else a is not b
        return _fold(xor, [left, right])

    def _equality(self, left: Compiled, right: Compiled, negate: bool) -> Compiled:
        if _is_const(right) and not _is_const(left):
            c = right.constant_value
            tc = type(c)
            if c is None:
                return _constant(None)
            if tc is str or tc is int:
                if negate:
                    def not_equal_constant(row, ctx):
                        v = left(row, ctx)
                        if type(v) is tc:
                            return v != c
                        r = equals(v, c)
                        return None if r is None else not r
                    return not_equal_constant

                def equal_constant(row, ctx):
                    v = left(row, ctx)
                    if type(v) is tc:
                        return v == c
                    return equals(v, c)
                return equal_constant
        if negate:
            def not_equal(row, ctx):
                r = equals(left(row, ctx), right(row, ctx))
                return None if r is None else not r
            return not_equal

        def equal(row, ctx):
            a, b = left(row, ctx), right(row, ctx)
            ta = type(a)
            if ta is type(b) and (ta is int or ta is str):
                return a == b
            return equals(a, b)
        return equal

    def _ordering(self, op: str, left: Compiled, right: Compiled) -> Compiled:
        general = _ORDERING[op]
        if _is_const(right) and not _is_const(left):
            c = right.constant_value
            tc = type(c)
            if tc is int or tc is float:
                fast = _NUMERIC_ORDERING[op]

                def compare_number(row, ctx):
                    v = left(row, ctx)
                    tv = type(v)
                    if tv is int or tv is float:
                        return fast(v, c)       # NaN on either side gives false, as Cypher wants
                    return general(v, c)
                return compare_number
            if tc is str:
                fast = _NUMERIC_ORDERING[op]

                def compare_string(row, ctx):
                    v = left(row, ctx)
                    if type(v) is str:
                        return fast(v, c)
                    return general(v, c)
                return compare_string

        fast = _NUMERIC_ORDERING[op]

        def ordering(row, ctx):
            a, b = left(row, ctx), right(row, ctx)
            ta, tb = type(a), type(b)
            if (ta is int or ta is float) and (tb is int or tb is float):
                return fast(a, b)
            return general(a, b)
        return ordering

    def _in(self, left: Compiled, right: Compiled) -> Compiled:
        if _is_const(right) and type(right.constant_value) is list:
            items = right.constant_value
            if items and all(type(x) is int or type(x) is str for x in items):
                members = frozenset(items)

                def in_constant_set(row, ctx):
                    v = left(row, ctx)
                    tv = type(v)
                    if tv is int or tv is str or tv is float:
                        return v in members
                    return in_list(v, items)
                return in_constant_set

        def in_(row, ctx):
            value, items = left(row, ctx), right(row, ctx)
            if type(items) is list and len(items) >= MEMBERS_AT and type(value) in _HASHED:
                found = _in_members(in_, items, value, ctx)
                if found is not _MISSING:
                    return found
            return in_list(value, items)
        return in_

    def _string_predicate(self, op: str, left: Compiled, right: Compiled) -> Compiled:
        method = {"STARTS WITH": str.startswith, "ENDS WITH": str.endswith,
                  "CONTAINS": str.__contains__}[op]

        def string_predicate(row, ctx):
            a, b = left(row, ctx), right(row, ctx)
            if type(a) is str and type(b) is str:
                return method(a, b)
            return None
        return string_predicate

    def _regex(self, left: Compiled, right: Compiled) -> Compiled:
        if _is_const(right) and type(right.constant_value) is str:
            pattern = _compile_regex(right.constant_value)

            def regex_constant(row, ctx):
                a = left(row, ctx)
                return full_match(pattern, a, ctx) if type(a) is str else None
            return regex_constant
        cache: dict[str, Any] = {}

        def regex(row, ctx):
            a, b = left(row, ctx), right(row, ctx)
            if type(a) is not str or type(b) is not str:
                return None
            pattern = cache.get(b)
            if pattern is None:
                if len(cache) > 256:
                    cache.clear()
                pattern = cache[b] = _compile_regex(b)
            return full_match(pattern, a, ctx)
        return regex

    def _UnaryOp(self, e: ast.UnaryOp) -> Compiled:
        op = e.op.upper()
        operand = self.compile(e.operand)
        if op == "NOT":
            kind = self._kind(e.operand)
            if kind not in (None, "null", "boolean"):
                raise _compile_error(f"Type mismatch: NOT expected Boolean but was {kind}",
                                     "InvalidArgumentType", e.operand)

            def not_(row, ctx):
                v = operand(row, ctx)
                if v is True:
                    return False
                if v is False:
                    return True
                if v is None:
                    return None
                _bool_operand("NOT", v)
            return _fold(not_, [operand])
        if op == "-":
            negate = values_ops.negate

            def minus(row, ctx):
                return negate(operand(row, ctx))
            return _fold(minus, [operand])

        def plus(row, ctx):
            v = operand(row, ctx)
            if v is None or type(v) in (int, float, Duration):
                return v
            raise _runtime_type_error(f"Cannot apply unary + to {type_name(v)}")
        return _fold(plus, [operand])

    def _IsNull(self, e: ast.IsNull) -> Compiled:
        operand = self.compile(e.operand)
        if e.negated:
            def is_not_null(row, ctx):
                return operand(row, ctx) is not None
            return _fold(is_not_null, [operand])

        def is_null(row, ctx):
            return operand(row, ctx) is None
        return _fold(is_null, [operand])

    def _TypePredicate(self, e: ast.TypePredicate) -> Compiled:
        from relate.server.query.schema.types import expression_matches
        operand, type_name, negated = self.compile(e.operand), e.type_name, e.negated

        def type_predicate(row, ctx):
            return expression_matches(type_name, operand(row, ctx)) is not negated
        return _fold(type_predicate, [operand])

    def _LabelCheck(self, e: ast.LabelCheck) -> Compiled:
        subject = self.compile(e.subject)
        if e.args:
            return self._dynamic_label_check(subject, e)
        predicate = label_predicate(e.labels)

        def label_check(row, ctx):
            v = subject(row, ctx)
            t = type(v)
            if t is NodeRef:
                return predicate(ctx.tx.node_labels(v.id))
            if t is RelRef:
                return predicate(frozenset((ctx.tx.rel_type(v.id),)))
            if v is None:
                return None
            raise _runtime_type_error(f"Type mismatch: expected Node or Relationship but was "
                                      f"{type_name(v)}")
        return label_check

    def _dynamic_label_check(self, subject: Compiled, e: ast.LabelCheck) -> Compiled:
        predicate = dynamic_label_predicate(e.labels, [self.compile(arg) for arg in e.args])

        def dynamic_label_check(row, ctx):
            v = subject(row, ctx)
            t = type(v)
            if t is NodeRef:
                return predicate(ctx.tx.node_labels(v.id), row, ctx)
            if t is RelRef:
                return predicate(frozenset((ctx.tx.rel_type(v.id),)), row, ctx)
            if v is None:
                return None
            raise _runtime_type_error(f"Type mismatch: expected Node or Relationship but was {type_name(v)}")
        return dynamic_label_check

    # -- conditionals --------------------------------------------------------------------------
    def _Case(self, e: ast.Case) -> Compiled:
        whens = [(self.compile(w), self.compile(t)) for w, t in e.whens]
        default = self.compile(e.default) if e.default is not None else _constant(None)
        if e.subject is not None:
            subject = self.compile(e.subject)

            def simple_case(row, ctx):
                v = subject(row, ctx)
                for when, then in whens:
                    if equals(v, when(row, ctx)) is True:
                        return then(row, ctx)
                return default(row, ctx)
            return simple_case

        def searched_case(row, ctx):
            for when, then in whens:
                if when(row, ctx) is True:
                    return then(row, ctx)
            return default(row, ctx)
        return searched_case

    # -- functions -----------------------------------------------------------------------------
    def _CountStar(self, e: ast.CountStar) -> Compiled:
        raise _compile_error("count(*) is an aggregate and cannot be used here",
                             "InvalidAggregation", e)

    def _FunctionCall(self, e: ast.FunctionCall) -> Compiled:
        name = e.name.lower()
        if is_aggregate(name):
            raise _compile_error(f"Aggregate function {e.name}() is not allowed here",
                                 "InvalidAggregation", e)
        args = list(e.args)
        if name == "exists" and len(args) == 1:
            return self._exists_function(args[0], e)
        if name == "coalesce" and args:
            return self._coalesce([self.compile(a) for a in args])
        accepted = _ARGUMENT_KINDS.get(name)
        if accepted is not None and args:
            kind = self._kind(args[0])
            if kind in _KNOWN_KINDS and kind not in accepted:
                raise _compile_error(f"Type mismatch: {e.name}() expected {' or '.join(sorted(accepted))} "
                                     f"but was {kind}", "InvalidArgumentType", args[0])
        fn = functions.lookup(name)
        if fn is None:
            raise _compile_error(f"Unknown function '{e.name}'", "UnknownFunction", e)
        bounds = functions.arity(name)
        if bounds is not None:
            low, high = bounds
            if len(args) < low:
                raise _compile_error(f"Insufficient parameters for function '{e.name}'",
                                     "InvalidNumberOfArguments", e)
            if high is not None and len(args) > high:
                raise _compile_error(f"Too many parameters for function '{e.name}'",
                                     "InvalidNumberOfArguments", e)
        compiled = [self.compile(a) for a in args]
        call = _call(fn, compiled)
        if name in functions.PURE:
            if not compiled:
                return _constant(fn(None))
            if all(_is_const(c) for c in compiled):
                return _fold(call, compiled)
        # datetime() and kin read the statement's clock: one value per statement, with or without input
        if ((name in functions.PURE and compiled) or name in _STATEMENT_FUNCTIONS) \
                and all(_per_statement_input(c) for c in compiled):
            return _per_statement(call, e)
        return call

    def _coalesce(self, args: list[Compiled]) -> Compiled:
        def coalesce(row, ctx):
            for a in args:
                v = a(row, ctx)
                if v is not None:
                    return v
            return None
        return _fold(coalesce, args)

    def _exists_function(self, arg: ast.Expr, e: ast.FunctionCall) -> Compiled:
        if type(arg) is ast.PatternPredicate:
            return self.compile(arg)
        if type(arg) not in (ast.Property, ast.Subscript):
            raise _compile_error("exists() expects a property or a pattern", "InvalidArgumentType", e)
        value = self.compile(arg)

        def exists(row, ctx):
            return value(row, ctx) is not None
        return exists

    # -- lists ---------------------------------------------------------------------------------
    def _ListComprehension(self, e: ast.ListComprehension) -> Compiled:
        _check_traversable(e.source)
        source = self.compile(e.source)
        where, projection = self._with_element_kind(e.variable, e.source, lambda: (
            self.compile(e.where) if e.where is not None else None,
            self.compile(e.projection) if e.projection is not None else None))
        var = e.variable

        def list_comprehension(row, ctx):
            items = source(row, ctx)
            if items is None:
                return None
            items = _traversable(items)
            inner = dict(row)
            out = []
            for item in checked(items, ctx):
                inner[var] = item
                if where is None or where(inner, ctx) is True:
                    out.append(item if projection is None else projection(inner, ctx))
            return out
        return list_comprehension

    def _Quantifier(self, e: ast.Quantifier) -> Compiled:
        _check_traversable(e.source)
        source = self.compile(e.source)
        where = self._with_element_kind(e.variable, e.source, lambda: (
            self.compile(e.where) if e.where is not None else _Compiler._identity(e.variable)))
        var = e.variable
        kind = e.kind.lower()

        def quantifier(row, ctx):
            items = source(row, ctx)
            if items is None:
                return None
            items = _traversable(items)
            inner = dict(row)
            trues = 0
            unknown = False
            for item in checked(items, ctx):
                inner[var] = item
                r = where(inner, ctx)
                if r is True:
                    if kind == "any":
                        return True
                    if kind == "none":
                        return False
                    trues += 1
                    if kind == "single" and trues > 1:
                        return False
                elif r is None:
                    unknown = True
                elif kind == "all":
                    return False
            if unknown:
                return None
            if kind == "all":
                return True
            if kind == "any":
                return False
            if kind == "none":
                return True
            return trues == 1
        return quantifier

    @staticmethod
    def _identity(var: str) -> Compiled:
        def element(row, ctx):
            return row[var]
        return element

    def _Reduce(self, e: ast.Reduce) -> Compiled:
        _check_traversable(e.source)
        init, source = self.compile(e.init), self.compile(e.source)
        # the accumulator shadows any outer typed variable of the same name
        step = self._with_element_kind(e.accumulator, ast.Literal(None), lambda: self._with_element_kind(
            e.variable, e.source, lambda: self.compile(e.expression)))
        acc, var = e.accumulator, e.variable

        def reduce_(row, ctx):
            items = source(row, ctx)
            if items is None:
                return None
            items = _traversable(items)
            inner = dict(row)
            inner[acc] = init(row, ctx)
            for item in checked(items, ctx):
                inner[var] = item
                inner[acc] = step(inner, ctx)
            return inner[acc]
        return reduce_

    # -- maps ----------------------------------------------------------------------------------
    def _MapProjection(self, e: ast.MapProjection) -> Compiled:
        subject = e.subject
        items = []
        for item in e.items:
            kind = item.kind
            if kind == "property":
                items.append((0, item.key, None))
            elif kind == "literal":
                items.append((1, item.key, self.compile(item.expr)))
            elif kind == "variable":
                name = item.key if item.key is not None else item.expr.name
                items.append((1, name, self.compile(item.expr or ast.Variable(name))))
            elif kind == "all":
                items.append((2, None, None))
            else:
                raise _compile_error(f"Unknown map projection item {kind}", "UnexpectedSyntax", e)

        def map_projection(row, ctx):
            try:
                v = row[subject]
            except KeyError:
                raise CypherSemanticError(f"Variable `{subject}` not defined",
                                          detail="UndefinedVariable", phase="runtime") from None
            if v is None:
                return None
            out = {}
            for code, key, fn in items:
                if code == 0:
                    out[key] = get_property(v, key, ctx)
                elif code == 1:
                    out[key] = fn(row, ctx)
                else:
                    out.update(_all_properties(v, ctx))
            return out
        return map_projection

    # -- patterns and subqueries ---------------------------------------------------------------
    def _PatternPredicate(self, e: ast.PatternPredicate) -> Compiled:
        exists = self._need_scope(e).compile_pattern(e.pattern, None, "exists")
        bound = [el.variable for el in e.pattern.elements
                 if type(el) is ast.NodePattern and el.variable is not None]

        def pattern_predicate(row, ctx):
            for name in bound:
                if name in row and row[name] is None:
                    return None
            return exists(row, ctx)
        return pattern_predicate

    def _PatternComprehension(self, e: ast.PatternComprehension) -> Compiled:
        part = e.pattern
        if e.path_variable is not None and part.variable != e.path_variable:
            part = ast.PatternPart(e.path_variable, part.elements, part.shortest, pos=part.pos)
        matches = self._need_scope(e).compile_pattern(part, e.where)
        projection = self.compile(e.projection)

        def pattern_comprehension(row, ctx):
            return [projection(r, ctx) for r in matches(row, ctx)]
        return pattern_comprehension

    def _ExistsSubquery(self, e: ast.ExistsSubquery) -> Compiled:
        return self._need_scope(e).compile_subquery(e.query, "exists")

    def _CountSubquery(self, e: ast.CountSubquery) -> Compiled:
        return self._need_scope(e).compile_subquery(e.query, "count")

    def _CollectSubquery(self, e: ast.CollectSubquery) -> Compiled:
        rows = self._need_scope(e).compile_subquery(e.query)
        column = _return_column(e.query)

        def collect_subquery(row, ctx):
            out = []
            for r in rows(row, ctx):
                out.append(r[column] if column is not None and column in r else next(iter(r.values())))
            return out
        return collect_subquery


def _concatenation(left: Compiled, right: Compiled) -> Compiled:
    """``a || b``: two strings or two lists joined; null when either is null."""
    def concat(row, ctx):
        a, b = left(row, ctx), right(row, ctx)
        if a is None or b is None:
            return None
        if type(a) is str and type(b) is str:
            return a + b
        if type(a) is Vector:
            a = a.tolist()
        if type(b) is Vector:
            b = b.tolist()
        if type(a) is list and type(b) is list:
            return a + b
        raise _runtime_type_error(f"Type mismatch: || joins two Strings or two Lists, not {type_name(a)} "
                                  f"and {type_name(b)}")
    return concat


def _arithmetic(op: str, left: Compiled, right: Compiled) -> Compiled:
    """``left op right``; + - * on two integers inline (the common case), the rest via values_ops."""
    fn = _ARITHMETIC[op]
    if op == "+":
        def plus(row, ctx):
            a, b = left(row, ctx), right(row, ctx)
            if type(a) is int and type(b) is int:
                r = a + b
                if _INT64_MIN <= r <= _INT64_MAX:
                    return r
            return fn(a, b)             # floats, strings, lists, temporals, overflow errors
        return plus
    if op == "-":
        def minus(row, ctx):
            a, b = left(row, ctx), right(row, ctx)
            if type(a) is int and type(b) is int:
                r = a - b
                if _INT64_MIN <= r <= _INT64_MAX:
                    return r
            return fn(a, b)
        return minus
    if op == "*":
        def times(row, ctx):
            a, b = left(row, ctx), right(row, ctx)
            if type(a) is int and type(b) is int:
                r = a * b
                if _INT64_MIN <= r <= _INT64_MAX:
                    return r
            return fn(a, b)
        return times

    def arithmetic(row, ctx):
        return fn(left(row, ctx), right(row, ctx))
    return arithmetic


def _return_column(query: ast.Query) -> str | None:
    """The single column a COLLECT subquery returns."""
    try:
        last = query.parts[-1].clauses[-1]
    except (AttributeError, IndexError):
        return None
    if type(last) is ast.Return and len(last.projection.items) == 1:
        return last.projection.items[0].name
    return None


def _call(fn, args: list[Compiled]) -> Compiled:
    """A closure calling ``fn(ctx, *evaluated args)``, unrolled for the common arities."""
    n = len(args)
    if n == 0:
        def call0(row, ctx):
            return fn(ctx)
        return call0
    if n == 1:
        a0 = args[0]

        def call1(row, ctx):
            return fn(ctx, a0(row, ctx))
        return call1
    if n == 2:
        a0, a1 = args

        def call2(row, ctx):
            return fn(ctx, a0(row, ctx), a1(row, ctx))
        return call2
    if n == 3:
        a0, a1, a2 = args

        def call3(row, ctx):
            return fn(ctx, a0(row, ctx), a1(row, ctx), a2(row, ctx))
        return call3

    def call_n(row, ctx):
        return fn(ctx, *[a(row, ctx) for a in args])
    return call_n
