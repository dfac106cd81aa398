"""GraphStore on disk: WAL replay, torn tails, checkpoints, schema catalog, group commit, codec."""
import os
import threading

import numpy as np
import pytest

from relate.errors import DatabaseError
from relate.server.storage import GraphStore, codec
from relate.server.storage.wal import list_segments
from relate.server.storage.integrity import StorageDamaged
from relate.values import Duration, Vector


def commit(store, fn):
    tx = store.begin_write()
    result = fn(tx)
    tx.commit()
    return result


def wal_files(path):
    return [p for _, p in list_segments(str(path))]


def test_wal_replay_after_reopen(tmp_path):
    store = GraphStore.open(str(tmp_path), sync=False, checkpoint_every=1_000_000)
    vec = Vector(np.arange(384, dtype=np.float32), "FLOAT32")
    a = commit(store, lambda tx: tx.create_node(["A"], {"name": "a", "v": vec, "d": Duration(1, 2, 3, 4)}))
    b = commit(store, lambda tx: tx.create_node(["B"], {"xs": [1, 2.5, "s", True, None]}))
    r = commit(store, lambda tx: tx.create_rel("T", a, b, {"w": 1}))
    commit(store, lambda tx: (tx.set_node_prop(a, "name", "A2"), tx.add_labels(b, ["C"]),
                              tx.remove_labels(b, ["B"]), tx.set_rel_prop(r, "w", None),
                              tx.create_property_index("node", "C", "xs")))
    c = commit(store, lambda tx: tx.create_node([], {}))
    commit(store, lambda tx: tx.delete_node(c))
    ts = store.last_commit_ts
    store._wal.close()       # simulate a crash: no checkpoint on close
    store._unlock_directory()

    store = GraphStore.open(str(tmp_path))
    with store.begin_read() as rd:
        assert rd.node_props(a) == {"name": "A2", "v": vec, "d": Duration(1, 2, 3, 4)}
        assert rd.node_labels(b) == {"C"} and rd.node_prop(b, "xs") == [1, 2.5, "s", True, None]
        assert rd.rel_props(r) == {} and rd.rel_endpoints(r) == (a, b)
        assert not rd.node_exists(c) and rd.count_nodes() == 2 and rd.count_nodes("B") == 0
        assert rd.has_property_index("node", "C", "xs")
        assert list(rd.index_seek("node", "C", "xs", [1, 2.5, "s", True, None])) == [b]
        assert rd.ts == ts
    d = commit(store, lambda tx: tx.create_node([], {}))
    assert d > c                                  # ids continue after the replayed ones
    store.close()


def test_torn_tail_is_discarded(tmp_path):
    store = GraphStore.open(str(tmp_path), checkpoint_every=1_000_000)
    for i in range(5):
        commit(store, lambda tx: tx.create_node(["N"], {"i": i}))
    store._wal.close()
    store._unlock_directory()
    (wal,) = wal_files(tmp_path)
    size = os.path.getsize(wal)
    with open(wal, "r+b") as f:
        f.truncate(size - 3)                      # cut the last record mid-way
    store = GraphStore.open(str(tmp_path))
    with store.begin_read() as rd:
        assert sorted(rd.node_prop(n, "i") for n in rd.all_nodes()) == [0, 1, 2, 3]
    commit(store, lambda tx: tx.create_node(["N"], {"i": 99}))   # appends after the cut
    store._wal.close()
    store._unlock_directory()
    store = GraphStore.open(str(tmp_path))
    with store.begin_read() as rd:
        assert sorted(rd.node_prop(n, "i") for n in rd.all_nodes()) == [0, 1, 2, 3, 99]
    store.close()


def test_corrupt_checksum_stops_replay(tmp_path):
    store = GraphStore.open(str(tmp_path), checkpoint_every=1_000_000)
    for i in range(4):
        commit(store, lambda tx: tx.create_node(["N"], {"i": i}))
    sizes = []
    store._wal.close()
    store._unlock_directory()
    (wal,) = wal_files(tmp_path)
    data = bytearray(open(wal, "rb").read())
    # find the third record's payload and flip one byte in it
    offset = 0
    for _ in range(2):
        length = int.from_bytes(data[offset:offset + 4], "little")
        offset += 8 + length
        sizes.append(offset)
    data[offset + 10] ^= 0xFF
    open(wal, "wb").write(bytes(data))
    # Damage followed by a valid record is refused (it would silently lose the fourth commit) ...
    with pytest.raises(StorageDamaged, match=f"at byte {offset}.*1 valid commit"):
        GraphStore.open(str(tmp_path))
    assert open(wal, "rb").read() == bytes(data)
    # ... until the caller asks to drop what follows the damage.
    store = GraphStore.open(str(tmp_path), recover_truncate=True)
    with store.begin_read() as rd:
        assert sorted(rd.node_prop(n, "i") for n in rd.all_nodes()) == [0, 1]
    store.close()
    assert os.path.getsize(os.path.join(tmp_path, "snapshot.msgpack")) > 0


