"""Fast paths of the hybrid-recall hop and the anchored 2-hop count give what the plain plans give:
ORDER BY then head(collect(x)) per group (OrderedHeadAggregate), ReadTx.expand_rel_ids (MVCC, labels)."""
import pytest

from relate.server.query.parser import parse
from relate.server.query.planner import logical as L
from relate.server.query.planner import plan_query
from relate.server.storage import GraphStore
from tests.helpers import rows


@pytest.fixture
def db(db):
    session = db.session()
    session.run("UNWIND range(1, 6) AS i CREATE (:T {i: i})").consume()
    session.run("MATCH (t:T) UNWIND range(1, 20) AS j CREATE (t)<-[:D {ts: (j * 7 + t.i * 3) % 11, "
                "text: CASE WHEN j % 5 = 0 THEN null ELSE 'x' + toString(j) END}]-(:N {j: j})").consume()
    session.run("CREATE (:T {i: 99})").consume()
    return db


def logical(db, text):
    tx = db.store.begin_read()
    try:
        return plan_query(parse(text).body, tx, db.procedures).logical
    finally:
        tx.close()


HEAD = ("MATCH (t:T) OPTIONAL MATCH (t)<-[d:D]-() WITH t, d ORDER BY {order} "
        "WITH {group} head(collect({x})) AS y RETURN {ret} y")
PLAIN = ("MATCH (t:T) OPTIONAL MATCH (t)<-[d:D]-() WITH t, d ORDER BY {order} "
         "WITH {group} collect({x}) AS ys RETURN {ret} ys[0] AS y")


@pytest.mark.parametrize("order", ["d.ts DESC", "d.ts", "d.ts DESC, d.text", "d.ts, d.text DESC", "d.text"])
@pytest.mark.parametrize("group,ret", [("t,", "t.i,"), ("t.i % 2 AS g,", "g,"), ("", "")])
@pytest.mark.parametrize("x", ["d.text", "d.ts", "d"])
def test_head_of_ordered_collect_matches_the_full_collect(db, order, group, ret, x):
    fmt = dict(order=order, group=group, ret=ret, x=x)
    got, want = rows(db, HEAD.format(**fmt)), rows(db, PLAIN.format(**fmt))
    assert got == want                     # the same rows in the same order


def test_head_of_ordered_collect_plans_no_sort(db):
    plan = logical(db, HEAD.format(order="d.ts DESC", group="t,", ret="t.i,", x="d.text"))
    ops = list(L.walk(plan))
    assert not any(isinstance(op, L.Sort) for op in ops)
    assert any(isinstance(op, L.Aggregate) and op.order is not None for op in ops)


@pytest.mark.parametrize("text", [
    "WITH t, d ORDER BY d.ts WITH t, collect(d.text) AS c RETURN t, head(c) AS h, size(c) AS s",
    "WITH t, d ORDER BY d.ts WITH t, head(collect(d.text)) AS h, count(d) AS n RETURN t, h, n",
    "WITH t, d ORDER BY d.ts WITH t, last(collect(d.text)) AS h RETURN t, h",
    "WITH t, d ORDER BY d.ts WITH t, head(collect(DISTINCT d.text)) AS h RETURN t, h",
    "WITH t, d ORDER BY d.ts WITH t, collect(d.text) AS c WHERE size(c) > 1 RETURN t, head(c) AS h",
])
def test_other_aggregations_keep_the_sort(db, text):
    plan = logical(db, "MATCH (t:T) OPTIONAL MATCH (t)<-[d:D]-() " + text)
    assert not any(isinstance(op, L.Aggregate) and op.order is not None for op in L.walk(plan))


def test_head_of_ordered_collect_over_no_rows(db):
    assert rows(db, "MATCH (t:T) WHERE t.i > 1000 WITH t ORDER BY t.i WITH head(collect(t.i)) AS y RETURN y") \
        == [(None,)]
    assert rows(db, "MATCH (t:T) WHERE t.i > 1000 WITH t ORDER BY t.i WITH t, head(collect(t.i)) AS y "
                    "RETURN y") == []


COUNTS = [
    "MATCH (a:N {j: 3})-[:D]->(t:T)<-[:D]-(m:N) RETURN count(*) AS c",
    "MATCH (a:N {j: 3})-[:D]->(t:T)<-[:D]-(m) RETURN count(*) AS c",
    "MATCH (a:N {j: 3})-[:D]->(t:T)<-[:D]-(m:N&!X) RETURN count(*) AS c",
    "MATCH (a:N {j: 3})-[:D]->(t:T)<-[:D]-(m:X) RETURN count(*) AS c",
    "MATCH (t:T)<-[:D]-(m:N) RETURN count(*) AS c",
    "MATCH (t:T)-[:D]-(m:N) RETURN count(*) AS c",
]


@pytest.mark.parametrize("text", COUNTS)
def test_counts_match_walked_rows(db, text):
    walked = text.replace("count(*) AS c", "sum(1) AS c")
    assert rows(db, text) == rows(db, walked)
    session = db.session()
    session.run("MATCH (m:N {j: 5}) SET m:X REMOVE m:N").consume()      # label changes seen by new snapshots
    assert rows(db, text) == rows(db, walked)
    session.begin()                                                        # a write tx sees its own writes
    try:
        session.run("MATCH (m:N {j: 7}) SET m:X REMOVE m:N").consume()
        session.run("MATCH (t:T {i: 1}) CREATE (t)<-[:D {ts: 1}]-(:N {j: 3})").consume()
        assert rows(session, text) == rows(session, walked)
    finally:
        session.rollback()


def test_expand_rel_ids_respects_snapshots():
    store = GraphStore.open(None)
    try:
        tx = store.begin_write()
        hub = tx.create_node(["T"], {})
        far = [tx.create_node(["N"] if i % 2 else ["M"], {"i": i}) for i in range(8)]
        rels = [tx.create_rel("R", n, hub, {}) for n in far]
        tx.commit()
        old = store.begin_read()
        tx = store.begin_write()
        tx.remove_labels(far[1], ["N"])
        tx.add_labels(far[2], ["N"])
        tx.delete_rel(rels[3])
        tx.create_rel("R", far[4], hub, {})
        tx.commit()
        new = store.begin_read()

        def reference(r, label):
            return sorted(rid for rid, other in r.expand(hub, "in", ("R",)) if label in r.node_labels(other))

        for r in (old, new):
            for label in ("N", "M"):
                assert sorted(r.expand_rel_ids(hub, "in", ("R",), None, label)) == reference(r, label)
                assert sorted(r.expand_rel_ids(hub, "in", ("R",), lambda ls, l=label: l in ls)) \
                    == reference(r, label)
            assert sorted(r.expand_rel_ids(hub, "in", ("R",))) == sorted(rid for rid, _ in r.expand(hub, "in", ("R",)))
        assert reference(old, "N") != reference(new, "N")
        old.close()
        new.close()
    finally:
        store.close()
