"""The engine API: results, summaries, transactions, EXPLAIN/PROFILE, plan cache, timeouts, cancellation."""
import threading
import time

import pytest

from relate.errors import (ClientError, ConstraintValidationFailed, CypherArithmeticError, CypherSyntaxError,
                           EntityNotFound, ParameterMissing, QueryTimeout, Terminated, TransactionError,
                           error_class_for)
from relate.values import Node, Path, Relationship
from tests.helpers import rows


def test_result_streams_in_batches_and_reports_summary_at_the_end(session):
    result = session.run("UNWIND range(1, 5) AS x RETURN x, x * 2 AS y")
    assert result.columns == ["x", "y"]
    assert result.fetch(2) == [(1, 2), (2, 4)]
    assert result.summary is None                       # not exhausted yet
    assert result.fetch(10) == [(3, 6), (4, 8), (5, 10)]
    assert result.fetch(10) == []
    assert result.summary is not None and result.summary.query_type == "r"


def test_write_counters_match_neo4j(session):
    summary = session.run("CREATE (a:A:B {x: 1, y: null, z: 'z'})-[:R {w: 2}]->(b:A)").consume()
    c = summary.counters
    assert (c.nodes_created, c.relationships_created, c.properties_set, c.labels_added) == (2, 1, 3, 3)
    c = session.run("MATCH (a:B) SET a.x = 1, a:C REMOVE a.z").consume().counters
    assert (c.properties_set, c.labels_added) == (2, 1)
    c = session.run("MATCH (n) DETACH DELETE n").consume().counters
    assert (c.nodes_deleted, c.relationships_deleted) == (2, 1)


def test_node_load_counters_and_failures_match_the_general_path(session):
    # CREATE of one node per row (the UNWIND load shape) has its own loop: same counters, same rows,
    # and a bad row mid-batch leaves nothing behind.
    result = session.run("UNWIND range(1, 4) AS i CREATE (n:A:B {x: i, y: null}) RETURN n.x AS x ORDER BY x")
    assert result.fetch(10) == [(1,), (2,), (3,), (4,)]
    assert result.fetch(10) == []
    c = result.summary.counters
    assert (c.nodes_created, c.labels_added, c.properties_set) == (4, 8, 4)
    c = session.run("UNWIND range(1, 3) AS i CREATE ()").consume().counters
    assert (c.nodes_created, c.labels_added, c.properties_set) == (3, 0, 0)
    with pytest.raises(ClientError):
        session.run("UNWIND [1, 2, {k: 1}] AS v CREATE (:Bad {v: v})").consume()
    assert rows(session, "MATCH (n:Bad) RETURN count(n)") == [(0,)]
    c = session.run("UNWIND range(1, 10) AS i CREATE (n:L {i: i}) RETURN n LIMIT 2").consume().counters
    assert rows(session, "MATCH (n:L) RETURN count(n)") == [(c.nodes_created,)]


def test_entities_are_materialized_as_user_values(session):
    session.run("CREATE (:P {name: 'a'})-[:KNOWS {since: 2020}]->(:P {name: 'b'})").consume()
    (a, r, b, p), = rows(session, "MATCH p = (a)-[r]->(b) RETURN a, r, b, p")
    assert isinstance(a, Node) and a.labels == {"P"} and a["name"] == "a"
    assert isinstance(r, Relationship) and r.type == "KNOWS" and (r.start_id, r.end_id) == (a.id, b.id)
    assert isinstance(p, Path) and p.nodes == (a, b) and p.relationships == (r,)


def test_read_streams_from_a_snapshot(db, session):
    session.run("UNWIND range(1, 3000) AS i CREATE (:N {i: i})").consume()
    result = session.run("MATCH (n:N) RETURN n.i")
    first = result.fetch(1)
    db.session().run("UNWIND range(1, 100) AS i CREATE (:N {i: -i})").consume()
    assert len(first) + len(result.fetch(100_000)) == 3000       # later commits stay unseen


def test_explicit_transaction_commit_and_rollback(db, session):
    session.begin()
    session.run("CREATE (:T {v: 1})").consume()
    assert rows(db.session(), "MATCH (t:T) RETURN count(t)") == [(0,)]     # not visible before commit
    session.commit()
    assert rows(session, "MATCH (t:T) RETURN count(t)") == [(1,)]
    session.begin()
    session.run("CREATE (:T {v: 2})").consume()
    session.rollback()
    assert rows(session, "MATCH (t:T) RETURN count(t)") == [(1,)]
    with pytest.raises(TransactionError):
        session.commit()


def test_failing_statement_in_a_transaction_leaves_nothing_and_the_transaction_goes_on(session):
    session.run("CREATE CONSTRAINT u FOR (n:U) REQUIRE n.k IS UNIQUE").consume()
    session.begin()
    session.run("CREATE (:U {k: 1})").consume()
    with pytest.raises(ConstraintValidationFailed):
        session.run("CREATE (:U {k: 2}) CREATE (:U {k: 1})")
    session.run("CREATE (:U {k: 3})").consume()
    session.commit()
    assert rows(session, "MATCH (u:U) RETURN u.k ORDER BY u.k") == [(1,), (3,)]


