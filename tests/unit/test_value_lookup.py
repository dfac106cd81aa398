"""A scan for a key's value repeated per row (of a label, of every node, of a relationship type) builds
a transient hash index for the statement (storage/value_lookup.py): random statements that read and
write the same key (MERGE, MATCH, SET of the key, labels added and removed, relationships created,
deletes, batches committed apart) give the same rows and leave the same graph with the index built at
once as with plain scans."""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from relate.server.engine import Database
from relate.server.query.exec.operators import base
from tests.helpers import rows

KEYS = st.one_of(st.integers(0, 4), st.sampled_from([1.0, 2.5, True, False, "1", "a", "A", None, float("nan")]))
STATEMENTS = [
    "UNWIND $xs AS x MERGE (n:P {v: x}) ON CREATE SET n.c = 1 ON MATCH SET n.m = coalesce(n.m, 0) + 1 "
    "RETURN n.v, n.c, n.m",
    "UNWIND $xs AS x MATCH (n:P {v: x}) SET n.v = $y RETURN x, n.v",
    "UNWIND $xs AS x MATCH (n:P {v: x}) REMOVE n:P SET n:Q RETURN x",
    "UNWIND $xs AS x MATCH (n:Q {v: x}) SET n:P RETURN x",
    "UNWIND $xs AS x MATCH (n:P {v: x}) DETACH DELETE n RETURN x",
    "UNWIND $xs AS x MERGE (a:P {v: x}) MERGE (b:P {v: $y}) MERGE (a)-[:R]->(b) RETURN a.v, b.v",
    "UNWIND $xs AS x MATCH (n:P) WHERE n.v IN [x, $y] RETURN x, n.v",
    "UNWIND $xs AS x CREATE (:P {v: x}) WITH x MATCH (n:P {v: x}) RETURN x, count(n)",
    "UNWIND $xs AS x MATCH (n:P {v: x}) REMOVE n.v RETURN x",
    "UNWIND $xs AS x CALL { WITH x MERGE (n:P {v: x}) SET n.v = $y } IN TRANSACTIONS OF 2 ROWS "
    "WITH x MATCH (n:P {v: x}) RETURN x, count(n)",
    "UNWIND $xs AS x MATCH (a:P {v: x}), (b:P {v: $y}) CREATE (a)-[:R]->(b) RETURN x",
    # MERGE reads its own writes row by row (no Eager): the lookup must follow them
    "UNWIND $xs AS x MERGE (n:P {v: x}) ON MATCH SET n.v = $y RETURN x, n.v",
    "UNWIND $xs AS x MERGE (n:P {v: x}) WITH x, n REMOVE n:P RETURN x",
    "UNWIND $xs AS x MERGE (n:Q {v: x}) SET n:P WITH x MERGE (m:P {v: $y}) RETURN x, m.v",
    "UNWIND $xs AS x MERGE (n:P {v: x}) WITH x, n DETACH DELETE n RETURN x",
    "UNWIND $xs AS x MERGE (n:P {v: x}) ON CREATE SET n.v = $y RETURN x, n.v",
    # every node (no label), and a relationship type's relationships
    "UNWIND $xs AS x MATCH (n {v: x}) RETURN x, labels(n)",
    "UNWIND $xs AS x MERGE (n:P {v: x}) WITH x MATCH (m {v: x}) RETURN x, count(m)",
    "UNWIND $xs AS x MATCH ()-[r:R {v: x}]->() RETURN x, r.v",
    "UNWIND $xs AS x MATCH (a:P {v: x}) CREATE (a)-[:R {v: x}]->(a) WITH x MATCH ()-[r:R {v: x}]->() "
    "RETURN x, count(r)",
    "UNWIND $xs AS x MATCH ()-[r:R {v: x}]->() SET r.v = $y RETURN x",
    "UNWIND $xs AS x MATCH (a:P)-[r:R {v: x}]-(b) RETURN x, a.v, b.v",
    "UNWIND $xs AS x MERGE (n {v: x}) ON MATCH SET n.m = coalesce(n.m, 0) + 1 RETURN x, n.m",
    "UNWIND $xs AS x MERGE (:P)-[r:R {v: x}]->(:Q) ON MATCH SET r.m = coalesce(r.m, 0) + 1 RETURN x, r.m",
    "UNWIND $xs AS x MERGE ()-[r:R {v: x}]->() ON MATCH SET r.v = $y RETURN x, r.v",
    # toLower/toUpper of the key (entity resolution by a normalised name); a key that is not a string
    # makes the filter raise, with the lookup as without it
    "UNWIND $xs AS x MATCH (n:P) WHERE toLower(n.v) = x RETURN x, n.v",
    "UNWIND $xs AS x MATCH (n:P) WHERE toUpper(n.v) IN [x, 'A'] RETURN x, n.v",
    "UNWIND $xs AS x MATCH (n:Q) WHERE toLower(n.v) = toLower(toString(x)) RETURN x, n.v",
    "MATCH (a:Q), (b:Q) WHERE toLower(a.v) = toLower(b.v) AND id(a) < id(b) RETURN a.v, b.v",
    # several equalities: the lookup is keyed by all of them
    "UNWIND $xs AS x MERGE (n:P {w: 1, v: x}) ON CREATE SET n.c = 1 RETURN x, n.v, n.w, n.c",
    "UNWIND $xs AS x MATCH (n:P) WHERE n.w = $y AND n.v = x RETURN x, n.v",
    "UNWIND $xs AS x MERGE (n:P {v: x, w: $y}) ON MATCH SET n.w = x RETURN x, n.v, n.w",
    "UNWIND $xs AS x MERGE ()-[r:R {w: x, v: $y}]->() ON MATCH SET r.v = x RETURN x, r.v, r.w",
]


