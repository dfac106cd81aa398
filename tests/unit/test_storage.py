"""GraphStore in memory: CRUD, adjacency, scans, counts, property indexes, MVCC, savepoints."""
import threading

import pytest

from relate.errors import ConstraintValidationFailed, EntityNotFound, TransactionError, TransientError
from relate.server.storage import GraphStore
from relate.server.storage.adjacency import as_dict
from relate.values import Vector


@pytest.fixture
def store():
    s = GraphStore.open(None)
    yield s
    s.close()


def write(store, fn):
    tx = store.begin_write()
    try:
        result = fn(tx)
    except BaseException:
        tx.rollback()
        raise
    tx.commit()
    return result


def test_node_crud(store):
    nid = write(store, lambda tx: tx.create_node(["Person", "Person"], {"name": "Ada", "age": 36, "x": None}))
    with store.begin_read() as r:
        assert r.node_exists(nid)
        assert r.node_labels(nid) == {"Person"}
        assert r.node_props(nid) == {"name": "Ada", "age": 36}
        assert r.node_prop(nid, "name") == "Ada" and r.node_prop(nid, "nope") is None
    tx = store.begin_write()
    tx.set_node_prop(nid, "age", 37)
    tx.set_node_prop(nid, "name", None)
    assert tx.add_labels(nid, ["Admin", "Person"]) == 1
    assert tx.remove_labels(nid, ["Person", "Ghost"]) == 1
    tx.commit()
    with store.begin_read() as r:
        assert r.node_props(nid) == {"age": 37}
        assert r.node_labels(nid) == {"Admin"}
    write(store, lambda tx: tx.delete_node(nid))
    with store.begin_read() as r:
        assert not r.node_exists(nid)
        with pytest.raises(EntityNotFound):
            r.node_props(nid)
        assert list(r.all_nodes()) == [] and r.count_nodes() == 0


def test_ids_are_monotonic_and_not_reused(store):
    a = write(store, lambda tx: tx.create_node([], {}))
    tx = store.begin_write()
    b = tx.create_node([], {})
    tx.rollback()
    write(store, lambda tx: tx.delete_node(a))
    c = write(store, lambda tx: tx.create_node([], {}))
    assert a < b < c


def test_relationships_and_adjacency(store):
    def build(tx):
        a, b, c = (tx.create_node(["N"], {"i": i}) for i in range(3))
        r1 = tx.create_rel("KNOWS", a, b, {"since": 1})
        r2 = tx.create_rel("LIKES", a, c, {})
        r3 = tx.create_rel("KNOWS", c, a, {})
        loop = tx.create_rel("SELF", a, a, {})
        return a, b, c, r1, r2, r3, loop
    a, b, c, r1, r2, r3, loop = write(store, build)
    with store.begin_read() as r:
        assert r.rel_type(r1) == "KNOWS" and r.rel_endpoints(r1) == (a, b)
        assert r.rel_props(r1) == {"since": 1} and r.rel_prop(r1, "since") == 1
        assert sorted(r.expand(a, "out")) == sorted([(r1, b), (r2, c), (loop, a)])
        assert sorted(r.expand(a, "in")) == sorted([(r3, c), (loop, a)])
        both = list(r.expand(a, "both"))
        assert sorted(both) == sorted([(r1, b), (r2, c), (loop, a), (r3, c)])   # loop once
        assert list(r.expand(a, "out", ("KNOWS",))) == [(r1, b)]
        assert sorted(r.expand(a, "both", ("KNOWS", "SELF"))) == sorted([(r1, b), (r3, c), (loop, a)])
        assert list(r.expand(b, "out")) == [] and list(r.expand(b, "in", ("NOPE",))) == []
        assert r.degree(a, "both") == 4 and r.degree(a, "out", ("LIKES",)) == 1
        assert sorted(r.rels_by_type("KNOWS")) == [r1, r3]
        assert r.count_rels() == 4 and r.count_rels("KNOWS") == 2 and r.count_rels("NONE") == 0
        assert r.rel_types() == ["KNOWS", "LIKES", "SELF"]
        assert sorted(r.all_rels()) == sorted([r1, r2, r3, loop])
    write(store, lambda tx: (tx.delete_rel(r1), tx.set_rel_prop(r3, "w", 2.5)))
    with store.begin_read() as r:
        assert not r.rel_exists(r1) and r.rel_props(r3) == {"w": 2.5}
        assert sorted(r.expand(a, "out")) == sorted([(r2, c), (loop, a)])
        assert r.count_rels("KNOWS") == 1


