"""The Cypher parser: AST shapes, literals, SEARCH, commands, syntax errors, TCK and cookbook queries."""
from __future__ import annotations

import math
import glob
import os
import re

import pytest

from relate.errors import CypherSyntaxError
from relate.server.query import ast
from relate.server.query.parser import parse, parse_script, split_statements
from relate.server.query.parser.antlr_driver import lex
from relate.server.query.parser.fast_lexer import tokenize
from tests.helpers import cookbook_spec, tck_features

TCK_FEATURES = str(tck_features())


def clauses(text: str) -> list:
    return parse(text).body.parts[0].clauses


def expr(text: str) -> ast.Expr:
    """The expression of ``RETURN <text>``."""
    return clauses(f"RETURN {text}")[0].projection.items[0].expr


def syntax_error(text: str) -> CypherSyntaxError:
    with pytest.raises(CypherSyntaxError) as caught:
        parse(text)
    return caught.value


# -- clauses and projections -------------------------------------------------------------------
def test_match_where_return_shape():
    match, ret = clauses("MATCH (n:Person {name: 'Ada'})-[r:KNOWS*1..3]->(m) WHERE n.age > 3 "
                         "RETURN n.id, count(DISTINCT n.session) AS c ORDER BY c DESC SKIP 1 LIMIT 10")
    part = match.pattern[0]
    node, rel, other = part.elements
    assert node == ast.NodePattern("n", ast.LabelName("Person"),
                                   ast.MapLiteral([("name", ast.Literal("Ada"))]))
    assert rel == ast.RelPattern("r", ["KNOWS"], "out", None, (1, 3))
    assert other.variable == "m" and other.labels is None
    assert match.where == ast.BinaryOp(">", ast.Property(ast.Variable("n"), "age"), ast.Literal(3))
    projection = ret.projection
    assert [item.name for item in projection.items] == ["n.id", "c"]
    assert projection.items[1].text == "count(DISTINCT n.session)"
    assert projection.items[1].expr == ast.FunctionCall("count", [ast.Property(ast.Variable("n"), "session")], True)
    assert projection.order_by == [ast.SortItem(ast.Variable("c"), descending=True)]
    assert projection.skip == ast.Literal(1) and projection.limit == ast.Literal(10)


def test_column_text_is_exact_source():
    items = clauses("RETURN n.id, count(DISTINCT n.session),  1 +  2 ,  toUpper( 'a' ) AS up")[0].projection.items
    assert [item.name for item in items] == ["n.id", "count(DISTINCT n.session)", "1 +  2", "up"]
    assert items[3].text == "toUpper( 'a' )"


def test_positions_are_one_based_on_every_node():
    match, ret = clauses("MATCH (n)\n  WHERE n.x = 1\nRETURN n")
    assert match.pos == (1, 1)
    assert match.pattern[0].elements[0].pos == (1, 7)
    assert match.where.pos == (2, 9)
    assert match.where.right.pos == (2, 15)
    assert ret.pos == (3, 1) and ret.projection.items[0].pos == (3, 8)


def _nodes(value):
    """Every AST dataclass instance reachable from ``value``."""
    if isinstance(value, (list, tuple)):
        for item in value:
            yield from _nodes(item)
    elif hasattr(value, "__dataclass_fields__"):
        yield value
        for name in value.__dataclass_fields__:
            yield from _nodes(getattr(value, name))


def test_every_node_with_a_position_has_one():
    statement = parse(
        "MATCH p = (n:A {x: $x} WHERE n.y > 0)-[r:T*1..2 {w: 1}]->(m) SEARCH n IN (COMBINE (VECTOR INDEX v "
        "FOR $v WHERE n.ts > 1 LIMIT 3, FULLTEXT INDEX f FOR 'q' SKIP 1 LIMIT 2) USING RRF LIMIT 5) SCORE AS s "
        "WHERE n:A OPTIONAL MATCH (m)--(o) WITH n, m, s ORDER BY s DESC UNWIND [1] AS u "
        "CALL (n) { RETURN n.x AS x UNION RETURN 1 AS x } CALL db.labels() YIELD label "
        "MERGE (q:Q {k: u}) ON CREATE SET q.a = 1, q:L ON MATCH SET q += {b: 2} REMOVE q.c, q:L "
        "FOREACH (i IN [1] | DELETE q) "
        "RETURN [x IN [1] WHERE x > 0 | x], [(n)-->(k) | k.x], n {.x, y: 1}, CASE WHEN true THEN 1 END, "
        "reduce(a = 0, i IN [1] | a + i), all(i IN [1] WHERE i > 0), COUNT { (n)-->() }, count(*), "
        "-1, n[0], n[0..1], n.x IS NULL, 1 < 2 < 3, exists((n)-->()) AND (n)-->()")
    missing = [type(node).__name__ for node in _nodes(statement)
               if "pos" in node.__dataclass_fields__ and node.pos is None]
    assert missing == []