def _canonical(values) -> list:
    """Rows (or a graph dump) sorted; NaN made comparable."""
    def key(v):
        return "NaN" if isinstance(v, float) and v != v else v
    return sorted((tuple(map(key, row)) for row in values), key=repr)


def _graph(db) -> list:
    return _canonical(rows(db, "MATCH (n) OPTIONAL MATCH (n)-[r]->(m) "
                               "RETURN id(n), labels(n), properties(n), type(r), properties(r), id(m)"))


def _run(db, text: str, params: dict, after: int, least: int, monkeypatch) -> object:
    monkeypatch.setattr(base, "LOOKUP_AFTER", after)
    monkeypatch.setattr(base, "LOOKUP_MIN", least)
    try:
        return _canonical(rows(db, text, params))
    except Exception as exc:                         # the same error both ways
        return type(exc).__name__


def _at(statement: str) -> int:
    return next(i for i, text in enumerate(STATEMENTS) if text.startswith(statement))


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
# each kind of change a later row must see: a node or relationship created, a key set, a label added
@example(steps=[(_at("UNWIND $xs AS x MERGE ()-[r:R {v: x}]->() ON MATCH SET r.v"), [0, 0, 0], 1)], seed=[])
@example(steps=[(_at("UNWIND $xs AS x MERGE ()-[r:R {v: x}]->() ON MATCH SET r.v"), [0, 1, 1], 1)], seed=[0])
@example(steps=[(_at("UNWIND $xs AS x MERGE (n {v: x}) ON MATCH"), [2, 2, 2], 0)], seed=[1])
@example(steps=[(_at("UNWIND $xs AS x MERGE (n:P {v: x}) ON MATCH SET n.v = $y"), [0, 1, 1], 1)], seed=[0])
@example(steps=[(_at("UNWIND $xs AS x MERGE (n:Q {v: x}) SET n:P WITH x MERGE (m:P"), [3, 4], 4)], seed=[])
@example(steps=[(_at("UNWIND $xs AS x MATCH (n:P) WHERE toLower(n.v) = x"), ["a", "a", "a"], 0)], seed=["A", 1, "a"])
@example(steps=[(_at("MATCH (a:Q), (b:Q) WHERE toLower(a.v)"), [], 0)], seed=["A", "a", "b", "B", "a"])
@example(steps=[(_at("UNWIND $xs AS x MERGE (n:P {v: x, w: $y}) ON MATCH SET n.w"), [1, 1, 2, 2, 1], 1)], seed=[1, 2])
@given(steps=st.lists(st.tuples(st.sampled_from(range(len(STATEMENTS))), st.lists(KEYS, max_size=6), KEYS),
                      min_size=1, max_size=8),
       seed=st.lists(KEYS, max_size=8))