def test_create_rel_requires_live_endpoints(store):
    a = write(store, lambda tx: tx.create_node([], {}))
    tx = store.begin_write()
    with pytest.raises(EntityNotFound):
        tx.create_rel("T", a, 999, {})
    tx.rollback()


def test_delete_connected_node_fails_at_commit(store):
    a, b, r = write(store, lambda tx: (lambda a, b: (a, b, tx.create_rel("T", a, b, {})))(
        tx.create_node([], {}), tx.create_node([], {})))
    tx = store.begin_write()
    tx.delete_node(a)
    with pytest.raises(ConstraintValidationFailed) as info:
        tx.commit()
    assert info.value.detail == "DeleteConnectedNode"
    with store.begin_read() as rd:
        assert rd.node_exists(a) and rd.rel_exists(r)
    tx = store.begin_write()     # DETACH: node first, then its relationship, in one transaction
    tx.delete_node(a)
    tx.delete_rel(r)
    tx.commit()
    with store.begin_read() as rd:
        assert not rd.node_exists(a) and list(rd.expand(b, "both")) == []


def test_label_scans_and_counts(store):
    def build(tx):
        return [tx.create_node(["A"] if i % 2 else ["A", "B"], {"i": i}) for i in range(10)]
    ids = write(store, build)
    with store.begin_read() as r:
        assert list(r.nodes_by_label("A")) == ids
        assert list(r.nodes_by_label("B")) == ids[0::2]
        assert r.count_nodes() == 10 and r.count_nodes("B") == 5 and r.count_nodes("Z") == 0
        assert r.labels() == ["A", "B"] and r.property_keys() == ["i"]
    write(store, lambda tx: [tx.remove_labels(n, ["B"]) for n in ids[:4]])
    with store.begin_read() as r:
        assert list(r.nodes_by_label("B")) == ids[4::2] and r.count_nodes("B") == 3


def test_write_tx_sees_own_writes(store):
    tx = store.begin_write()
    n = tx.create_node(["L"], {"v": 1})
    tx.set_node_prop(n, "v", 2)
    assert tx.node_prop(n, "v") == 2 and list(tx.nodes_by_label("L")) == [n]
    assert tx.count_nodes("L") == 1 and tx.labels() == ["L"]
    tx.create_property_index("node", "L", "v")
    assert list(tx.index_seek("node", "L", "v", 2)) == [n]
    tx.delete_node(n)
    assert not tx.node_exists(n) and tx.count_nodes() == 0
    tx.commit()


