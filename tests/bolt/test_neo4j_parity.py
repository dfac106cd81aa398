"""Behaviours Neo4j users rely on through the official driver, checked against a real relate-server."""
from __future__ import annotations

import neo4j
import pytest
from neo4j import exceptions

ACCESS_MODE = "Neo.ClientError.Statement.AccessMode"


def _access_mode_error(call) -> str:
    with pytest.raises(exceptions.ClientError) as caught:
        call()
    return caught.value.code


def test_writes_in_read_mode_are_refused(driver):
    """execute_read, routing_=READ and READ sessions may read but not write (Text2Cypher relies on it)."""
    read = neo4j.RoutingControl.READ
    assert _access_mode_error(lambda: driver.execute_query("CREATE (:ReadOnly)", routing_=read)) == ACCESS_MODE
    assert _access_mode_error(lambda: driver.execute_query("MATCH (n) DETACH DELETE n", routing_=read)) == ACCESS_MODE
    assert _access_mode_error(lambda: driver.execute_query(
        "CREATE INDEX read_only_idx FOR (n:ReadOnly) ON (n.x)", routing_=read)) == ACCESS_MODE
    assert _access_mode_error(lambda: driver.execute_query(
        "CALL db.index.vector.createNodeIndex('read_only_vec', 'ReadOnly', 'e', 3, 'cosine')",
        routing_=read)) == ACCESS_MODE
    with driver.session() as session:
        assert _access_mode_error(lambda: session.execute_read(
            lambda tx: tx.run("CREATE (:ReadOnly)").consume())) == ACCESS_MODE
    with driver.session(default_access_mode=neo4j.READ_ACCESS) as session:
        assert _access_mode_error(lambda: session.run("MERGE (:ReadOnly)").consume()) == ACCESS_MODE
    records, _, _ = driver.execute_query("MATCH (n:ReadOnly) RETURN count(n) AS c")
    assert records[0]["c"] == 0
    assert [i["name"] for i in driver.execute_query("SHOW INDEXES YIELD name", routing_=read).records
            if i["name"].startswith("read_only")] == []


def test_reads_still_run_in_read_mode(driver):
    """Reads, SHOW, EXPLAIN of a write and DBMS procedures are allowed; WRITE mode is unaffected after."""
    read = neo4j.RoutingControl.READ
    assert driver.execute_query("RETURN 1 AS x", routing_=read).records[0]["x"] == 1
    assert driver.execute_query("CALL dbms.components() YIELD name RETURN name", routing_=read).records
    assert driver.execute_query("SHOW USERS YIELD user RETURN user", routing_=read).records
    assert driver.execute_query("EXPLAIN CREATE (:Explained)", routing_=read).summary.plan is not None
    with driver.session(default_access_mode=neo4j.READ_ACCESS) as session:
        tx = session.begin_transaction()
        assert tx.run("RETURN 2 AS x").single()["x"] == 2
        with pytest.raises(exceptions.ClientError):
            tx.run("CREATE (:InReadTx)").consume()
        tx.close()
    summary = driver.execute_query("CREATE (:Written)").summary
    assert summary.counters.nodes_created == 1
    with driver.session() as session:
        assert session.execute_write(lambda tx: tx.run("CREATE (w:Written) RETURN 1 AS x").single()["x"]) == 1


def test_neo4j_utility_procedures(driver):
    """db.ping (health checks), tx.setMetaData inside a transaction, db.clearQueryCaches and
    db.index.fulltext.awaitEventuallyConsistentIndexRefresh, as Neo4j 5 answers them."""
    assert driver.execute_query("CALL db.ping()").records[0].data() == {"success": True}
    with driver.session() as session:
        tx = session.begin_transaction()
        tx.run("CALL tx.setMetaData({app: 'parity'})").consume()
        assert tx.run("RETURN 1 AS x").single()["x"] == 1
        tx.commit()
    driver.execute_query("RETURN 42 AS cached")
    cleared = driver.execute_query("CALL db.clearQueryCaches() YIELD value RETURN value").records[0]["value"]
    assert cleared.startswith("Query caches successfully cleared of ")
    driver.execute_query("CREATE FULLTEXT INDEX parity_text IF NOT EXISTS FOR (n:ParityDoc) ON EACH [n.text]")
    driver.execute_query("CREATE (:ParityDoc {text: 'eventually consistent'})")
    driver.execute_query("CALL db.index.fulltext.awaitEventuallyConsistentIndexRefresh()")
    records, _, _ = driver.execute_query(
        "CALL db.index.fulltext.queryNodes('parity_text', 'consistent') YIELD node RETURN node.text AS text")
    assert [r["text"] for r in records] == ["eventually consistent"]


