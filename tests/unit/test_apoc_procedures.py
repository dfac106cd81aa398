"""APOC procedures: apoc.periodic.iterate / commit (batches committed on their own, a failing batch rolled
back alone and reported), apoc.cypher.run / doIt, apoc.meta.schema, apoc.help, apoc.util.sleep / validate."""
from __future__ import annotations

import time

import pytest

import relate
from relate.errors import ArgumentError, ProcedureCallFailed, QueryTimeout
from tests.helpers import rows

ITERATE = ("CALL apoc.periodic.iterate($iterate, $action, $config) YIELD batches, total, committedOperations, "
           "failedOperations, failedBatches, retries, errorMessages, batch, operations, wasTerminated, failedParams, "
           "updateStatistics RETURN *")


def commits_of(database):
    """The number of nodes each commit created, in commit order."""
    commits: list[int] = []
    database.store.add_commit_listener(lambda changes, ts: commits.append(sum(1 for c in changes if c[0] == "node+")))
    return commits


def iterate(target, iterate_text, action, config) -> dict:
    """apoc.periodic.iterate's one result row, by column."""
    session = target.session() if hasattr(target, "session") else target
    result = session.run(ITERATE, {"iterate": iterate_text, "action": action, "config": config})
    (row,) = result.fetch(10)
    return dict(zip(result.columns, row))


def test_iterate_runs_the_action_per_row_in_batches_that_commit_apart(db):
    rows(db, "UNWIND range(1, 25) AS i CREATE (:Src {i: i})")
    commits = commits_of(db)
    out = iterate(db, "MATCH (s:Src) RETURN s.i AS i", "CREATE (:Dst {i: i * 10})", {"batchSize": 10})
    assert commits == [10, 10, 5]
    assert out["batches"] == 3 and out["total"] == 25 and out["committedOperations"] == 25
    assert out["failedBatches"] == 0 and out["failedOperations"] == 0 and out["errorMessages"] == {}
    assert out["batch"] == {"total": 3, "committed": 3, "failed": 0, "errors": {}}
    assert out["updateStatistics"]["nodesCreated"] == 25 and out["updateStatistics"]["propertiesSet"] == 25
    assert out["wasTerminated"] is False
    assert rows(db, "MATCH (d:Dst) RETURN sum(d.i)") == [(3250,)]


def test_iterate_binds_nodes_and_takes_params_and_the_batch_list(db):
    rows(db, "UNWIND range(1, 6) AS i CREATE (:P {i: i})")
    iterate(db, "MATCH (p:P) RETURN p", "SET p.tag = $tag", {"batchSize": 4, "params": {"tag": "seen"}})
    assert rows(db, "MATCH (p:P {tag: 'seen'}) RETURN count(*)") == [(6,)]
    iterate(db, "MATCH (p:P) RETURN p", "UNWIND $_batch AS row WITH row.p AS p SET p.b = size($_batch)",
            {"batchSize": 4})
    assert rows(db, "MATCH (p:P) RETURN p.b, count(*) ORDER BY p.b") == [(2, 2), (4, 4)]


@pytest.mark.parametrize("config", [{"batchSize": 2, "iterateList": False}, {"batchSize": 2, "batchMode": "SINGLE"}])
def test_iterate_one_row_at_a_time_gets_columns_as_parameters_too(db, config):
    rows(db, "UNWIND range(1, 5) AS i CREATE (:P {i: i})")
    out = iterate(db, "MATCH (p:P) RETURN p, p.i AS i", "SET p.double = $i * 2, p.same = i * 2", config)
    assert out["batches"] == 3 and out["committedOperations"] == 5
    assert rows(db, "MATCH (p:P) WHERE p.double = p.i * 2 AND p.same = p.double RETURN count(*)") == [(5,)]


def test_a_failing_batch_is_rolled_back_alone_and_reported(tmp_path):
    path = str(tmp_path / "db")
    conn = relate.connect(path)
    conn.execute("CREATE CONSTRAINT FOR (d:Dst) REQUIRE d.k IS UNIQUE").fetchall()
    conn.execute("UNWIND range(1, 30) AS i CREATE (:Src {i: i})").fetchall()
    (row,) = conn.execute(ITERATE, {
        "iterate": "MATCH (s:Src) RETURN s.i AS i ORDER BY i",
        # the second batch (11..20) makes a duplicate key: only it is rolled back
        "action": "CREATE (:Dst {k: CASE WHEN i = 15 THEN 1 ELSE i END, i: i})",
        "config": {"batchSize": 10, "failedParams": 2}}).fetchall()
    out = row.as_dict()
    assert out["batches"] == 3 and out["failedBatches"] == 1
    assert out["committedOperations"] == 20 and out["failedOperations"] == 10
    (message, count), = out["errorMessages"].items()
    assert count == 1 and "already exists with label `Dst`" in message
    assert out["failedParams"] == {message: [{"i": 11}, {"i": 12}]}
    assert out["updateStatistics"]["nodesCreated"] == 20
    conn.close()
    reopened = relate.connect(path)             # the committed batches are durable
    assert [tuple(r) for r in reopened.execute("MATCH (d:Dst) RETURN min(d.i), max(d.i), count(*)").fetchall()] \
        == [(1, 30, 20)]
    assert reopened.execute("MATCH (d:Dst) WHERE 11 <= d.i <= 20 RETURN count(*)").fetchall()[0][0] == 0
    reopened.close()


