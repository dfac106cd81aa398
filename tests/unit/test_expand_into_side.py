"""Expand(Into) between two known nodes walks the end with fewer relationships (operators/base.py,
``_into_ends``): random multigraphs (parallel and looping relationships of several types, some deleted
in the same transaction) give the same rows and counts whichever end is walked; and MERGE of a hub's
relationships per row walks the new node's, not the hub's."""
from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from relate.server.query.exec.operators import base
from relate.server.storage.read_tx import ReadTx
from tests.helpers import rows

EDGES = st.lists(st.tuples(st.integers(0, 4), st.integers(0, 4), st.sampled_from(["A", "B"])), max_size=40)
QUERIES = [
    "MATCH (a:N), (b:N) MATCH (a)-[r:A]->(b) RETURN a.i, b.i, r.k",
    "MATCH (a:N), (b:N) MATCH (a)<-[r:A|B]-(b) RETURN a.i, b.i, r.k",
    "MATCH (a:N), (b:N) MATCH (a)-[r]-(b) RETURN a.i, b.i, r.k",
    "MATCH (a:N), (b:N) MATCH (a)-[r:B]-(b) RETURN count(*)",
    "MATCH (a:N), (b:N) MATCH (a)-[r]->(b) RETURN count(*)",
    "MATCH (a:N)-[r1:A]->(b:N) MATCH (a)-[r2]-(b) RETURN a.i, b.i, r1.k, r2.k",
]


def _sorted(values):
    return sorted(values, key=repr)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(edges=EDGES, dropped=st.lists(st.integers(0, 39), max_size=5))
def test_either_end_gives_the_same_rows(db, monkeypatch, edges, dropped):
    session = db.session()
    session.run("MATCH (n) DETACH DELETE n").consume()
    session.run("UNWIND range(0, 4) AS i CREATE (:N {i: i})").consume()
    for k, (a, b, kind) in enumerate(edges):
        session.run(f"MATCH (a:N {{i: $a}}), (b:N {{i: $b}}) CREATE (a)-[:{kind} {{k: $k}}]->(b)",
                    {"a": a, "b": b, "k": k}).consume()
    session.begin()                          # deletions of this transaction: visible to it alone
    session.run("MATCH ()-[r]->() WHERE r.k IN $ks DELETE r", {"ks": dropped}).consume()
    try:
        for query in QUERIES:
            got = []
            for swap_at in (0, 1 << 30):         # every end that is smaller walked, or never
                monkeypatch.setattr(base, "INTO_SWAP_AT", swap_at)
                got.append(_sorted(session.run(query + f" // {swap_at}").fetch(1 << 20)))
            assert got[0] == got[1], (query, edges, dropped)
    finally:
        session.rollback()


def test_merge_from_a_hub_walks_the_new_node(db, monkeypatch):
    """MERGE (hub)-[:HAS]->(n) per row: each row reads n's few relationships, not the hub's thousands."""
    rows(db, "CREATE INDEX FOR (n:N) ON (n.id)")
    rows(db, "CREATE (:Hub {id: 0}) WITH 1 AS one UNWIND range(1, 3000) AS i CREATE (:N {id: i})")
    walked = []
    original = ReadTx.expand

    def counted(self, nid, direction, types=None):
        pairs = list(original(self, nid, direction, types))
        walked.append(len(pairs))
        return iter(pairs)

    monkeypatch.setattr(ReadTx, "expand", counted)
    rows(db, "MATCH (h:Hub) UNWIND range(1, 3000) AS i MATCH (n:N {id: i}) MERGE (h)-[:HAS]->(n)")
    rows(db, "MATCH (h:Hub) UNWIND range(1, 3000) AS i MATCH (n:N {id: i}) MERGE (h)-[:HAS]->(n)")
    assert rows(db, "MATCH (:Hub)-[r:HAS]->(:N) RETURN count(r)") == [(3000,)]
    assert max(walked) <= 64, max(walked)             # the hub has 3,000 by the end
