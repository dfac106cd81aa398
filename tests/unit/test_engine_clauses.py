"""Clause behaviour end to end: MATCH forms, OPTIONAL MATCH, projections, updates, subqueries, unions."""
import functools

import pytest

from relate.server.engine import Database
from tests.helpers import rows as all_rows

GRAPH = """CREATE (a:A {name: 'a', v: 1}), (b:B {name: 'b', v: 2}), (c:C {name: 'c', v: 3}), (d:D {name: 'd'}),
  (a)-[:R {w: 1}]->(b), (b)-[:R {w: 2}]->(c), (a)-[:S]->(c), (c)-[:R {w: 1}]->(d)"""


@pytest.fixture
def run():
    db = Database.open(None)
    session = db.session()
    session.run(GRAPH).consume()
    yield functools.partial(all_rows, session)
    db.close()


READS = [
    ("MATCH (x)-[:R*1..2]->(y) RETURN x.name, y.name ORDER BY x.name, y.name",
     [("a", "b"), ("a", "c"), ("b", "c"), ("b", "d"), ("c", "d")]),
    ("MATCH (x {name: 'a'})-[r:R*0..]->(y) RETURN y.name, size(r) ORDER BY y.name",
     [("a", 0), ("b", 1), ("c", 2), ("d", 3)]),
    ("MATCH (x {name: 'a'})-[:R*2 {w: 2}]->(y) RETURN y.name", []),
    ("MATCH (x)-[:R*1..3 {w: 1}]->(y) RETURN x.name, y.name ORDER BY x.name", [("a", "b"), ("c", "d")]),
    ("MATCH (y {name: 'd'})<-[r:R*]-(x {name: 'a'}) RETURN [e IN r | e.w]", [([1, 2, 1],)]),
    ("MATCH p = (:A)-[:R*]->(:D) RETURN [n IN nodes(p) | n.name], length(p)", [(["a", "b", "c", "d"], 3)]),
    ("MATCH (a:A)-[r1]->(m)-[r2]->(n) RETURN m.name, n.name ORDER BY m.name, n.name",
     [("b", "c"), ("c", "d")]),
    ("MATCH (x)-[r]-(y) WHERE x.name = 'b' RETURN y.name ORDER BY y.name", [("a",), ("c",)]),
    ("MATCH (x)-[r1]-(y)-[r2]-(x) RETURN count(*)", [(0,)]),                 # relationships are not reused
    ("MATCH (x) OPTIONAL MATCH (x)-[:S]->(y) RETURN x.name, y.name ORDER BY x.name",
     [("a", "c"), ("b", None), ("c", None), ("d", None)]),
    ("OPTIONAL MATCH (x:Nope) RETURN x", [(None,)]),
    ("MATCH (a {name: 'a'}), (d {name: 'd'}) MATCH p = shortestPath((a)-[*]->(d)) RETURN length(p)", [(2,)]),
    ("MATCH (a {name: 'a'}), (d {name: 'd'}) MATCH p = allShortestPaths((a)-[:R*]->(d)) RETURN length(p)",
     [(3,)]),
    ("MATCH (n) WHERE n.v IS NOT NULL WITH n.v AS v ORDER BY v DESC LIMIT 2 RETURN collect(v)", [([3, 2],)]),
    ("MATCH (n) WITH n.name AS name ORDER BY n.v DESC WHERE name <> 'c' RETURN name", [("d",), ("b",), ("a",)]),
    ("MATCH (n) RETURN DISTINCT labels(n)[0] AS l ORDER BY l LIMIT 2", [("A",), ("B",)]),
    ("UNWIND [3, 1, 2, 1] AS x RETURN DISTINCT x ORDER BY x", [(1,), (2,), (3,)]),
    ("UNWIND [1, 2, 3, 4] AS x RETURN x % 2 AS odd, sum(x) / count(*) AS mean, collect(x) ORDER BY odd",
     [(0, 3, [2, 4]), (1, 2, [1, 3])]),
    ("MATCH (n) RETURN count(*), count(n.v), sum(n.v), min(n.name), max(n.v)", [(4, 3, 6, "a", 3)]),
    ("MATCH (n:Nope) RETURN count(*), collect(n)", [(0, [])]),
    ("MATCH (n) RETURN n.name AS name ORDER BY n.v DESC SKIP $s LIMIT $s * 2", [("c",), ("b",)]),
    ("MATCH (n) WHERE n.v > 1 RETURN n.name AS x UNION MATCH (n) WHERE n.v < 3 RETURN n.name AS x",
     [("b",), ("c",), ("a",)]),
    ("MATCH (n:A) RETURN n.name AS x UNION ALL MATCH (n:A) RETURN n.name AS x", [("a",), ("a",)]),
    ("CALL () { MATCH (n:A) RETURN n UNION ALL MATCH (n:B) RETURN n } RETURN n.name ORDER BY n.name",
     [("a",), ("b",)]),
    ("MATCH (n:A) CALL (n) { MATCH (n)-->(m) RETURN m.name AS mn } RETURN mn ORDER BY mn", [("b",), ("c",)]),
    ("MATCH (n) RETURN n.name, EXISTS { (n)-[:S]->() }, COUNT { (n)-->() }, COLLECT { MATCH (n)-->(m) "
     "RETURN m.name } ORDER BY n.name",
     [("a", True, 2, ["b", "c"]), ("b", False, 1, ["c"]), ("c", False, 1, ["d"]), ("d", False, 0, [])]),
    ("MATCH (n) WHERE (n)-[:R]->() RETURN n.name ORDER BY n.name", [("a",), ("b",), ("c",)]),
    ("MATCH (n:A) RETURN [(n)-[:R]->(m) | m.name]", [(["b"],)]),
    ("MATCH (n:A) RETURN [x IN [1, 2] | size([(n)-->(m) WHERE m.v > x | m])]", [([2, 1],)]),
    ("MATCH (n) RETURN n {.name, double: n.v * 2} AS m ORDER BY m.name LIMIT 1", [({"name": "a", "double": 2},)]),
    ("CALL db.labels() YIELD label WHERE label < 'C' RETURN label ORDER BY label", [("A",), ("B",)]),
    ("MATCH (n) RETURN * ORDER BY n.name LIMIT 1", None),
]


