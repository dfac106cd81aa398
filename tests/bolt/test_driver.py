"""The official neo4j driver (6.x) against a real relate-server over bolt:// and neo4j://."""
from __future__ import annotations

import datetime as dt
import socket
import threading

import neo4j
import pytest
import pytz
from neo4j import GraphDatabase, exceptions
from neo4j.graph import Node, Path, Relationship
from neo4j.time import Date, DateTime, Duration, Time
from neo4j.vector import Vector

from .conftest import AUTH


def test_verify_connectivity_over_bolt_and_neo4j_schemes(server):
    for scheme in ("bolt", "neo4j"):
        with GraphDatabase.driver(f"{scheme}://{server.bolt_address}", auth=AUTH) as driver:
            driver.verify_connectivity()
            info = driver.get_server_info()
            assert info.agent.startswith("Neo4j/5.")
            assert info.protocol_version == (6, 0)          # negotiated through the manifest
            records, summary, keys = driver.execute_query("RETURN 1 + 1 AS two")
            assert (records[0]["two"], keys, summary.database) == (2, ["two"], "neo4j")


def test_routing_table_names_this_server_for_every_role(server):
    with GraphDatabase.driver(f"neo4j://{server.bolt_address}", auth=AUTH) as driver:
        driver.execute_query("CREATE (:Routed)", routing_=neo4j.RoutingControl.WRITE)
        records, _, _ = driver.execute_query("MATCH (n:Routed) RETURN count(n) AS c",
                                             routing_=neo4j.RoutingControl.READ)
        assert records[0]["c"] == 1


def test_session_run_streams_in_batches_and_reports_counters(driver):
    with driver.session(fetch_size=7) as session:
        result = session.run("UNWIND range(1, 100) AS i RETURN i")
        assert [r["i"] for r in result] == list(range(1, 101))
        summary = session.run("UNWIND range(1, 3) AS i CREATE (:Counted {i: i})").consume()
    assert summary.counters.nodes_created == 3 and summary.counters.properties_set == 3
    assert summary.counters.labels_added == 3 and summary.query_type == "w"


def test_explicit_transaction_commit_and_rollback(driver):
    with driver.session() as session:
        tx = session.begin_transaction(metadata={"app": "test"}, timeout=10)
        tx.run("CREATE (:Tx {v: 1})")
        first = tx.run("UNWIND [1, 2, 3] AS x RETURN x")       # two results open at once (qids)
        second = tx.run("MATCH (n:Tx) RETURN n.v AS v")
        assert [r["v"] for r in second] == [1]
        assert [r["x"] for r in first] == [1, 2, 3]
        tx.commit()
        tx = session.begin_transaction()
        tx.run("CREATE (:Tx {v: 2})").consume()
        tx.rollback()
        assert session.run("MATCH (n:Tx) RETURN collect(n.v) AS vs").single()["vs"] == [1]


def test_managed_transactions_and_bookmarks_between_sessions(driver):
    with driver.session() as writer:
        writer.execute_write(lambda tx: tx.run("CREATE (:Book {title: 'Bolt'})").consume())
        bookmarks = writer.last_bookmarks()
    assert bookmarks and all(b.startswith("rl:") for b in bookmarks.raw_values)
    with driver.session(bookmarks=bookmarks, default_access_mode=neo4j.READ_ACCESS) as reader:
        titles = reader.execute_read(lambda tx: [r["t"] for r in tx.run("MATCH (b:Book) RETURN b.title AS t")])
    assert titles == ["Bolt"]


def test_bookmarks_the_server_did_not_give_out_are_refused(driver):
    """A bookmark of another server's form is InvalidBookmark (in BEGIN and in an auto-commit RUN), as
    Neo4j answers one it cannot parse; the driver's own bookmarks keep working beside it."""
    foreign = neo4j.Bookmarks.from_raw_values(["FB:kcwQCgkLDAwNDg8Q"])
    with driver.session(bookmarks=foreign) as session:
        with pytest.raises(exceptions.ClientError) as caught:
            session.run("RETURN 1").consume()
        assert caught.value.code == "Neo.ClientError.Transaction.InvalidBookmark"
    with driver.session(bookmarks=foreign) as session:
        with pytest.raises(exceptions.ClientError) as caught:
            session.execute_read(lambda tx: tx.run("RETURN 1").consume())
        assert caught.value.code == "Neo.ClientError.Transaction.InvalidBookmark"
    with driver.session() as writer:
        writer.run("CREATE (:Marked)").consume()
        ours = writer.last_bookmarks()
    with driver.session(bookmarks=ours) as reader:
        assert reader.run("MATCH (m:Marked) RETURN count(m) AS c").single()["c"] == 1


