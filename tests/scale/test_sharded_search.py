"""Sharded search indexes on a real loopback Ray cluster (head + worker, 127.0.0.1 only): exact merges, failures.

Each sharded index is compared with a local index over the same store: same ids, same scores.
"""
from __future__ import annotations

import random
import time

import numpy as np
import pytest

from relate.errors import TransientError
from relate.server.index import IndexManager
from relate.server.index.sharded.assign import shard_of
from relate.server.storage import GraphStore

WORDS = ("graph vector search shard replica commit query index node edge kafka stream batch merge score "
         "lucene tantivy faiss ray actor cluster").split()
DIMS = 8


def test_shard_assignment_is_stable_balanced_and_moves_little_when_shards_grow():
    keys = range(20_000)
    four = [shard_of(k, 4) for k in keys]
    assert four == [shard_of(k, 4) for k in keys]          # deterministic (no per-process hash seed)
    counts = np.bincount(four, minlength=4)
    assert counts.min() > 0.9 * len(keys) / 4                # uniform within 10%
    moved = sum(a != shard_of(k, 5) for k, a in zip(keys, four))
    assert 0.15 < moved / len(keys) < 0.25                   # ~1/5 move from 4 to 5 shards
    assert all(shard_of(k, 1) == 0 for k in range(100))


def _notes(n: int, seed: int = 7) -> list[dict]:
    rng = random.Random(seed)
    rows = []
    for i in range(n):
        words = [rng.choice(WORDS) for _ in range(rng.randint(3, 12))]
        rows.append({"text": " ".join(words), "title": rng.choice(WORDS), "group": i % 5,
                     "e": [rng.uniform(-1, 1) for _ in range(DIMS)]})
    return rows


def _create(im: IndexManager, sharded: dict | None = None) -> None:
    base = {"vector.dimensions": DIMS, "vector.similarity_function": "cosine"}
    im.create_vector_index("vec_local", "node", "Note", "e", ["group"], {"indexConfig": base})
    im.create_fulltext_index("text_local", "node", ["Note"], ["text", "title"])
    im.create_vector_index("vec_sharded", "node", "Note", "e", ["group"],
                           {"indexConfig": {**base, **(sharded or {"shards": 2, "replicas": 2})}})
    im.create_fulltext_index("text_sharded", "node", ["Note"], ["text", "title"],
                             {"indexConfig": sharded or {"shards": 2, "replicas": 2}})


def _write(store, rows) -> list[int]:
    tx = store.begin_write()
    ids = [tx.create_node(["Note"], row) for row in rows]
    tx.commit()
    return ids


QUERIES = ["graph", "shard replica", '"vector search"', "kafka~1", "+commit -query", "title:ray",
           "merg*", "index OR node^2", '"batch merge"~2']


def _assert_same(im, rng) -> None:
    for _ in range(5):
        q = [rng.uniform(-1, 1) for _ in range(DIMS)]
        assert im.vector_search("vec_sharded", q, 10) == im.vector_search("vec_local", q, 10)
        filt = [("group", "=", 2)]
        assert im.vector_search("vec_sharded", q, 7, filt) == im.vector_search("vec_local", q, 7, filt)
    for text in QUERIES:
        local = im.fulltext_search("text_local", text, 0, 15)
        sharded = im.fulltext_search("text_sharded", text, 0, 15)
        assert [k for k, _ in sharded] == [k for k, _ in local], text
        assert [round(s, 6) for _, s in sharded] == [round(s, 6) for _, s in local], text


@pytest.fixture(scope="module")
def indexed(ray_cluster, tmp_path_factory):
    directory = tmp_path_factory.mktemp("sharded")
    store = GraphStore.open(str(directory / "graph"))
    im = IndexManager(store, str(directory / "search"))
    _create(im)
    ids = _write(store, _notes(600))
    assert im.await_indexes(120)
    yield store, im, ids, directory
    im.close(save=False)
    store.close()


