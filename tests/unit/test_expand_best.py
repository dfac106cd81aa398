"""Expand(Best) (planner/best_per_row.py): an ORDER BY over relationship properties feeding
head(collect(r.x)) per group keeps only the relationships that can come first, and answers as the full
sort + collect does: ties, nulls, mixed types, several keys and aggregates, end labels, uniqueness."""
import pytest

from relate.server.query.parser import parse
from relate.server.query.planner import logical as L
from relate.server.query.planner import plan_query
from tests.helpers import rows


@pytest.fixture
def db(db):
    session = db.session()
    session.run("UNWIND range(1, 6) AS i CREATE (:T {i: i})").consume()
    # ts: ints with ties, some null; text: some null; w: ints, floats, strings and null mixed
    session.run("MATCH (t:T) UNWIND range(1, 24) AS j "
                "CREATE (t)<-[:D {ts: CASE WHEN j % 7 = 0 THEN null ELSE (j * 5 + t.i * 3) % 9 END, "
                "text: CASE WHEN j % 4 = 0 THEN null ELSE 'x' + toString(j) END, "
                "w: CASE j % 5 WHEN 0 THEN 'a' + toString(j % 3) WHEN 1 THEN toFloat(j % 4) / 2 "
                "WHEN 2 THEN null ELSE j % 4 END}]-(:N:M {j: j})").consume()
    session.run("MATCH (t:T {i: 2}) CREATE (t)<-[:D {ts: 100, text: 'other'}]-(:X)").consume()
    session.run("CREATE (:T {i: 99})").consume()
    return db


def logical(db, text):
    tx = db.store.begin_read()
    try:
        return plan_query(parse(text).body, tx, db.procedures).logical
    finally:
        tx.close()


def explain(db, text) -> list[str]:
    plan = db.session().run("EXPLAIN " + text).consume().plan

    def walk(p):
        yield f"{p['operator']} {p['details']}"
        for child in p.get("children", []):
            yield from walk(child)
    return list(walk(plan))


HEAD = "MATCH (t:T) {match} WITH t, d ORDER BY {order} WITH t, {heads} RETURN t.i AS i, {outs} ORDER BY i"
PLAIN = "MATCH (t:T) {match} WITH t, d ORDER BY {order} WITH t, {colls} RETURN t.i AS i, {firsts} ORDER BY i"


def pair(match, order, xs):
    heads = ", ".join(f"head(collect({x})) AS y{k}" for k, x in enumerate(xs))
    colls = ", ".join(f"collect({x}) AS c{k}" for k, x in enumerate(xs))
    outs = ", ".join(f"y{k}" for k in range(len(xs)))
    firsts = ", ".join(f"c{k}[0] AS y{k}" for k in range(len(xs)))
    return (HEAD.format(match=match, order=order, heads=heads, outs=outs),
            PLAIN.format(match=match, order=order, colls=colls, firsts=firsts))


MATCHES = ["OPTIONAL MATCH (t)<-[d:D]-()", "MATCH (t)<-[d:D]-()", "OPTIONAL MATCH (t)<-[d:D]-(:N)",
           "OPTIONAL MATCH (t)-[d:D]-(m)"]


@pytest.mark.parametrize("match", MATCHES)
@pytest.mark.parametrize("order", ["d.ts DESC", "d.ts", "d.w DESC", "d.w", "d.ts DESC, d.w",
                                   "d.ts, d.w DESC", "d.w DESC, d.text DESC"])
@pytest.mark.parametrize("xs", [["d.text"], ["d.w"], ["d.text", "d.w", "d.ts"]])
def test_best_rows_answer_as_the_full_sort(db, match, order, xs):
    head, plain = pair(match, order, xs)
    assert any(line.startswith("Expand(Best)") for line in explain(db, head))
    assert rows(db, head) == rows(db, plain)


def test_explain_names_the_keys(db):
    head, _ = pair("OPTIONAL MATCH (t)<-[d:D]-()", "d.ts DESC", ["d.text"])
    assert any(line.startswith("Expand(Best) (t)<-[d:D]-(") and line.endswith(" first by d.ts DESC")
               for line in explain(db, head))