def test_with_unwind_create_merge_set_remove_delete():
    unwind, with_, create, merge, set_, remove, delete = clauses(
        "UNWIND $rows AS r WITH DISTINCT r WHERE r.x > 1 CREATE (a:A {v: r.v})-[:T]->(b) "
        "MERGE (t:Topic {name: r.t}) ON CREATE SET t.c = 1 ON MATCH SET t.m = 2 "
        "SET a.x = 1, a += {y: 2}, b = {z: 3}, a:B:C REMOVE a.x, a:B DETACH DELETE a, b")
    assert unwind == ast.Unwind(ast.Parameter("rows"), "r")
    assert with_.projection.distinct and with_.where is not None
    assert create.pattern[0].elements[1] == ast.RelPattern(None, ["T"], "out", None)
    assert [item.target.key for item in merge.on_create] == ["c"]
    assert [item.target.key for item in merge.on_match] == ["m"]
    assert set_.items[0] == ast.SetProperty(ast.Property(ast.Variable("a"), "x"), ast.Literal(1))
    assert set_.items[1].merge and set_.items[1].variable == "a"
    assert not set_.items[2].merge and set_.items[2].variable == "b"
    assert set_.items[3] == ast.SetLabels("a", ["B", "C"])
    assert remove.items == [ast.RemoveProperty(ast.Property(ast.Variable("a"), "x")), ast.RemoveLabels("a", ["B"])]
    assert delete.detach and delete.exprs == [ast.Variable("a"), ast.Variable("b")]


def test_return_star_union_foreach_and_modes():
    statement = parse("EXPLAIN WITH 1 AS a RETURN * UNION ALL RETURN 2 AS a UNION RETURN 3 AS a")
    assert statement.mode == "EXPLAIN"
    assert statement.body.union_all == [True, False]
    assert statement.body.parts[0].clauses[1].projection.star
    assert parse("PROFILE RETURN 1").mode == "PROFILE"
    foreach = clauses("MATCH (n) FOREACH (x IN [1, 2] | CREATE (m {v: x}) SET m.y = 1)")[1]
    assert foreach.variable == "x" and [type(c) for c in foreach.clauses] == [ast.Create, ast.Set]


def test_call_subqueries():
    call = clauses("CALL () { MATCH (n) RETURN n } RETURN n")[0]
    assert call.imports == [] and type(call.query) is ast.Query
    assert clauses("CALL (x, y) { RETURN x AS z } RETURN z")[0].imports == ["x", "y"]
    assert clauses("CALL (*) { RETURN 1 AS z } RETURN z")[0].imports == ["*"]
    legacy = clauses("WITH 1 AS x CALL { WITH x RETURN x AS y } RETURN y")[1]
    assert legacy.imports is None
    assert clauses("OPTIONAL CALL { RETURN 1 AS z } RETURN z")[0].optional
    batched = clauses("CALL { CREATE (n) } IN TRANSACTIONS OF 100 ROWS")[0]
    assert batched.in_transactions and batched.batch_size == ast.Literal(100)
    plain = clauses("CALL { CREATE (n) } IN TRANSACTIONS")[0]
    assert plain.in_transactions and plain.batch_size is None
    union = clauses("CALL () { RETURN 1 AS x UNION ALL RETURN 2 AS x } RETURN x")[0]
    assert union.query.union_all == [True]


def test_call_procedures():
    call = clauses("CALL db.index.vector.queryNodes('note_e', $k, $v) YIELD node, score AS s WHERE s > 0.5 RETURN node")[0]
    assert call.name == "db.index.vector.queryNodes" and len(call.args) == 3
    assert call.yields == [ast.YieldItem("node"), ast.YieldItem("score", "s")]
    assert call.where == ast.BinaryOp(">", ast.Variable("s"), ast.Literal(0.5))
    bare = clauses("CALL db.labels")[0]
    assert bare.args is None and bare.yields is None
    assert clauses("CALL db.labels() YIELD *")[0].yield_star
    assert clauses("OPTIONAL CALL db.labels() YIELD label RETURN label")[0].optional
    assert syntax_error("CALL db.labels() YIELD * RETURN label").detail == "UnexpectedSyntax"


# -- SEARCH ------------------------------------------------------------------------------------
def test_vector_search():
    match = clauses("MATCH (n:Note) SEARCH n IN (VECTOR INDEX note_e FOR $v WHERE n.ts >= $t AND "
                    "n.session IN $s LIMIT $k) SCORE AS s RETURN n")[0]
    search = match.search
    assert search.variable == "n" and search.score_variable == "s" and match.where is None
    spec = search.spec
    assert (spec.kind, spec.index, spec.query, spec.limit, spec.skip) == (
        "VECTOR", "note_e", ast.Parameter("v"), ast.Parameter("k"), None)
    assert spec.where.op == "AND" and spec.where.right.op == "IN"