def test_checkpoint_and_reopen(tmp_path):
    store = GraphStore.open(str(tmp_path), sync=False, checkpoint_every=1_000_000)
    ids = commit(store, lambda tx: [tx.create_node(["A"], {"i": i}) for i in range(50)])
    commit(store, lambda tx: tx.create_rel("T", ids[0], ids[1], {"w": 2}))
    commit(store, lambda tx: tx.create_property_index("node", "A", "i"))
    store.checkpoint()
    assert os.path.exists(tmp_path / "snapshot.msgpack")
    assert all(os.path.getsize(p) == 0 for p in wal_files(tmp_path))     # only the fresh segment
    commit(store, lambda tx: tx.set_node_prop(ids[2], "i", 1000))         # after the checkpoint
    store._wal.close()
    store._unlock_directory()
    store = GraphStore.open(str(tmp_path))
    with store.begin_read() as rd:
        assert rd.count_nodes("A") == 50 and rd.count_rels("T") == 1
        assert list(rd.index_seek("node", "A", "i", 1000)) == [ids[2]]
        assert list(rd.index_range("node", "A", "i", 47, True, None, True)) == ids[47:] + [ids[2]]
        assert list(rd.expand(ids[0], "out")) == [(0, ids[1])]
    store.close()
    store = GraphStore.open(str(tmp_path))       # close() checkpointed: reopen from the snapshot
    assert store.begin_read().node_prop(ids[2], "i") == 1000
    store.close()


def test_automatic_checkpoint(tmp_path):
    store = GraphStore.open(str(tmp_path), sync=False, checkpoint_every=10)
    for i in range(25):
        commit(store, lambda tx: tx.create_node([], {"i": i}))
    thread = store._checkpoint_thread
    if thread is not None:
        thread.join()
    assert os.path.exists(tmp_path / "snapshot.msgpack")
    store.close()
    store = GraphStore.open(str(tmp_path))
    assert store.begin_read().count_nodes() == 25
    store.close()


def test_damaged_snapshot_fails_loudly(tmp_path):
    store = GraphStore.open(str(tmp_path), sync=False)
    commit(store, lambda tx: tx.create_node([], {"s": "x" * 100}))
    store.close()
    path = tmp_path / "snapshot.msgpack"
    data = bytearray(path.read_bytes())
    data[20] ^= 0x01
    path.write_bytes(bytes(data))
    with pytest.raises(DatabaseError):
        GraphStore.open(str(tmp_path))


def test_schema_catalog_is_durable(tmp_path):
    store = GraphStore.open(str(tmp_path), sync=False)
    commit(store, lambda tx: (tx.put_schema("idx", {"kind": "vector", "dims": 384}),
                              tx.put_schema("user:neo4j", {"hash": "abc"})))
    before = store.begin_read()
    commit(store, lambda tx: tx.drop_schema("user:neo4j"))
    assert set(before.schema()) == {"idx", "user:neo4j"}
    assert store.begin_read().schema() == {"idx": {"kind": "vector", "dims": 384}}
    store._wal.close()
    store._unlock_directory()
    store = GraphStore.open(str(tmp_path))
    assert store.begin_read().schema() == {"idx": {"kind": "vector", "dims": 384}}
    store.close()
    store = GraphStore.open(str(tmp_path))       # and through a checkpoint
    assert store.begin_read().schema() == {"idx": {"kind": "vector", "dims": 384}}
    store.close()


def test_directory_lock(tmp_path):
    store = GraphStore.open(str(tmp_path))
    with pytest.raises(DatabaseError):
        GraphStore.open(str(tmp_path))
    store.close()
    GraphStore.open(str(tmp_path)).close()


def test_group_commit_from_many_threads(tmp_path):
    store = GraphStore.open(str(tmp_path), sync=True)
    syncs = []
    real_sync = store._wal.sync
    store._group._sync = lambda: (syncs.append(1), real_sync())
    order = []
    store.add_commit_listener(lambda changes, ts: order.append(ts))
    errors = []

    def worker(k):
        try:
            for i in range(20):
                tx = store.begin_write()
                tx.create_node(["W"], {"k": k, "i": i})
                ts = tx.commit()
                with store.begin_read() as rd:      # visible once commit() returns
                    if rd.ts < ts:
                        errors.append(("not visible", ts))
        except Exception as exc:   # pragma: no cover - reported below
            errors.append(exc)
    threads = [threading.Thread(target=worker, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert order == sorted(order) and len(order) == 160
    assert 0 < len(syncs) <= 160
    store._wal.close()
    store._unlock_directory()
    store = GraphStore.open(str(tmp_path))
    assert store.begin_read().count_nodes("W") == 160
    store.close()


def test_codec_round_trip():
    values = [None, True, -(1 << 63), 2.5, "héllo", [1, [2, "x"]], {"a": {"b": [1]}},
              Vector([1, 2, 3], "INTEGER8"), Vector([0.25, 0.5], "FLOAT64"), Duration(14, 3, -5, 7)]
    for value in values:
        assert codec.decode(codec.encode(value)) == value
    assert codec.decode(codec.encode(Vector([1.5], "FLOAT32"))).coordinate_type == "FLOAT32"


def test_a_string_with_a_lone_surrogate_is_refused_and_leaves_nothing(tmp_path):
    """Python strings may hold lone surrogates (a parameter, apoc.text.code(55296)); UTF-8 cannot encode
    them, so storing one is a typed error, the transaction leaves no trace and the store goes on."""
    import relate
    from relate.errors import ArgumentError
    path = str(tmp_path / "db")
    with relate.connect(path) as db:
        with pytest.raises(ArgumentError, match="lone surrogate"):
            db.execute("CREATE (:S {s: $s})", {"s": "a\ud800b"}).consume()
        with pytest.raises(ArgumentError, match="lone surrogate"):
            db.execute("CREATE (:S {s: apoc.text.code(55296)})").consume()
        db.execute("CREATE (:S {s: 'ok'})").consume()
    with relate.connect(path) as db:
        assert [tuple(r) for r in db.execute("MATCH (n:S) RETURN n.s").fetchall()] == [("ok",)]
