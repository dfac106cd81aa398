"""CALL { ... } IN TRANSACTIONS ... ON ERROR CONTINUE | BREAK | FAIL | RETRY and REPORT STATUS AS, as in
Neo4j 5: a failed batch is rolled back alone, and its rows go on with the subquery's columns null."""
import pytest

from relate.errors import CypherArithmeticError, CypherSyntaxError, CypherTypeError
from relate.server.engine import Database


def commits_of(database):
    """The number of nodes each commit created, in commit order."""
    commits = []
    database.store.add_commit_listener(
        lambda changes, ts: commits.append(sum(1 for c in changes if c[0] == "node+")))
    return commits


def values(session, query, params=None):
    return [tuple(row) for row in session.run(query, params or {}).fetch(1000)]


def test_continue_rolls_back_the_failed_batch_alone_and_goes_on(tmp_path):
    database = Database.open(str(tmp_path / "db"))
    session = database.session()
    session.run("CREATE CONSTRAINT u FOR (n:U) REQUIRE n.k IS UNIQUE").consume()
    commits = commits_of(database)
    result = session.run("UNWIND [1, 2, 3, 3, 5, 6] AS k CALL (k) { CREATE (:U {k: k}) } "
                         "IN TRANSACTIONS OF 2 ROWS ON ERROR CONTINUE")
    result.fetch(10)
    summary = result.consume()
    # the batch [3, 3] breaks the constraint: both of its nodes are gone, and so are its counts
    assert values(session, "MATCH (u:U) RETURN u.k ORDER BY u.k") == [(1,), (2,), (5,), (6,)]
    assert summary.counters.nodes_created == 4 and summary.counters.properties_set == 4
    assert commits == [2, 2]
    database.close()
    reopened = Database.open(str(tmp_path / "db"))
    assert values(reopened.session(), "MATCH (u:U) RETURN count(u)") == [(4,)]
    reopened.close()


def test_report_status_gives_each_row_its_batch_status(db):
    rows = values(db.session(), "UNWIND [1, 0, 2, 4] AS x CALL (x) { CREATE (:N) RETURN 10 / x AS y } "
                                "IN TRANSACTIONS OF 2 ROWS ON ERROR CONTINUE REPORT STATUS AS s "
                                "RETURN x, y, s.started, s.committed, s.errorMessage, s.transactionId")
    assert [row[:4] for row in rows] == [(1, None, True, False), (0, None, True, False),
                                         (2, 5, True, True), (4, 2, True, True)]
    assert "zero" in rows[0][4] and rows[0][4] == rows[1][4] and rows[2][4] is None
    ids = [row[5] for row in rows]
    assert all(isinstance(i, str) for i in ids) and ids[0] == ids[1] != ids[2] == ids[3]
    assert values(db.session(), "MATCH (n:N) RETURN count(n)") == [(2,)]


def test_break_stops_at_the_failed_batch_and_passes_the_rest_on_not_started(db):
    session = db.session()
    rows = values(session, "UNWIND [1, 2, 0, 3, 4] AS x CALL (x) { CREATE (:N {x: x}) RETURN 10 / x AS y } "
                           "IN TRANSACTIONS OF 1 ROW ON ERROR BREAK REPORT STATUS AS s "
                           "RETURN x, y, s.started, s.committed, s.transactionId IS NULL")
    assert rows == [(1, 10, True, True, False), (2, 5, True, True, False), (0, None, True, False, False),
                    (3, None, False, False, True), (4, None, False, False, True)]
    assert values(session, "MATCH (n:N) RETURN n.x ORDER BY n.x") == [(1,), (2,)]


def test_fail_is_the_default_and_ends_the_statement(db):
    session = db.session()
    with pytest.raises(CypherArithmeticError):
        session.run("UNWIND [1, 0, 2] AS x CALL (x) { CREATE (:N) RETURN 10 / x AS y } "
                    "IN TRANSACTIONS OF 1 ROW ON ERROR FAIL RETURN y").consume()
    assert values(session, "MATCH (n:N) RETURN count(n)") == [(1,)]


