"""GQL path selectors as Neo4j's Cypher manual shows them (its station graph, queries and answers):
SHORTEST k, ALL SHORTEST, SHORTEST k GROUPS, ANY, partitions per pair of ends, and where a filter sits
deciding whether it applies before the selector picks paths (inside the pattern) or after (the MATCH's
WHERE)."""
from __future__ import annotations

import pytest

import relate
from relate.errors import CypherSyntaxError

STATIONS = """
CREATE (asc:Station {name: "Ashchurch"}), (bmv:Station {name: "Bromsgrove"}),
  (cnm:Station {name: "Cheltenham Spa"}), (dtw:Station {name: "Droitwich Spa"}),
  (hby:Station {name: "Hartlebury"}), (psh:Station {name: "Pershore"}),
  (wop:Station {name: "Worcestershire Parkway Ll"}), (wof:Station {name: "Worcester Foregate Street"}),
  (wos:Station {name: "Worcester Shrub Hill"})
CREATE (asc)-[:LINK {distance: 7.25}]->(cnm), (asc)-[:LINK {distance: 11.29}]->(wop),
  (asc)-[:LINK {distance: 14.75}]->(wos), (bmv)-[:LINK {distance: 31.14}]->(cnm),
  (bmv)-[:LINK {distance: 6.16}]->(dtw), (bmv)-[:LINK {distance: 12.6}]->(wop),
  (dtw)-[:LINK {distance: 5.64}]->(hby), (dtw)-[:LINK {distance: 6.03}]->(wof),
  (dtw)-[:LINK {distance: 5.76}]->(wos), (psh)-[:LINK {distance: 4.16}]->(wop),
  (wop)-[:LINK {distance: 3.71}]->(wos), (wof)-[:LINK {distance: 0.65}]->(wos)
"""
WOS_BMV = "(wos:Station)-[:LINK]-+(bmv:Station) WHERE wos.name = 'Worcester Shrub Hill' AND bmv.name = 'Bromsgrove'"
HBY, CNM = "(:Station {name: 'Hartlebury'})", "(:Station {name: 'Cheltenham Spa'})"


@pytest.fixture(scope="module")
def db():
    conn = relate.connect(":memory:")
    conn.execute(STATIONS)
    yield conn
    conn.close()


def rows(db, statement):
    return [tuple(row) for row in db.execute(statement)]


def test_shortest_k_all_shortest_and_groups(db):
    assert rows(db, f"MATCH p = SHORTEST 1 {WOS_BMV} RETURN length(p) AS result") == [(2,)]
    assert sorted(rows(db, f"MATCH p = SHORTEST 2 {WOS_BMV} RETURN [n IN nodes(p) | n.name] AS stops")) == [
        (["Worcester Shrub Hill", "Droitwich Spa", "Bromsgrove"],),
        (["Worcester Shrub Hill", "Worcestershire Parkway Ll", "Bromsgrove"],)]
    assert rows(db, f"MATCH p = SHORTEST 5 {WOS_BMV} RETURN length(p) AS l ORDER BY l") == [
        (2,), (2,), (3,), (3,), (3,)]
    assert rows(db, f"MATCH p = ALL SHORTEST {WOS_BMV} RETURN length(p)") == [(2,), (2,)]
    assert rows(db, f"MATCH p = SHORTEST 2 GROUPS {WOS_BMV} RETURN length(p) AS l ORDER BY l") == [
        (2,), (2,), (3,), (3,), (3,)]
    assert rows(db, f"MATCH p = SHORTEST 8 GROUPS {WOS_BMV} RETURN length(p) AS pathLength, count(*) AS numPaths "
                    "ORDER BY pathLength") == [(2, 2), (3, 3), (4, 1), (5, 4), (6, 8), (7, 10), (8, 6)]


def test_any_with_a_filter_on_each_relationship_of_a_quantified_relationship(db):
    assert rows(db, "MATCH path = ANY (:Station {name: 'Pershore'})-[l:LINK WHERE l.distance < 10]-+"
                    "(b:Station {name: 'Bromsgrove'}) RETURN [r IN relationships(path) | r.distance] AS d") == [
        ([4.16, 3.71, 5.76, 6.16],)]
    # after the pattern the variable is the list of relationships walked
    assert rows(db, "MATCH (:Station {name: 'Pershore'})-[l:LINK WHERE l.distance < 10]-{4}"
                    "(:Station {name: 'Bromsgrove'}) RETURN size(l), l[0].distance") == [(4, 4.16)]