def test_lookup_agrees_with_scans(monkeypatch, steps, seed):
    looked, scanned = Database.open(None), Database.open(None)
    try:
        for db in (looked, scanned):
            rows(db, "UNWIND $vs AS v CREATE (p:P {v: v, w: 1}), (:Q {v: v}) CREATE (p)-[:R {v: v, w: v}]->(p)",
                 {"vs": seed})
        for which, xs, y in steps:
            text, params = STATEMENTS[which], {"xs": xs, "y": y}
            with_lookup = _run(looked, text, params, 1, 0, monkeypatch)
            with_scans = _run(scanned, text, params, 1 << 30, 0, monkeypatch)
            assert with_lookup == with_scans, (text, params)
            assert _graph(looked) == _graph(scanned), (text, params)
    finally:
        looked.close()
        scanned.close()


def test_lookup_in_an_explicit_transaction_sees_its_own_writes(db, monkeypatch):
    """Statements of one transaction: each builds its own lookup from the transaction's view."""
    monkeypatch.setattr(base, "LOOKUP_AFTER", 1)
    monkeypatch.setattr(base, "LOOKUP_MIN", 0)
    session = db.session()
    session.begin()
    session.run("UNWIND range(1, 50) AS i CREATE (:P {v: i})").consume()
    assert session.run("UNWIND range(1, 60) AS i MATCH (n:P {v: i}) RETURN count(n)").fetch(10) == [(50,)]
    session.run("UNWIND range(1, 60) AS i MERGE (n:P {v: i})").consume()
    session.run("MATCH (n:P {v: 3}) SET n.v = 300").consume()
    assert session.run("UNWIND [3, 300] AS i MATCH (n:P {v: i}) RETURN i, count(n)").fetch(10) == [(300, 1)]
    session.rollback()
    assert rows(db, "MATCH (n:P) RETURN count(n)") == [(0,)]


def test_repeated_merge_scans_the_label_a_few_times_not_per_row(db, monkeypatch):
    """The point of it: MERGE per row on an unindexed key stops scanning the label after a few rows
    (one scan per row made loading n rows cost n x nodes)."""
    from relate.server.storage.read_tx import ReadTx
    scans = []
    original = ReadTx.nodes_by_label_and_values

    def counted(self, *args):
        scans.append(args[0])
        return original(self, *args)

    monkeypatch.setattr(ReadTx, "nodes_by_label_and_values", counted)
    rows(db, "UNWIND range(1, 2000) AS i CREATE (:P {v: i})")
    rows(db, "UNWIND range(1, 4000) AS i MERGE (:P {v: i})")
    assert rows(db, "MATCH (n:P) RETURN count(n)") == [(4000,)]
    assert len(scans) == base.LOOKUP_AFTER - 1
    scans.clear()
    rows(db, "UNWIND range(1, 4000) AS i MATCH (a:P {v: i}), (b:P {v: 4001 - i}) CREATE (a)-[:R]->(b)")
    assert rows(db, "MATCH (:P)-[r:R]->(:P) RETURN count(r)") == [(4000,)]
    assert len(scans) <= 2 * (base.LOOKUP_AFTER - 1)


@pytest.mark.parametrize("text", [
    "UNWIND range(1, 300) AS i MERGE (n:P {v: i % 150}) RETURN count(*)",
    "UNWIND range(1, 300) AS i MATCH (n:P {v: i % 150}) RETURN count(*)",
])
def test_lookup_counts_match_scans(db, monkeypatch, text):
    rows(db, "UNWIND range(0, 149) AS i CREATE (:P {v: i}), (:P {v: toFloat(i)})")
    monkeypatch.setattr(base, "LOOKUP_AFTER", 1 << 30)
    scanned = rows(db, text)
    rows(db, "MATCH (n) DETACH DELETE n")
    rows(db, "UNWIND range(0, 149) AS i CREATE (:P {v: i}), (:P {v: toFloat(i)})")
    monkeypatch.setattr(base, "LOOKUP_AFTER", 1)
    monkeypatch.setattr(base, "LOOKUP_MIN", 0)
    assert rows(db, text) == scanned == [(600,)]