def test_merged_answers_equal_the_single_index(indexed):
    store, im, ids, _ = indexed
    _assert_same(im, random.Random(1))
    # later commits reach the shards in order: updates, deletes, new rows
    tx = store.begin_write()
    for nid in ids[:40]:
        tx.set_node_prop(nid, "text", "replica replica shard")
    for nid in ids[40:60]:
        tx.delete_node(nid)
    tx.commit()
    _write(store, _notes(50, seed=9))
    _assert_same(im, random.Random(2))
    # a pre-filter the shards cannot run (SEARCH ... WHERE) widens the window, still exact
    odd = lambda key: key % 2 == 1
    assert im.fulltext_search("text_sharded", "graph", 0, 5, accept=odd) == \
        im.fulltext_search("text_local", "graph", 0, 5, accept=odd)


def test_show_indexes_reports_every_replica(indexed):
    _, im, _, _ = indexed
    rows = {row["name"]: row for row in im.list()}
    shards = rows["vec_sharded"]["shards"]
    assert [(r["shard"], r["replica"], r["state"]) for r in shards] == \
        [(0, 0, "ONLINE"), (0, 1, "ONLINE"), (1, 0, "ONLINE"), (1, 1, "ONLINE")]
    assert rows["vec_sharded"]["size"] == rows["vec_local"]["size"]
    assert "shards" not in rows["vec_local"]


def test_batches_apply_once_and_in_order(indexed):
    import ray
    _, im, _, _ = indexed
    replica = im.get("vec_sharded").impl.shards[0].replicas[0]
    seq, _ = ray.get(replica.handle.position.remote())
    again = ray.get(replica.handle.apply.remote(seq, 999, [("d", 10**9)]))
    assert again == ("duplicate", seq)                       # a batch applies only once
    gap = ray.get(replica.handle.apply.remote(seq + 2, 999, []))
    assert gap == ("gap", seq)                               # nothing applies past a missing batch
    assert ray.get(replica.handle.position.remote())[0] == seq


def test_a_killed_replica_is_replaced_by_its_peer_then_catches_up(indexed):
    import ray
    store, im, _, _ = indexed
    impl = im.get("vec_sharded").impl
    victim = impl.shards[0].replicas[0]
    pid = ray.get(victim.handle.info.remote())["pid"]
    ray.kill(victim.handle, no_restart=False)                # Ray restarts it, empty (no saved files)
    _assert_same(im, random.Random(3))
    _write(store, _notes(20, seed=11))                       # commits while it restarts
    _assert_same(im, random.Random(4))
    # searches prefer the healthy peer; the repairer catches the restarted replica up in the background
    deadline = time.monotonic() + 60
    while not victim.healthy and time.monotonic() < deadline:
        time.sleep(0.1)
    info = ray.get(victim.handle.info.remote())
    assert info["pid"] != pid and info["seq"] == impl.shards[0].seq
    for _ in range(2):                                       # both replicas answer in turn, alike
        _assert_same(im, random.Random(5))
    assert {row["state"] for row in impl.health()} == {"ONLINE"}