def test_plans_carry_estimated_rows_and_the_root_arguments(driver):
    """Neo4j's plan args: EstimatedRows on every operator, planner/runtime/version on the root."""
    driver.execute_query("UNWIND range(1, 10) AS i CREATE (:Estimated {i: i})")
    plan = driver.execute_query("EXPLAIN MATCH (n:Estimated) RETURN n").summary.plan
    assert plan["args"]["version"] == "CYPHER 5" and plan["args"]["planner"] == "COST"
    assert "runtime" in plan["args"]

    def operators(node):
        yield node
        for child in node["children"]:
            yield from operators(child)
    estimates = {op["operatorType"]: op["args"]["EstimatedRows"] for op in operators(plan)}
    assert estimates["NodeByLabelScan"] == 10.0
    assert all(isinstance(rows, float) for rows in estimates.values())
    profile = driver.execute_query("PROFILE MATCH (n:Estimated) RETURN n").summary.profile
    assert profile["rows"] == 10 and "EstimatedRows" in profile["args"] and profile["args"]["version"] == "CYPHER 5"


def test_administration_on_the_system_database(driver):
    """Scripts send SHOW DATABASES and user administration to database="system"; graph statements
    there are refused as Neo4j refuses them."""
    records, _, _ = driver.execute_query("SHOW DATABASES YIELD name, currentStatus", database_="system")
    assert [r.data() for r in records] == [{"name": "neo4j", "currentStatus": "online"}]
    driver.execute_query("CREATE USER parity_user IF NOT EXISTS SET PASSWORD 'parity-password' CHANGE NOT REQUIRED",
                         database_="system")
    users = [r["user"] for r in driver.execute_query("SHOW USERS YIELD user", database_="system").records]
    assert "parity_user" in users
    assert driver.execute_query("CALL dbms.components() YIELD edition RETURN edition",
                                database_="system").records[0]["edition"] == "community"
    for statement in ("MATCH (n) RETURN count(n)", "CREATE (:OnSystem)", "CREATE INDEX on_system FOR (n:S) ON (n.x)"):
        with pytest.raises(exceptions.ClientError) as caught:
            driver.execute_query(statement, database_="system")
        assert caught.value.code == "Neo.ClientError.Statement.NotSystemDatabaseError"
    assert driver.execute_query("MATCH (n:OnSystem) RETURN count(n) AS c").records[0]["c"] == 0
    with driver.session(database="system") as session:
        assert session.execute_read(lambda tx: tx.run("SHOW DATABASES YIELD name").value()) == ["neo4j"]


def test_the_driver_sees_unknown_label_and_cartesian_notifications(driver):
    """What Neo4j Browser and the driver's summary show for a misspelt label and a cartesian product."""
    driver.execute_query("CREATE (:Noted {name: 'x'})")
    summary = driver.execute_query("MATCH (n:Notd) RETURN n").summary
    found = [s for s in summary.gql_status_objects if s.is_notification]
    assert [(s.classification.name, s.position.column) for s in found] == [("UNRECOGNIZED", 10)]   # the label
    assert "Notd" in found[0].status_description or "Notd" in str(found[0].diagnostic_record)
    summary = driver.execute_query("MATCH (a:Noted), (b:Noted) RETURN a, b").summary
    assert [s.classification.name for s in summary.gql_status_objects if s.is_notification] == ["PERFORMANCE"]


