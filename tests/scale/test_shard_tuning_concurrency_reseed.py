"""Sharded indexes on the loopback Ray cluster: search options reach the shards, searches run side by
side, and a lone replica that lost its files is re-seeded from the graph store."""
from __future__ import annotations

import random
import shutil
import threading
import time

import numpy as np

from relate.server.index import IndexManager
from relate.server.index.fulltext import FullTextIndex
from relate.server.index.providers import get_provider
from relate.server.index.sharded.assign import shard_of, shards_of
from relate.server.index.sharded.placement import sharded_index
from relate.server.index.vector import VectorConfig, VectorIndex
from relate.server.storage import GraphStore

from .test_sharded_search import _assert_same, _create, _notes, _wait_dead, _write


def test_the_vectorised_assignment_equals_the_per_key_one():
    keys = np.concatenate([np.arange(0, 50_000, 3), [2**40 + 7, 2**63 - 1]])
    for n in (1, 2, 3, 4, 7, 64):
        assert shards_of(keys, n).tolist() == [shard_of(int(k), n) for k in keys]


def _recall(im, name, data, ids, queries) -> float:
    unit = data / np.linalg.norm(data, axis=1, keepdims=True)
    found = []
    for q in queries:
        truth = {ids[i] for i in np.argsort(-(unit @ (q / np.linalg.norm(q))))[:10]}
        found.append(len(truth & {k for k, _ in im.vector_search(name, q.tolist(), 10)}) / 10)
    return float(np.mean(found))


def test_search_options_reach_every_shard_and_change_its_answer_as_in_one_index(ray_cluster):
    import ray
    store = GraphStore.open(None)
    im = IndexManager(store, None)
    hnsw = {"vector.dimensions": 48, "vector.hnsw.min_size": 500, "vector.hnsw.m": 8,
            "vector.hnsw.ef_construction": 40}
    im.create_vector_index("one", "node", "P", "e", (), {"indexConfig": hnsw})
    im.create_vector_index("two", "node", "P", "e", (), {"indexConfig": {**hnsw, "shards": 2}})
    rng = np.random.default_rng(5)
    data = rng.standard_normal((6000, 48))
    tx = store.begin_write()
    ids = [tx.create_node(["P"], {"e": row.tolist()}) for row in data]
    tx.commit()
    assert im.await_indexes(120)
    queries = rng.standard_normal((40, 48))
    recall = {}
    for ef in (1, 1024):              # efSearch floor is 2k: ef 1 searches with 20 candidates
        for name in ("one", "two"):
            im.set_search_options(name, {"vector.hnsw.ef_search": ef})
            recall[name, ef] = _recall(im, name, data, ids, queries)
        for replica in (shard.replicas[0] for shard in im.get("two").impl.shards):
            assert ray.get(replica.handle.info.remote())["efSearch"] == ef     # the shard searched with it
    # the option moves the sharded answer the way it moves the single index's
    assert recall["one", 1] < 0.9 and recall["two", 1] < 0.9, recall
    assert recall["one", 1024] >= 0.98 and recall["two", 1024] >= 0.98, recall
    im.set_search_options("two", {"vector.exact.max_scope": 123})
    im.vector_search("two", queries[0].tolist(), 3)
    replica = im.get("two").impl.shards[1].replicas[0]
    assert ray.get(replica.handle.info.remote())["exactMaxScope"] == 123
    im.close(save=False)
    store.close()


