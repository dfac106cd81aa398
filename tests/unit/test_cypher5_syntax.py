"""Neo4j 5 / Cypher 25 syntax users send: the CYPHER prefix, ``||``, ORDER BY ... NULLS FIRST|LAST,
trim(... FROM ...), IS NORMALIZED, dynamic labels and types (``$(e)``, ``$any``, ``$all``) in every
clause, and SHORTEST k [GROUPS] path selectors."""
from __future__ import annotations

import pytest

from relate.errors import ArgumentError, CypherSyntaxError, CypherTypeError
from tests.helpers import rows


@pytest.fixture
def people(db):
    rows(db, "CREATE (a:Person {name: 'Ann', age: 30})-[:KNOWS {since: 2020}]->(b:Person {name: 'Bob'}), "
             "(b)-[:LIKES]->(m:Movie {title: 'X'}), (a)-[:KNOWS]->(:Robot {name: 'R2'})")
    return db


def test_cypher_prefix_versions_and_options(db):
    assert rows(db, "CYPHER 5 RETURN 1 AS x") == [(1,)]
    assert rows(db, "CYPHER 25 runtime=slotted planner=cost RETURN 1 AS x") == [(1,)]
    assert rows(db, "CYPHER runtime = parallel RETURN 2 AS x") == [(2,)]
    assert rows(db, "CYPHER 5 EXPLAIN RETURN 1 AS x") == []
    with pytest.raises(CypherSyntaxError, match="Invalid Cypher version '3.5'"):
        rows(db, "CYPHER 3.5 RETURN 1")
    with pytest.raises(CypherSyntaxError, match="Unsupported options: colour"):
        rows(db, "CYPHER colour=blue RETURN 1")
    assert rows(db, "WITH 1 AS cypher RETURN cypher") == [(1,)]      # still a name


def test_concatenation_operator(db):
    assert rows(db, "RETURN 'a' || 'b' || 'c' AS s, [1] || [2, 3] AS l, 'a' || null AS n") == \
        [("abc", [1, 2, 3], None)]
    assert rows(db, "WITH 'x' AS a RETURN a || toString(1 + 1) AS s") == [("x2",)]
    with pytest.raises(CypherTypeError, match=r"\|\|"):
        rows(db, "WITH 'a' AS s, 1 AS n RETURN s || n")


def test_order_by_nulls_first_and_last(db):
    rows(db, "UNWIND [3, null, 1, 2] AS v CREATE (:V {v: v, k: coalesce(v, 0) % 2})")
    assert rows(db, "MATCH (n:V) RETURN n.v AS v ORDER BY v NULLS FIRST") == [(None,), (1,), (2,), (3,)]
    assert rows(db, "MATCH (n:V) RETURN n.v AS v ORDER BY v ASC NULLS LAST") == [(1,), (2,), (3,), (None,)]
    assert rows(db, "MATCH (n:V) RETURN n.v AS v ORDER BY v DESC NULLS LAST") == [(3,), (2,), (1,), (None,)]
    assert rows(db, "MATCH (n:V) RETURN n.v AS v ORDER BY v DESC NULLS FIRST") == [(None,), (3,), (2,), (1,)]
    assert rows(db, "MATCH (n:V) RETURN DISTINCT n.v AS v ORDER BY v NULLS FIRST LIMIT 2") == [(None,), (1,)]
    assert rows(db, "MATCH (n:V) WITH n.k AS k, max(n.v) AS top ORDER BY top DESC NULLS LAST RETURN k, top") == \
        [(1, 3), (0, 2)]
    assert rows(db, "WITH 1 AS first, 2 AS last, 3 AS nulls RETURN first + last + nulls") == [(6,)]


def test_trim_from_and_normal_forms(db):
    assert rows(db, "RETURN trim(BOTH 'x' FROM 'xxhixx') AS b, trim(LEADING 'x' FROM 'xxhixx') AS l, "
                    "trim(TRAILING 'x' FROM 'xxhixx') AS t, trim('x' FROM 'xhix') AS d, "
                    "trim(BOTH FROM '  hi  ') AS w, trim('  hi ') AS f") == [("hi", "hixx", "xxhi", "hi", "hi", "hi")]
    assert rows(db, "RETURN trim(BOTH null FROM 'x') AS a, trim(LEADING 'x' FROM null) AS b") == [(None, None)]
    with pytest.raises(ArgumentError, match="single character"):
        rows(db, "RETURN trim(BOTH 'xy' FROM 'xyhixy')")
    decomposed = "e\u0301"
    assert rows(db, "RETURN $s IS NORMALIZED AS nfc, $s IS NFD NORMALIZED AS nfd, $s IS NOT NORMALIZED AS other, "
                    "normalize($s) = '\u00e9' AS composed, normalize($s, NFKC) IS NFKC NORMALIZED AS kc, "
                    "null IS NORMALIZED AS n", {"s": decomposed}) == [(False, True, True, True, True, None)]
    with pytest.raises(CypherSyntaxError, match="normal form"):
        rows(db, "RETURN 'a' IS NFX NORMALIZED")


