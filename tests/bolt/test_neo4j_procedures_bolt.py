"""Neo4j 5 built-in procedures over Bolt with the official driver: db.schema.visualization hands the driver
graph values (neo4j.graph.Node / Relationship), db.awaitIndex's error, created tokens, db.checkpoint."""
from __future__ import annotations

import pytest
from neo4j import exceptions
from neo4j.graph import Node, Relationship


def test_schema_visualization_returns_graph_types(driver):
    driver.execute_query("CREATE (:VizPerson {name: 'a'})-[:VIZ_KNOWS]->(:VizPerson), (:VizPerson)-[:VIZ_OWNS]->(:VizCar)")
    driver.execute_query("CREATE INDEX viz_name FOR (p:VizPerson) ON (p.name)")
    records = driver.execute_query("CALL db.schema.visualization()").records
    nodes, rels = records[0]["nodes"], records[0]["relationships"]
    assert nodes and all(isinstance(n, Node) for n in nodes)
    assert rels and all(isinstance(r, Relationship) for r in rels)
    by_name = {n["name"]: n for n in nodes}
    assert {"VizPerson", "VizCar"} <= set(by_name)
    assert set(by_name["VizPerson"].labels) == {"VizPerson"}
    assert by_name["VizPerson"]["indexes"] == ["range (name)"] and by_name["VizCar"]["constraints"] == []
    triples = {(r.start_node["name"], r.type, r.end_node["name"]) for r in rels}
    assert {("VizPerson", "VIZ_KNOWS", "VizPerson"), ("VizPerson", "VIZ_OWNS", "VizCar")} <= triples
    assert len({n.element_id for n in nodes}) == len(nodes)                 # distinct entities
    labels = driver.execute_query("CALL db.schema.visualization() YIELD nodes "
                                  "RETURN [n IN nodes | labels(n)] AS l").records[0]["l"]
    assert ["VizCar"] in labels and ["VizPerson"] in labels


def test_await_index_over_bolt(driver):
    driver.execute_query("CREATE INDEX await_comp FOR (p:AwaitPerson) ON (p.name, p.age)")
    assert driver.execute_query("CALL db.awaitIndex('await_comp', 300)").records == []
    with pytest.raises(exceptions.ClientError) as failure:
        driver.execute_query("CALL db.awaitIndex('no_such_index')")
    assert failure.value.code == "Neo.ClientError.Schema.IndexNotFound"
    assert "No such index 'no_such_index'" in failure.value.message


@pytest.mark.filterwarnings("ignore::DeprecationWarning")      # the driver prefers gql_status_objects
def test_created_tokens_over_bolt(driver):
    def codes(text):
        summary = driver.execute_query(text).summary
        return [n.code for n in summary.summary_notifications]

    assert codes("MATCH (n:MadeLabel) RETURN n") == ["Neo.ClientNotification.Statement.UnknownLabelWarning"]
    driver.execute_query("CALL db.createLabel('MadeLabel')")
    driver.execute_query("CALL db.createRelationshipType('MADE_TYPE')")
    driver.execute_query("CALL db.createProperty('madeKey')")
    assert codes("MATCH (n:MadeLabel)-[:MADE_TYPE]->() WHERE n.madeKey = 1 RETURN n") == []


def test_checkpoint_over_bolt(driver):
    record = driver.execute_query("CALL db.checkpoint()").records[0]
    assert record["success"] is True and isinstance(record["message"], str)
