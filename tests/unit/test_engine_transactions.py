"""Explicit transactions read from a snapshot and take the writer lock at their first write."""
import threading

import pytest

import relate
from relate.errors import TransientError

OUTDATED = "Neo.TransientError.Transaction.Outdated"


@pytest.fixture
def db(db):
    db.session().run("CREATE (:C {n: 0})").consume()
    return db


def value(session):
    return session.run("MATCH (c:C) RETURN c.n").fetch(1)[0][0]


def in_thread(fn, timeout=5.0):
    """Run ``fn`` in another thread; fail (instead of hanging) if it does not finish in time."""
    errors = []

    def target():
        try:
            fn()
        except BaseException as exc:          # pragma: no cover - reported below
            errors.append(exc)
    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(timeout)
    assert not thread.is_alive(), "blocked: another transaction holds the writer lock"
    if errors:
        raise errors[0]


def test_a_reading_transaction_does_not_block_writers(db):
    reader, writer = db.session(), db.session()
    reader.begin()
    assert value(reader) == 0

    def write():
        writer.begin()
        writer.run("MATCH (c:C) SET c.n = 1").consume()
        writer.commit()
    in_thread(write)
    assert value(reader) == 0                  # its snapshot
    reader.commit()
    assert value(reader) == 1
    db.store.begin_write(timeout=1).rollback()


def test_transactions_begin_while_another_one_writes(db):
    writer, reader = db.session(), db.session()
    writer.begin()
    writer.run("MATCH (c:C) SET c.n = 5").consume()

    def read():
        reader.begin()
        assert value(reader) == 0
        reader.commit()
    in_thread(read)
    writer.commit()
    assert value(reader) == 5


def test_a_write_after_a_concurrent_commit_fails_retryably_and_leaves_nothing(db):
    session, other = db.session(), db.session()
    session.begin()
    assert value(session) == 0
    in_thread(lambda: other.run("MATCH (c:C) SET c.n = 1").consume())
    with pytest.raises(TransientError) as info:
        session.run("MATCH (c:C) SET c.n = 100").consume()
    assert info.value.code == OUTDATED and info.value.retryable
    assert session.in_transaction
    with pytest.raises(TransientError):        # the transaction is over until rolled back
        session.run("RETURN 1").fetch(1)
    with pytest.raises(TransientError):
        session.commit()
    assert not session.in_transaction
    assert value(session) == 1
    db.store.begin_write(timeout=1).rollback()    # the writer lock was released


def test_rollback_clears_an_outdated_transaction(db):
    session, other = db.session(), db.session()
    session.begin()
    value(session)
    in_thread(lambda: other.run("CREATE (:D)").consume())
    with pytest.raises(TransientError):
        session.run("CREATE (:D)").consume()
    session.rollback()
    session.begin()
    session.run("CREATE (:D)").consume()
    session.commit()
    assert session.run("MATCH (d:D) RETURN count(d)").fetch(1) == [(2,)]


def test_a_first_write_takes_the_newest_state(db):
    session, other = db.session(), db.session()
    session.begin()
    in_thread(lambda: other.run("MATCH (c:C) SET c.n = 7").consume())    # nothing read yet: nothing is stale
    session.run("MATCH (c:C) SET c.n = c.n + 1").consume()
    assert value(session) == 8
    session.commit()
    assert value(other) == 8


def test_read_then_write_without_a_concurrent_commit(db):
    session = db.session()
    session.begin()
    assert value(session) == 0
    session.run("MATCH (c:C) SET c.n = c.n + 1").consume()
    session.run("CREATE INDEX c_n FOR (c:C) ON (c.n)").consume()
    assert value(session) == 1
    assert session.commit() == db.store.last_commit_ts
    assert value(db.session()) == 1


def test_a_read_only_transaction_commits_without_writing(db):
    session = db.session()
    before = db.store.last_commit_ts
    session.begin()
    value(session)
    assert session.commit() == before
    assert db.store.last_commit_ts == before


def test_execute_write_retries_an_outdated_transaction():
    conn = relate.connect(":memory:")
    other = conn._owner.session()
    conn.execute("CREATE (:C {n: 0})").consume()
    attempts = []

    def increment(tx):
        n = tx.execute("MATCH (c:C) RETURN c.n AS n").fetchone()["n"]
        attempts.append(n)
        if len(attempts) == 1:      # someone else increments between our read and our write
            in_thread(lambda: other.run("MATCH (c:C) SET c.n = c.n + 1").consume())
        tx.execute("MATCH (c:C) SET c.n = $n", n=n + 1).consume()
        return n + 1

    assert conn.execute_write(increment) == 2
    assert attempts == [0, 1]                  # no lost update
    assert conn.execute("MATCH (c:C) RETURN c.n").fetchone()[0] == 2
    conn.close()
