"""SHOW TRANSACTIONS and TERMINATE TRANSACTIONS (Neo4j 5): stable transaction ids, metadata, the running
SHOW itself listed; a terminated transaction's running statement stops and its next one fails with
Neo.ClientError.Transaction.Terminated; a user may end only its own transactions unless admin."""
from __future__ import annotations

import threading
import time

import pytest

from relate.errors import CypherSyntaxError, CypherTypeError, Terminated


def rows(session, query, params=None):
    return [tuple(r) for r in session.run(query, params or {}).fetch(10_000)]


def test_show_lists_open_transactions_with_ids_and_metadata(db):
    a, b = db.session(), db.session()
    a.begin()
    rows(a, "CALL tx.setMetaData({app: 'demo'})")
    shown = rows(b, "SHOW TRANSACTIONS YIELD transactionId, currentQuery, status, metaData")
    mine = [r for r in shown if r[1].startswith("SHOW TRANSACTIONS")]
    theirs = [r for r in shown if r[3] == {"app": "demo"}]
    assert len(mine) == 1 and mine[0][2] == "Running"
    assert len(theirs) == 1 and theirs[0][2] == "Idle" and theirs[0][0].startswith("neo4j-transaction-")
    assert rows(b, "SHOW TRANSACTIONS YIELD transactionId WHERE transactionId = $id RETURN count(*)",
                {"id": theirs[0][0]}) == [(1,)]              # the id stays while the transaction is open
    a.rollback()


def test_terminating_an_idle_transaction_fails_its_next_statement(db):
    a, b = db.session(), db.session()
    a.begin()
    rows(a, "CREATE (:Doomed)")
    (tx_id,) = [r[0] for r in rows(b, "SHOW TRANSACTIONS YIELD transactionId, status") if r[1] == "Idle"]
    assert rows(b, "TERMINATE TRANSACTIONS $id, 'neo4j-transaction-0'", {"id": tx_id}) == [
        (tx_id, None, "Transaction terminated."), ("neo4j-transaction-0", None, "Transaction not found.")]
    with pytest.raises(Terminated) as caught:
        rows(a, "MATCH (n) RETURN n")
    assert caught.value.code == "Neo.ClientError.Transaction.Terminated"
    a.rollback()
    assert rows(a, "MATCH (n:Doomed) RETURN count(n)") == [(0,)]     # nothing of it was committed


def test_terminating_a_running_statement_stops_it(db):
    a, b = db.session(), db.session()
    outcome = []

    def long_statement():
        try:
            rows(a, "UNWIND range(1, 1000000000) AS i WITH i WHERE i < 0 RETURN count(*)")
        except Terminated as exc:
            outcome.append(exc.code)
    runner = threading.Thread(target=long_statement)
    runner.start()
    deadline = time.monotonic() + 10
    found = []
    while not found and time.monotonic() < deadline:
        found = rows(b, "SHOW TRANSACTIONS YIELD transactionId, currentQuery WHERE currentQuery STARTS WITH 'UNWIND' "
                        "RETURN transactionId")
    assert rows(b, "TERMINATE TRANSACTION $ids", {"ids": [found[0][0]]})[0][2] == "Transaction terminated."
    runner.join(10)
    assert not runner.is_alive() and outcome == ["Neo.ClientError.Transaction.Terminated"]


def test_users_end_only_their_own_transactions_unless_admin(db):
    setup = db.session()
    for user, role in (("bob", "reader"), ("carol", "reader"), ("root", "admin")):
        rows(setup, f"CREATE USER {user} SET PASSWORD 'password-{user}-1' CHANGE NOT REQUIRED")
        rows(setup, f"GRANT ROLE {role} TO {user}")
    bob, carol, root = db.session(), db.session(), db.session()
    bob.principal, carol.principal, root.principal = "bob", "carol", "root"
    bob.begin()
    rows(bob, "RETURN 1")
    (tx_id,) = [r[0] for r in rows(root, "SHOW TRANSACTIONS YIELD transactionId, username") if r[1] == "bob"]
    assert rows(carol, "TERMINATE TRANSACTIONS $id", {"id": tx_id})[0][2] == "Transaction not found."
    assert rows(root, "TERMINATE TRANSACTIONS $id", {"id": tx_id})[0][1:] == ("bob", "Transaction terminated.")
    with pytest.raises(Terminated):
        rows(bob, "RETURN 2")
    bob.rollback()
    bob.begin()
    rows(bob, "RETURN 1")
    again = db.session()           # bob's second connection sees and ends bob's own transaction
    again.principal = "bob"
    carol.begin()
    rows(carol, "RETURN 1")
    idle = [r for r in rows(again, "SHOW TRANSACTIONS YIELD transactionId, status, username") if r[1] == "Idle"]
    assert [r[2] for r in idle] == ["bob"]           # carol's is not shown to bob
    assert rows(again, "TERMINATE TRANSACTIONS $id", {"id": idle[0][0]})[0][2] == "Transaction terminated."
    carol.rollback()
    bob.rollback()


def test_bad_ids_are_typed_errors_and_terminate_stays_a_name(db):
    session = db.session()
    with pytest.raises(CypherTypeError, match="transaction ids"):
        rows(session, "TERMINATE TRANSACTIONS 42")
    with pytest.raises(CypherSyntaxError):
        rows(session, "TERMINATE TRANSACTIONS")
    assert rows(session, "WITH 1 AS terminate RETURN terminate") == [(1,)]


def test_show_transactions_has_neo4j_default_columns(db):
    a, b = db.session(), db.session()
    a.begin()
    a.run("CREATE (:Shown)").consume()
    result = b.run("SHOW TRANSACTIONS")
    assert list(result.columns) == ["database", "transactionId", "currentQueryId", "connectionId", "clientAddress",
                                    "username", "currentQuery", "startTime", "status", "elapsedTime"]
    shown = {row[1]: dict(zip(result.columns, row)) for row in result.fetch(100)}
    idle = shown[a.tx_id]
    assert idle["status"] == "Idle" and idle["currentQueryId"] == "" and idle["startTime"] is not None
    assert abs(idle["startTime"].timestamp() - time.time()) < 60
    running = shown[b.tx_id]
    assert running["currentQueryId"].startswith("query-") and running["currentQuery"] == "SHOW TRANSACTIONS"
    a.rollback()