def test_lookup_follows_each_kind_of_change_in_its_transaction(db):
    """The store's side alone (a statement's plan puts an Eager before most reads of its own writes):
    after the map is built, a node created, a label added, a key set or removed, a relationship created
    or changed, and a deletion are all seen by the next lookup, and a rolled-back savepoint too."""
    def no_tick():
        pass

    tx = db.store.begin_write()
    try:
        a = tx.create_node(["P"], {"v": 1})
        b = tx.create_node(["Q"], {"v": 2})
        r = tx.create_rel("R", a, b, {"v": 1})
        nodes = tx.value_lookup("node", "P", ("v",), no_tick)
        everything = tx.value_lookup("node", None, ("v",), no_tick)
        rels = tx.value_lookup("relationship", "R", ("v",), no_tick)
        assert nodes.find(tx, frozenset([1]), no_tick) == [a]
        assert nodes.find(tx, frozenset([2]), no_tick) == []
        tx.add_labels(b, ["P"])
        assert nodes.find(tx, frozenset([2]), no_tick) == [b]
        c = tx.create_node(["P"], {"v": 2.0})
        assert nodes.find(tx, frozenset([2]), no_tick) == [b, c]
        tx.set_node_prop(b, "v", 3)
        assert nodes.find(tx, frozenset([2]), no_tick) == [c]
        assert nodes.find(tx, frozenset([3, 1]), no_tick) == [a, b]
        assert everything.find(tx, frozenset([3]), no_tick) == [b]
        tx.remove_labels(b, ["P"])
        assert nodes.find(tx, frozenset([3]), no_tick) == []
        assert everything.find(tx, frozenset([3]), no_tick) == [b]
        mark = tx.savepoint()
        tx.set_node_prop(a, "v", 5)
        nodes = tx.value_lookup("node", "P", ("v",), no_tick)      # built with a at 5 only
        assert nodes.find(tx, frozenset([5]), no_tick) == [a]
        tx.rollback_to(mark)                          # a returns to 1, never filed there: rebuilt
        assert nodes.find(tx, frozenset([5]), no_tick) == []
        assert nodes.find(tx, frozenset([1]), no_tick) == [a]
        pairs = tx.value_lookup("node", "P", ("v", "w"), no_tick)   # several keys: their values' tuple
        assert pairs.find(tx, frozenset([(1, "x")]), no_tick) == []
        tx.set_node_prop(a, "w", "x")                   # the second key set after the build
        assert pairs.find(tx, frozenset([(1, "x")]), no_tick) == [a]
        assert pairs.find(tx, frozenset([(1.0, "x"), (2, "x")]), no_tick) == [a]
        tx.set_node_prop(a, "w", None)
        assert pairs.find(tx, frozenset([(1, "x")]), no_tick) == []
        s = tx.create_rel("R", b, a, {"v": 1})
        assert rels.find(tx, frozenset([1]), no_tick) == [r, s]
        tx.set_rel_prop(r, "v", "x")
        assert rels.find(tx, frozenset(["x"]), no_tick) == [r]
        tx.delete_rel(s)
        assert rels.find(tx, frozenset([1]), no_tick) == []
        tx.delete_rel(r)
        tx.delete_node(a)
        assert nodes.find(tx, frozenset([1]), no_tick) == []
        assert everything.find(tx, frozenset([1]), no_tick) == []
    finally:
        tx.rollback()


def test_a_committed_batch_keeps_the_lookup(db, monkeypatch):
    """CALL { ... } IN TRANSACTIONS commits batch by batch on one transaction: the lookup reads the
    committed batch's log to its end and goes on with the next, without building again."""
    from relate.server.storage.value_lookup import ValueLookup
    builds = []
    original = ValueLookup._build

    def counted(self, tx, tick):
        builds.append(self.name)
        original(self, tx, tick)

    monkeypatch.setattr(ValueLookup, "_build", counted)
    tx = db.store.begin_write()
    try:
        a = tx.create_node(["P"], {"v": 1})
        nodes = tx.value_lookup("node", "P", ("v",), lambda: None)
        b = tx.create_node(["P"], {"v": 2})          # in the batch's log, not yet folded in
        tx.commit_and_continue()
        c = tx.create_node(["P"], {"v": 2})
        assert nodes.find(tx, frozenset([1, 2]), lambda: None) == [a, b, c]
        assert builds == ["P"]
    finally:
        tx.rollback()
    assert rows(db, "MATCH (n:P) RETURN count(n)") == [(2,)]     # the first batch was committed
    monkeypatch.setattr(base, "LOOKUP_AFTER", 1)
    monkeypatch.setattr(base, "LOOKUP_MIN", 0)
    builds.clear()
    rows(db, "UNWIND range(1, 40) AS i CALL { WITH i MERGE (n:P {v: i % 7}) } IN TRANSACTIONS OF 5 ROWS")
    assert rows(db, "MATCH (n:P) RETURN count(n)") == [(7,)]    # a (1) and b (2), then 0 and 3 to 6
    assert builds == ["P"]
