"""apoc.path.expand / expandConfig / subgraphNodes / subgraphAll / spanningTree: the filter mini-languages,
levels, uniqueness, limits and node-list options, on a small graph with a KNOWS cycle a -> b -> c -> a."""
from __future__ import annotations

import pytest

from relate.errors import ArgumentError
from tests.helpers import rows

GRAPH = ("CREATE (a:Person {name: 'a'})-[:KNOWS]->(b:Person {name: 'b'})-[:KNOWS]->(c:Person {name: 'c'}), "
         "(c)-[:KNOWS]->(a), (a)-[:LIKES]->(m:Movie {name: 'm'})-[:IN]->(g:Genre {name: 'g'}), "
         "(d:Person:Banned {name: 'd'})-[:KNOWS]->(a)")

NAMES = "[n IN nodes(path) | n.name]"


@pytest.fixture
def db(db):
    rows(db, GRAPH)
    return db


def expand(db, start: str, rel_filter, label_filter, min_level, max_level) -> list:
    return [r[0] for r in rows(db, f"MATCH (s {{name: $start}}) CALL apoc.path.expand(s, $rf, $lf, $min, $max) "
                                   f"YIELD path RETURN {NAMES}",
                               {"start": start, "rf": rel_filter, "lf": label_filter, "min": min_level,
                                "max": max_level})]


def config(db, start: str, cfg: dict) -> list:
    return [r[0] for r in rows(db, f"MATCH (s {{name: $start}}) CALL apoc.path.expandConfig(s, $cfg) "
                                   f"YIELD path RETURN {NAMES}", {"start": start, "cfg": cfg})]


def ends(paths: list) -> list:
    return sorted(p[-1] for p in paths)


@pytest.mark.parametrize("rel_filter, expected", [
    ("KNOWS>", ["b"]), ("<KNOWS", ["c", "d"]), ("KNOWS", ["b", "c", "d"]), (">", ["b", "m"]), ("<", ["c", "d"]),
    ("KNOWS>|LIKES>", ["b", "m"]), ("<KNOWS|LIKES", ["c", "d", "m"]), ("", ["b", "c", "d", "m"]),
    (None, ["b", "c", "d", "m"]), ("`KNOWS`>", ["b"]),
])
def test_relationship_filter_types_and_directions(db, rel_filter, expected):
    assert ends(expand(db, "a", rel_filter, None, 1, 1)) == expected


def test_relationship_filter_sequence_repeats(db):
    assert expand(db, "a", "LIKES>,IN>", None, 1, 5) == [["a", "m"], ["a", "m", "g"]]
    # into b from a, then out of a: only a -> b, which the path already used
    assert expand(db, "b", "<KNOWS,KNOWS>", None, 1, 2) == [["b", "a"]]
    assert ends(expand(db, "c", "KNOWS>,<KNOWS", None, 2, 2)) == ["d"]


@pytest.mark.parametrize("label_filter, expected", [
    ("-Banned", ["b", "c", "m"]),             # denylist
    ("+Person|-Banned", ["b", "c"]),          # the denylist beats the allowlist (d is a Person too)
    ("-Person:Banned", ["b", "c", "m"]),      # a compound label: both labels needed
    ("-Person:Movie", ["b", "c", "d", "m"]),
    ("+Person", ["b", "c", "d"]),
    ("Person", ["b", "c", "d"]),              # a bare label is an allowlist entry
    ("+Movie", ["m"]),
    ("+*", ["b", "c", "d", "m"]),
])
def test_label_filter_allow_and_deny(db, label_filter, expected):
    assert ends(expand(db, "a", "", label_filter, 1, 1)) == expected


def test_allowlist_prunes_the_traversal(db):
    # Movie is not allowlisted: its Genre behind it is never reached
    assert ends(expand(db, "a", ">", "+Person|Genre", 1, 3)) == ["a", "b", "c"]
    assert ends(expand(db, "a", ">", "+Person|Movie|Genre", 1, 3)) == ["a", "b", "c", "g", "m"]