def test_property_index_equality_and_range(store):
    def build(tx):
        tx.create_property_index("node", "P", "age")
        return [tx.create_node(["P"], {"age": age}) for age in (30, 25, 40, 25.0, 35)]
    ids = write(store, build)
    write(store, lambda tx: tx.create_node(["Q"], {"age": 25}))        # other label: not indexed
    with store.begin_read() as r:
        assert r.has_property_index("node", "P", "age")
        assert not r.has_property_index("node", "P", "name")
        assert sorted(r.index_seek("node", "P", "age", 25)) == [ids[1], ids[3]]
        assert list(r.index_seek("node", "P", "age", "25")) == []
        assert list(r.index_range("node", "P", "age", 26, True, 40, False)) == [ids[0], ids[4]]
        assert list(r.index_range("node", "P", "age", None, True, 30, True)) == [ids[1], ids[3], ids[0]]
        assert list(r.index_range("node", "P", "age", 35, False, None, True)) == [ids[2]]
        assert list(r.index_range("node", "P", "age", "a", True, None, True)) == []
        assert sorted(r.index_range("node", "P", "age")) == sorted(ids)
    # updates, label removal and deletes keep the index exact
    def change(tx):
        tx.set_node_prop(ids[0], "age", 26)
        tx.remove_labels(ids[2], ["P"])
        tx.delete_node(ids[1])
        tx.set_node_prop(ids[4], "age", None)
    write(store, change)
    with store.begin_read() as r:
        assert list(r.index_seek("node", "P", "age", 30)) == []
        assert list(r.index_seek("node", "P", "age", 26)) == [ids[0]]
        assert list(r.index_seek("node", "P", "age", 25)) == [ids[3]]
        assert list(r.index_range("node", "P", "age", 0, True, 100, True)) == [ids[3], ids[0]]
    # stale entries are vacuumed once no snapshot needs them
    write(store, lambda tx: None)
    store.begin_write().rollback()
    index = store._prop_indexes[("node", "P", "age")]
    assert len(index.entry_pairs()) == 2


def test_relationship_property_index(store):
    def build(tx):
        a, b = tx.create_node([], {}), tx.create_node([], {})
        rels = [tx.create_rel("R", a, b, {"w": w}) for w in (3, 1, 2)]
        tx.create_rel("S", a, b, {"w": 1})
        tx.create_property_index("relationship", "R", "w")
        return rels
    rels = write(store, build)
    with store.begin_read() as r:
        assert list(r.index_seek("relationship", "R", "w", 1)) == [rels[1]]
        assert list(r.index_range("relationship", "R", "w", 2, True, None, True)) == [rels[2], rels[0]]
    write(store, lambda tx: (tx.set_rel_prop(rels[0], "w", 0), tx.delete_rel(rels[1])))
    with store.begin_read() as r:
        assert list(r.index_range("relationship", "R", "w", None, True, None, True)) == [rels[0], rels[2]]
    write(store, lambda tx: tx.drop_property_index("relationship", "R", "w"))
    with store.begin_read() as r:
        assert not r.has_property_index("relationship", "R", "w")
        assert list(r.index_seek("relationship", "R", "w", 2)) == [rels[2]]   # falls back to a scan


def test_snapshot_isolation(store):
    n = write(store, lambda tx: tx.create_node(["A"], {"v": 1}))
    before = store.begin_read()
    tx = store.begin_write()
    tx.set_node_prop(n, "v", 2)
    m = tx.create_node(["A"], {"v": 9})
    tx.add_labels(n, ["B"])
    during = store.begin_read()
    assert during.node_prop(n, "v") == 1 and not during.node_exists(m)
    tx.commit()
    after = store.begin_read()
    for snap in (before, during):
        assert snap.node_prop(n, "v") == 1 and snap.node_labels(n) == {"A"}
        assert not snap.node_exists(m) and list(snap.nodes_by_label("A")) == [n]
        assert snap.count_nodes() == 1 and snap.labels() == ["A"]
    assert after.node_prop(n, "v") == 2 and after.node_exists(m) and after.count_nodes("A") == 2
    write(store, lambda tx: tx.delete_node(m))
    assert after.node_exists(m) and store.begin_read().count_nodes() == 1
    before.close(), during.close(), after.close()