def test_dynamic_labels_in_match_and_where(people):
    assert rows(people, "MATCH (n:$($label)) RETURN n.name ORDER BY n.name", {"label": "Person"}) == \
        [("Ann",), ("Bob",)]
    assert rows(people, "MATCH (n:$any(['Robot', 'Movie'])) RETURN coalesce(n.name, n.title) AS x ORDER BY x") == \
        [("R2",), ("X",)]
    assert rows(people, "MATCH (n:$all(['Person', 'Robot'])) RETURN count(n)") == [(0,)]
    assert rows(people, "MATCH (n:Person&$('Person')) RETURN count(n)") == [(2,)]
    assert rows(people, "UNWIND ['Person', 'Robot'] AS l MATCH (n:$(l)) RETURN l, count(n) ORDER BY l") == \
        [("Person", 2), ("Robot", 1)]
    assert rows(people, "MATCH (n) WHERE n:$any($ls) RETURN count(n)", {"ls": ["Movie", "Robot"]}) == [(2,)]
    with pytest.raises(CypherTypeError, match="dynamic label"):
        rows(people, "MATCH (n:$(1)) RETURN n")
    with pytest.raises(CypherSyntaxError, match="not defined"):
        rows(people, "MATCH (n:$(nope)) RETURN n")


def test_dynamic_relationship_types(people):
    assert rows(people, "MATCH (a)-[r:$($t)]->(b) RETURN a.name, b.name ORDER BY b.name", {"t": "KNOWS"}) == \
        [("Ann", "Bob"), ("Ann", "R2")]
    assert rows(people, "MATCH ()-[r:$any(['LIKES', 'NOPE'])]->(m) RETURN m.title") == [("X",)]
    assert rows(people, "MATCH (a {name: 'Ann'})-[:$('KNOWS')|LIKES*1..2]->(x) RETURN count(x)") == [(3,)]
    assert rows(people, "MATCH (a {name: 'Ann'})-[:$('KNOWS')*1..2]->(x) RETURN count(x)") == [(2,)]


def test_dynamic_labels_and_types_in_create_merge_set_remove(db):
    rows(db, "UNWIND [['Note', 'Idea'], ['Task']] AS ls CREATE (:$(ls) {n: size(ls)})")
    assert sorted(sorted(labels) for labels, in rows(db, "MATCH (n) RETURN labels(n)")) == [["Idea", "Note"], ["Task"]]
    summary = db.session().run("MATCH (a:Note), (b:Task) CREATE (a)-[r:$($t) {w: 1}]->(b)", {"t": "BLOCKS"})
    summary.fetch(10)
    assert summary.consume().counters["relationships_created"] == 1
    assert rows(db, "MATCH ()-[r]->() RETURN type(r)") == [("BLOCKS",)]
    assert rows(db, "MERGE (n:$('City') {name: 'Oslo'}) RETURN labels(n)") == [(["City"],)]
    assert rows(db, "MERGE (n:$('City') {name: 'Oslo'}) RETURN count(*)") == [(1,)]
    assert rows(db, "MATCH (n:City) RETURN count(n)") == [(1,)]
    rows(db, "MATCH (n:Note) REMOVE n:$(['Idea'])")
    assert rows(db, "MATCH (n:Note) RETURN labels(n)") == [(["Note"],)]
    with pytest.raises(CypherTypeError, match="exactly one type"):
        rows(db, "MATCH (a:Note), (b:Task) CREATE (a)-[:$(['A', 'B'])]->(b)")
    assert rows(db, "MATCH ()-[r]->() RETURN count(r)") == [(1,)]       # the failed statement left nothing
    with pytest.raises(CypherSyntaxError):
        rows(db, "CREATE (a)-[:$any(['A'])]->(b)")


@pytest.fixture
def chain(db):
    rows(db, "CREATE (a:S {n: 1})-[:NEXT {w: 1}]->(b:S {n: 2})-[:NEXT {w: 5}]->(c:S {n: 3})-[:NEXT {w: 2}]->(d:S {n: 4})")
    return db


