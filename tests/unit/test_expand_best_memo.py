"""Expand(Best) keeps what a node's expansion kept per (snapshot ts, node) across statements: every
commit (a property set, a relationship added or deleted) is seen by the next statement, and a snapshot
older than the memo still reads its own graph."""
from tests.helpers import rows, run

HEAD = ("MATCH (t:T) OPTIONAL MATCH (t)<-[d:D]-() WITH t, d ORDER BY d.ts DESC "
        "WITH t, head(collect(d.text)) AS latest RETURN t.i AS i, latest ORDER BY i")
PLAIN = ("MATCH (t:T) OPTIONAL MATCH (t)<-[d:D]-() WITH t, d ORDER BY d.ts DESC "
         "WITH t, collect(d.text) AS all RETURN t.i AS i, all[0] AS latest ORDER BY i")


def seed(db):
    run(db, "UNWIND range(1, 4) AS i CREATE (:T {i: i})")
    run(db, "MATCH (t:T) UNWIND range(1, 30) AS j CREATE (t)<-[:D {ts: j * 10 + t.i, text: 't' + toString(t.i) "
            "+ '-' + toString(j)}]-(:N)")


def answers(target) -> list:
    got = rows(target, HEAD)
    assert got == rows(target, PLAIN)
    return got


def test_every_commit_is_seen_by_the_next_statement(db):
    seed(db)
    assert answers(db)[0] == (1, "t1-30")
    assert answers(db)[0] == (1, "t1-30")                 # served by the memo: the same
    run(db, "MATCH (:T {i: 1})<-[d:D {ts: 51}]-() SET d.ts = 1000")
    assert answers(db)[0] == (1, "t1-5")
    run(db, "MATCH (t:T {i: 2}) CREATE (t)<-[:D {ts: 5000, text: 'new'}]-(:N)")
    assert answers(db)[1] == (2, "new")
    run(db, "MATCH (:T {i: 2})<-[d:D {text: 'new'}]-() DELETE d")
    assert answers(db)[1] == (2, "t2-30")
    run(db, "MATCH (:T {i: 3})<-[d:D]-() WHERE d.ts > 250 SET d.text = null")
    assert answers(db)[2] == (3, "t3-24")                  # the first non-null text in ts order
    run(db, "MATCH (:T {i: 4})<-[d:D]-() DELETE d")
    assert answers(db)[3] == (4, None)


def test_an_older_snapshot_reads_its_own_graph(db):
    seed(db)
    old = db.session()
    old.begin()                                             # its snapshot: before the SET below
    try:
        assert answers(old)[0] == (1, "t1-30")
        run(db, "MATCH (:T {i: 1})<-[d:D {ts: 11}]-() SET d.ts = 9999")
        assert answers(db)[0] == (1, "t1-1")                # the memo now belongs to the newer snapshot
        assert answers(old)[0] == (1, "t1-30")
    finally:
        old.rollback()


def test_a_write_transaction_does_not_use_or_fill_the_memo(db):
    seed(db)
    assert answers(db)[0] == (1, "t1-30")
    session = db.session()
    session.begin()
    try:
        run(session, "MATCH (t:T {i: 1}) CREATE (t)<-[:D {ts: 7777, text: 'mine'}]-(:N)")
        assert answers(session)[0] == (1, "mine")
    finally:
        session.rollback()
    assert answers(db)[0] == (1, "t1-30")