def test_fulltext_search_with_skip_offset_and_after_where():
    match = clauses("MATCH (n:Note) SEARCH n IN (FULLTEXT INDEX note_t FOR $q SKIP $x LIMIT $k) "
                    "SCORE AS s WHERE n.ts > 1 RETURN n")[0]
    assert match.search.spec.kind == "FULLTEXT" and match.search.spec.skip == ast.Parameter("x")
    assert match.where == ast.BinaryOp(">", ast.Property(ast.Variable("n"), "ts"), ast.Literal(1))
    offset = clauses("MATCH (n) SEARCH n IN (fulltext index note_t for $q offset 3 limit $k * 3) RETURN n")[0]
    assert offset.search.spec.skip == ast.Literal(3) and offset.search.score_variable is None
    assert offset.search.spec.limit == ast.BinaryOp("*", ast.Parameter("k"), ast.Literal(3))


def test_combined_search_nests():
    search = clauses("MATCH (n) SEARCH n IN (COMBINE (VECTOR INDEX note_e FOR $v LIMIT 20 WEIGHT 1.0, "
                     "COMBINE (FULLTEXT INDEX a FOR $q LIMIT 5, FULLTEXT INDEX b FOR $q LIMIT 5) USING RRF "
                     "LIMIT 10 WEIGHT 0.6) USING WRRF WITH CONSTANT 60 LIMIT $k) SCORE AS s RETURN s")[0].search
    outer = search.spec
    assert type(outer) is ast.CombineSearch and outer.method == "WRRF"
    assert outer.constant == ast.Literal(60) and outer.limit == ast.Parameter("k")
    first, inner = outer.sources
    assert first.weight == ast.Literal(1.0) and first.limit == ast.Literal(20)
    assert type(inner) is ast.CombineSearch and inner.method == "RRF" and inner.weight == ast.Literal(0.6)
    assert [source.index for source in inner.sources] == ["a", "b"]


def test_relationship_search():
    match = clauses("MATCH ()-[r:DECIDED]->() SEARCH r IN (FULLTEXT INDEX dec_t FOR $q LIMIT $k) SCORE AS s RETURN r")[0]
    assert match.search.variable == "r" and match.pattern[0].elements[1].types == ["DECIDED"]


# -- patterns ----------------------------------------------------------------------------------
def test_relationship_directions_and_lengths():
    part = clauses("MATCH (a)<-[]-(b)-->(c)--(d)<-->(e)-[*]->(f)-[*2]-(g)-[*..3]-(h)-[*2..]-(i) RETURN a")[0].pattern[0]
    rels = part.elements[1::2]
    assert [rel.direction for rel in rels] == ["in", "out", "both", "both", "out", "both", "both", "both"]
    assert [rel.length for rel in rels] == [None, None, None, None, (None, None), (2, 2), (None, 3), (2, None)]


def test_label_expressions():
    nodes = [part.elements[0] for part in clauses(
        "MATCH (a:A|B), (b:A&B), (c:!A), (d:%), (e:(A|B)&!C), (f:A:B) RETURN a")[0].pattern]
    assert nodes[0].labels == ast.LabelOr([ast.LabelName("A"), ast.LabelName("B")])
    assert nodes[1].labels == ast.LabelAnd([ast.LabelName("A"), ast.LabelName("B")])
    assert nodes[2].labels == ast.LabelNot(ast.LabelName("A"))
    assert nodes[3].labels == ast.LabelAny()
    assert nodes[4].labels == ast.LabelAnd([ast.LabelOr([ast.LabelName("A"), ast.LabelName("B")]),
                                            ast.LabelNot(ast.LabelName("C"))])
    assert nodes[5].labels == ast.LabelAnd([ast.LabelName("A"), ast.LabelName("B")])
    assert expr("n:A:B") == ast.LabelCheck(ast.Variable("n"), ast.LabelAnd([ast.LabelName("A"), ast.LabelName("B")]))


def test_pattern_where_paths_and_shortest():
    match = clauses("MATCH p = (n:A WHERE n.x > 1)-[r:T|:U WHERE r.w > 2]->(m), "
                    "q = shortestPath((a)-[*]-(b)), allShortestPaths((a)-[*..5]->(b)) RETURN p")[0]
    first, second, third = match.pattern
    assert first.variable == "p" and first.elements[0].where is not None
    assert first.elements[1].types == ["T", "U"] and first.elements[1].where is not None
    assert (second.variable, second.shortest, third.shortest) == ("q", "shortest", "all")
    assert clauses("MATCH ((a)-->(b)) RETURN a")[0].pattern[0].elements[2].variable == "b"
    assert clauses("MATCH (a)–[:R]—>(b) RETURN a")[0].pattern[0].elements[1].direction == "out"
    create = clauses("CREATE (a $props)-[:T {x: $p}]->(b)")[0]
    assert create.pattern[0].elements[0].properties == ast.Parameter("props")


def test_pattern_predicates_only_in_existence_checks():
    where = clauses("MATCH (n) WHERE (n)-[:KNOWS]->() AND NOT (n)<--() RETURN n")[0].where
    assert type(where.left) is ast.PatternPredicate and type(where.right.operand) is ast.PatternPredicate
    assert type(clauses("MATCH (n) WHERE exists((n)-->()) RETURN n")[0].where) is ast.PatternPredicate
    for text in ("MATCH (n) RETURN (n)-[]->()", "MATCH (n) WITH (n)-[]->() AS x RETURN x",
                 "MATCH (a) RETURN size((a)-->())", "MATCH (n) WHERE size((n)-->()) > 1 RETURN n"):
        assert syntax_error(text).detail == "UnexpectedSyntax"


