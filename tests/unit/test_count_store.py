"""``MATCH (n:L) RETURN count(n)`` and ``MATCH ()-[r:T]->() RETURN count(r)`` answer from the store's
counts (Neo4j's count store): random writes (labels added and removed, nodes and relationships deleted,
failed statements, explicit transactions committed and rolled back) must leave them equal to a scan,
inside a writing transaction too (its own writes counted), and on a snapshot held across writes."""
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

WRITES = [
    "UNWIND range(1, $k) AS i CREATE (:A {i: i})",
    "UNWIND range(1, $k) AS i CREATE (:A:B {i: i})",
    "UNWIND range(1, $k) AS i CREATE ({i: i})",
    "MATCH (n:A) WITH n LIMIT $k SET n:B",
    "MATCH (n:B) WITH n LIMIT $k REMOVE n:B",
    "MATCH (n) WITH n LIMIT $k SET n:A",
    "MATCH (a:A), (b) WITH a, b LIMIT $k CREATE (a)-[:R]->(b)",
    "MATCH (a:B), (b:A) WITH a, b LIMIT $k CREATE (a)-[:S]->(b), (b)-[:R]->(b)",
    "MATCH ()-[r:R]->() WITH r LIMIT $k DELETE r",
    "MATCH (n:B) WITH n LIMIT $k DETACH DELETE n",
    "MATCH (n) WITH n LIMIT $k DETACH DELETE n",
    "MATCH (n:A) WITH n LIMIT $k CREATE (n)-[:R]->(:A) WITH n RETURN 1 / 0",        # fails: undone
]
COUNTS = [("MATCH (n:A) RETURN count(n)", "MATCH (n:A) RETURN sum(1)"),
          ("MATCH (n:B) RETURN count(*)", "MATCH (n:B) RETURN sum(1)"),
          ("MATCH (n) RETURN count(n)", "MATCH (n) RETURN sum(1)"),
          ("MATCH ()-[r:R]->() RETURN count(r)", "MATCH ()-[r:R]->() RETURN sum(1)"),
          ("MATCH ()<-[r:R|S]-() RETURN count(*)", "MATCH ()<-[r:R|S]-() RETURN sum(1)"),
          ("MATCH (a)-[r:S]->(b) RETURN count(r)", "MATCH (a)-[r:S]->(b) RETURN sum(1)")]


def counted(run) -> list:
    """Each count statement beside its scanning twin (sum(1) over no rows is 0 too)."""
    return [(run(fast), run(slow)) for fast, slow in COUNTS]


def check(run) -> None:
    for fast, slow in counted(run):
        assert fast == slow


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=st.lists(st.tuples(st.integers(0, len(WRITES) - 1), st.integers(1, 4),
                                st.sampled_from(["auto", "explicit", "rollback"])), min_size=1, max_size=12))
def test_counts_from_the_store_equal_a_scan(db, steps):
    session = db.session()
    session.run("MATCH (n) DETACH DELETE n").consume()

    def run_in(s):
        return lambda text: s.run(text).fetch(1)[0][0]

    held = db.session()
    held.begin()                                 # a snapshot from the start, read again at the end
    try:
        before = counted(run_in(held))
        for index, k, mode in steps:
            if mode != "auto":
                session.begin()
            try:
                session.run(WRITES[index], {"k": k}).consume()
            except Exception:       # the failing write (and only it) raises
                assert index == len(WRITES) - 1
                if session._explicit is not None:
                    session.rollback()
                check(run_in(session))
                continue
            if mode != "auto":
                check(run_in(session))           # the writing transaction counts its own writes
                session.commit() if mode == "explicit" else session.rollback()
            check(run_in(session))
        assert counted(run_in(held)) == before
    finally:                        # a failed example must not leave the writer's lock taken
        if session._explicit is not None:
            session.rollback()
        held.rollback()