def test_an_action_error_fails_its_batch_and_retries_are_counted(db):
    rows(db, "UNWIND range(1, 4) AS i CREATE (:P {i: i})")
    out = iterate(db, "MATCH (p:P) RETURN p.i AS i ORDER BY i", "CREATE (:Q {v: 10 / (i - 3)})",
                  {"batchSize": 2, "retries": 2})
    assert out["failedBatches"] == 1 and out["retries"] == 2 and out["committedOperations"] == 2
    assert rows(db, "MATCH (q:Q) RETURN count(*)") == [(2,)]
    assert rows(db, "MATCH (p:P) RETURN count(*)") == [(4,)]


def test_iterate_in_an_explicit_transaction_commits_with_it(db):
    rows(db, "UNWIND range(1, 6) AS i CREATE (:P {i: i})")
    session = db.session()
    session.begin()
    out = iterate(session, "MATCH (p:P) RETURN p.i AS i ORDER BY i", "CREATE (:Q {v: 10 / (i - 3)})",
                  {"batchSize": 2})
    assert out["failedBatches"] == 1 and out["committedOperations"] == 4
    assert rows(db, "MATCH (q:Q) RETURN count(*)") == [(0,)]        # not visible before the commit
    session.commit()
    assert rows(db, "MATCH (q:Q) RETURN count(*)") == [(4,)]
    session.begin()
    iterate(session, "MATCH (p:P) RETURN p", "SET p.gone = true", {})
    session.rollback()
    assert rows(db, "MATCH (p:P) WHERE p.gone RETURN count(*)") == [(0,)]


def test_iterate_argument_errors(db):
    with pytest.raises(ArgumentError):
        iterate(db, "RETURN 1 AS x", "RETURN x", {"batchSize": 0})
    with pytest.raises(ArgumentError):
        iterate(db, "CREATE INDEX FOR (n:N) ON (n.x)", "RETURN 1", {})
    with pytest.raises(ArgumentError):
        iterate(db, "RETURN 1 AS x", "", {})
    with pytest.raises(ArgumentError):
        iterate(db, "RETURN 1 AS x", "RETURN x", {"batchMode": "PARALLEL"})


def test_periodic_commit_repeats_until_nothing_is_left(db):
    rows(db, "UNWIND range(1, 23) AS i CREATE (:Old {i: i})")
    commits = []
    db.store.add_commit_listener(lambda changes, ts: commits.append(len(changes)))
    (updates, executions, batches, failed) = rows(
        db, "CALL apoc.periodic.commit('MATCH (o:Old) WITH o LIMIT $limit DELETE o RETURN count(*)', {limit: 10}) "
            "YIELD updates, executions, batches, failedBatches RETURN updates, executions, batches, failedBatches")[0]
    assert (updates, executions, batches, failed) == (23, 4, 4, 0)
    assert len(commits) == 3 and rows(db, "MATCH (o:Old) RETURN count(*)") == [(0,)]
    with pytest.raises(ArgumentError, match="limit"):
        rows(db, "CALL apoc.periodic.commit('MATCH (o) DELETE o RETURN count(*)', {})")


def test_periodic_commit_reports_a_failing_run(db):
    rows(db, "CREATE (:A)-[:R]->(:B)")
    out = rows(db, "CALL apoc.periodic.commit('MATCH (a:A) WITH a LIMIT 1 DELETE a RETURN count(*)') "
                   "YIELD updates, failedBatches, batchErrors RETURN updates, failedBatches, batchErrors")[0]
    assert out[0] == 0 and out[1] == 1 and len(out[2]) == 1
    assert rows(db, "MATCH (a:A) RETURN count(*)") == [(1,)]


def test_cypher_run_and_do_it(db):
    rows(db, "UNWIND range(1, 3) AS i CREATE (:P {i: i})")
    assert rows(db, "CALL apoc.cypher.run('MATCH (p:P) WHERE p.i >= $min RETURN p.i AS i ORDER BY i', {min: 2}) "
                    "YIELD value RETURN value.i") == [(2,), (3,)]
    assert rows(db, "CALL apoc.cypher.run('MATCH (p:P {i: 1}) RETURN p', {}) YIELD value "
                    "RETURN value.p.i, labels(value.p)") == [(1, ["P"])]
    with pytest.raises(ArgumentError, match="read-only"):
        rows(db, "CALL apoc.cypher.run('CREATE (:X)', {})")
    with pytest.raises(ArgumentError):
        rows(db, "CALL apoc.cypher.run('CREATE INDEX FOR (n:N) ON (n.x)', {})")
    summary = db.session().run("CALL apoc.cypher.doIt('CREATE (x:X {v: $v}) RETURN x.v AS v', {v: 7}) YIELD value "
                               "RETURN value.v").consume()
    assert summary.counters.nodes_created == 1
    assert rows(db, "MATCH (x:X) RETURN x.v") == [(7,)]
    from relate.errors import ParameterMissing
    with pytest.raises(ParameterMissing):
        rows(db, "CALL apoc.cypher.run('RETURN $nope AS x', {})")


