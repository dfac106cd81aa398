"""compile_expression on hand-built ASTs, against a small dict-backed transaction."""
import math

import pytest

from relate.errors import (ArgumentError, CypherSemanticError, CypherSyntaxError, CypherTypeError,
                           ParameterMissing)
from relate.server.query import ast as A
from relate.server.query.exec.expressions import compile_expression
from relate.server.query.refs import NodeRef, PathRef, RelRef


class DictTx:
    """The read side of a transaction over plain dicts."""

    def __init__(self):
        self.nodes = {}     # id -> (labels, props)
        self.rels = {}      # id -> (type, start, end, props)

    def add_node(self, nid, labels=(), **props):
        self.nodes[nid] = (frozenset(labels), props)
        return NodeRef(nid)

    def add_rel(self, rid, type_, start, end, **props):
        self.rels[rid] = (type_, start, end, props)
        return RelRef(rid)

    def node_labels(self, nid):
        return self.nodes[nid][0]

    def node_props(self, nid):
        return self.nodes[nid][1]

    def node_prop(self, nid, key):
        return self.nodes[nid][1].get(key)

    def rel_type(self, rid):
        return self.rels[rid][0]

    def rel_endpoints(self, rid):
        return self.rels[rid][1:3]

    def rel_props(self, rid):
        return self.rels[rid][3]

    def rel_prop(self, rid, key):
        return self.rels[rid][3].get(key)

    def expand(self, nid, direction, types):
        for rid, (t, s, e, _) in self.rels.items():
            if types and t not in types:
                continue
            if direction in ("out", "both") and s == nid:
                yield rid, e
            elif direction in ("in", "both") and e == nid:
                yield rid, s


class Ctx:
    def __init__(self, tx=None, params=None):
        self.tx = tx or DictTx()
        self.params = params or {}
        self.deleted_rels = {}  # ExecContext's: relationship id -> type, of those the statement deleted

    def check(self):            # ExecContext's cancellation hooks: nothing to cancel here
        pass

    def charge(self, n):
        pass

    check_now = check


def _used(rows, use):
    """``rows`` as the scope hands it out for ``use``: the rows, whether there is one, or how many."""
    if use == "exists":
        return lambda row, ctx: any(True for _ in rows(row, ctx))
    if use == "count":
        return lambda row, ctx: sum(1 for _ in rows(row, ctx))
    return rows


class FakeScope:
    """Compiles a pattern ``(a)-[:T]->(b)`` (a bound) by expanding through the DictTx."""

    def compile_pattern(self, part, where, use="rows"):
        start = part.elements[0].variable
        rel = part.elements[1]
        end = part.elements[2].variable

        def rows(row, ctx):
            for rid, other in ctx.tx.expand(row[start].id, rel.direction, tuple(rel.types)):
                out = dict(row)
                if end:
                    out[end] = NodeRef(other)
                if rel.variable:
                    out[rel.variable] = RelRef(rid)
                yield out
        return _used(rows, use)

    def compile_subquery(self, query, use="rows"):
        values = query  # tests pass a list of rows instead of a Query

        def rows(row, ctx):
            yield from values
        return _used(rows, use)


L, V, P = A.Literal, A.Variable, A.Parameter


def op(o, a, b):
    return A.BinaryOp(o, a, b)


def lst(*items):
    return A.ListLiteral([x if isinstance(x, A.Expr) else L(x) for x in items])


def ev(expr, row=None, ctx=None, scope=None):
    return compile_expression(expr, scope)(row or {}, ctx or Ctx())


@pytest.fixture
def graph():
    tx = DictTx()
    a = tx.add_node(1, ["Person", "Admin"], name="Ann", age=40)
    b = tx.add_node(2, ["Person"], name="Bob")
    r = tx.add_rel(10, "KNOWS", 1, 2, since=2020)
    return Ctx(tx, {"p": 5}), a, b, r


