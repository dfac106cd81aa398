"""Compile-time errors of semantic analysis, with the openCypher TCK's detail names."""
import pytest

from relate.errors import CypherSemanticError, CypherSyntaxError
from relate.server.engine import Database


@pytest.fixture(scope="module")
def session():
    db = Database.open(None)
    yield db.session()
    db.close()


CASES = [
    ("RETURN x", "UndefinedVariable"),
    ("MATCH (a) WITH a.x AS y RETURN a", "UndefinedVariable"),
    ("MATCH (a) CREATE (a)", "VariableAlreadyBound"),
    ("MATCH (a) MERGE (a)", "VariableAlreadyBound"),
    ("MATCH ()-[r]->() CREATE ()-[r]->()", "VariableAlreadyBound"),
    ("CREATE (n:Foo)-[:T]->(), (n:Bar)-[:T]->()", "VariableAlreadyBound"),
    ("MATCH p = (p)-->() RETURN p", "VariableAlreadyBound"),
    ("MATCH (a) MATCH ()-[a]->() RETURN a", "VariableTypeConflict"),
    ("WITH 1 AS n MATCH (n) RETURN n", "VariableTypeConflict"),
    ("MATCH r = ()-->(), (r) RETURN r", "VariableTypeConflict"),
    ("UNWIND [1] AS x UNWIND [2] AS x RETURN x", "VariableAlreadyBound"),
    ("WITH 1 + 1 RETURN 1", "NoExpressionAlias"),
    ("RETURN 1 AS a, 2 AS a", "ColumnNameConflict"),
    ("MATCH () RETURN *", "NoVariablesInScope"),
    ("RETURN 1 AS a UNION RETURN 2 AS b", "DifferentColumnsInUnion"),
    ("RETURN 1 AS a UNION RETURN 2 AS a UNION ALL RETURN 3 AS a", "InvalidClauseComposition"),
    ("MATCH (n) WHERE count(n) > 1 RETURN n", "InvalidAggregation"),
    ("MATCH (n) RETURN n.x ORDER BY max(n.y)", "InvalidAggregation"),
    ("RETURN [x IN [1, 2] | count(*)]", "InvalidAggregation"),
    ("RETURN count(count(*))", "NestedAggregation"),
    ("RETURN count(rand())", "NonConstantExpression"),
    ("MATCH (me)--(you) RETURN me.age + count(you.age)", "AmbiguousAggregationExpression"),
    ("MATCH (me)--(you) RETURN me.age + you.age, me.age + you.age + count(*)", "AmbiguousAggregationExpression"),
    ("MATCH (n) RETURN n LIMIT n.count", "NonConstantExpression"),
    ("MATCH (n) RETURN n SKIP -1", "NegativeIntegerArgument"),
    ("MATCH (n) RETURN n LIMIT 1.5", "InvalidArgumentType"),
    ("RETURN nosuch(1)", "UnknownFunction"),
    ("RETURN toUpper()", "InvalidNumberOfArguments"),
    ("MATCH (n) DELETE n:Person", "InvalidDelete"),
    ("MATCH () DELETE 1 + 1", "InvalidArgumentType"),
    ("CREATE (a)-[:R]-(b)", "RequiresDirectedRelationship"),
    ("CREATE ()-[:R*2]->()", "CreatingVarLength"),
    ("CREATE ()-[:A|B]->()", "NoSingleRelationshipType"),
    ("MATCH (n $p) RETURN n", "InvalidParameterUse"),
    ("MATCH (n) RETURN type(n)", "InvalidArgumentType"),
    ("MATCH (n) WHERE (n) RETURN n", "InvalidArgumentType"),
    ("MATCH (n) WHERE EXISTS { MATCH (n)-->(m) SET m.x = 1 } RETURN n", "InvalidClauseComposition"),
    ("MATCH (n) RETURN n.x AS x, count(*) AS c ORDER BY sum(n.y)", "UndefinedVariable"),
    ("MATCH (n)", "InvalidClauseComposition"),
    ("RETURN 1 UNWIND [1] AS x RETURN x", "InvalidClauseComposition"),
]


@pytest.mark.parametrize("query, detail", CASES)
def test_compile_time_errors(session, query, detail):
    with pytest.raises(CypherSyntaxError) as info:
        session.run(query, {"p": {}})
    assert info.value.detail == detail
    assert info.value.phase == "compile time"