def test_termination_stops_and_end_node_continues(db):
    assert expand(db, "d", ">", "/Person", 1, -1) == [["d", "a"]]
    assert expand(db, "d", ">", ">Person", 1, -1) == [["d", "a"], ["d", "a", "b"], ["d", "a", "b", "c"],
                                                       ["d", "a", "b", "c", "a"]]
    # termination over end node; both returned only where they match
    assert expand(db, "a", ">", "/Movie|>Person", 1, -1) == [["a", "b"], ["a", "m"], ["a", "b", "c"],
                                                             ["a", "b", "c", "a"], ["a", "b", "c", "a", "m"]]
    # the denylist beats termination
    assert expand(db, "d", ">", "/Person|-Banned", 1, -1) == [["d", "a"]]
    assert expand(db, "a", "<", "/Banned|-Banned", 1, -1) == []


def test_termination_below_min_level_is_passed_through(db):
    assert expand(db, "a", "KNOWS>", "/Person", 2, -1) == [["a", "b", "c"]]


def test_min_level_zero_includes_the_start_node(db):
    assert expand(db, "a", "LIKES>", None, 0, 1) == [["a"], ["a", "m"]]
    assert expand(db, "a", "LIKES>", None, 1, 1) == [["a", "m"]]
    assert config(db, "a", {"relationshipFilter": "LIKES>"}) == [["a"], ["a", "m"]]      # no minLevel: 0 too
    # with an end-node filter the unfiltered start node is not an end node
    assert config(db, "a", {"relationshipFilter": "LIKES>", "labelFilter": ">Movie"}) == [["a", "m"]]


def test_max_level_unlimited_and_limit(db):
    cfg = {"relationshipFilter": "KNOWS>", "minLevel": 1, "maxLevel": -1}
    assert config(db, "a", cfg) == [["a", "b"], ["a", "b", "c"], ["a", "b", "c", "a"]]
    assert config(db, "a", {**cfg, "limit": 2}) == [["a", "b"], ["a", "b", "c"]]
    assert config(db, "a", {**cfg, "limit": 0}) == []
    assert config(db, "a", {**cfg, "maxLevel": 2}) == [["a", "b"], ["a", "b", "c"]]


@pytest.mark.parametrize("uniqueness, directed, both", [
    ("RELATIONSHIP_PATH", 3, 9), ("NODE_PATH", 2, 5), ("NODE_GLOBAL", 2, 3), ("RELATIONSHIP_GLOBAL", 3, 4),
    ("node_path", 2, 5),
])
def test_uniqueness_modes_on_a_cycle(db, uniqueness, directed, both):
    assert len(config(db, "a", {"relationshipFilter": "KNOWS>", "minLevel": 1, "uniqueness": uniqueness})) == directed
    assert len(config(db, "a", {"relationshipFilter": "KNOWS", "minLevel": 1, "uniqueness": uniqueness})) == both


def test_uniqueness_none_is_bounded_by_max_level(db):
    paths = config(db, "a", {"relationshipFilter": "KNOWS>", "minLevel": 1, "maxLevel": 4, "uniqueness": "NONE"})
    assert paths == [["a", "b"], ["a", "b", "c"], ["a", "b", "c", "a"], ["a", "b", "c", "a", "b"]]
    assert len(config(db, "a", {"relationshipFilter": "KNOWS", "minLevel": 1, "maxLevel": 2,
                                "uniqueness": "NONE"})) == 8


def test_depth_first_finds_the_same_paths_in_another_order(db):
    cfg = {"relationshipFilter": "KNOWS", "minLevel": 1}
    bfs, dfs = config(db, "a", cfg), config(db, "a", {**cfg, "bfs": False})
    assert sorted(bfs) == sorted(dfs) and bfs != dfs
    assert [len(p) for p in bfs] == sorted(len(p) for p in bfs)


def test_filter_start_node(db):
    assert config(db, "d", {"relationshipFilter": "KNOWS>", "labelFilter": "-Banned", "maxLevel": 1,
                            "filterStartNode": True}) == []
    assert config(db, "d", {"relationshipFilter": "KNOWS>", "labelFilter": "-Banned", "maxLevel": 1}) == [
        ["d"], ["d", "a"]]