def test_literals_parameters_variables():
    assert ev(L(3)) == 3
    assert ev(P("x"), ctx=Ctx(params={"x": [1]})) == [1]
    assert ev(V("n"), row={"n": "v"}) == "v"
    with pytest.raises(ParameterMissing, match="Expected parameter\\(s\\): y"):
        ev(P("y"))
    assert ev(A.MapLiteral([("a", L(1)), ("b", op("+", L(1), P("p")))]), ctx=Ctx(params={"p": 1})) \
        == {"a": 1, "b": 2}


def test_property_access(graph):
    ctx, a, b, r = graph
    row = {"a": a, "r": r, "m": {"k": 1}, "z": None}
    assert ev(A.Property(V("a"), "name"), row, ctx) == "Ann"
    assert ev(A.Property(V("a"), "missing"), row, ctx) is None
    assert ev(A.Property(V("r"), "since"), row, ctx) == 2020
    assert ev(A.Property(V("m"), "k"), row, ctx) == 1
    assert ev(A.Property(V("z"), "k"), row, ctx) is None
    assert ev(A.Property(A.MapLiteral([("k", L(2))]), "k")) == 2
    with pytest.raises(CypherTypeError):
        ev(A.Property(V("x"), "k"), {"x": 5}, ctx)
    with pytest.raises(CypherSyntaxError) as err:
        compile_expression(A.Property(L(5), "k"))
    assert err.value.detail == "InvalidArgumentType" and err.value.phase == "compile time"


def test_three_valued_logic():
    t, f, n = True, False, None
    table = [("AND", t, n, None), ("AND", f, n, False), ("AND", n, f, False), ("AND", t, t, True),
             ("OR", t, n, True), ("OR", f, n, None), ("OR", f, f, False), ("OR", n, t, True),
             ("XOR", t, f, True), ("XOR", t, t, False), ("XOR", t, n, None)]
    for o, a, b, expected in table:
        assert ev(op(o, L(a), L(b))) is expected, (o, a, b)
        # the same through variables, so nothing is folded at compile time
        assert ev(op(o, V("a"), V("b")), {"a": a, "b": b}) is expected, (o, a, b)
    assert ev(A.UnaryOp("NOT", L(n))) is None and ev(A.UnaryOp("NOT", V("f")), {"f": f}) is True


def test_boolean_type_errors():
    with pytest.raises(CypherSyntaxError) as err:
        compile_expression(op("AND", L(123), L(True)))
    assert err.value.detail == "InvalidArgumentType"
    with pytest.raises(CypherSyntaxError):
        compile_expression(A.UnaryOp("NOT", lst(True)))
    with pytest.raises(CypherTypeError) as err:
        ev(op("OR", V("x"), L(False)), {"x": 1})
    assert err.value.detail == "InvalidArgumentType" and err.value.phase == "runtime"


def test_comparisons_and_constant_fast_paths():
    assert ev(op("<", V("x"), L(3)), {"x": 2}) is True
    assert ev(op("<", V("x"), L(3)), {"x": "a"}) is None
    assert ev(op(">=", V("x"), L(3)), {"x": float("nan")}) is False
    assert ev(op("=", V("x"), L(1)), {"x": 1.0}) is True
    assert ev(op("=", V("x"), L(1)), {"x": True}) is False
    assert ev(op("<>", V("x"), L("a")), {"x": "b"}) is True
    assert ev(op("=", V("x"), L(None)), {"x": 1}) is None
    assert ev(op(">", V("x"), L("b")), {"x": "c"}) is True
    assert ev(op(">=", lst(1, 0), lst(1))) is True


def test_in_operator():
    assert ev(op("IN", L(2), lst(1, None))) is None
    assert ev(op("IN", L(1), lst(1, None))) is True
    assert ev(op("IN", L(None), lst())) is False
    assert ev(op("IN", L(None), lst(1))) is None
    assert ev(op("IN", V("x"), lst(1, 2)), {"x": 2.0}) is True
    assert ev(op("IN", V("x"), lst(1, 2)), {"x": True}) is False
    assert ev(op("IN", lst(1), lst(lst(1), 2))) is True
    with pytest.raises(CypherSyntaxError):
        compile_expression(op("IN", L(1), L(123)))