def test_concurrent_reader_never_sees_partial_commits(store):
    """Each commit moves 1 unit between two nodes; every snapshot must see the total intact."""
    a, b = write(store, lambda tx: (tx.create_node([], {"v": 1000}), tx.create_node([], {"v": 0})))
    stop = threading.Event()
    errors = []

    def writer():
        for i in range(300):
            tx = store.begin_write()
            tx.set_node_prop(a, "v", tx.node_prop(a, "v") - 1)
            tx.create_node(["Tick"], {"i": i})
            tx.set_node_prop(b, "v", tx.node_prop(b, "v") + 1)
            tx.commit()
        stop.set()

    def reader():
        while not stop.is_set():
            with store.begin_read() as r:
                total = r.node_prop(a, "v") + r.node_prop(b, "v")
                ticks = sum(1 for _ in r.nodes_by_label("Tick"))
                if total != 1000 or ticks != r.node_prop(b, "v") or ticks != r.count_nodes("Tick"):
                    errors.append((total, ticks))
    threads = [threading.Thread(target=writer)] + [threading.Thread(target=reader) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert store.begin_read().node_prop(b, "v") == 300


def test_savepoints(store):
    n = write(store, lambda tx: tx.create_node(["A"], {"v": 1}))
    tx = store.begin_write()
    tx.set_node_prop(n, "v", 2)
    mark = tx.savepoint()
    tx.set_node_prop(n, "v", 3)
    m = tx.create_node(["B"], {"w": 1})
    tx.create_rel("T", n, m, {})
    tx.add_labels(n, ["C"])
    tx.put_schema("idx1", {"kind": "range"})
    tx.rollback_to(mark)
    assert tx.node_prop(n, "v") == 2 and not tx.node_exists(m)
    assert tx.node_labels(n) == {"A"} and list(tx.expand(n, "out")) == []
    assert tx.count_nodes() == 1 and tx.schema() == {}
    tx.commit()
    with store.begin_read() as r:
        assert r.node_prop(n, "v") == 2 and r.count_nodes() == 1 and r.labels() == ["A"]
        assert list(r.nodes_by_label("B")) == [] and r.count_rels() == 0


def test_rollback_leaves_no_trace(store):
    def build(tx):
        tx.create_property_index("node", "A", "v")
        a = tx.create_node(["A"], {"v": 1})
        b = tx.create_node(["A"], {"v": 2})
        return a, b, tx.create_rel("T", a, b, {"p": 1})
    a, b, r = write(store, build)
    state = (dict(store._label_index["A"]), {k: as_dict(v) for k, v in store._out.items()},
             set(store._prop_indexes[("node", "A", "v")].entry_pairs()))
    tx = store.begin_write()
    c = tx.create_node(["A", "New"], {"v": 3})
    tx.set_node_prop(a, "v", 10)
    tx.add_labels(b, ["X"])
    tx.remove_labels(a, ["A"])
    tx.create_rel("U", c, a, {})
    tx.set_rel_prop(r, "p", 5)
    tx.delete_rel(r)
    tx.delete_node(b)
    tx.put_schema("s", {"x": 1})
    tx.drop_property_index("node", "A", "v")
    tx.create_property_index("node", "New", "v")
    tx.rollback()
    with pytest.raises(TransactionError):
        tx.create_node([], {})
    with store.begin_read() as rd:
        assert rd.node_props(a) == {"v": 1} and rd.node_labels(b) == {"A"}
        assert not rd.node_exists(c) and rd.rel_props(r) == {"p": 1}
        assert rd.count_nodes() == 2 and rd.labels() == ["A"] and rd.schema() == {}
        assert rd.has_property_index("node", "A", "v") and not rd.has_property_index("node", "New", "v")
        assert list(rd.index_seek("node", "A", "v", 1)) == [a]
    index = store._prop_indexes[("node", "A", "v")]
    assert (dict(store._label_index["A"]), {k: as_dict(v) for k, v in store._out.items()},
            set(index.entry_pairs())) == state
    assert store._rels[r].prev is None and store._nodes[a].prev is None


def test_writers_are_serialized_with_timeout(store):
    tx = store.begin_write()
    with pytest.raises(TransientError):
        store.begin_write(timeout=0.05)
    got = []
    t = threading.Thread(target=lambda: got.append(store.begin_write(timeout=5)))
    t.start()
    tx.create_node([], {})
    tx.commit()
    t.join()
    assert got and got[0].count_nodes() == 1
    got[0].rollback()


def test_vector_and_list_values_and_type_checks(store):
    vec = Vector([0.5] * 8, "FLOAT32")
    items = [1, 2]
    n = write(store, lambda tx: tx.create_node([], {"e": vec, "items": items}))
    items.append(3)                                   # the store keeps its own copy
    with store.begin_read() as r:
        assert r.node_prop(n, "e") == vec and r.node_prop(n, "items") == [1, 2]
    tx = store.begin_write()
    with pytest.raises(Exception) as info:
        tx.create_node([], {"bad": object()})
    assert info.value.__class__.__name__ == "CypherTypeError"
    with pytest.raises(Exception):
        tx.set_node_prop(n, "big", 1 << 70)
    tx.rollback()


def test_commit_listener_gets_complete_changes(store):
    seen = []
    store.add_commit_listener(lambda changes, ts: seen.append((ts, list(changes))))
    n = write(store, lambda tx: tx.create_node(["A"], {"v": 1}))
    ts = store.last_commit_ts
    assert seen[-1] == (ts, [("node+", n, frozenset({"A"}), {"v": 1})])
    def change(tx):
        tx.set_node_prop(n, "v", 2)
        tx.add_labels(n, ["B"])
        tx.create_property_index("node", "A", "v")
        tx.put_schema("s", {"k": 1})
    write(store, change)
    assert seen[-1][1] == [("nprop", n, "v", 1, 2), ("label+", n, "B"), ("schema+", "s", {"k": 1})]
    write(store, lambda tx: tx.delete_node(n))
    assert seen[-1][1] == [("node-", n, frozenset({"A", "B"}), {"v": 2})]
    assert [s[0] for s in seen] == sorted(s[0] for s in seen)


def test_version_chains_are_pruned(store):
    n = write(store, lambda tx: tx.create_node([], {"v": 0}))
    old = store.begin_read()
    for i in range(1, 5):
        write(store, lambda tx: tx.set_node_prop(n, "v", i))
    assert old.node_prop(n, "v") == 0
    depth = lambda: sum(1 for _ in iter_chain(store._nodes[n]))
    assert depth() == 5
    old.close()
    write(store, lambda tx: None)
    store.begin_write().rollback()
    assert depth() == 1


def iter_chain(rec):
    while rec is not None:
        yield rec
        rec = rec.prev


def test_deleted_entities_are_vacuumed(store):
    a, b, r = write(store, lambda tx: (lambda a, b: (a, b, tx.create_rel("T", a, b, {})))(
        tx.create_node(["A"], {}), tx.create_node(["A"], {})))
    old = store.begin_read()
    write(store, lambda tx: (tx.delete_rel(r), tx.delete_node(a)))
    store.begin_write().rollback()           # vacuum runs at begin_write
    assert a in store._nodes and r in store._rels        # the old snapshot still needs them
    assert old.node_exists(a) and list(old.expand(b, "in")) == [(r, a)]
    old.close()
    store.begin_write().rollback()
    assert a not in store._nodes and r not in store._rels
    assert a not in store._out and b not in store._in and list(store._label_index["A"]) == [b]
    assert r not in store._type_index["T"]


def test_index_ddl_inside_savepoints(store):
    n = write(store, lambda tx: tx.create_node(["A"], {"v": 5}))
    tx = store.begin_write()
    mark = tx.savepoint()
    tx.create_property_index("node", "A", "v")
    tx.rollback_to(mark)
    assert not tx.has_property_index("node", "A", "v")
    tx.create_property_index("node", "A", "v")
    mark = tx.savepoint()
    tx.drop_property_index("node", "A", "v")
    tx.set_node_prop(n, "v", 6)                      # written while the index is dropped
    tx.rollback_to(mark)
    tx.set_node_prop(n, "v", 7)
    tx.commit()
    with store.begin_read() as r:
        assert r.property_indexes() == [("node", "A", "v")]
        assert list(r.index_seek("node", "A", "v", 7)) == [n]
        assert list(r.index_seek("node", "A", "v", 5)) == [] and list(r.index_seek("node", "A", "v", 6)) == []


def test_temporal_values_are_stored_and_indexed(store):
    from relate.temporal import Date, DateTime
    from relate.server.storage import codec
    days = [Date(2024, 1, d) for d in (5, 1, 3)]
    ids = write(store, lambda tx: (tx.create_property_index("node", "E", "on"),
                                   [tx.create_node(["E"], {"on": d}) for d in days])[1])
    with store.begin_read() as r:
        assert list(r.index_range("node", "E", "on", Date(2024, 1, 2), True, None, True)) == [ids[2], ids[0]]
        assert list(r.index_seek("node", "E", "on", Date(2024, 1, 1))) == [ids[1]]
    from relate.temporal import LocalDateTime, LocalTime, Time, offset_zone
    values = [days[0], LocalTime(1, 2, 3), LocalDateTime(2024, 1, 2, 3, 4, 5),
              DateTime.of_instant(1_700_000_000, 5, offset_zone(3600)), Time.of_nanos_of_day(1000, 3600)]
    for value in values:
        back = codec.decode(codec.encode(value))
        assert back == value and type(back) is type(value)


def test_index_range_consistent_under_concurrent_writes(store):
    write(store, lambda tx: (tx.create_property_index("node", "N", "v"),
                             [tx.create_node(["N"], {"v": i * 2}) for i in range(500)]))
    stop = threading.Event()
    bad = []

    def writer():
        i = 0
        while not stop.is_set():
            tx = store.begin_write()
            tx.create_node(["N"], {"v": 10_000 + i})      # inserts at the end and in the middle
            tx.create_node(["N"], {"v": i % 1000 * 2 + 1})
            tx.commit()
            i += 1

    t = threading.Thread(target=writer)
    t.start()
    try:
        for _ in range(80):
            with store.begin_read() as r:
                got = [r.node_prop(n, "v") for n in r.index_range("node", "N", "v", 100, True, 600, False)]
                evens = [v for v in got if v % 2 == 0]
                if evens != list(range(100, 600, 2)) or got != sorted(got):
                    bad.append(got)
    finally:
        stop.set()
        t.join()
    assert bad == []


def test_commit_and_continue_commits_a_part_and_keeps_the_writer(tmp_path):
    store = GraphStore.open(str(tmp_path / "db"))
    seen = []
    store.add_commit_listener(lambda changes, ts: seen.append((ts, [c[0] for c in changes])))
    tx = store.begin_write()
    a = tx.create_node(["A"], {"i": 1})
    ts = tx.commit_and_continue()
    assert ts == store.last_commit_ts == 1 and tx.active and tx.ts == 1
    with store.begin_read() as r:
        assert r.node_exists(a) and r.count_nodes("A") == 1      # visible to new snapshots at once
    with pytest.raises(TransientError):
        store.begin_write(timeout=0.1)                          # the writer lock is still held
    b = tx.create_node(["A"], {"i": 2})
    tx.set_node_prop(a, "i", 10)
    assert tx.count_nodes("A") == 2
    tx.rollback()                                               # undoes only what came after
    with store.begin_read() as r:
        assert r.node_prop(a, "i") == 1 and not r.node_exists(b) and r.count_nodes("A") == 1
    assert not tx.active
    assert seen == [(1, ["node+"])]
    store.close()
    reopened = GraphStore.open(str(tmp_path / "db"))
    with reopened.begin_read() as r:
        assert r.count_nodes("A") == 1 and r.node_prop(a, "i") == 1
    reopened.close()