def test_constraint_violation_rolls_back_the_whole_auto_commit_statement(session):
    session.run("CREATE CONSTRAINT c FOR (n:P) REQUIRE n.id IS UNIQUE").consume()
    session.run("CREATE (:P {id: 1})").consume()
    with pytest.raises(ConstraintValidationFailed) as info:
        session.run("UNWIND [2, 3, 1] AS i CREATE (:P {id: i})")
    assert info.value.code == "Neo.ClientError.Schema.ConstraintValidationFailed"
    assert rows(session, "MATCH (n:P) RETURN collect(n.id)") == [([1],)]


def test_constraints_of_every_kind(session):
    session.run("CREATE CONSTRAINT nn FOR (n:A) REQUIRE n.x IS NOT NULL").consume()
    session.run("CREATE CONSTRAINT ty FOR ()-[r:R]-() REQUIRE r.ts IS :: INTEGER").consume()
    session.run("CREATE CONSTRAINT key FOR (n:K) REQUIRE (n.a, n.b) IS NODE KEY").consume()
    with pytest.raises(ConstraintValidationFailed):
        session.run("CREATE (:A)")
    with pytest.raises(ConstraintValidationFailed):
        session.run("CREATE ()-[:R {ts: 'x'}]->()")
    session.run("CREATE ()-[:R {ts: 5}]->(), (:K {a: 1, b: 1}), (:K {a: 1, b: 2})").consume()
    with pytest.raises(ConstraintValidationFailed):
        session.run("CREATE (:K {a: 1, b: 2})")
    with pytest.raises(ConstraintValidationFailed):
        session.run("CREATE (:K {a: 1})")
    with pytest.raises(ConstraintValidationFailed):          # existing data is validated at creation
        session.run("CREATE CONSTRAINT u2 FOR (n:K) REQUIRE n.a IS UNIQUE")
    names = [r[0] for r in rows(session, "SHOW CONSTRAINTS YIELD name RETURN name")]
    assert names == ["key", "nn", "ty"]


def test_schema_commands_counters_if_not_exists_and_drop(session):
    c = session.run("CREATE INDEX idx IF NOT EXISTS FOR (n:A) ON (n.x)").consume().counters
    assert c.indexes_added == 1
    assert session.run("CREATE INDEX idx IF NOT EXISTS FOR (n:A) ON (n.x)").consume().counters.indexes_added == 0
    c = session.run("CREATE CONSTRAINT c1 IF NOT EXISTS FOR (n:B) REQUIRE n.y IS UNIQUE").consume().counters
    assert c.constraints_added == 1
    shown = rows(session, "SHOW RANGE INDEXES YIELD name, type, owningConstraint")
    assert shown == [("c1", "RANGE", "c1"), ("idx", "RANGE", None)]
    assert session.run("DROP INDEX idx").consume().counters.indexes_removed == 1
    assert session.run("DROP CONSTRAINT c1").consume().counters.constraints_removed == 1
    assert session.run("DROP CONSTRAINT c1 IF EXISTS").consume().counters.constraints_removed == 0
    assert rows(session, "SHOW INDEXES YIELD name, type") == [("index_343aff4e", "LOOKUP"), ("index_f7700477", "LOOKUP")]


def test_deleting_a_connected_node_fails_at_the_end_of_the_statement(session):
    session.run("CREATE (:A)-[:R]->(:B)").consume()
    with pytest.raises(ConstraintValidationFailed) as info:
        session.run("MATCH (a:A) DELETE a")
    assert info.value.detail == "DeleteConnectedNode"
    session.run("MATCH (a:A)-[r]->() DELETE a, r").consume()      # both in one statement is fine
    assert rows(session, "MATCH (n) RETURN count(n)") == [(1,)]


def test_reading_a_deleted_node_fails(session):
    session.run("CREATE (:A {x: 1})").consume()
    with pytest.raises(EntityNotFound):
        session.run("MATCH (a:A) DELETE a RETURN a.x")


def test_explain_returns_no_rows_and_the_plan(session):
    result = session.run("EXPLAIN MATCH (n:A) WHERE n.x = 1 RETURN n")
    assert result.fetch(10) == []
    plan = result.summary.plan
    assert plan["operator"] == "ProduceResults"
    assert "NodeByLabelScan" in str(plan)
    assert rows(session, "MATCH (n) RETURN count(n)") == [(0,)]


def test_profile_runs_and_counts_rows_per_operator(session):
    session.run("UNWIND range(1, 10) AS i CREATE (:A {i: i})").consume()
    result = session.run("PROFILE MATCH (n:A) WHERE n.i > 5 RETURN n.i")
    assert len(result.fetch(100)) == 5
    plan = result.summary.plan

    def find(node, name):
        if node["operator"] == name:
            return node
        return next((f for c in node["children"] if (f := find(c, name))), None)
    assert find(plan, "NodeByLabelScan")["rows"] == 10
    assert find(plan, "Filter")["rows"] == 5
    assert plan["rows"] == 5 and plan["time_ms"] >= 0