def test_string_operators_and_regex():
    assert ev(op("STARTS WITH", L("abc"), L("ab"))) is True
    assert ev(op("ENDS WITH", L("abc"), L("bc"))) is True
    assert ev(op("CONTAINS", L("abc"), L("x"))) is False
    assert ev(op("CONTAINS", L(1), L("x"))) is None
    assert ev(op("=~", V("s"), L("a.c")), {"s": "abc"}) is True
    assert ev(op("=~", V("s"), L("a")), {"s": "abc"}) is False      # whole-string match
    assert ev(op("=~", V("s"), V("p")), {"s": "ab", "p": "(?<x>a)b"}) is True
    assert ev(op("=~", L(1), L("1"))) is None


def test_arithmetic_precedence_free_shapes():
    assert ev(op("+", L("n: "), L(1.5))) == "n: 1.5"
    assert ev(op("-", L(5), V("x")), {"x": 7}) == -2
    assert ev(A.UnaryOp("-", V("x")), {"x": 3}) == -3
    assert ev(op("^", L(2), L(10))) == 1024.0
    assert ev(op("/", L(1), L(0.0))) == math.inf


def test_folding_keeps_runtime_errors_at_runtime():
    case = A.Case(None, [(L(False), op("/", L(1), L(0)))], L("ok"))
    assert ev(case) == "ok"
    fn = compile_expression(op("/", L(1), L(0)))
    with pytest.raises(Exception):
        fn({}, Ctx())


def test_is_null_and_label_checks(graph):
    ctx, a, b, r = graph
    assert ev(A.IsNull(L(None))) is True and ev(A.IsNull(L(1), negated=True)) is True
    row = {"a": a, "b": b, "r": r, "z": None}
    both = A.LabelAnd([A.LabelName("Person"), A.LabelName("Admin")])
    assert ev(A.LabelCheck(V("a"), both), row, ctx) is True
    assert ev(A.LabelCheck(V("b"), both), row, ctx) is False
    assert ev(A.LabelCheck(V("b"), A.LabelOr([A.LabelName("X"), A.LabelName("Person")])), row, ctx)
    assert ev(A.LabelCheck(V("b"), A.LabelNot(A.LabelName("Admin"))), row, ctx) is True
    assert ev(A.LabelCheck(V("r"), A.LabelName("KNOWS")), row, ctx) is True
    assert ev(A.LabelCheck(V("z"), A.LabelName("KNOWS")), row, ctx) is None
    assert ev(A.LabelCheck(V("a"), A.LabelAny()), row, ctx) is True


def test_subscripts_and_slices(graph):
    ctx, a, *_ = graph
    xs = lst(1, 2, 3)
    assert ev(A.Subscript(xs, L(0))) == 1 and ev(A.Subscript(xs, L(-1))) == 3
    assert ev(A.Subscript(xs, L(5))) is None and ev(A.Subscript(xs, L(None))) is None
    with pytest.raises(CypherTypeError):
        ev(A.Subscript(V("l"), L(1.0)), {"l": [1]})
    assert ev(A.Subscript(A.MapLiteral([("k", L(1))]), L("k"))) == 1
    assert ev(A.Subscript(V("a"), L("name")), {"a": a}, ctx) == "Ann"
    with pytest.raises(CypherTypeError):
        ev(A.Subscript(V("m"), L(1)), {"m": {"k": 1}})
    assert ev(A.Slice(xs, L(1), None)) == [2, 3]
    assert ev(A.Slice(xs, None, L(-1))) == [1, 2]
    assert ev(A.Slice(xs, L(-2), L(10))) == [2, 3]
    assert ev(A.Slice(xs, L(None), L(1))) is None