def test_paths_are_picked_per_pair_of_ends(db):
    assert rows(db, """UNWIND ["Droitwich Spa", "Hartlebury"] AS a
                       UNWIND ["Ashchurch", "Cheltenham Spa"] AS b
                       MATCH SHORTEST 2 GROUPS (o:Station {name: a})-[l]-+(d:Station {name: b})
                       RETURN o.name AS start, d.name AS end, size(l) AS pathLength, count(*) AS numPaths
                       ORDER BY start, end, pathLength""") == [
        ("Droitwich Spa", "Ashchurch", 2, 1), ("Droitwich Spa", "Ashchurch", 3, 4),
        ("Droitwich Spa", "Cheltenham Spa", 2, 1), ("Droitwich Spa", "Cheltenham Spa", 3, 1),
        ("Hartlebury", "Ashchurch", 3, 1), ("Hartlebury", "Ashchurch", 4, 4),
        ("Hartlebury", "Cheltenham Spa", 3, 1), ("Hartlebury", "Cheltenham Spa", 4, 1)]


def test_a_match_where_filters_after_the_selector_and_a_pattern_where_before(db):
    stops = "RETURN [stop IN n[..-1] | stop.name] AS stops"
    assert rows(db, f"MATCH SHORTEST 1 {HBY} (()--(n))+ {CNM} {stops}") == [(["Droitwich Spa", "Bromsgrove"],)]
    avoid = "none(stop IN n[..-1] WHERE stop.name = 'Bromsgrove')"
    assert rows(db, f"MATCH SHORTEST 1 {HBY} (()--(n:Station))+ {CNM} WHERE {avoid} {stops}") == []
    detour = [(["Droitwich Spa", "Worcester Shrub Hill", "Ashchurch"],)]
    assert rows(db, f"MATCH SHORTEST 1 {HBY} (()--(n:Station WHERE n.name <> 'Bromsgrove'))+ {CNM} {stops}") == detour
    assert rows(db, f"MATCH SHORTEST 1 ({HBY} (()--(n:Station))+ {CNM} WHERE {avoid}) {stops}") == detour


def test_a_path_variable_inside_the_parentheses_can_be_filtered_before_the_selector(db):
    by_length = "RETURN b.name AS destination, length(p) AS pathLength ORDER BY pathLength, destination"
    assert rows(db, f"MATCH p = SHORTEST 1 {HBY}--+(b:Station) {by_length}") == [
        ("Droitwich Spa", 1), ("Bromsgrove", 2), ("Worcester Foregate Street", 2), ("Worcester Shrub Hill", 2),
        ("Ashchurch", 3), ("Cheltenham Spa", 3), ("Worcestershire Parkway Ll", 3), ("Pershore", 4)]
    assert rows(db, f"MATCH p = SHORTEST 1 {HBY}--+(b:Station) WHERE length(p) % 2 = 0 {by_length}") == [
        ("Bromsgrove", 2), ("Worcester Foregate Street", 2), ("Worcester Shrub Hill", 2), ("Pershore", 4)]
    assert rows(db, f"MATCH SHORTEST 1 (p = {HBY}--+(b:Station) WHERE length(p) % 2 = 0) {by_length}") == [
        ("Bromsgrove", 2), ("Worcester Foregate Street", 2), ("Worcester Shrub Hill", 2), ("Ashchurch", 4),
        ("Cheltenham Spa", 4), ("Droitwich Spa", 4), ("Pershore", 4), ("Worcestershire Parkway Ll", 4)]


def test_a_selector_takes_any_path_pattern(db):
    # a fixed hop, then a quantified relationship; two quantified parts around a node
    assert rows(db, f"MATCH p = SHORTEST 1 {HBY}-[:LINK]-(m)-[:LINK]-+{CNM} RETURN length(p)") == [(3,)]
    assert rows(db, f"MATCH p = SHORTEST 1 {HBY} (()--())+ (:Station {{name: 'Worcester Shrub Hill'}}) "
                    f"(()--())+ {CNM} RETURN [n IN nodes(p) | n.name]") == [
        (["Hartlebury", "Droitwich Spa", "Worcester Shrub Hill", "Ashchurch", "Cheltenham Spa"],)]


def test_a_parenthesized_whole_pattern_outside_selectors(db):
    assert rows(db, "MATCH ((a:Station)-[l:LINK]->(b) WHERE l.distance < 1) RETURN a.name, b.name") == [
        ("Worcester Foregate Street", "Worcester Shrub Hill")]
    assert rows(db, "MATCH (p = (a:Station)-[l:LINK]->(b) WHERE l.distance > 30) RETURN length(p), a.name") == [
        (1, "Bromsgrove")]


@pytest.mark.parametrize("statement, message", [
    ("MATCH p = (q = (a)-->(b)) RETURN p", "names its path once"),
    ("MATCH (a) (p = (x)-->(y))+ (b) RETURN a", "whole path pattern"),
    ("CREATE ((a:S)-[:LINK]->(b) WHERE a.x = 1)", "not allowed in CREATE"),
    ("MERGE ((a:S)-[:LINK]->(b) WHERE a.x = 1)", "not allowed in MERGE"),
])
def test_misplaced_path_filters_and_names_are_syntax_errors(db, statement, message):
    with pytest.raises(CypherSyntaxError, match=message):
        rows(db, statement)