def test_quantified_path_patterns_bind_group_variables(chain):
    assert rows(chain, "MATCH (x:S {n: 1}) ((a)-[r:NEXT]->(b)){1,3} (y) "
                       "RETURN y.n, [v IN a | v.n], [v IN b | v.n], size(r) ORDER BY y.n") == \
        [(2, [1], [2], 1), (3, [1, 2], [2, 3], 2), (4, [1, 2, 3], [2, 3, 4], 3)]
    assert rows(chain, "MATCH p = ((a:S)-[:NEXT]->(b:S)){2} RETURN [v IN nodes(p) | v.n] ORDER BY a[0].n") == \
        [([1, 2, 3],), ([2, 3, 4],)]
    assert rows(chain, "MATCH p = (x:S) ((a)-[:NEXT]->(b))+ (y:S {n: 4}) RETURN x.n, length(p) ORDER BY x.n") == \
        [(1, 3), (2, 2), (3, 1)]
    # zero iterations: the outer nodes are the same node
    assert rows(chain, "MATCH (x:S {n: 2}) ((a)-[:NEXT]->(b))* (y) RETURN y.n, size(a) ORDER BY y.n") == \
        [(2, 0), (3, 1), (4, 2)]


def test_quantified_path_predicates_apply_per_iteration(chain):
    assert rows(chain, "MATCH (x:S {n: 1}) ((a)-[r:NEXT]->(b) WHERE r.w < 3){1,3} (y) RETURN y.n") == [(2,)]
    assert rows(chain, "MATCH (x:S {n: 1}) ((a)-[:NEXT]->(b:S WHERE b.n <> 3)){1,3} (y) RETURN y.n") == [(2,)]
    assert rows(chain, "MATCH (x:S {n: 1}) (()-[:NEXT]->()-[:NEXT]->()){1,2} (y) RETURN y.n") == [(3,)]
    assert rows(chain, "MATCH (x:S {n: 1}) ((a)<-[:NEXT]-(b)){1,2} (y) RETURN y.n") == []
    # planned from the right-hand node: the groups still read left to right
    assert rows(chain, "MATCH (y:S {n: 4}) MATCH (x:S) ((a)-[:NEXT]->(b)){2} (y) RETURN x.n, [v IN a | v.n]") == \
        [(2, [2, 3])]
    # a relationship is never walked twice in one MATCH
    assert rows(chain, "MATCH (s:S {n: 1})-[r0]->(t) MATCH (u:S {n: 1})-[r1]->(v) ((a)-[r]->(b)){1,3} (w) "
                       "RETURN count(*)") == [(2,)]


def test_quantified_path_pattern_errors(chain):
    with pytest.raises(CypherSyntaxError, match="not allowed in CREATE"):
        rows(chain, "CREATE ((a)-[:R]->(b)){2}")
    with pytest.raises(CypherSyntaxError, match="already declared outside"):
        rows(chain, "MATCH (x) ((x)-->(b)){2} RETURN x")
    with pytest.raises(CypherSyntaxError, match="Variable-length"):
        rows(chain, "MATCH (x) ((a)-[*]->(b)){2} RETURN x")
    with pytest.raises(CypherSyntaxError, match="at least one relationship"):
        rows(chain, "MATCH ((a)){2} RETURN a")
    with pytest.raises(CypherSyntaxError, match="joined by a relationship"):
        rows(chain, "MATCH (a) (b) RETURN a")
    with pytest.raises(CypherSyntaxError, match="lower bound cannot be 0"):
        rows(chain, "MATCH ((x)-[:NEXT]->(y)){0,3} RETURN x")
    # inside, a quantified path reads its own variables and earlier clauses', not the same MATCH's
    with pytest.raises(CypherSyntaxError, match="cannot read `a`"):
        rows(chain, "MATCH (a) ((x)-[:NEXT]->(y) WHERE y.n > a.n)+ (b:S {n: 4}) RETURN b")
    assert rows(chain, "MATCH (a:S {n: 2}) MATCH (a) ((x)-[:NEXT]->(y) WHERE y.n > a.n)+ (b:S {n: 4}) "
                       "RETURN size(x)") == [(2,)]