def _wait_dead(ray, handle, timeout_s: float = 20.0, old_pid: int | None = None) -> None:
    """ray.kill is asynchronous: wait until the actor no longer answers or, given the ``old_pid`` of
    an actor Ray restarts, until it answers from a new process."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            pid = ray.get(handle.info.remote(), timeout=5)["pid"]
            if old_pid is not None and pid != old_pid:
                return
        except ray.exceptions.RayActorError:
            if old_pid is None:
                return
        time.sleep(0.1)
    raise AssertionError("the killed actor still answers from its old process")


def test_a_shard_without_live_replicas_fails_with_a_retryable_error(ray_cluster, tmp_path):
    import ray
    store = GraphStore.open(None)
    im = IndexManager(store, None)
    im.create_vector_index("v", "node", "Note", "e", (), {"indexConfig": {"vector.dimensions": DIMS,
                                                                           "shards": 2, "replicas": 1}})
    _write(store, _notes(50))
    assert len(im.vector_search("v", [1.0] * DIMS, 5)) == 5
    impl = im.get("v").impl
    victim = impl.shards[1].replicas[0].handle
    ray.kill(victim, no_restart=True)
    _wait_dead(ray, victim)
    with pytest.raises(TransientError) as info:
        im.vector_search("v", [1.0] * DIMS, 5)
    assert info.value.code == "Neo.TransientError.General.DatabaseUnavailable"
    assert "shard 1" in str(info.value)
    im.close(save=False)
    store.close()


def test_a_restarted_shard_catches_up_and_a_restarted_server_reattaches(ray_cluster, tmp_path):
    import ray
    store = GraphStore.open(str(tmp_path / "graph"))
    im = IndexManager(store, str(tmp_path / "search"))
    _create(im, {"shards": 2, "replicas": 1})
    _write(store, _notes(300))
    assert im.await_indexes(120)
    im.checkpoint()                                          # shards save their files and positions
    _write(store, _notes(30, seed=5))                        # after the save: only in the log
    victim = im.get("text_sharded").impl.shards[1].replicas[0]
    ray.kill(victim.handle, no_restart=False)                # restarts from its saved files
    _assert_same(im, random.Random(6))
    names = {name: im.get(name).impl.shards[0].replicas[0].name for name in ("vec_sharded", "text_sharded")}
    im.close()                                               # saves; the detached actors keep running
    store.close()
    store = GraphStore.open(str(tmp_path / "graph"))
    im = IndexManager(store, str(tmp_path / "search"))
    assert im.await_indexes(120)
    for name, actor in names.items():
        index = im.get(name)
        assert index.loaded_from_files                       # re-attached, not rebuilt
        assert index.impl.shards[0].replicas[0].name == actor
    _assert_same(im, random.Random(7))
    im.drop("vec_sharded")
    with pytest.raises(ValueError):
        ray.get_actor(names["vec_sharded"], namespace="relate")   # DROP INDEX ends its actors
    im.close(save=False)
    store.close()


def test_hnsw_shards_keep_recall_within_a_hundredth_of_one_index(ray_cluster):
    store = GraphStore.open(None)
    im = IndexManager(store, None)
    hnsw = {"vector.dimensions": 16, "vector.hnsw.min_size": 500, "vector.exact.max_scope": 0}
    im.create_vector_index("one", "node", "P", "e", (), {"indexConfig": hnsw})
    im.create_vector_index("three", "node", "P", "e", (), {"indexConfig": {**hnsw, "shards": 3}})
    rng = np.random.default_rng(3)
    data = rng.standard_normal((4000, 16))
    tx = store.begin_write()
    ids = [tx.create_node(["P"], {"e": row.tolist()}) for row in data]
    tx.commit()
    assert im.await_indexes(120)
    unit = data / np.linalg.norm(data, axis=1, keepdims=True)
    recall = {"one": [], "three": []}
    for q in rng.standard_normal((60, 16)):
        truth = {ids[i] for i in np.argsort(-(unit @ (q / np.linalg.norm(q))))[:10]}
        for name in recall:
            recall[name].append(len(truth & {k for k, _ in im.vector_search(name, q.tolist(), 10)}) / 10)
    one, three = np.mean(recall["one"]), np.mean(recall["three"])
    assert im.get("one").impl.hnsw                           # really HNSW, not exact
    assert three >= one - 0.01, (one, three)
    im.close(save=False)
    store.close()


def test_cypher_ddl_search_and_show_indexes_on_a_sharded_index(ray_cluster):
    from relate.server.engine import Database
    db = Database.open(None)
    try:
        s = db.session()
        s.run("CREATE VECTOR INDEX sv FOR (n:Doc) ON (n.e) OPTIONS {indexConfig: "
              "{`vector.dimensions`: 2, `vector.similarity_function`: 'euclidean', shards: 2}}").consume()
        s.run("UNWIND range(1, 20) AS i CREATE (:Doc {id: i, e: [toFloat(i), 0.0]})").consume()
        rows = s.run("MATCH (d:Doc) SEARCH d IN (VECTOR INDEX sv FOR [3.1, 0.0] LIMIT 3) SCORE AS sc "
                     "RETURN d.id AS id ORDER BY sc DESC").fetch(10)
        assert [r[0] for r in rows] == [3, 4, 2]
        shown = s.run("SHOW INDEXES YIELD name, options, shards WHERE name = 'sv' "
                      "RETURN options.indexConfig.shards AS n, size(shards) AS replicas").fetch(1)
        assert shown == [(2, 2)]
        from relate.errors import ArgumentError
        with pytest.raises(ArgumentError):
            s.run("CREATE VECTOR INDEX bad FOR (n:Doc) ON (n.e) OPTIONS {indexConfig: {shards: 0}}").consume()
    finally:
        db.close()


def test_a_replica_that_lost_its_files_starts_over_from_its_peer(ray_cluster, tmp_path):
    import shutil

    import ray
    store = GraphStore.open(str(tmp_path / "graph"))
    im = IndexManager(store, str(tmp_path / "search"))
    _create(im, {"shards": 1, "replicas": 2})
    _write(store, _notes(200))
    assert im.await_indexes(120)
    im.checkpoint()                                          # the log is trimmed: it cannot replay batch 1
    _write(store, _notes(20, seed=12))
    for name in ("vec_sharded", "text_sharded"):
        im.get(name).flush()                                 # sent before the replica dies (else it is
        impl = im.get(name).impl                             # marked down and its healthy peer asked first)
        victim = impl.shards[0].replicas[1]
        directory = [d for d in (tmp_path / "search").iterdir() if d.name.startswith(name)][0]
        shutil.rmtree(directory / "shard-0-r1")              # its disk is gone ...
        old_pid = ray.get(victim.handle.info.remote())["pid"]
        ray.kill(victim.handle, no_restart=False)            # ... and so is its process: it restarts empty
        _wait_dead(ray, victim.handle, old_pid=old_pid)
        assert ray.get(victim.handle.position.remote())[0] == 0
        impl.shards[0].turn = 1                              # ask the restarted replica first
        _assert_same(im, random.Random(8))
        assert [r["state"] for r in impl.health()] == ["ONLINE", "ONLINE"]
    im.close(save=False)
    store.close()


def test_bulk_embedding_through_ray_tasks_feeds_a_sharded_index(ray_cluster):
    from relate.server.ai import embedders
    from relate.server.index.sharded.bulk import embed_property
    store = GraphStore.open(None)
    im = IndexManager(store, None)
    im.create_vector_index("emb", "node", "Note", "embedding", (), {"indexConfig": {"shards": 2}})
    texts = [f"note {i} about {WORDS[i % len(WORDS)]} and {WORDS[(3 * i) % len(WORDS)]}" for i in range(600)]
    ids = _write(store, [{"text": t} for t in texts])
    assert embed_property(store, "Note", "text", "embedding", "hash-384", window=256) == 600
    local = embedders.get("hash-384").embed(texts)
    tx = store.begin_read()
    assert [list(tx.node_prop(nid, "embedding")) for nid in ids] == local      # same vectors, same order
    tx.close()
    assert im.vector_search("emb", local[17], 1)[0][0] == ids[17]
    im.close(save=False)
    store.close()


def test_every_ray_socket_is_on_loopback(ray_cluster):
    """The workplace allows network traffic on 127.0.0.0/8 only: with shard actors live on both nodes,
    no socket of the cluster's processes (GCS, raylets, agents, shard workers) or of this driver is
    bound to or connected to another address."""
    import os

    import ray
    store = GraphStore.open(None)
    im = IndexManager(store, None)
    im.create_vector_index("lo", "node", "Note", "e", (),
                           {"indexConfig": {"vector.dimensions": DIMS, "shards": 2, "replicas": 2}})
    _write(store, _notes(40, seed=5))
    assert im.vector_search("lo", [1.0] * DIMS, 3)
    alive = [n for n in ray.nodes() if n["Alive"]]
    assert len(alive) == 2 and {n["NodeManagerAddress"] for n in alive} == {"127.0.0.1"}
    seen, bad = ray_cluster.loopback_violations({os.getpid()})
    im.close(save=False)
    store.close()
    assert seen > 10 and bad == []