def test_case_expressions():
    simple = A.Case(V("x"), [(L(1), L("one")), (L(2), L("two"))], L("many"))
    assert [ev(simple, {"x": x}) for x in (1, 2.0, 3, None)] == ["one", "two", "many", "many"]
    searched = A.Case(None, [(op("<", V("x"), L(0)), L("neg")), (L(None), L("x"))], None)
    assert ev(searched, {"x": -1}) == "neg" and ev(searched, {"x": 1}) is None


def test_list_comprehension_quantifiers_reduce():
    xs = lst(1, 2, 3, 4)
    comp = A.ListComprehension("x", xs, op("=", op("%", V("x"), L(2)), L(0)), op("*", V("x"), L(10)))
    assert ev(comp) == [20, 40]
    assert ev(A.ListComprehension("x", xs, None, None)) == [1, 2, 3, 4]
    assert ev(A.ListComprehension("x", L(None), None, None)) is None

    def q(kind, items, cond):
        return ev(A.Quantifier(kind, "x", items, cond))
    gt2 = op(">", V("x"), L(2))
    assert q("all", xs, gt2) is False and q("any", xs, gt2) is True
    assert q("none", xs, gt2) is False and q("single", xs, gt2) is False
    assert q("single", xs, op("=", V("x"), L(2))) is True
    assert q("all", lst(3, None), gt2) is None and q("any", lst(1, None), gt2) is None
    assert q("any", lst(3, None), gt2) is True and q("none", lst(1, None), gt2) is None
    assert q("single", lst(3, None), gt2) is None and q("all", lst(), gt2) is True
    assert q("any", L(None), gt2) is None
    red = A.Reduce("acc", L(0), "x", xs, op("+", V("acc"), V("x")))
    assert ev(red) == 10


def test_map_projection(graph):
    ctx, a, *_ = graph
    items = [A.MapProjectionItem("property", "name"), A.MapProjectionItem("literal", "k", L(1)),
             A.MapProjectionItem("variable", "y", V("y")), A.MapProjectionItem("property", "nope")]
    got = ev(A.MapProjection("a", items), {"a": a, "y": 9}, ctx)
    assert got == {"name": "Ann", "k": 1, "y": 9, "nope": None}
    star = ev(A.MapProjection("a", [A.MapProjectionItem("all"), A.MapProjectionItem("literal", "age", L(0))]),
              {"a": a}, ctx)
    assert star == {"name": "Ann", "age": 0}
    assert ev(A.MapProjection("m", [A.MapProjectionItem("property", "x")]), {"m": None}) is None


def test_function_calls(graph):
    ctx, a, b, r = graph
    row = {"a": a, "r": r}
    assert ev(A.FunctionCall("toUpper", [L("ab")])) == "AB"
    assert ev(A.FunctionCall("LABELS", [V("a")]), row, ctx) == ["Admin", "Person"]
    assert ev(A.FunctionCall("type", [V("r")]), row, ctx) == "KNOWS"
    assert ev(A.FunctionCall("coalesce", [L(None), V("a")]), row, ctx) == a
    assert ev(A.FunctionCall("exists", [A.Property(V("a"), "age")]), row, ctx) is True
    assert ev(A.FunctionCall("startNode", [V("r")]), row, ctx) == a
    with pytest.raises(CypherSyntaxError) as err:
        compile_expression(A.FunctionCall("nope", []))
    assert err.value.detail == "UnknownFunction"
    with pytest.raises(CypherSyntaxError) as err:
        compile_expression(A.FunctionCall("toUpper", []))
    assert err.value.detail == "InvalidNumberOfArguments"
    with pytest.raises(CypherSyntaxError) as err:
        compile_expression(A.FunctionCall("count", [V("x")]))
    assert err.value.detail == "InvalidAggregation"
    with pytest.raises(CypherSyntaxError):
        compile_expression(A.CountStar())