def test_shortest_k_paths_and_groups(db):
    rows(db, "CREATE (a:N {n: 'a'})-[:R]->(b:N)-[:R]->(d:N {n: 'd'}), (a)-[:R]->(c:N)-[:R]->(d), "
             "(a)-[:R]->(e:N)-[:R]->(f:N)-[:R]->(d), (a)-[:R]->(d)")
    lengths = "(a:N {n: 'a'})-[:R]->+(d:N {n: 'd'}) RETURN length(p) AS l ORDER BY l"
    assert rows(db, "MATCH p = SHORTEST 1 " + lengths) == [(1,)]
    assert rows(db, "MATCH p = SHORTEST 3 " + lengths) == [(1,), (2,), (2,)]
    assert rows(db, "MATCH p = SHORTEST 9 " + lengths) == [(1,), (2,), (2,), (3,)]
    assert rows(db, "MATCH p = SHORTEST 2 GROUPS " + lengths) == [(1,), (2,), (2,)]
    # the MATCH's WHERE filters the paths picked (Neo4j's post-filter); inside the pattern it filters first
    assert rows(db, "MATCH p = SHORTEST 2 (a:N {n: 'a'})-[:R]->+(d:N {n: 'd'}) WHERE length(p) > 1 "
                    "RETURN length(p)") == [(2,)]
    assert rows(db, "MATCH SHORTEST 2 (p = (a:N {n: 'a'})-[:R]->+(d:N {n: 'd'}) WHERE length(p) > 1) "
                    "RETURN length(p)") == [(2,), (2,)]
    with pytest.raises(CypherSyntaxError, match="at least 1"):
        rows(db, "MATCH p = SHORTEST 0 " + lengths)


def test_simple_quantified_paths_work_with_path_selectors_and_subqueries(chain):
    assert rows(chain, "MATCH p = SHORTEST 1 (x:S {n: 1}) (()-[:NEXT]->())+ (y:S {n: 4}) RETURN length(p)") == [(3,)]
    assert rows(chain, "MATCH p = ANY SHORTEST (x:S {n: 4}) (()<-[r:NEXT]-()){1,5} (y:S {n: 2}) "
                       "RETURN size(r)") == [(2,)]
    assert rows(chain, "MATCH (x:S) WHERE EXISTS { (x) ((a)-[:NEXT]->(b:S WHERE b.n = 4)){1,2} (:S) } "
                       "RETURN x.n ORDER BY x.n") == [(3,)]
    assert rows(chain, "MATCH (x:S) RETURN x.n, COUNT { (x) ((a)-[:NEXT]->(b)){1,3} (y) } AS reach ORDER BY x.n") == \
        [(1, 3), (2, 2), (3, 1), (4, 0)]


def test_use_names_the_one_database(db):
    from relate.errors import ClientError
    assert rows(db, "USE neo4j RETURN 1 AS x") == [(1,)]
    assert rows(db, "RETURN 1 AS x UNION USE NEO4J RETURN 2 AS x") == [(1,), (2,)]
    assert rows(db, "CALL { USE neo4j RETURN 3 AS y } RETURN y") == [(3,)]
    assert rows(db, "WITH 1 AS use RETURN use") == [(1,)]
    with pytest.raises(ClientError) as failure:
        rows(db, "USE movies MATCH (n) RETURN n")
    assert failure.value.code == "Neo.ClientError.Database.DatabaseNotFound"


def test_next_feeds_one_query_into_the_next(db):
    rows(db, "UNWIND range(1, 4) AS i CREATE (:N {i: i})")
    assert rows(db, "RETURN 1 AS x NEXT RETURN x + 1 AS y") == [(2,)]
    assert rows(db, "MATCH (n:N) RETURN n.i AS i NEXT MATCH (m:N) WHERE m.i = i + 1 RETURN i, m.i AS j ORDER BY i") == \
        [(1, 2), (2, 3), (3, 4)]
    assert rows(db, "MATCH (n:N) RETURN n NEXT RETURN count(n) AS c NEXT RETURN c * 10 AS d") == [(40,)]
    assert rows(db, "RETURN 1 AS x UNION RETURN 2 AS x NEXT RETURN sum(x) AS s") == [(3,)]
    assert rows(db, "CALL { RETURN 5 AS v NEXT RETURN v * 2 AS w } RETURN w") == [(10,)]
    assert rows(db, "WITH 1 AS next RETURN next") == [(1,)]
    with pytest.raises(CypherSyntaxError, match="must end with RETURN"):
        rows(db, "MATCH (n:N) SET n.k = 1 NEXT RETURN 1 AS x")
    with pytest.raises(CypherSyntaxError, match="once per UNION part"):
        rows(db, "CREATE (z:Z) RETURN z NEXT RETURN 1 AS a UNION RETURN 2 AS a")
    assert rows(db, "MATCH (z:Z) RETURN count(z)") == [(0,)]