def test_subquery_expressions():
    items = clauses("MATCH (n) RETURN COUNT { (n)-->() WHERE n.x > 1 } AS c, EXISTS { MATCH (n)-->(m) RETURN m } AS e, "
                    "COLLECT { MATCH (n)-->(m) RETURN m.x } AS xs, count(*) AS all")[1].projection.items
    count, exists, collect, star = (item.expr for item in items)
    assert type(count) is ast.CountSubquery
    bare_match = count.query.parts[0].clauses[0]
    assert type(bare_match) is ast.Match and bare_match.where is not None
    assert type(exists) is ast.ExistsSubquery and type(exists.query.parts[0].clauses[-1]) is ast.Return
    assert type(collect) is ast.CollectSubquery
    assert star == ast.CountStar()
    assert syntax_error("RETURN COLLECT { (n)-->() }").detail == "UnexpectedSyntax"


# -- expressions -------------------------------------------------------------------------------
def test_precedence():
    assert expr("1 + 2 * 3") == ast.BinaryOp("+", ast.Literal(1), ast.BinaryOp("*", ast.Literal(2), ast.Literal(3)))
    assert expr("2 ^ 3 ^ 2") == ast.BinaryOp("^", ast.BinaryOp("^", ast.Literal(2), ast.Literal(3)), ast.Literal(2))
    assert expr("-2 ^ 2") == ast.BinaryOp("^", ast.Literal(-2), ast.Literal(2))
    assert expr("a OR b XOR c AND NOT d") == ast.BinaryOp(
        "OR", ast.Variable("a"), ast.BinaryOp("XOR", ast.Variable("b"), ast.BinaryOp(
            "AND", ast.Variable("c"), ast.UnaryOp("NOT", ast.Variable("d")))))
    assert expr("NOT a = b") == ast.UnaryOp("NOT", ast.BinaryOp("=", ast.Variable("a"), ast.Variable("b")))
    assert expr("1 + 2 IN list") == ast.BinaryOp("IN", ast.BinaryOp("+", ast.Literal(1), ast.Literal(2)), ast.Variable("list"))
    assert expr("a.x IS NOT NULL") == ast.IsNull(ast.Property(ast.Variable("a"), "x"), negated=True)
    assert expr("'a' STARTS WITH 'b'").op == "STARTS WITH" and expr("x =~ 'b'").op == "=~"
    assert expr("a <> b").op == "<>" and expr("a != b").op == "<>"


def test_comparison_chain_becomes_and():
    a, b, c = ast.Variable("a"), ast.Variable("b"), ast.Variable("c")
    assert expr("a < b <= c") == ast.BinaryOp("AND", ast.BinaryOp("<", a, b), ast.BinaryOp("<=", b, c))
    assert expr("(a < b) <= c") == ast.BinaryOp("<=", ast.BinaryOp("<", a, b), c)


def test_postfix_and_collections():
    n = ast.Variable("n")
    assert expr("n.a.b") == ast.Property(ast.Property(n, "a"), "b")
    assert expr("n[0]") == ast.Subscript(n, ast.Literal(0))
    assert expr("n[1..2]") == ast.Slice(n, ast.Literal(1), ast.Literal(2))
    assert expr("n[..2]") == ast.Slice(n, None, ast.Literal(2))
    assert expr("n[1..]") == ast.Slice(n, ast.Literal(1), None)
    assert expr("[x IN range(1, 10) WHERE x % 2 = 0 | x * 2]").projection is not None
    assert expr("[x IN [1]]") == ast.ListComprehension("x", ast.ListLiteral([ast.Literal(1)]), None, None)
    # After WHERE, `|` starts the projection (write `n:(A|B)` for a label alternative).
    n = ast.Variable("n")
    assert expr("[n IN ns WHERE n:A | n]") == ast.ListComprehension(
        "n", ast.Variable("ns"), ast.LabelCheck(n, ast.LabelName("A")), n)
    assert expr("[n IN ns WHERE n:(A|B)]").where.labels == ast.LabelOr([ast.LabelName("A"), ast.LabelName("B")])
    comprehension = expr("[p = (a)-->(b) WHERE b.x | b.name]")
    assert type(comprehension) is ast.PatternComprehension and comprehension.path_variable == "p"
    projection = expr("n {.name, .*, age: n.age + 1, x}")
    assert [item.kind for item in projection.items] == ["property", "all", "literal", "variable"]
    assert expr("{a: 1, `b c`: [1, 'x']}") == ast.MapLiteral(
        [("a", ast.Literal(1)), ("b c", ast.ListLiteral([ast.Literal(1), ast.Literal("x")]))])