def test_notification_filters_of_the_driver_are_applied(bolt_url):
    """notifications_min_severity / notifications_disabled_classifications, set on the driver (HELLO),
    a session (BEGIN, RUN) or one query: what they leave out is not sent (logs stay quiet, as with Neo4j)."""
    from tests.bolt.conftest import AUTH
    unknown, cartesian = "MATCH (n:NeverThere) RETURN n", "MATCH (a:NeverThere), (b:NeverThere) RETURN a, b"

    def codes(run, statement):
        return sorted(s.classification.name for s in run(statement).gql_status_objects if s.is_notification)

    def query(driver):
        return lambda statement: driver.execute_query(statement).summary

    def in_session(runner):
        return lambda statement: runner.run(statement).consume()

    with neo4j.GraphDatabase.driver(bolt_url, auth=AUTH) as plain:
        assert codes(query(plain), cartesian) == ["PERFORMANCE", "UNRECOGNIZED"]
    with neo4j.GraphDatabase.driver(bolt_url, auth=AUTH, notifications_min_severity="OFF") as off:
        assert codes(query(off), unknown) == []
        with off.session(notifications_min_severity="WARNING") as session:     # a session overrides it
            assert codes(in_session(session), cartesian) == ["UNRECOGNIZED"]
            with session.begin_transaction() as tx:
                assert codes(in_session(tx), cartesian) == ["UNRECOGNIZED"]
    with neo4j.GraphDatabase.driver(bolt_url, auth=AUTH, notifications_disabled_classifications=[
            neo4j.NotificationDisabledClassification.UNRECOGNIZED]) as quiet:
        assert codes(query(quiet), cartesian) == ["PERFORMANCE"]
        with quiet.session(notifications_min_severity="OFF") as session:
            assert codes(in_session(session), cartesian) == []


def test_transaction_metadata_show_and_terminate_through_the_driver(driver):
    """The driver's transaction metadata shows in SHOW TRANSACTIONS; TERMINATE TRANSACTIONS ends it, and
    the transaction's next statement fails with the driver's terminated error."""
    with driver.session() as victim:
        tx = victim.begin_transaction(metadata={"app": "parity"})
        tx.run("RETURN 1").consume()
        records, _, _ = driver.execute_query("SHOW TRANSACTIONS YIELD transactionId, metaData "
                                             "WHERE metaData.app = 'parity' RETURN transactionId")
        assert len(records) == 1
        ended, _, _ = driver.execute_query("TERMINATE TRANSACTIONS $id", id=records[0]["transactionId"])
        assert ended[0]["message"] == "Transaction terminated."
        with pytest.raises(exceptions.Neo4jError) as caught:
            tx.run("RETURN 2").consume()
        assert caught.value.code == "Neo.ClientError.Transaction.Terminated"
        tx.close()


def test_a_transaction_searches_its_own_writes_through_the_driver(driver):
    """Neo4j's full-text queries see the transaction's own changes; so do Relate's (and its vector ones),
    and SHOW INDEXES has Neo4j's default columns."""
    driver.execute_query("CREATE FULLTEXT INDEX own_writes_text IF NOT EXISTS FOR (n:OwnWrites) ON EACH [n.text]")
    driver.execute_query("CREATE (:OwnWrites {id: 1, text: 'kestrel once'})")
    driver.execute_query("CALL db.awaitIndexes(60)")
    query = "CALL db.index.fulltext.queryNodes('own_writes_text', 'kestrel') YIELD node, score RETURN node.id AS id, score"
    with driver.session() as session:
        with session.begin_transaction() as tx:
            tx.run("CREATE (:OwnWrites {id: 2, text: 'kestrel kestrel kestrel'})").consume()
            inside = [(r["id"], r["score"]) for r in tx.run(query)]
            tx.rollback()
        assert [i for i, _ in inside] == [2, 1]
        assert [r["id"] for r in session.run(query)] == [1]           # the rollback left no trace
    index = driver.execute_query("SHOW INDEXES").records[0]
    assert list(index.keys())[:4] == ["id", "name", "state", "populationPercent"]


def test_show_transactions_names_the_client_address(driver):
    records = driver.execute_query("SHOW TRANSACTIONS").records
    mine = [r for r in records if r["currentQuery"] == "SHOW TRANSACTIONS"]
    assert mine and mine[0]["clientAddress"].startswith("127.0.0.1")
    assert mine[0]["currentQueryId"].startswith("query-") and mine[0]["startTime"] is not None