PARIS = pytz.timezone("Europe/Paris")
ROUND_TRIPS = [
    None, True, False, 0, -1, 2 ** 63 - 1, -2 ** 63, 1.5, float("inf"), "", "Grüße ✓", b"\x00\xffbytes",
    [1, "two", [3.0, [None]]], {"a": {"b": [1, {"c": "d"}]}},
    Date(2024, 2, 29), Time(13, 14, 15, 123456789), Time(13, 14, 15, 1, tzinfo=pytz.FixedOffset(-330)),
    DateTime(2024, 3, 31, 2, 30, 0, 5), DateTime(2024, 7, 1, 12, 0, 0, 999999999, tzinfo=pytz.FixedOffset(120)),
    PARIS.localize(DateTime(2024, 10, 27, 2, 30, 0, 7)), DateTime(1969, 12, 31, 23, 59, 59, 1, tzinfo=pytz.UTC),
    Duration(months=14, days=-3, seconds=7, nanoseconds=12), Duration(),
]


@pytest.mark.parametrize("value", ROUND_TRIPS, ids=repr)
def test_parameters_round_trip(driver, value):
    records, _, _ = driver.execute_query("RETURN $v AS v", v=value)
    assert records[0]["v"] == value
    assert type(records[0]["v"]) is type(value)


def test_python_datetimes_round_trip_as_neo4j_temporals(driver):
    aware = dt.datetime(2024, 5, 6, 7, 8, 9, 123456, tzinfo=dt.timezone(dt.timedelta(hours=-4)))
    records, _, _ = driver.execute_query("RETURN $d AS d, $t AS t, $z AS z", d=dt.date(2000, 1, 2),
                                         t=dt.time(1, 2, 3), z=aware)
    assert records[0]["d"].to_native() == dt.date(2000, 1, 2)
    assert records[0]["t"].to_native() == dt.time(1, 2, 3)
    assert records[0]["z"].to_native() == aware


def test_temporal_values_built_by_cypher(driver):
    records, _, _ = driver.execute_query(
        "RETURN datetime('2024-03-31T02:30:00[Europe/Stockholm]') AS gap, date('2024-01-15') AS d, "
        "duration('P1Y2M3DT4H5M6.007S') AS du, localtime('23:59:59.999999999') AS lt, "
        "time('10:00:00-05:00') AS t")
    row = records[0]
    # 02:30 does not exist in Stockholm on that day: it moves to 03:30 at +02:00.
    assert (row["gap"].hour, row["gap"].utcoffset(), row["gap"].tzinfo.zone) == (3, dt.timedelta(hours=2),
                                                                                   "Europe/Stockholm")
    assert row["d"] == Date(2024, 1, 15)
    assert row["du"] == Duration(months=14, days=3, seconds=4 * 3600 + 5 * 60 + 6, nanoseconds=7_000_000)
    assert row["lt"] == Time(23, 59, 59, 999999999)
    assert row["t"].utcoffset() == dt.timedelta(hours=-5)


def test_vectors_round_trip_on_bolt_6(driver):
    floats = Vector([0.5, -1.25, 3.0], "f32")
    ints = Vector([1, -2, 3], "i8")
    records, _, _ = driver.execute_query("RETURN $f AS f, $i AS i, vector([1.0, 2.0], 2, FLOAT64) AS v",
                                         f=floats, i=ints)
    row = records[0]
    assert isinstance(row["f"], Vector) and row["f"].to_native() == [0.5, -1.25, 3.0]
    assert row["f"].dtype == floats.dtype and row["i"].to_native() == [1, -2, 3] and row["i"].dtype == ints.dtype
    assert row["v"].to_native() == [1.0, 2.0]