def test_functions_case_quantifiers_reduce():
    assert expr("datetime.fromEpochMillis(1)") == ast.FunctionCall("datetime.fromEpochMillis", [ast.Literal(1)])
    case = expr("CASE x WHEN 1 THEN 'a' WHEN 2 THEN 'b' ELSE 'c' END")
    assert case.subject == ast.Variable("x") and len(case.whens) == 2 and case.default == ast.Literal("c")
    searched = expr("CASE WHEN a THEN 1 END")
    assert searched.subject is None and searched.default is None
    for kind in ("all", "any", "none", "single"):
        assert expr(f"{kind}(x IN [1] WHERE x > 0)") == ast.Quantifier(
            kind, "x", ast.ListLiteral([ast.Literal(1)]), ast.BinaryOp(">", ast.Variable("x"), ast.Literal(0)))
    reduce = expr("reduce(acc = 0, x IN [1, 2] | acc + x)")
    assert (reduce.accumulator, reduce.variable) == ("acc", "x")
    with pytest.raises(CypherSyntaxError, match="IS NOT NULL"):        # Neo4j 5 removed exists(n.prop)
        expr("exists(n.prop)")


def test_keywords_as_names():
    match, ret = clauses("MATCH (type:Order)-[count:Return]->(exists) RETURN n.count, n.end, type, count, exists")
    node = match.pattern[0].elements[0]
    assert node.variable == "type" and node.labels == ast.LabelName("Order")
    assert match.pattern[0].elements[1].types == ["Return"]
    assert [item.expr for item in ret.projection.items[:2]] == [
        ast.Property(ast.Variable("n"), "count"), ast.Property(ast.Variable("n"), "end")]
    assert ret.projection.items[3].expr == ast.Variable("count")
    assert clauses("match (n) return n limit 1")[1].projection.limit == ast.Literal(1)


# -- literals ----------------------------------------------------------------------------------
def test_numbers():
    assert [expr(text).value for text in ("0x1F", "0o17", "017", "0", "42", "1.5", ".5", "1e-3", "1E3", "-1.5")] == [
        31, 15, 15, 0, 42, 1.5, 0.5, 0.001, 1000.0, -1.5]
    assert expr("-9223372036854775808") == ast.Literal(-9223372036854775808)
    assert expr("9223372036854775807") == ast.Literal(9223372036854775807)
    assert expr("- 5") == ast.Literal(-5)
    assert expr("-x") == ast.UnaryOp("-", ast.Variable("x"))
    assert expr("Inf") == ast.Literal(math.inf) and expr("NaN").value != expr("NaN").value    # Neo4j 5 literals
    assert expr("true") == ast.Literal(True) and expr("NULL") == ast.Literal(None)


def test_number_errors():
    for text, detail in (("9223372036854775808", "IntegerOverflow"), ("-9223372036854775809", "IntegerOverflow"),
                         ("0x8000000000000000", "IntegerOverflow"), ("1.34E999", "FloatingPointOverflow"),
                         ("0x", "InvalidNumberLiteral"), ("0x1G", "InvalidNumberLiteral"),
                         ("12ab", "InvalidNumberLiteral"), ("09", "InvalidNumberLiteral")):
        assert syntax_error(f"RETURN {text}").detail == detail, text


def test_strings_and_escapes():
    assert expr(r"'a\\b\'c\"d\n\t\b\f\r'").value == "a\\b'c\"d\n\t\b\f\r"
    assert expr(r"'\u00e9\U0001F600'").value == "é😀"
    assert expr('"double \'quoted\'"').value == "double 'quoted'"
    assert expr(r"'\uD83D\uDE00'").value == "😀"          # a UTF-16 surrogate pair
    for bad in (r"'\uH'", r"'\u12'", r"'\uD83D'", r"'\U00110000'"):
        assert syntax_error(f"RETURN {bad}").detail == "InvalidUnicodeLiteral", bad


def test_names_and_parameters():
    assert expr("`a``b`") == ast.Variable("a`b")
    assert expr("$`odd name`") == ast.Parameter("odd name")
    assert expr("$0") == ast.Parameter("0") and expr("$match") == ast.Parameter("match")


def test_comments_are_ignored():
    assert len(clauses("MATCH (n) // comment; here\n /* block ; \n comment */ RETURN n")) == 2


# -- commands ----------------------------------------------------------------------------------
def test_create_indexes():
    index = parse("CREATE INDEX foo IF NOT EXISTS FOR (n:L) ON (n.p, n.q)").body
    assert (index.kind, index.name, index.entity, index.variable, index.labels, index.properties, index.if_not_exists) == (
        "RANGE", "foo", "node", "n", ["L"], ["p", "q"], True)
    rel = parse("CREATE RANGE INDEX FOR ()-[r:T]-() ON (r.p)").body
    assert (rel.entity, rel.labels, rel.properties, rel.name) == ("relationship", ["T"], ["p"], None)
    vector = parse("CREATE VECTOR INDEX note_e FOR (n:Note) ON (n.embedding) WITH [n.session, n.ts] "
                   "OPTIONS {indexConfig: {`vector.dimensions`: 384}}").body
    assert vector.kind == "VECTOR" and vector.with_properties == ["session", "ts"]
    assert vector.options.entries[0][0] == "indexConfig"
    fulltext = parse("CREATE FULLTEXT INDEX ft FOR (n:A|B) ON EACH [n.text, n.title] OPTIONS {x: 1}").body
    assert (fulltext.kind, fulltext.labels, fulltext.properties) == ("FULLTEXT", ["A", "B"], ["text", "title"])
    legacy = parse("CREATE INDEX ON :Person(name)").body
    assert (legacy.kind, legacy.labels, legacy.properties) == ("RANGE", ["Person"], ["name"])
    assert parse("DROP INDEX foo IF EXISTS").body == ast.DropIndex("foo", True)
    legacy_drop = parse("DROP INDEX ON :Person(name, age)").body
    assert (legacy_drop.name, legacy_drop.label, legacy_drop.properties) == (None, "Person", ["name", "age"])