def test_cypher_do_it_writes_roll_back_with_a_failing_statement(db):
    with pytest.raises(Exception):
        rows(db, "CALL apoc.cypher.doIt('CREATE (:Y) RETURN 1 AS one', {}) YIELD value RETURN 1 / 0")
    assert rows(db, "MATCH (y:Y) RETURN count(*)") == [(0,)]


def test_meta_schema(db):
    rows(db, "CREATE CONSTRAINT FOR (p:Person) REQUIRE p.name IS UNIQUE")
    rows(db, "CREATE (:Person {name: 'a', age: 3})-[:KNOWS {since: 2020}]->(:Person:Admin {name: 'b'})")
    (value,) = rows(db, "CALL apoc.meta.schema() YIELD value RETURN value")[0]
    person = value["Person"]
    assert person["type"] == "node" and person["count"] == 2 and person["labels"] == ["Admin"]
    assert person["properties"]["name"] == {"type": "STRING", "indexed": True, "unique": True, "existence": False,
                                            "array": False}
    assert person["properties"]["age"]["type"] == "INTEGER"
    assert person["relationships"]["KNOWS"]["count"] >= 1
    assert person["relationships"]["KNOWS"]["properties"]["since"]["type"] == "INTEGER"
    assert value["KNOWS"] == {"type": "relationship", "count": 1,
                              "properties": {"since": {"type": "INTEGER", "indexed": False, "unique": False,
                                                       "existence": False, "array": False}}}


def test_help_lists_functions_and_procedures(db):
    found = rows(db, "CALL apoc.help('periodic') YIELD type, name, text, signature RETURN type, name, text, signature")
    names = {name for _, name, _, _ in found}
    assert {"apoc.periodic.iterate", "apoc.periodic.commit"} <= names
    assert all(text for _, _, text, _ in found)
    functions = rows(db, "CALL apoc.help('coll.sum') YIELD type, name, signature RETURN type, name, signature")
    assert ("function", "apoc.coll.sum", "apoc.coll.sum(values) :: ANY?") in functions


def test_sleep_is_interruptible_by_the_statement_timeout(db):
    started = time.monotonic()
    rows(db, "CALL apoc.util.sleep(50)")
    assert time.monotonic() - started >= 0.05
    started = time.monotonic()
    with pytest.raises(QueryTimeout):
        db.session().run("CALL apoc.util.sleep(60000)", timeout=0.2).consume()
    assert time.monotonic() - started < 5


def test_sleep_is_interruptible_by_cancel(db):
    import threading
    session = db.session()
    threading.Timer(0.2, session.cancel).start()
    started = time.monotonic()
    from relate.errors import Terminated
    with pytest.raises(Terminated):
        session.run("CALL apoc.util.sleep(60000)").consume()
    assert time.monotonic() - started < 5


def test_validate(db):
    assert rows(db, "WITH 1 AS x CALL apoc.util.validate(false, 'never', []) RETURN x") == [(1,)]
    with pytest.raises(ProcedureCallFailed, match="node 7 is missing"):
        rows(db, "CALL apoc.util.validate(true, 'node %d is %s', [7, 'missing'])")


def test_coll_split_and_partition_procedures(db):
    assert rows(db, "CALL apoc.coll.split([1, 0, 2, 3, 0], 0) YIELD value RETURN value") == [([1],), ([2, 3],)]
    assert rows(db, "CALL apoc.coll.partition([1, 2, 3], 2) YIELD value RETURN value") == [([1, 2],), ([3],)]


def test_procedures_are_listed_with_descriptions(db):
    listed = dict(rows(db, "SHOW PROCEDURES YIELD name, description"))
    for name in ("apoc.periodic.iterate", "apoc.periodic.commit", "apoc.cypher.run", "apoc.cypher.doIt",
                 "apoc.meta.schema", "apoc.help", "apoc.util.sleep", "apoc.util.validate"):
        assert listed.get(name), name
    modes = {name: mode for name, _, mode in rows(db, "CALL dbms.procedures() YIELD name, signature, mode "
                                                      "RETURN name, signature, mode")}
    assert modes["apoc.periodic.iterate"] == "WRITE" and modes["apoc.cypher.run"] == "READ"


def test_statements_that_run_themselves_stop_with_a_typed_error(db):
    query = "CALL apoc.cypher.run($q, {q: $q}) YIELD value RETURN value"
    with pytest.raises(ArgumentError, match="nest more than 16 deep"):
        rows(db, query, {"q": query})