def test_points_round_trip_and_work_in_cypher(driver):
    from neo4j.spatial import CartesianPoint, WGS84Point
    records, _, _ = driver.execute_query(
        "CREATE (c:Spot {at: $here}) RETURN c.at AS at, point({x: 1, y: 2, z: 3}) AS p3, "
        "round(point.distance($here, point({latitude: 59.3293, longitude: 18.0686}))) AS metres, "
        "point.distance($a, $b) AS d", here=WGS84Point((12.5683, 55.6761)), a=CartesianPoint((0.0, 0.0)),
        b=CartesianPoint((3.0, 4.0)))
    row = records[0]
    assert isinstance(row["at"], WGS84Point) and (row["at"].longitude, row["at"].latitude) == (12.5683, 55.6761)
    assert isinstance(row["p3"], CartesianPoint) and tuple(row["p3"]) == (1.0, 2.0, 3.0) and row["p3"].srid == 9157
    assert 520_000 < row["metres"] < 525_000 and row["d"] == 5.0


def test_graph_entities_and_paths(driver):
    records, _, _ = driver.execute_query(
        "CREATE p = (a:Person {name: 'Ann'})-[:KNOWS {since: 2020}]->(b:Person:Admin {name: 'Bob'})"
        "<-[:LIKES]-(a) RETURN p, a, b, relationships(p)[0] AS r, elementId(a) AS ea")
    row = records[0]
    a, b, r, path = row["a"], row["b"], row["r"], row["p"]
    assert isinstance(a, Node) and a.labels == {"Person"} and a["name"] == "Ann"
    assert a.element_id == row["ea"] and b.labels == {"Person", "Admin"}
    assert isinstance(r, Relationship) and r.type == "KNOWS" and r["since"] == 2020
    assert r.start_node.element_id == a.element_id and r.end_node.element_id == b.element_id
    assert isinstance(path, Path) and len(path) == 2
    assert [n["name"] for n in path.nodes] == ["Ann", "Bob", "Ann"]
    assert [rel.type for rel in path.relationships] == ["KNOWS", "LIKES"]
    # The second hop is walked against its direction: LIKES goes from Ann to Bob.
    likes = path.relationships[1]
    assert likes.start_node["name"] == "Ann" and likes.end_node["name"] == "Bob"
    found, _, _ = driver.execute_query("MATCH (n) WHERE elementId(n) = $id RETURN n.name AS name", id=a.element_id)
    assert found[0]["name"] == "Ann"


def test_syntax_error_is_the_drivers_cypher_syntax_error(driver):
    with pytest.raises(exceptions.CypherSyntaxError) as caught:
        driver.execute_query("MATCH (n RETURN n")
    assert caught.value.code == "Neo.ClientError.Statement.SyntaxError"
    # The connection is usable afterwards (RESET cleared the FAILURE).
    assert driver.execute_query("RETURN 1 AS x").records[0]["x"] == 1


def test_constraint_violation_is_a_constraint_error(driver):
    driver.execute_query("CREATE CONSTRAINT unique_email IF NOT EXISTS FOR (u:User) REQUIRE u.email IS UNIQUE")
    driver.execute_query("CREATE (:User {email: 'a@x'})")
    with pytest.raises(exceptions.ConstraintError):
        driver.execute_query("CREATE (:User {email: 'a@x'})")
    records, _, _ = driver.execute_query("MATCH (u:User) RETURN count(u) AS c")
    assert records[0]["c"] == 1


def test_wrong_password_is_an_auth_error(bolt_url):
    with GraphDatabase.driver(bolt_url, auth=("neo4j", "wrong-password")) as driver:
        with pytest.raises(exceptions.AuthError):
            driver.verify_connectivity()


def test_unknown_database_is_refused(bolt_url):
    with GraphDatabase.driver(bolt_url, auth=AUTH) as driver:
        with pytest.raises(exceptions.ClientError) as caught:
            driver.execute_query("RETURN 1", database_="nosuch")
    assert "DatabaseNotFound" in caught.value.code


@pytest.mark.parametrize("name", ["NEO4J", "Neo4j"])
def test_database_names_are_case_insensitive(bolt_url, name):
    with GraphDatabase.driver(bolt_url, auth=AUTH) as driver:
        records, _, _ = driver.execute_query("RETURN 1 AS one", database_=name)
        assert records[0]["one"] == 1
        with driver.session(database="System") as session:
            assert session.run("SHOW DATABASES YIELD name RETURN count(*) AS n").single()["n"] >= 1