def test_create_constraints():
    unique = parse("CREATE CONSTRAINT c IF NOT EXISTS FOR (n:L) REQUIRE n.p IS UNIQUE").body
    assert (unique.kind, unique.name, unique.label, unique.properties, unique.if_not_exists) == ("UNIQUE", "c", "L", ["p"], True)
    key = parse("CREATE CONSTRAINT FOR (n:L) REQUIRE (n.a, n.b) IS NODE KEY").body
    assert (key.kind, key.properties) == ("KEY", ["a", "b"])
    assert parse("CREATE CONSTRAINT FOR (n:L) REQUIRE (n.a) IS KEY").body.kind == "KEY"
    assert parse("CREATE CONSTRAINT FOR (n:L) REQUIRE n.p IS NOT NULL").body.kind == "NOT_NULL"
    typed = parse("CREATE CONSTRAINT decided_ts FOR ()-[d:DECIDED]-() REQUIRE d.ts IS :: INTEGER").body
    assert (typed.kind, typed.entity, typed.variable, typed.label, typed.type_name) == (
        "TYPE", "relationship", "d", "DECIDED", "INTEGER")
    listed = parse("CREATE CONSTRAINT FOR (n:L) REQUIRE n.p IS TYPED list < integer  not null >").body
    assert listed.type_name == "LIST<INTEGER NOT NULL>"
    assert parse("DROP CONSTRAINT c").body == ast.DropConstraint("c", False)


def test_show_commands():
    show = parse("SHOW VECTOR INDEXES YIELD name, type AS t WHERE t = 'x' RETURN name").body
    assert (show.kind, show.filter, show.yield_items) == ("INDEXES", "VECTOR", [ast.YieldItem("name"), ast.YieldItem("type", "t")])
    assert show.where is not None and show.returns.items[0].name == "name"
    for text, kind in (("SHOW INDEXES", "INDEXES"), ("SHOW CONSTRAINTS", "CONSTRAINTS"), ("SHOW PROCEDURES", "PROCEDURES"),
                       ("SHOW FUNCTIONS", "FUNCTIONS"), ("SHOW USERS", "USERS"), ("SHOW TRANSACTIONS", "TRANSACTIONS"),
                       ("SHOW CURRENT USER", "CURRENT USER")):
        assert parse(text).body.kind == kind
    assert parse("SHOW ALL INDEXES").body.filter == "ALL"
    assert parse("SHOW PROCEDURES YIELD *").body.yield_star


def test_user_commands():
    user = parse("CREATE USER bob IF NOT EXISTS SET PLAINTEXT PASSWORD 'x' CHANGE NOT REQUIRED").body
    assert user == ast.CreateUser("bob", ast.Literal("x"), False, True)
    assert parse("CREATE USER bob SET PASSWORD $p").body.change_required      # Neo4j's default
    alter = parse("ALTER USER bob IF EXISTS SET PASSWORD 'y'").body
    assert alter == ast.AlterUser("bob", ast.Literal("y"), None, True)
    assert parse("ALTER USER bob SET PASSWORD CHANGE NOT REQUIRED").body == ast.AlterUser("bob", None, False)
    assert parse("DROP USER bob IF EXISTS").body == ast.DropUser("bob", True)


# -- scripts -----------------------------------------------------------------------------------
def test_parse_script_splits_on_top_level_semicolons():
    script = "CREATE (a);// x; y\n MATCH (n) RETURN ';' AS `;` ; /* ; */ RETURN \"a;b\";\n"
    assert split_statements(script) == ["CREATE (a)", "MATCH (n) RETURN ';' AS `;`", "RETURN \"a;b\""]
    statements = parse_script(script)
    assert [statement.text for statement in statements] == ["CREATE (a)", "MATCH (n) RETURN ';' AS `;`", 'RETURN "a;b"']
    assert parse("RETURN 1;").body.parts[0].clauses[0].projection.items[0].expr == ast.Literal(1)


# -- syntax errors -----------------------------------------------------------------------------
def test_error_position_message_and_caret():
    error = syntax_error("MATCH (n)\nRETRN n")
    assert (error.line, error.column, error.phase, error.detail) == (2, 1, "compile time", "UnexpectedSyntax")
    assert error.excerpt == "RETRN n\n^"
    assert error.message.startswith("Invalid input 'RETRN': expected ")
    assert "'RETURN'" in error.message and "'WHERE'" in error.message
    assert "(line 2, column 1 (offset: 10))" in error.message and error.message.endswith(error.excerpt)