def test_vector_with_a_coordinate_type():
    # The parser reads a bare FLOAT32 as the string (tests/unit/test_coll_functions.py: bare words).
    vec = ev(A.FunctionCall("vector", [lst(1.0, 2.0), L(2), L("FLOAT32")]))
    assert vec.dimension == 2 and vec.coordinate_type == "FLOAT32"
    with pytest.raises(ArgumentError, match="dimension 3"):
        ev(A.FunctionCall("vector", [V("e"), L(3), L("FLOAT32")]), {"e": [1.0, 2.0]})


def test_patterns_and_subqueries(graph):
    ctx, a, b, r = graph
    scope = FakeScope()
    pattern = A.PatternPart(None, [A.NodePattern("a", None, None), A.RelPattern(None, ["KNOWS"], "out", None),
                                   A.NodePattern("x", None, None)])
    assert ev(A.PatternPredicate(pattern), {"a": a}, ctx, scope) is True
    assert ev(A.PatternPredicate(pattern), {"a": b}, ctx, scope) is False
    assert ev(A.PatternPredicate(pattern), {"a": None}, ctx, scope) is None
    comp = A.PatternComprehension(None, pattern, None, A.Property(V("x"), "name"))
    assert ev(comp, {"a": a}, ctx, scope) == ["Bob"]
    rows = [{"v": 1}, {"v": 2}]
    assert ev(A.ExistsSubquery(rows), {}, ctx, scope) is True
    assert ev(A.CountSubquery(rows), {}, ctx, scope) == 2
    assert ev(A.CollectSubquery(rows), {}, ctx, scope) == [1, 2]
    with pytest.raises(CypherSemanticError):
        compile_expression(A.ExistsSubquery(rows), None)


def test_path_functions():
    p = PathRef((NodeRef(1), NodeRef(2)), (RelRef(5),))
    assert ev(A.FunctionCall("length", [V("p")]), {"p": p}) == 1
    assert ev(A.FunctionCall("nodes", [V("p")]), {"p": p}) == [NodeRef(1), NodeRef(2)]
    assert ev(A.FunctionCall("relationships", [V("p")]), {"p": p}) == [RelRef(5)]


def test_static_kinds_from_scope_give_compile_time_errors():
    class KindScope:
        kinds = {"p": "path", "n": "node", "r": "relationship", "x": "integer"}

        def variable_kind(self, name):
            return self.kinds.get(name)

    scope = KindScope()
    for fn, arg in [("labels", "p"), ("type", "n"), ("length", "n"), ("length", "r"), ("size", "p"),
                    ("properties", "x")]:
        with pytest.raises(CypherSyntaxError) as err:
            compile_expression(A.FunctionCall(fn, [V(arg)]), scope)
        assert err.value.detail == "InvalidArgumentType"
    with pytest.raises(CypherSyntaxError):
        compile_expression(A.Property(V("x"), "num"), scope)
    with pytest.raises(CypherSyntaxError):
        compile_expression(A.FunctionCall("properties", [L("Cypher")]))
    # accepted kinds and unknown variables compile
    compile_expression(A.FunctionCall("labels", [V("n")]), scope)
    compile_expression(A.FunctionCall("labels", [V("unknown")]), scope)
    compile_expression(A.Property(V("r"), "since"), scope)


def test_comprehension_over_literal_list_checks_types_at_compile_time():
    with pytest.raises(CypherSyntaxError) as err:
        compile_expression(A.Quantifier("any", "x", lst("a", "b"), op("=", op("%", V("x"), L(2)), L(0))))
    assert err.value.detail == "InvalidArgumentType"
    # the accumulator of reduce shadows a typed outer variable
    inner = A.Reduce("x", L(0), "y", lst(1, 2), op("*", V("x"), V("y")))
    assert ev(A.ListComprehension("x", lst("a"), None, inner)) == [0]