def test_relationship_uniqueness_is_kept(db):
    # one MATCH: d must differ from e, and e is often the best relationship of its row
    text = ("MATCH (t:T)<-[e:D]-(n:N), (t)<-[d:D]-() WHERE n.j <= 3 WITH t, e, d ORDER BY d.ts DESC "
            "WITH t, e, {agg} RETURN t.i AS i, e.ts AS ets, y ORDER BY i, ets, y")
    head = text.format(agg="head(collect(d.text)) AS y")
    plain = text.format(agg="collect(d.text) AS c").replace(", y ORDER BY", ", c[0] AS y ORDER BY")
    assert any(line.startswith("Expand(Best)") for line in explain(db, head))
    assert rows(db, head) == rows(db, plain)
    assert len(rows(db, head)) == 18


def test_a_write_transaction_sees_its_own_writes(db):
    head, plain = pair("OPTIONAL MATCH (t)<-[d:D]-()", "d.ts", ["d.text"])      # nulls last
    session = db.session()
    session.begin()
    try:
        session.run("MATCH (t:T {i: 3}) CREATE (t)<-[:D {ts: -1, text: 'newest'}]-(:N)").consume()
        got = rows(session, head)
        assert (3, "newest") in got
        assert got == rows(session, plain)
    finally:
        session.rollback()
    assert (3, "newest") not in rows(db, head)


@pytest.mark.parametrize("text", [
    # the grouping reads the relationship or the far node: every relationship is its own group
    "MATCH (t:T) OPTIONAL MATCH (t)<-[d:D]-(m) WITH t, m, d ORDER BY d.ts WITH t, m, head(collect(d.text)) AS y RETURN y",
    # a key that is not a property of the relationship
    "MATCH (t:T) OPTIONAL MATCH (t)<-[d:D]-(m) WITH t, m, d ORDER BY m.j WITH t, head(collect(d.text)) AS y RETURN y",
    "MATCH (t:T) OPTIONAL MATCH (t)<-[d:D]-() WITH t, d ORDER BY d.ts + 1 WITH t, head(collect(d.text)) AS y RETURN y",
    # a collected value that is not a property of the relationship
    "MATCH (t:T) OPTIONAL MATCH (t)<-[d:D]-(m) WITH t, m, d ORDER BY d.ts WITH t, head(collect(m.j)) AS y RETURN y",
    "MATCH (t:T) OPTIONAL MATCH (t)<-[d:D]-() WITH t, d ORDER BY d.ts WITH t, head(collect(d)) AS y RETURN y",
    # variable length
    "MATCH (t:T) OPTIONAL MATCH (t)<-[d:D*1..1]-() WITH t, d ORDER BY size(d) WITH t, head(collect(d)) AS y RETURN y",
])
def test_other_shapes_expand_every_relationship(db, text):
    plan = logical(db, text)
    assert not any(isinstance(op, L.Expand) and op.best is not None for op in L.walk(plan))


def test_expand_props_reads_the_snapshot():
    from relate.server.storage import GraphStore
    store = GraphStore.open(None)
    try:
        with store.begin_write() as w:
            t = w.create_node(["T"], {})
            rids = [w.create_rel("D", w.create_node(["N"], {}), t, {"ts": i}) for i in range(3)]
        before = store.begin_read()
        with store.begin_write() as w:
            w.set_rel_prop(rids[0], "ts", 100)
            w.delete_rel(rids[1])
            added = w.create_rel("D", w.create_node(["N"], {}), t, {"ts": 7})
        after = store.begin_read()
        assert [(rid, props["ts"]) for rid, _, props in before.expand_props(t, "in", ("D",))] == \
            [(rids[0], 0), (rids[1], 1), (rids[2], 2)]
        assert [(rid, props["ts"]) for rid, _, props in after.expand_props(t, "in", ("D",))] == \
            [(rids[0], 100), (rids[2], 2), (added, 7)]
        # the general path (several types, or a write transaction) gives the same
        assert after.expand_props(t, "in", ("D", "X")) == after.expand_props(t, "in", ("D",))
        before.close()
        after.close()
    finally:
        store.close()