def test_node_list_options(db):
    base = "MATCH (a {name: 'a'}), (b {name: 'b'}), (c {name: 'c'}) CALL apoc.path.expandConfig(a, "
    tail = f") YIELD path RETURN {NAMES}"

    def run(option: str) -> list:
        return [r[0] for r in rows(db, base + "{relationshipFilter: 'KNOWS>', minLevel: 1, " + option + "}" + tail)]

    assert run("terminatorNodes: [c]") == [["a", "b", "c"]]
    assert run("endNodes: [b, a]") == [["a", "b"], ["a", "b", "c", "a"]]
    assert run("endNodes: [b], terminatorNodes: [b]") == [["a", "b"]]
    assert run("allowlistNodes: [b]") == [["a", "b"]]
    assert run("whitelistNodes: [b]") == [["a", "b"]]
    assert run("allowlistNodes: [b], terminatorNodes: [c]") == [["a", "b", "c"]]   # terminators are allowed
    assert run("denylistNodes: [c]") == [["a", "b"]]
    assert run("blacklistNodes: [b]") == []


def test_sequence_of_labels_and_relationships(db):
    cfg = {"sequence": "Person, LIKES>, Movie, IN>, Genre", "minLevel": 1}
    assert config(db, "a", cfg) == [["a", "m"], ["a", "m", "g"]]
    assert config(db, "a", {**cfg, "sequence": "Person, LIKES>, Person"}) == []
    assert config(db, "a", {**cfg, "filterStartNode": True, "sequence": "Movie, LIKES>, Movie"}) == []
    # beginSequenceAtStart false: the first relationship step reaches the sequence's first node
    assert config(db, "d", {"sequence": "KNOWS>, Person, LIKES>, Movie, KNOWS>", "minLevel": 1,
                            "beginSequenceAtStart": False}) == [["d", "a"], ["d", "a", "m"]]


def test_start_nodes_as_ids_element_ids_and_lists(db):
    (aid, bid) = rows(db, "MATCH (a {name: 'a'}), (b {name: 'b'}) RETURN id(a), id(b)")[0]
    for start in (aid, f"n:{aid}", [aid], [f"n:{aid}", None]):
        assert [r[0] for r in rows(db, f"CALL apoc.path.expand($s, 'LIKES>', null, 1, 1) YIELD path RETURN {NAMES}",
                                   {"s": start})] == [["a", "m"]]
    both = rows(db, f"CALL apoc.path.expand($s, 'LIKES>|KNOWS>', null, 1, 1) YIELD path RETURN {NAMES}",
                {"s": [aid, bid]})
    assert sorted(r[0] for r in both) == [["a", "b"], ["a", "m"], ["b", "c"]]
    assert rows(db, "CALL apoc.path.expand(null, '', '', 0, 1) YIELD path RETURN path") == []


def test_optional_yields_a_null_path(db):
    assert config(db, "g", {"relationshipFilter": "IN>", "minLevel": 1}) == []
    assert rows(db, "MATCH (g {name: 'g'}) CALL apoc.path.expandConfig(g, {relationshipFilter: 'IN>', minLevel: 1, "
                    "optional: true}) YIELD path RETURN path") == [(None,)]


def test_paths_are_real_paths(db):
    assert rows(db, "MATCH (a {name: 'a'}) CALL apoc.path.expand(a, 'LIKES>,IN>', '', 2, 2) YIELD path "
                    "RETURN length(path), [r IN relationships(path) | type(r)], startNode(last(relationships(path))).name") \
        == [(2, ["LIKES", "IN"], "m")]


def test_subgraph_nodes(db):
    def nodes(cfg: dict) -> list:
        return sorted(r[0] for r in rows(db, "MATCH (a {name: 'a'}) CALL apoc.path.subgraphNodes(a, $cfg) "
                                             "YIELD node RETURN node.name", {"cfg": cfg}))

    assert nodes({"relationshipFilter": "KNOWS>|LIKES>"}) == ["a", "b", "c", "m"]
    assert nodes({"relationshipFilter": "KNOWS>|LIKES>", "maxLevel": 1}) == ["a", "b", "m"]
    assert nodes({"relationshipFilter": "KNOWS>|LIKES>", "minLevel": 1}) == ["b", "c", "m"]
    assert nodes({}) == ["a", "b", "c", "d", "g", "m"]
    assert nodes({"labelFilter": "-Banned|-Movie"}) == ["a", "b", "c"]
    assert nodes({"labelFilter": "/Movie"}) == ["m"]
    limited = nodes({"limit": 2})
    assert len(limited) == 2 and "a" in limited
    with pytest.raises(ArgumentError, match="minLevel"):
        nodes({"minLevel": 2})