def test_plans_are_cached_by_text_and_dropped_when_the_schema_changes(db, session):
    query = "MATCH (n:A {x: $x}) RETURN n"
    session.run(query, {"x": 1}).consume()
    hits = db.plan_cache.hits
    session.run(query, {"x": 2}).consume()
    assert db.plan_cache.hits == hits + 1
    session.run("CREATE INDEX FOR (n:A) ON (n.x)").consume()
    plan = db.prepare(query).plan.logical
    assert "NodeIndexSeek" in repr(plan)


def test_missing_parameter_is_reported_before_running(session):
    with pytest.raises(ParameterMissing) as info:
        session.run("MATCH (n) WHERE n.x = $x RETURN n")
    assert "x" in str(info.value)


def test_statement_clock_is_read_once(session):
    assert rows(session, "UNWIND range(1, 200) AS i RETURN count(DISTINCT datetime()) AS n") == [(1,)]


def test_timeout_stops_a_long_statement(session):
    session.run("UNWIND range(1, 300) AS i CREATE (:Q)").consume()
    started = time.monotonic()
    with pytest.raises(QueryTimeout):
        session.run("MATCH (a:Q), (b:Q), (c:Q) RETURN count(*)", timeout=0.2).fetch(1)
    assert time.monotonic() - started < 5


def test_cancel_from_another_thread_terminates_the_statement(session):
    session.run("UNWIND range(1, 300) AS i CREATE (:Q)").consume()
    threading.Timer(0.2, session.cancel).start()
    with pytest.raises(Terminated):
        session.run("MATCH (a:Q), (b:Q), (c:Q) RETURN count(*)").fetch(1)


@pytest.mark.parametrize("query", ["RETURN 1 / 0", "RETURN 1 % 0", "RETURN 9223372036854775807 + 1",
                                   "RETURN -9223372036854775807 - 2", "RETURN 4611686018427387904 * 2",
                                   "RETURN -(-9223372036854775807 - 1)", "RETURN abs(-9223372036854775807 - 1)",
                                   "UNWIND [9223372036854775807, 1] AS x RETURN sum(x)",
                                   "RETURN duration({days: 1}) / 0"])
def test_integer_division_by_zero_and_overflow_are_arithmetic_errors(session, query):
    with pytest.raises(CypherArithmeticError) as info:
        rows(session, query)
    error = info.value
    assert isinstance(error, ClientError) and not error.retryable
    assert (error.code, error.phase) == ("Neo.ClientError.Statement.ArithmeticError", "runtime")
    assert error_class_for(error.code) is CypherArithmeticError      # what the network driver rebuilds


def test_compile_errors_carry_position_and_excerpt(session):
    with pytest.raises(CypherSyntaxError) as info:
        session.run("MATCH (n)\nRETURN m")
    error = info.value
    assert (error.detail, error.line, error.column, error.phase) == ("UndefinedVariable", 2, 8, "compile time")
    assert error.excerpt == "RETURN m\n       ^"


def test_procedures_registry(db, session):
    db.procedures.register("test.double", [("x", "INTEGER?")], [("y", "INTEGER?")],
                           lambda ctx, x: [{"y": x * 2}])
    assert rows(session, "CALL test.double(21) YIELD y RETURN y") == [(42,)]
    assert rows(session, "CALL test.double($x)", {"x": 2}) == [(4,)]
    assert ("A",) in rows(session, "CREATE (:A) WITH 1 AS one CALL db.labels() YIELD label RETURN label")


def test_session_close_rolls_back(db):
    session = db.session()
    session.begin()
    session.run("CREATE (:Gone)").consume()
    session.close()
    assert rows(db.session(), "MATCH (n:Gone) RETURN count(n)") == [(0,)]


def test_concurrent_sessions_serialize_writes_and_read_snapshots(db):
    db.session().run("CREATE CONSTRAINT k FOR (n:K) REQUIRE n.k IS UNIQUE").consume()
    errors = []

    def writer(offset):
        session = db.session()
        try:
            for i in range(50):
                session.run("MERGE (n:K {k: $k}) ON CREATE SET n.by = $w", {"k": i % 25 + offset, "w": offset}).consume()
        except Exception as exc:            # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=writer, args=(o,)) for o in (0, 0, 100, 100)]
    for t in threads:
        t.start()
    seen = [db.session().run("MATCH (n:K) RETURN count(n)").fetch(1)[0][0] for _ in range(20)]
    for t in threads:
        t.join()
    assert not errors
    assert seen == sorted(seen)             # each read sees one consistent, growing snapshot
    assert rows(db.session(), "MATCH (n:K) RETURN count(n), count(DISTINCT n.k)") == [(50, 50)]