def test_error_caret_under_column():
    error = syntax_error("MATCH (n) WHERE n.x = = 1 RETURN n")
    assert (error.line, error.column) == (1, 23)
    assert error.excerpt.splitlines()[1] == " " * 22 + "^"
    assert "expected an expression" in error.message
    tabbed = syntax_error("\tRETURN\t#")
    assert tabbed.excerpt.splitlines()[1] == "\t      \t^"


def test_error_at_end_of_input_and_lexical_errors():
    end = syntax_error("MATCH (n) RETURN n LIMIT")
    assert (end.line, end.column) == (1, 25) and end.message.startswith("Invalid input '':")
    assert "even number of non-escaped quotes" in syntax_error("RETURN 'abc").message
    assert "closing `*/`" in syntax_error("RETURN 1 /* open").message
    assert syntax_error("RETURN 42 — 41").detail == "InvalidUnicodeCharacter"
    assert syntax_error("MATCH (n RETURN n").column == 10
    assert syntax_error("MATCH (a)-[:LIKES..]->(c) RETURN c").detail == "InvalidRelationshipPattern"
    assert syntax_error("MATCH (a)-[:LIKES*-2]->(c) RETURN c").detail == "InvalidRelationshipPattern"


def test_crlf_line_endings():
    error = syntax_error("MATCH (n)\r\nWHERE n.x = = 1\r\nRETURN n")
    assert (error.line, error.column) == (2, 13) and error.excerpt == "WHERE n.x = = 1\n            ^"


def test_set_target_must_be_a_property():
    assert "expected a property" in syntax_error("MATCH (n) SET count(n) = 2").message
    assert "expected a property" in syntax_error("MATCH (n) REMOVE n").message


# -- the fast lexer -------------------------------------------------------------------------
def _token_signature(tokens) -> list[tuple]:
    return [(t.type, t.text, t.line, t.column, t.start, t.stop) for t in tokens]


def assert_same_tokens(text: str) -> None:
    """The regex tokenizer yields exactly the ANTLR lexer's tokens, or declines the text."""
    fast = tokenize(text)
    if fast is None:
        return
    assert _token_signature(fast) == _token_signature(lex(text).tokens), text


def test_fast_lexer_matches_antlr_lexer():
    for text in ("MATCH (n)\n  WHERE n.x >= .5 RETURN $p, 0x1F, 0o7, 017, 1..3, 1e3, 1.5E-2, n[..2]",
                 "RETURN 'a\\'b', \"q\\\"\", `we``ird`, $`p q`, $0, a<>b, a!=b, a=~'x', n += {}",
                 "MATCH (a)<-[:R*2..]-(b)-->(c) // c\n/* x\n y */ RETURN a::b, 12abc, 0x, 09",
                 "RETURN 1 /* open",
                 "RETURN 1_000_000, 0x_13af, 0o13_72, 1_000.5, 6.022_1E23, .5_5, 1_000_, 1__0, 0_7, Inf, NaN"):
        assert tokenize(text) is not None
        assert_same_tokens(text)
    assert tokenize("RETURN 'é'") is None and tokenize("RETURN 'open") is None and tokenize("RETURN #") is None
    assert expr("'é'") == ast.Literal("é")
    assert expr("`Straße`.x") == ast.Property(ast.Variable("Straße"), "x")
    assert clauses("MATCH (n:Größe) RETURN n")[0].pattern[0].elements[0].labels == ast.LabelName("Größe")


# -- TCK and cookbook --------------------------------------------------------------------------
# Details the grammar itself decides; every other TCK SyntaxError needs scopes or types and is left
# to the semantic stage (relate.server.query.semantic), with the reason:
GRAMMAR_DETAILS = {"UnexpectedSyntax", "InvalidNumberLiteral", "IntegerOverflow", "FloatingPointOverflow",
                   "InvalidUnicodeLiteral", "InvalidUnicodeCharacter", "InvalidRelationshipPattern"}
SEMANTIC_DETAILS = {
    "VariableAlreadyBound": "needs variable scopes",
    "UndefinedVariable": "needs variable scopes",
    "VariableTypeConflict": "needs the kinds of bound variables",
    "InvalidArgumentType": "needs the static types of literals and variables",
    "AmbiguousAggregationExpression": "needs grouping keys versus aggregates",
    "InvalidAggregation": "needs to know which functions aggregate",
    "NestedAggregation": "needs to know which functions aggregate",
    "NonConstantExpression": "needs to know which expressions are constant",
    "NegativeIntegerArgument": "a constant-value check on SKIP/LIMIT",
    "InvalidClauseComposition": "clause order rules are checked on the AST",
    "InvalidParameterUse": "MATCH/MERGE with a parameter map is a clause-specific rule",
    "ColumnNameConflict": "needs the projected column names",
    "DifferentColumnsInUnion": "needs the projected column names",
    "NoExpressionAlias": "needs the projected column names",
    "NoVariablesInScope": "needs variable scopes",
    "InvalidDelete": "DELETE of a label expression is a clause-specific rule",
    "RequiresDirectedRelationship": "a CREATE/MERGE-specific pattern rule",
    "NoSingleRelationshipType": "a CREATE/MERGE-specific pattern rule",
    "CreatingVarLength": "a CREATE/MERGE-specific pattern rule",
    "InvalidArgumentPassingMode": "needs the procedure's signature",
}


