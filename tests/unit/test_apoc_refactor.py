"""apoc.refactor.mergeNodes (graphrag's entity resolution), apoc.create.addLabels / node / relationship."""
from __future__ import annotations

import pytest

from relate.errors import ArgumentError
from tests.helpers import rows

DUPLICATES = ("CREATE (a:Person {name: 'Ada', born: 1815, tag: 'x'})-[:WROTE {y: 1}]->(n:Note {t: 'G'}), "
              "(b:Person:Author {name: 'Ada', city: 'London', tag: 'y'})-[:WROTE {y: 2}]->(n), "
              "(b)-[:KNOWS]->(c:Person {name: 'Charles'}), (c)-[:KNOWS]->(a), (a)-[:SAME]->(b)")
MERGE = ("MATCH (p:Person {name: 'Ada'}) WITH p ORDER BY p.born IS NULL WITH collect(p) AS ps "
         "CALL apoc.refactor.mergeNodes(ps, $config) YIELD node RETURN node.name")


def people(db):
    return rows(db, "MATCH (p:Person) RETURN p.name, properties(p), labels(p) ORDER BY p.name")


@pytest.mark.parametrize("policy, tag", [("discard", "x"), ("overwrite", "y"), ("combine", ["x", "y"])])
def test_merge_nodes_keeps_one_node_with_every_label_and_property(db, policy, tag):
    rows(db, DUPLICATES)
    summary = db.session().run(MERGE, {"config": {"properties": policy}}).consume()
    assert summary.counters.nodes_deleted == 1
    (ada, charles) = people(db)
    assert ada[1] == {"name": "Ada", "born": 1815, "city": "London", "tag": tag}
    assert set(ada[2]) == {"Person", "Author"} and charles[0] == "Charles"


def test_merge_nodes_moves_relationships_and_folds_parallel_ones_with_merge_rels(db):
    rows(db, DUPLICATES)
    rows(db, MERGE, {"config": {"properties": "discard", "mergeRels": True}})
    assert rows(db, "MATCH (a)-[r]->(b) RETURN a.name, type(r), properties(r), coalesce(b.name, b.t) "
                    "ORDER BY type(r), a.name") == [
        ("Ada", "KNOWS", {}, "Charles"), ("Charles", "KNOWS", {}, "Ada"), ("Ada", "SAME", {}, "Ada"),
        ("Ada", "WROTE", {"y": 1}, "G")]


def test_without_merge_rels_parallel_relationships_stay(db):
    rows(db, DUPLICATES)
    rows(db, MERGE, {"config": {}})
    assert rows(db, "MATCH (:Person {name: 'Ada'})-[r:WROTE]->() RETURN count(r)") == [(2,)]


def test_merge_nodes_edge_cases(db):
    rows(db, "CREATE (:X {v: 1})")
    assert rows(db, "MATCH (x:X) CALL apoc.refactor.mergeNodes([x, x, null], {}) YIELD node RETURN node.v") == [(1,)]
    assert rows(db, "CALL apoc.refactor.mergeNodes([], {}) YIELD node RETURN node") == []
    with pytest.raises(ArgumentError):
        rows(db, "MATCH (x:X) CALL apoc.refactor.mergeNodes([x], {properties: 'whatever'}) YIELD node RETURN node")


def test_create_procedures_take_labels_and_types_as_strings(db):
    assert rows(db, "CALL apoc.create.node(['Thing', 'Gadget'], {name: 'engine'}) YIELD node "
                    "CALL apoc.create.addLabels(node, ['Machine']) YIELD node AS same "
                    "CALL apoc.create.relationship(same, 'PART_OF', {n: 1}, same) YIELD rel "
                    "RETURN labels(same), type(rel), rel.n") == [(["Thing", "Gadget", "Machine"], "PART_OF", 1)]


def test_meta_graph_any_property_and_distinct_values(db):
    rows(db, "CREATE (:P {k: 1})-[:R]->(:Q), (:P {k: 1})-[:R]->(:Q), (:P {k: 2})-[:S]->(:P)")
    ((nodes, relationships),) = rows(db, "CALL apoc.meta.graph({sample: 1000, maxRels: 100}) "
                                         "YIELD nodes, relationships RETURN nodes, relationships")
    assert nodes == [{"name": "P", "count": 4}, {"name": "Q", "count": 2}]
    assert relationships == [{"type": "R", "count": 2, "start": "P", "end": "Q"},
                             {"type": "S", "count": 1, "start": "P", "end": "P"}]
    assert rows(db, "CALL apoc.meta.graph() YIELD relationships "
                    "RETURN [r IN relationships | apoc.any.property(r, 'type')]") == [(["R", "S"],)]
    assert rows(db, "MATCH (p:P)-[r:S]->() RETURN apoc.any.property(p, 'k'), apoc.any.property(r, 'x')") == [(2, None)]
    assert rows(db, "CALL apoc.schema.properties.distinct('P', 'k') YIELD value RETURN value") == [([1, 2],)]