def test_concurrent_searches_on_one_sharded_index_run_side_by_side_and_stay_exact(ray_cluster):
    rng = np.random.default_rng(9)
    n, dims = 20_000, 128
    vectors = rng.standard_normal((n, dims), dtype=np.float32)
    words = [f"w{i}" for i in range(300)]
    texts = [" ".join(words[j] for j in rng.integers(0, len(words), 8)) for _ in range(n)]
    vdef = get_provider("VECTOR").definition("conc_v", "node", ["Doc"], ["e"], [],
                                             {"indexConfig": {"vector.dimensions": dims, "vector.hnsw.min_size": 10**9}}, {})
    tdef = get_provider("FULLTEXT").definition("conc_t", "node", ["Doc"], ["text"], [], None,
                                               {"fulltext_engine": "tantivy"})
    vdef.config.update({"shards": 2, "replicas": 1})
    tdef.config.update({"shards": 2, "replicas": 1})
    vec, text = sharded_index(vdef, None, True), sharded_index(tdef, None, True)
    local_v = VectorIndex(VectorConfig(dims, "cosine", hnsw_min_size=10**9), [])     # exact, as the shards
    local_t = FullTextIndex(["text"], "standard-no-stop-words", "tantivy", None)
    try:
        vec.upsert_block(np.arange(n), vectors)            # the bulk path: numpy blocks per shard
        vec.committed(1)
        text.apply({i: text.analyze({"text": t}) for i, t in enumerate(texts)})
        text.committed(1)
        local_v.upsert_many([(i, vectors[i], {}) for i in range(n)])
        local_v.sync(1)
        local_t.apply({i: local_t.analyze({"text": t}) for i, t in enumerate(texts)})
        local_t.flush_engine()
        vq = rng.standard_normal((48, dims), dtype=np.float32)
        tq = [f"{words[i]} {words[i * 7 % 300]}" for i in range(48)]
        got: dict = {}
        start = threading.Barrier(8)

        def client(c: int) -> None:
            start.wait()
            for i in range(c, 48, 8):
                got["v", i] = vec.search(vq[i], 10)
                got["t", i] = text.search(tq[i], 0, 10)

        threads = [threading.Thread(target=client, args=(c,)) for c in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
        for i in range(48):
            assert [k for k, _ in got["v", i]] == [k for k, _ in local_v.search(vq[i], 10)]
            want = local_t.search(tq[i], 0, 10)
            assert [(k, round(s, 6)) for k, s in got["t", i]] == [(k, round(s, 6)) for k, s in want]
        # several searches were inside one shard at the same moment: no per-index lock serialised them
        peaks = [info["peakSearches"] for info in vec._sizes() + text._sizes()]
        assert max(peaks) >= 2, peaks
    finally:
        vec.destroy()
        text.destroy()


def test_a_lone_replica_that_lost_its_files_is_reseeded_from_the_store(ray_cluster, tmp_path):
    import ray
    store = GraphStore.open(str(tmp_path / "graph"))
    im = IndexManager(store, str(tmp_path / "search"))
    _create(im, {"shards": 2, "replicas": 1})
    ids = _write(store, _notes(400))
    assert im.await_indexes(120)
    im.checkpoint()                                          # the log is trimmed: it cannot replay batch 1
    _write(store, _notes(20, seed=13))                       # after the save: only in the log
    tx = store.begin_write()
    for nid in ids[:10]:
        tx.delete_node(nid)
    tx.commit()
    for name in ("vec_sharded", "text_sharded"):
        im.get(name).flush()                                 # every commit sent before a replica dies
    for name in ("vec_sharded", "text_sharded"):
        impl = im.get(name).impl
        victim = impl.shards[0].replicas[0]
        directory = [d for d in (tmp_path / "search").iterdir() if d.name.startswith(name)][0]
        shutil.rmtree(directory / "shard-0-r0")              # its disk is gone ...
        old_pid = ray.get(victim.handle.info.remote())["pid"]
        ray.kill(victim.handle, no_restart=False)            # ... and so is its process: it restarts empty
        _wait_dead(ray, victim.handle, old_pid=old_pid)
        assert ray.get(victim.handle.position.remote())[0] == 0
        # hold the re-seed at its start until SHOW INDEXES has shown it (the real reseeder runs after)
        reseeder, gate = impl.reseeder, threading.Event()
        impl.reseeder = lambda shard: (gate.wait(30), reseeder(shard))[1]
        failures: list = []

        def search() -> None:
            try:
                _assert_same(im, random.Random(14))          # waits for the re-seed, then exact again
            except BaseException as exc:                     # noqa: BLE001 - reported by the test thread
                failures.append(exc)

        searcher = threading.Thread(target=search)
        searcher.start()
        states = []
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            shown = {row["name"]: row.get("shards") for row in im.list()}[name]
            state = (shown[0]["state"], shown[1]["state"])
            if not states or states[-1] != state:
                states.append(state)
            if state[0] == "REBUILDING":
                gate.set()
            if state == ("ONLINE", "ONLINE") and gate.is_set():
                break
            time.sleep(0.02)
        searcher.join(60)
        impl.reseeder = reseeder
        assert ("REBUILDING", "ONLINE") in states and states[-1] == ("ONLINE", "ONLINE"), states
        assert not failures, failures
        assert ray.get(victim.handle.position.remote())[0] == impl.shards[0].seq
    _assert_same(im, random.Random(15))
    im.close(save=False)
    store.close()