def _tck_queries(path: str):
    """(scenario name, query, expected SyntaxError detail or None) for each query of a feature file."""
    from gherkin.parser import Parser
    with open(path, encoding="utf-8") as handle:
        document = Parser().parse(handle.read())
    for child in document["feature"]["children"]:
        scenario = child.get("scenario")
        if not scenario:
            continue
        detail = None
        for step in scenario["steps"]:
            if "SyntaxError should be raised" in step["text"]:
                detail = step["text"].rsplit(":", 1)[-1].strip()
        rows = [{}]
        for examples in scenario.get("examples", []):
            header = [cell["value"] for cell in examples["tableHeader"]["cells"]]
            rows = [dict(zip(header, (cell["value"] for cell in row["cells"]))) for row in examples["tableBody"]]
        for step in scenario["steps"]:
            doc = step.get("docString")
            kind = step["text"]
            if doc is None or not (kind.startswith("executing query") or kind.startswith("having executed")):
                continue
            for row in rows:
                query = doc["content"]
                for key, value in row.items():
                    query = query.replace(f"<{key}>", value)
                yield scenario["name"], query, detail if kind.startswith("executing query") else None


FEATURES = sorted(glob.glob(os.path.join(TCK_FEATURES, "**", "*.feature"), recursive=True))


def test_the_tck_features_are_there():
    assert len(FEATURES) > 100         # 181 feature files in the pinned TCK


@pytest.mark.parametrize("path", FEATURES, ids=lambda path: os.path.relpath(path, TCK_FEATURES))
def test_tck_queries(path):
    for scenario, query, detail in _tck_queries(path):
        if detail is None:
            assert_same_tokens(query)
        if detail in GRAMMAR_DETAILS:
            with pytest.raises(CypherSyntaxError) as caught:
                parse(query)
            assert caught.value.detail == detail, (scenario, query)
        else:
            assert detail is None or detail in SEMANTIC_DETAILS, (scenario, detail)
            parse(query)          # valid queries, and errors left to the semantic stage, parse


_SPEC_START = re.compile(r"^(CALL \(\) \{|(MATCH|OPTIONAL MATCH|UNWIND|CREATE (CONSTRAINT|VECTOR|FULLTEXT|INDEX)|RETURN|WITH)\b)")
_SPEC_END = re.compile(r"(Parameters$|\(no rows\).*$|\| notes \|.*$)")


def spec_statements(text: str) -> list[str]:
    """The Cypher scripts of the cookbook page: blocks from a clause-starting line up to the line
    glued to the result ("...Parameters", "(no rows)", a table)."""
    scripts, current = [], None
    for line in text.splitlines():
        if current is None:
            if not _SPEC_START.match(line) or line.rstrip().endswith(".") or "…" in line:
                continue
            current = []
        end = _SPEC_END.search(line)
        if end:
            current.append(line[:end.start()])
            scripts.append("\n".join(current))
            current = None
        else:
            current.append(line)
    return scripts


def test_cookbook_statements_parse():
    with open(cookbook_spec(), encoding="utf-8") as handle:
        scripts = spec_statements(handle.read())
    statements = [statement for script in scripts for statement in parse_script(script)]
    assert len(statements) == 19
    searches = [clause.search for statement in statements if isinstance(statement.body, ast.Query)
                for part in statement.body.parts for clause in part.clauses
                if isinstance(clause, ast.Match) and clause.search is not None]
    assert searches and all(search.spec.limit is not None for search in searches)
    recall = next(statement for statement in statements
                  if isinstance(statement.body, ast.Query) and type(statement.body.parts[0].clauses[0]) is ast.CallSubquery)
    call = recall.body.parts[0].clauses[0]
    assert call.imports == [] and call.query.union_all == [True]
    assert recall.body.parts[0].clauses[1].projection.items[1].text == "sum(1.0 / (60 + rank))"


def test_parsing_from_many_threads_agrees():
    from concurrent.futures import ThreadPoolExecutor
    texts = ["MATCH (n:A)-[r]->(m) WHERE n.x > $p RETURN m.y AS y ORDER BY y",
             "UNWIND range(1, 3) AS i RETURN [x IN range(1, i) | x * 2] AS xs",
             "CREATE (n:Ünïcode {name: 'é'}) RETURN n",
             "MATCH (n) SEARCH n IN (VECTOR INDEX e FOR $v LIMIT 3) SCORE AS s RETURN n, s"] * 10
    expected = [parse(text) for text in texts]
    with ThreadPoolExecutor(max_workers=4) as pool:
        assert list(pool.map(parse, texts)) == expected