def test_unit_subquery_rows_pass_once_whatever_the_outcome(db):
    session = db.session()
    session.run("UNWIND range(1, 5) AS i CREATE (:Item {i: i})").consume()
    rows = values(session, "MATCH (n:Item) CALL (n) { SET n.v = 6 / (n.i - 3) } IN TRANSACTIONS OF 1 ROW "
                           "ON ERROR CONTINUE RETURN n.i ORDER BY n.i")
    assert rows == [(1,), (2,), (3,), (4,), (5,)]
    assert values(session, "MATCH (n:Item) RETURN n.i, n.v ORDER BY n.i") == \
        [(1, -3), (2, -6), (3, None), (4, 6), (5, 3)]


def test_graphrag_kg_writer_cleanup_statement(db):
    """neo4j-graphrag's KG writer ends every run with this statement (neo4j_queries.db_cleaning_query)."""
    session = db.session()
    session.run("UNWIND range(1, 3) AS i CREATE (:__KGBuilder__ {__tmp_internal_id: toString(i)})").consume()
    summary = session.run("MATCH (n:__KGBuilder__) WHERE n.__tmp_internal_id IS NOT NULL CALL (n) { "
                          "SET n.__tmp_internal_id = NULL } IN TRANSACTIONS OF 1000 ROWS ON ERROR CONTINUE").consume()
    assert summary.counters.properties_set == 3
    assert values(session, "MATCH (n:__KGBuilder__) WHERE n.__tmp_internal_id IS NULL RETURN count(n)") == [(3,)]


def test_retry_then_continue_and_a_duration(db):
    rows = values(db.session(), "UNWIND [1, 0] AS x CALL (x) { RETURN 1 / x AS y } IN TRANSACTIONS OF 1 ROW "
                                "ON ERROR RETRY FOR 1 SECOND THEN CONTINUE REPORT STATUS AS s RETURN y, s.committed")
    assert rows == [(1, True), (None, False)]          # not a transient error: no retry, then CONTINUE
    with pytest.raises(CypherArithmeticError):         # THEN FAIL is RETRY's default
        db.session().run("UNWIND [0] AS x CALL (x) { RETURN 1 / x AS y } IN TRANSACTIONS ON ERROR RETRY "
                         "RETURN y").consume()
    with pytest.raises(CypherTypeError):
        db.session().run("UNWIND [0] AS x CALL (x) { RETURN x AS y } IN TRANSACTIONS ON ERROR RETRY "
                         "FOR 'soon' SECONDS THEN CONTINUE RETURN y").consume()


def test_options_in_any_order_and_concurrent_transactions(db):
    session = db.session()
    rows = values(session, "UNWIND [1, 0, 2] AS x CALL (x) { RETURN 2 / x AS y } IN 2 CONCURRENT TRANSACTIONS "
                           "REPORT STATUS AS s ON ERROR CONTINUE OF 1 ROW RETURN x, y, s.committed")
    assert rows == [(1, 2, True), (0, None, False), (2, 1, True)]


@pytest.mark.parametrize("query, message", [
    ("UNWIND [1] AS x CALL (x) { RETURN x AS y } IN TRANSACTIONS REPORT STATUS AS s RETURN y",
     "REPORT STATUS can only be used"),
    ("UNWIND [1] AS x CALL (x) { RETURN x AS y } IN TRANSACTIONS ON ERROR FAIL REPORT STATUS AS s RETURN y",
     "REPORT STATUS can only be used"),
    ("UNWIND [1] AS x CALL (x) { RETURN x AS y } IN TRANSACTIONS ON ERROR CONTINUE REPORT STATUS AS x RETURN y",
     "already declared"),
    ("UNWIND [1] AS x CALL (x) { RETURN x AS y } IN TRANSACTIONS OF 1 ROW OF 2 ROWS RETURN y", "Duplicated"),
    ("UNWIND [1] AS x CALL (x) { RETURN x AS y } IN TRANSACTIONS ON ERROR BREAK ON ERROR CONTINUE RETURN y",
     "Duplicated"),
])
def test_compile_time_rules(db, query, message):
    with pytest.raises(CypherSyntaxError, match=message):
        db.session().run(query)


def test_the_new_words_stay_usable_as_names(db):
    rows = values(db.session(), "WITH 1 AS status, 2 AS error, 3 AS report, 4 AS second, 5 AS retry "
                                "RETURN status + error + report + second + retry, {continue: 1, break: 2}.break")
    assert rows == [(15, 2)]
