"""A vector index that grows past vector.hnsw.min_size: the HNSW is built in the background while
searches stay exact (never blocked for the build), then swapped in with a calibrated efSearch that keeps
recall@10 >= 0.98; filtered searches keep returning k hits inside the filter."""
from __future__ import annotations

import time

import numpy as np

import relate
from relate.server.index.rwlock import RWLock
from relate.server.index.vector import EF_LADDER, VectorConfig, VectorIndex

DIMS = 24


def _grow(index: VectorIndex, rw: RWLock, vectors: np.ndarray, start: int, end: int) -> None:
    with rw.write():
        index.upsert_many([(i, vectors[i], {"g": i % 10}) for i in range(start, end)])
        index.sync(2, rw)


def _recall(index: VectorIndex, vectors: np.ndarray, queries: np.ndarray, filters=(), keep=None) -> float:
    unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    hits = 0
    for q in queries:
        scores = unit @ (q / np.linalg.norm(q))
        if keep is not None:
            scores = np.where(keep, scores, -np.inf)
        truth = set(np.argsort(-scores)[:10].tolist())
        got = [k for k, _ in index.search(q.tolist(), 10, filters)]
        assert len(got) == 10
        if keep is not None:
            assert all(keep[k] for k in got)
        hits += len(truth & set(got))
    return hits / (10 * len(queries))


def test_growing_past_min_size_builds_hnsw_in_the_background_and_calibrates_ef():
    rng = np.random.default_rng(3)
    vectors = rng.normal(size=(6_000, DIMS)).astype(np.float32)
    queries = rng.normal(size=(40, DIMS)).astype(np.float32)
    rw = RWLock()
    index = VectorIndex(VectorConfig(DIMS, "cosine", m=16, ef_construction=80, hnsw_min_size=3_000,
                                     exact_max_scope=0), ["g"])
    _grow(index, rw, vectors, 0, 2_500)
    assert not index.hnsw
    _grow(index, rw, vectors, 2_500, 4_000)             # crosses min_size: a background build starts
    started = time.monotonic()
    with rw.read():
        exact = index.search(queries[0].tolist(), 10)     # answered now, exactly, while it builds
    assert time.monotonic() - started < 1.0 and len(exact) == 10
    _grow(index, rw, vectors, 4_000, 6_000)             # writes go on during the build
    assert index.wait_build(120)
    assert index.hnsw and len(index) == 6_000 and index.auto_ef in EF_LADDER
    assert _recall(index, vectors, queries) >= 0.98
    keep = np.arange(6_000) % 10 < 3
    assert _recall(index, vectors, queries, [("g", "<", 3)], keep) >= 0.98


def test_a_configured_ef_search_is_kept_and_auto_restores_calibration():
    with relate.connect(":memory:") as c:
        c.execute("CREATE VECTOR INDEX e FOR (n:N) ON (n.v) OPTIONS {indexConfig: {`vector.dimensions`: 2}}")
        shown = c.execute("SHOW INDEXES YIELD name, options WHERE name = 'e' RETURN options").values()
        assert shown[0][0]["indexConfig"]["vector.hnsw.ef_search"] == "auto"
        c.execute("CALL db.index.vector.setSearchOptions('e', {`vector.hnsw.ef_search`: 40})").consume()
        shown = c.execute("SHOW INDEXES YIELD name, options WHERE name = 'e' RETURN options").values()
        assert shown[0][0]["indexConfig"]["vector.hnsw.ef_search"] == 40
        c.execute("CALL db.index.vector.setSearchOptions('e', {`vector.hnsw.ef_search`: 'auto'})").consume()
        shown = c.execute("SHOW INDEXES YIELD name, options WHERE name = 'e' RETURN options").values()
        assert shown[0][0]["indexConfig"]["vector.hnsw.ef_search"] == "auto"


def test_efsearch_is_recalibrated_as_the_index_keeps_growing():
    rng = np.random.default_rng(5)
    vectors = rng.normal(size=(5_200, DIMS)).astype(np.float32)
    queries = rng.normal(size=(40, DIMS)).astype(np.float32)
    rw = RWLock()
    index = VectorIndex(VectorConfig(DIMS, "cosine", m=16, ef_construction=80, hnsw_min_size=3_000,
                                     exact_max_scope=0), ["g"])
    _grow(index, rw, vectors, 0, 4_000)
    assert index.wait_build(120) and index.hnsw
    first = index.calibrated_at
    assert 3_000 <= first <= 4_000
    _grow(index, rw, vectors, 4_000, 4_400)             # under 1.25x: the calibration stands
    assert index.wait_build(120) and index.calibrated_at == first
    _grow(index, rw, vectors, 4_400, 5_200)             # past 1.25x: calibrated again on all rows
    assert index.wait_build(120) and index.calibrated_at == 5_200
    assert _recall(index, vectors, queries) >= 0.98