class _Proxy:
    """A loopback TCP relay the test can cut: every connection through it is closed by ``kill()``."""

    def __init__(self, target: str):
        host, port = target.rsplit(":", 1)
        self._target = (host, int(port))
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.address = f"127.0.0.1:{self._listener.getsockname()[1]}"
        self._sockets: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(self._target)
            self._sockets += [client, upstream]
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    @staticmethod
    def _pump(source, sink):
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for s in (source, sink):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def kill(self):
        for s in self._sockets:
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        self._sockets.clear()

    def close(self):
        self._listener.close()
        self.kill()


def test_killed_connection_is_retried_by_execute_write(server):
    proxy = _Proxy(server.bolt_address)
    attempts = []

    def work(tx):
        attempts.append(1)
        tx.run("CREATE (:Retried {attempt: $n})", n=len(attempts)).consume()
        if len(attempts) == 1:
            proxy.kill()                    # the connection dies before the commit
        return tx.run("MATCH (r:Retried) RETURN collect(r.attempt) AS a").single()["a"]

    try:
        with GraphDatabase.driver(f"bolt://{proxy.address}", auth=AUTH, max_transaction_retry_time=15) as driver:
            with driver.session() as session:
                seen = session.execute_write(work)
            records, _, _ = driver.execute_query("MATCH (r:Retried) RETURN collect(r.attempt) AS a")
    finally:
        proxy.close()
    assert len(attempts) == 2
    assert seen == [2] and records[0]["a"] == [2]      # the first attempt left no trace


def test_transaction_timeout_from_the_driver_stops_the_query(driver):
    slow = neo4j.Query("UNWIND range(1, 100000000) AS i WITH i WHERE i < 0 RETURN count(i)", timeout=0.3)
    with pytest.raises(exceptions.ClientError) as caught:
        driver.execute_query(slow)
    # the client set the limit: Neo4j's own code for it (a server's configured limit is TransactionTimedOut)
    assert caught.value.code == "Neo.ClientError.Transaction.TransactionTimedOutClientConfiguration"
    assert driver.execute_query("RETURN 1 AS x").records[0]["x"] == 1
    with driver.session() as session:                   # a transaction's timeout, set at BEGIN
        with pytest.raises(exceptions.ClientError) as caught:
            with session.begin_transaction(timeout=0.3) as tx:
                tx.run("UNWIND range(1, 100000000) AS i WITH i WHERE i < 0 RETURN count(i)").consume()
        assert caught.value.code == "Neo.ClientError.Transaction.TransactionTimedOutClientConfiguration"


def test_explain_and_profile_plans_reach_the_driver(driver):
    explained = driver.execute_query("EXPLAIN MATCH (n:Person) RETURN n").summary
    assert explained.plan is not None and explained.profile is None
    operators = []

    def walk(plan):
        operators.append(plan["operatorType"] if isinstance(plan, dict) else plan.operator_type)
        for child in (plan["children"] if isinstance(plan, dict) else plan.children):
            walk(child)
    walk(explained.plan)
    assert operators[0] == "ProduceResults" and any("Label" in op or "Scan" in op for op in operators)
    profiled = driver.execute_query("PROFILE UNWIND range(1, 5) AS i RETURN i").summary
    assert profiled.profile is not None and profiled.profile["rows"] == 5


async def test_async_driver(bolt_url):
    from neo4j import AsyncGraphDatabase
    async with AsyncGraphDatabase.driver(bolt_url, auth=AUTH) as driver:
        await driver.verify_connectivity()
        async with driver.session() as session:
            total = await session.execute_write(
                lambda tx: _sum_in_tx(tx, "UNWIND range(1, 10) AS i CREATE (:Async {i: i}) RETURN sum(i) AS s"))
        records, _, _ = await driver.execute_query("MATCH (n:Async) RETURN count(n) AS c")
    assert total == 55 and records[0]["c"] == 10


async def _sum_in_tx(tx, query):
    result = await tx.run(query)
    record = await result.single()
    return record["s"]


def test_the_procedures_browser_tools_call_when_they_connect(driver):
    """Neo4j Browser and similar tools ask who is logged in and for their settings."""
    records, _, _ = driver.execute_query("CALL dbms.showCurrentUser()")
    assert records[0]["username"] == "neo4j" and "admin" in records[0]["roles"]
    records, _, _ = driver.execute_query("CALL dbms.clientConfig() YIELD name RETURN collect(name) AS names")
    assert "browser.retain_connection_credentials" in records[0]["names"]
    records, _, _ = driver.execute_query("SHOW SETTINGS YIELD name RETURN count(*) AS n")
    assert records[0]["n"] > 0
