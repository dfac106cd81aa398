"""CALL { ... } IN TRANSACTIONS [OF n ROWS]: batches commit on their own, as in Neo4j."""
import pytest

from relate.errors import (ArgumentError, ConstraintValidationFailed, CypherArithmeticError, CypherSyntaxError,
                           DatabaseError)
from relate.server.engine import Database


def commits_of(database):
    """The number of nodes each commit created, in commit order."""
    commits = []
    database.store.add_commit_listener(
        lambda changes, ts: commits.append(sum(1 for c in changes if c[0] == "node+")))
    return commits


def count(session, label):
    return session.run(f"MATCH (n:{label}) RETURN count(n)").fetch(1)[0][0]


def test_each_batch_of_rows_commits_on_its_own(db):
    commits = commits_of(db)
    session = db.session()
    summary = session.run("UNWIND range(1, 10) AS i CALL (i) { CREATE (:N {i: i}) } "
                          "IN TRANSACTIONS OF 3 ROWS").consume()
    assert summary.counters.nodes_created == 10 and summary.counters.properties_set == 10
    assert commits == [3, 3, 3, 1]
    assert count(session, "N") == 10


def test_batches_default_to_1000_rows_and_take_a_parameter(db):
    commits = commits_of(db)
    session = db.session()
    session.run("UNWIND range(1, 2500) AS i CALL (i) { CREATE (:N) } IN TRANSACTIONS").consume()
    assert commits == [1000, 1000, 500]
    session.run("UNWIND range(1, 5) AS i CALL (i) { CREATE (:M) } IN TRANSACTIONS OF $n ROWS", {"n": 2}).consume()
    assert commits[3:] == [2, 2, 1]


def test_a_failing_batch_leaves_the_earlier_batches_committed(tmp_path):
    database = Database.open(str(tmp_path / "db"))
    session = database.session()
    with pytest.raises(CypherArithmeticError):
        session.run("UNWIND range(1, 10) AS i CALL (i) { CREATE (:N {v: 10 / (5 - i)}) } "
                    "IN TRANSACTIONS OF 2 ROWS").consume()
    assert count(session, "N") == 4                 # rows 1-4; the batch of rows 5-6 was rolled back
    database.close()
    reopened = Database.open(str(tmp_path / "db"))
    assert count(reopened.session(), "N") == 4       # and they are durable
    reopened.close()


def test_constraints_are_checked_per_batch(db):
    session = db.session()
    session.run("CREATE CONSTRAINT u FOR (n:U) REQUIRE n.k IS UNIQUE").consume()
    with pytest.raises(ConstraintValidationFailed):
        session.run("UNWIND [1, 2, 3, 3] AS k CALL (k) { CREATE (:U {k: k}) } IN TRANSACTIONS OF 2 ROWS").consume()
    assert session.run("MATCH (u:U) RETURN collect(u.k)").fetch(1) == [([1, 2],)]


def test_deletes_in_batches(db):
    session = db.session()
    session.run("UNWIND range(1, 7) AS i CREATE (:D)-[:R]->(:E)").consume()
    summary = session.run("MATCH (d:D) CALL (d) { DETACH DELETE d } IN TRANSACTIONS OF 2 ROWS").consume()
    assert (summary.counters.nodes_deleted, summary.counters.relationships_deleted) == (7, 7)
    assert count(session, "D") == 0 and count(session, "E") == 7


def test_returned_rows_flow_on_and_later_clauses_see_the_committed_data(db):
    session = db.session()
    rows = session.run("UNWIND range(1, 5) AS i CALL (i) { CREATE (n:N {i: i}) RETURN n } "
                       "IN TRANSACTIONS OF 2 ROWS RETURN n.i AS i, COUNT { MATCH (:N) } AS seen").fetch(10)
    assert [r[0] for r in rows] == [1, 2, 3, 4, 5]
    assert all(seen >= i for i, seen in rows)


def test_read_only_subquery_in_transactions(db):
    session = db.session()
    session.run("UNWIND range(1, 3) AS i CREATE (:N {i: i})").consume()
    assert session.run("MATCH (n:N) CALL (n) { RETURN n.i * 2 AS d } IN TRANSACTIONS RETURN sum(d)").fetch(1) \
        == [(12,)]


def test_not_allowed_in_an_explicit_transaction(db):
    session = db.session()
    session.begin()
    session.run("CREATE (:Kept)").consume()
    with pytest.raises(DatabaseError) as info:
        session.run("UNWIND [1] AS i CALL (i) { CREATE (:N) } IN TRANSACTIONS").consume()
    assert info.value.code == "Neo.DatabaseError.Transaction.TransactionStartFailed"
    assert "implicit transaction" in info.value.message
    session.commit()                                 # the transaction goes on
    assert count(session, "Kept") == 1 and count(session, "N") == 0


@pytest.mark.parametrize("query, message", [
    ("CALL () { CALL () { CREATE (:A) } IN TRANSACTIONS } IN TRANSACTIONS", "Nested"),
    ("MATCH (n) WHERE EXISTS { CALL () { CREATE (:A) } IN TRANSACTIONS } RETURN n", "Nested"),
    ("CREATE (:A) WITH 1 AS x CALL () { CREATE (:B) } IN TRANSACTIONS", "after a write clause"),
    ("CALL () { CREATE (:A) } WITH 1 AS x CALL () { CREATE (:B) } IN TRANSACTIONS", "after a write clause"),
    ("CALL () { CREATE (:A) } IN TRANSACTIONS RETURN 1 AS x UNION RETURN 2 AS x", "UNION"),
])
def test_compile_time_rules(db, query, message):
    with pytest.raises(CypherSyntaxError, match=message) as info:
        db.session().run(query)
    assert info.value.phase == "compile time"


def test_batches_after_batches_are_allowed(db):
    commits = commits_of(db)
    db.session().run("UNWIND [1, 2] AS i CALL (i) { CREATE (:A) } IN TRANSACTIONS OF 1 ROW "
                     "CALL (i) { CREATE (:B) } IN TRANSACTIONS OF 1 ROW").consume()
    assert sum(commits) == 4


@pytest.mark.parametrize("size", ["0", "-1", "'two'", "1.5"])
def test_batch_size_must_be_a_positive_integer(db, size):
    with pytest.raises(ArgumentError):
        db.session().run(f"UNWIND [1] AS i CALL (i) {{ CREATE (:N) }} IN TRANSACTIONS OF {size} ROWS").consume()