VALID = [
    "MATCH (a)-[r]->(b) MATCH (a)-[r]->(c) RETURN a",
    "MATCH (me)--(you) WITH me.age AS age, you RETURN age, age + count(you.age)",
    "MATCH (me)--(you) RETURN me.age, me.age + count(you.age)",
    "MATCH (x)-[r]->() RETURN type(r), count(*) ORDER BY type(r)",
    "MATCH (a) WITH a.name AS name ORDER BY a.age RETURN name",
    "MATCH ()-[r1]->()-[r2]->() WITH [r1, r2] AS rs LIMIT 1 MATCH (a)-[rs*]->(b) RETURN a, b",
    "MATCH () CREATE () WITH * CREATE ()",
    "CALL () { RETURN 1 AS one UNION ALL RETURN 2 AS one } RETURN sum(one)",
    "UNWIND [1, 2] AS x CALL (x) { RETURN x * 2 AS y } RETURN y",
]


@pytest.mark.parametrize("query", VALID)
def test_valid_queries_pass_analysis(session, query):
    session.db.prepare(query)


SEARCH_CASES = [
    ("MATCH (n:Note) SEARCH n IN (VECTOR INDEX note_e FOR $v) SCORE AS s RETURN n", "LIMIT is required"),
    ("MATCH (n:Note) SEARCH n IN (VECTOR INDEX note_e FOR $v SKIP 2 LIMIT 3) SCORE AS s RETURN n",
     "full-text only"),
    ("MATCH (n:Note)-[:ABOUT]->(t) SEARCH n IN (VECTOR INDEX note_e FOR $v LIMIT 3) SCORE AS s RETURN n",
     "holds only the searched variable"),
    ("MATCH (a)-[r:DECIDED]->() SEARCH r IN (FULLTEXT INDEX dec_t FOR $q LIMIT 3) SCORE AS s RETURN r",
     "holds only the searched variable"),
    ("MATCH (n:Note) SEARCH n IN (FULLTEXT INDEX note_t FOR $q WHERE n.ts > 1 LIMIT 3) SCORE AS s RETURN n",
     "is not declared in the WITH [...] of index `note_t`"),
    ("MATCH (n:Note) SEARCH n IN (VECTOR INDEX note_e FOR $v WHERE n.text = 'x' LIMIT 3) SCORE AS s RETURN n",
     "not declared in the WITH"),
    ("MATCH (n:Note) SEARCH n IN (VECTOR INDEX note_e FOR $v WHERE n.ts > 1 OR n.ts < 0 LIMIT 3) SCORE AS s "
     "RETURN n", "joined by AND"),
    ("MATCH (n:Note) SEARCH n IN (VECTOR INDEX note_e FOR $v LIMIT 3) RETURN n, score", "SCORE AS"),
    ("MATCH (n:Note) SEARCH n IN (VECTOR INDEX nope FOR $v LIMIT 3) SCORE AS s RETURN n", "must exist"),
    ("MATCH (n:Note) SEARCH n IN (FULLTEXT INDEX note_e FOR $q LIMIT 3) SCORE AS s RETURN n", "kind must match"),
    ("MATCH (n:Note) SEARCH n IN (COMBINE (VECTOR INDEX note_e FOR $v LIMIT 3) USING RRF LIMIT 3) SCORE AS s "
     "RETURN n", "at least two sources"),
]


@pytest.fixture(scope="module")
def search_session():
    db = Database.open(None)
    s = db.session()
    s.run("CREATE VECTOR INDEX note_e FOR (n:Note) ON (n.embedding) WITH [n.session, n.ts] "
          "OPTIONS {indexConfig: {`vector.dimensions`: 4, `vector.similarity_function`: 'cosine'}}").consume()
    s.run("CREATE FULLTEXT INDEX note_t FOR (n:Note) ON EACH [n.text]").consume()
    s.run("CREATE FULLTEXT INDEX dec_t FOR ()-[r:DECIDED]-() ON EACH [r.text]").consume()
    yield s
    db.close()


@pytest.mark.parametrize("query, rule", SEARCH_CASES)
def test_search_rules_name_the_rule(search_session, query, rule):
    with pytest.raises((CypherSemanticError, CypherSyntaxError)) as info:
        search_session.run(query, {"v": [1.0, 0.0, 0.0, 0.0], "q": "x"})
    assert rule in str(info.value)