def test_when_runs_the_first_true_branch(db):
    assert rows(db, "WHEN true THEN RETURN 1 AS x ELSE RETURN 2 AS x") == [(1,)]
    assert rows(db, "WHEN null THEN RETURN 1 AS x WHEN 1 = 1 THEN RETURN 3 AS x ELSE RETURN 2 AS x") == [(3,)]
    assert rows(db, "WHEN false THEN RETURN 1 AS x") == []
    assert rows(db, "WHEN $p > 1 THEN UNWIND range(1, $p) AS i RETURN i WHEN $p = 1 THEN RETURN 100 AS i",
                {"p": 1}) == [(100,)]
    rows(db, "WHEN $go THEN CREATE (:W) ELSE CREATE (:Q)", {"go": False})
    assert rows(db, "MATCH (n) RETURN labels(n)") == [(["Q"],)]
    assert sorted(rows(db, "UNWIND [1, 5] AS v RETURN v NEXT WHEN v > 2 THEN RETURN v, 'big' AS s "
                           "ELSE RETURN v, 'small' AS s")) == [(1, "small"), (5, "big")]
    with pytest.raises(CypherSyntaxError, match="same return column names"):
        rows(db, "WHEN true THEN RETURN 1 AS x ELSE RETURN 2 AS y")


def test_shortest_over_quantified_path_patterns(db):
    rows(db, "CREATE (a:St {n: 'a'})-[:L {d: 1}]->(b:St {n: 'b'})-[:L {d: 9}]->(d:St {n: 'd'}), "
             "(a)-[:L {d: 2}]->(c:St {n: 'c'})-[:L {d: 2}]->(e:St {n: 'e'})-[:L {d: 1}]->(d)")
    ends = "(a:St {n: 'a'}) ((x)-[r:L]->(y))+ (d:St {n: 'd'})"
    assert rows(db, "MATCH p = SHORTEST 1 (a:St {n: 'a'}) ((x)-[r:L WHERE r.d < 5]->(y))+ (d:St {n: 'd'}) "
                    "RETURN [v IN nodes(p) | v.n]") == [(["a", "c", "e", "d"],)]
    assert rows(db, f"MATCH p = SHORTEST 1 {ends} RETURN [v IN nodes(p) | v.n], [v IN x | v.n]") == \
        [(["a", "b", "d"], ["a", "b"])]
    assert rows(db, f"MATCH p = SHORTEST 2 {ends} RETURN length(p) ORDER BY length(p)") == [(2,), (3,)]
    assert rows(db, f"MATCH p = SHORTEST 2 GROUPS {ends} RETURN length(p) ORDER BY length(p)") == [(2,), (3,)]
    assert rows(db, f"MATCH p = ALL SHORTEST {ends} RETURN length(p)") == [(2,)]
    # as in Neo4j, the MATCH's WHERE filters the paths picked; a WHERE inside the pattern (or its
    # parentheses) filters the paths the selector picks from
    assert rows(db, f"MATCH p = SHORTEST 1 {ends} WHERE length(p) > 2 RETURN length(p)") == []
    assert rows(db, f"MATCH SHORTEST 1 (p = {ends} WHERE length(p) > 2) RETURN length(p)") == [(3,)]
    assert rows(db, f"MATCH p = SHORTEST 1 ({ends} WHERE length(p) > 2) RETURN length(p)") == [(3,)]
    assert rows(db, f"MATCH p = SHORTEST 1 {ends} WHERE all(v IN r WHERE v.d > 1) RETURN p") == []
    assert rows(db, f"MATCH p = SHORTEST 1 ({ends} WHERE all(v IN r WHERE v.d < 5)) RETURN length(p)") == [(3,)]
    # any path pattern takes a selector: here a fixed hop before a quantified one
    assert rows(db, "MATCH p = SHORTEST 1 (a:St {n: 'a'})-[:L]->(b) ((x)-[:L]->(y))+ (d:St {n: 'd'}) "
                    "RETURN length(p)") == [(2,)]
    assert rows(db, "MATCH p = SHORTEST 1 (a:St {n: 'a'})-[:L]->(m:St WHERE m.n <> 'b')-[:L]->+(d:St {n: 'd'}) "
                    "RETURN [v IN nodes(p) | v.n]") == [(["a", "c", "e", "d"],)]