def test_subgraph_all_returns_the_relationships_between_its_nodes(db):
    def sub(cfg: dict) -> tuple:
        ((names, rels),) = rows(db, "MATCH (a {name: 'a'}) CALL apoc.path.subgraphAll(a, $cfg) "
                                    "YIELD nodes, relationships RETURN [n IN nodes | n.name], "
                                    "[r IN relationships | startNode(r).name + '-' + type(r) + '->' + endNode(r).name]",
                                {"cfg": cfg})
        return sorted(names), sorted(rels)

    assert sub({"relationshipFilter": "KNOWS>"}) == (["a", "b", "c"], ["a-KNOWS->b", "b-KNOWS->c", "c-KNOWS->a"])
    # one hop reaches b, c and d; b-KNOWS->c joins two of them though the traversal never walked it
    assert sub({"relationshipFilter": "KNOWS", "maxLevel": 1}) == (
        ["a", "b", "c", "d"], ["a-KNOWS->b", "b-KNOWS->c", "c-KNOWS->a", "d-KNOWS->a"])
    assert sub({"labelFilter": "-Banned"}) == (["a", "b", "c", "g", "m"],
                                               ["a-KNOWS->b", "a-LIKES->m", "b-KNOWS->c", "c-KNOWS->a", "m-IN->g"])
    # only the filter's types: LIKES joins a and m, but the filter names KNOWS and IN only
    assert sub({"relationshipFilter": "KNOWS>|IN", "maxLevel": 1})[1] == ["a-KNOWS->b"]


def test_spanning_tree_has_one_path_per_reached_node(db):
    paths = [r[0] for r in rows(db, f"MATCH (a {{name: 'a'}}) CALL apoc.path.spanningTree(a, {{}}) YIELD path "
                                    f"RETURN {NAMES}")]
    assert len(paths) == 6 and sorted(p[-1] for p in paths) == ["a", "b", "c", "d", "g", "m"]
    assert ["a", "m", "g"] in paths
    assert len(rows(db, "MATCH (a {name: 'a'}) CALL apoc.path.spanningTree(a, {minLevel: 1, "
                        "relationshipFilter: 'KNOWS'}) YIELD path RETURN path")) == 3


@pytest.mark.parametrize("cfg, message", [
    ({"relationshipFilter": "<KNOWS>"}, "two directions"),
    ({"relationshipFilter": "KNOWS>||LIKES"}, "empty alternative"),
    ({"labelFilter": "+"}, "without a label"),
    ({"labelFilter": "Person|"}, "empty alternative"),
    ({"uniqueness": "NODE_RECENT"}, "not supported"),
    ({"uniqueness": "SOMETIMES"}, "not a uniqueness"),
    ({"minLevel": "one"}, "minLevel must be an integer"),
    ({"maxLevel": -5}, "at least 0"),
    ({"bfs": "yes"}, "bfs must be a boolean"),
    ({"relationshipFilters": "KNOWS"}, "unknown config key"),
    ({"endNodes": ["x"]}, "element id"),
])
def test_bad_config_is_an_argument_error(db, cfg, message):
    with pytest.raises(ArgumentError, match=message):
        config(db, "a", cfg)


def test_bad_start_is_an_argument_error(db):
    with pytest.raises(ArgumentError):
        rows(db, "CALL apoc.path.expand(1.5, '', '', 0, 1) YIELD path RETURN path")


def test_procedures_are_listed_with_descriptions(db):
    listed = dict(rows(db, "SHOW PROCEDURES YIELD name, description WHERE name STARTS WITH 'apoc.path.' "
                           "RETURN name, description"))
    assert set(listed) == {"apoc.path.expand", "apoc.path.expandConfig", "apoc.path.subgraphNodes",
                           "apoc.path.subgraphAll", "apoc.path.spanningTree"}
    assert all(listed.values())