@pytest.mark.parametrize("query, expected", READS)
def test_reads(run, query, expected):
    result = run(query, {"s": 1})
    if expected is not None:
        assert result == expected
    else:
        assert len(result) == 1


def test_create_merge_set_remove(run):
    run("MERGE (t:T {k: 1}) ON CREATE SET t.created = true ON MATCH SET t.matched = true")
    run("MERGE (t:T {k: 1}) ON CREATE SET t.created = true ON MATCH SET t.matched = true")
    assert run("MATCH (t:T) RETURN t.created, t.matched") == [(True, True)]
    run("UNWIND [1, 1, 2, 2, 3] AS k MERGE (:U {k: k})")       # merge sees earlier rows' creations
    assert run("MATCH (u:U) RETURN count(u)") == [(3,)]
    run("MATCH (a:A), (b:B) MERGE (a)-[:M]->(b) MERGE (a)-[:M]->(b)")
    assert run("MATCH (:A)-[m:M]->(:B) RETURN count(m)") == [(1,)]
    run("MATCH (n:A) SET n = {name: 'a2'}, n += {x: 1}, n:Extra")
    assert run("MATCH (n:A) RETURN n.name, n.v, n.x, labels(n)") == [("a2", None, 1, ["A", "Extra"])]
    run("MATCH (n:A) REMOVE n.x, n:Extra SET n.y = n.name + '!'")
    assert run("MATCH (n:A) RETURN n.x, n.y, labels(n)") == [(None, "a2!", ["A"])]
    run("MATCH (n:B) SET (CASE WHEN n.v > 1 THEN n END).flag = true")
    assert run("MATCH (n:B) RETURN n.flag") == [(True,)]


def test_create_reads_its_own_earlier_variables_and_paths(run):
    (p,), = run("CREATE p = (x:X {i: 1})-[:N]->(y:X {i: x.i + 1}) RETURN [n IN nodes(p) | n.i]")
    assert p == [1, 2]
    run("MATCH (x:X {i: 1}) CREATE (x)<-[:BACK]-(:Y)")
    assert run("MATCH (:Y)-[:BACK]->(x) RETURN x.i") == [(1,)]


def test_match_then_create_does_not_see_its_own_creations(run):
    run("MATCH (n) CREATE (:Copy {name: n.name})")
    assert run("MATCH (c:Copy) RETURN count(c)") == [(4,)]


def test_delete_and_detach_delete(run):
    run("MATCH (n:D) DETACH DELETE n")
    assert run("MATCH (n) RETURN count(n)") == [(3,)]
    run("MATCH p = (:A)-[:S]->(:C) DELETE relationships(p)[0]")
    assert run("MATCH ()-[s:S]->() RETURN count(s)") == [(0,)]
    run("OPTIONAL MATCH (n:Nope) DELETE n")                    # deleting null is a no-op


def test_foreach_and_unit_subqueries(run):
    run("FOREACH (i IN range(1, 3) | CREATE (:F {i: i}) MERGE (:G {i: i % 2}))")
    assert run("MATCH (f:F) RETURN collect(f.i)") == [([1, 2, 3],)]
    assert run("MATCH (g:G) RETURN count(g)") == [(2,)]
    run("UNWIND [1, 2] AS x CALL (x) { CREATE (:H {x: x}) }")
    assert run("MATCH (h:H) RETURN sum(h.x)") == [(3,)]


def test_limit_after_writes_still_writes_every_row(run):
    assert run("UNWIND range(1, 5) AS i CREATE (n:L {i: i}) RETURN n.i LIMIT 0") == []
    assert run("UNWIND range(1, 5) AS i CREATE (n:L {i: i}) RETURN n.i SKIP 1 LIMIT 2") == [(2,), (3,)]
    assert run("MATCH (n:L) RETURN count(n)") == [(10,)]


def test_vector_write_guard_fails_the_whole_statement(run):
    from relate.errors import ArgumentError
    with pytest.raises(ArgumentError):
        run("UNWIND [[1.0, 2.0], [1.0]] AS e CREATE (:V {e: vector(e, 2, FLOAT32)})")
    assert run("MATCH (v:V) RETURN count(v)") == [(0,)]
