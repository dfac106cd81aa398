"""Quantized HNSW (``vector.quantization.enabled``, on by default): 8-bit codes find the candidates, the
float rows score them, so hits carry exact scores, recall holds and the FAISS part is a quarter the size."""
from __future__ import annotations

import faiss
import numpy as np
import pytest

import relate
from relate.errors import ArgumentError
from relate.server.index import vector as vector_module
from relate.server.index.vector import VectorConfig, VectorIndex
from tests.unit.test_vector_index import (DIMS, FILTERS, N, assert_exact_inside_filter,
                                         assert_recall_inside_filters, brute_force, random_index)


def faiss_bytes(index: VectorIndex) -> int:
    return len(faiss.serialize_index(index._faiss))


@pytest.mark.parametrize("metric", ["cosine", "euclidean"])
def test_quantized_hnsw_hits_carry_exact_scores_and_recall(metric):
    index, vectors = random_index(metric, seed=11, hnsw_min_size=0, m=16, ef_construction=100, ef_search=64)
    assert index.hnsw and index.quantized

    def exact_scores(got, expected):
        exact = dict(expected)
        for key, score in got:              # re-scored from the float rows: the exact score of that key
            if key in exact:
                assert score == pytest.approx(exact[key], abs=2e-6)
        assert [s for _, s in got] == sorted((s for _, s in got), reverse=True)

    assert_recall_inside_filters(index, vectors, metric, np.random.default_rng(12), 30, exact_scores)


def test_quantization_off_keeps_float_storage_and_quantized_is_a_quarter_the_size():
    quantized, _ = random_index("cosine", seed=13, hnsw_min_size=0, m=16, ef_construction=100)
    plain, _ = random_index("cosine", seed=13, hnsw_min_size=0, m=16, ef_construction=100, quantization=False)
    assert quantized.quantized and not plain.quantized
    assert isinstance(faiss.downcast_index(plain._faiss.index), faiss.IndexHNSWFlat)
    graph = N * 16 * 2 * 4                  # the HNSW links (level 0: 2M neighbours of 4 bytes), in both
    assert faiss_bytes(quantized) - graph < 0.4 * (faiss_bytes(plain) - graph)


def test_a_small_hnsw_is_not_quantized():
    index = VectorIndex(VectorConfig(DIMS, "cosine", hnsw_min_size=0), [])
    rng = np.random.default_rng(14)
    for key in range(vector_module.SQ_MIN_ROWS - 1):
        index.upsert(key, rng.normal(size=DIMS).tolist(), {})
    index.sync()
    assert index.hnsw and not index.quantized       # too few rows to train the quantizer on


@pytest.mark.parametrize("metric", ["cosine", "euclidean"])
def test_exact_filtered_search_on_a_quantized_index_scores_the_float_rows(metric, monkeypatch):
    # no gathering: a filter under exact_max_scope scans every row of the quantized index
    monkeypatch.setattr(vector_module, "GATHER_FRACTION", 10**9)
    index, vectors = random_index(metric, seed=15, hnsw_min_size=0, exact_max_scope=N)
    assert index.quantized
    rng = np.random.default_rng(16)
    for _, filters, mask in FILTERS[1:]:
        assert_exact_inside_filter(index, vectors, metric, rng, 5, filters, mask)


def test_calibrated_ef_on_a_quantized_index_and_many_queries_at_once(tmp_path):
    index, vectors = random_index("cosine", seed=17, hnsw_min_size=0)      # ef_search: calibrated
    assert index.quantized and index.calibrated_at == N
    keys = np.arange(N)
    rng = np.random.default_rng(18)
    queries = [vectors[i] + rng.normal(scale=0.5, size=DIMS) for i in rng.choice(N, 40, replace=False)]
    found = sum(len({k for k, _ in index.search(q.tolist(), 10)} & {k for k, _ in brute_force(vectors, keys, q, "cosine", 10)})
                for q in queries)
    assert found / 400 >= 0.98
    assert index.search_many([q.tolist() for q in queries[:5]], 10) == [index.search(q.tolist(), 10) for q in queries[:5]]
    index.save(str(tmp_path))
    loaded = VectorIndex(VectorConfig(DIMS, "cosine", hnsw_min_size=0), ["g", "h"])
    loaded.load(str(tmp_path))
    assert loaded.quantized and loaded.auto_ef == index.auto_ef
    assert [loaded.search(q.tolist(), 10) for q in queries] == [index.search(q.tolist(), 10) for q in queries]


def test_the_setting_in_cypher():
    db = relate.connect(":memory:")
    with pytest.raises(ArgumentError, match="quantization.enabled"):
        db.execute("CREATE VECTOR INDEX v FOR (n:Doc) ON n.e "
                   "OPTIONS {indexConfig: {`vector.dimensions`: 4, `vector.quantization.enabled`: 'yes'}}").consume()
    db.execute("CREATE VECTOR INDEX v FOR (n:Doc) ON n.e "
               "OPTIONS {indexConfig: {`vector.dimensions`: 4, `vector.quantization.enabled`: false}}").consume()
    options = db.execute("SHOW VECTOR INDEXES YIELD name, options WHERE name = 'v' RETURN options").single()[0]
    assert options["indexConfig"]["vector.quantization.enabled"] is False
    db.close()
