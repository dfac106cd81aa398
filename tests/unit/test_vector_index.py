"""Vector indexes: exact search equals numpy brute force inside the filter; HNSW keeps recall@10 >= 0.98."""
from __future__ import annotations

import numpy as np
import pytest

from relate.errors import ArgumentError
from relate.values import Vector
from relate.server.index.vector import VectorConfig, VectorIndex

N, DIMS = 2_500, 32
# (name, filters, mask over keys) keeping ~100%, 10%, 1% and 0.1% of the nodes
FILTERS = [
    ("100%", [], lambda keys: np.ones(len(keys), bool)),
    ("10%", [("g", "<", 10)], lambda keys: keys % 100 < 10),
    ("1%", [("g", "=", 7)], lambda keys: keys % 100 == 7),
    ("0.1%", [("h", "IN", [3, 999_999])], lambda keys: keys % 1000 == 3),
]


def random_index(metric: str, seed: int = 0, **config) -> tuple[VectorIndex, np.ndarray]:
    rng = np.random.default_rng(seed)
    vectors = rng.normal(size=(N, DIMS))
    index = VectorIndex(VectorConfig(DIMS, metric, **config), ["g", "h"])
    for key, v in enumerate(vectors):
        index.upsert(key, v.tolist(), {"g": key % 100, "h": key % 1000})
    index.sync(threads=4)
    return index, vectors


def brute_force(vectors: np.ndarray, keys: np.ndarray, q: np.ndarray, metric: str, k: int):
    """The k best (key, score) by numpy, with Neo4j's score conventions, ties by key."""
    if metric == "cosine":
        x = (vectors / np.linalg.norm(vectors, axis=1, keepdims=True)).astype(np.float32)
        qn = (q / np.linalg.norm(q)).astype(np.float32)
        scores = (1 + (x @ qn).astype(np.float64)) / 2
    else:
        d2 = ((vectors.astype(np.float32) - q.astype(np.float32)) ** 2).sum(axis=1).astype(np.float64)
        scores = 1 / (1 + d2)
    order = np.lexsort((keys, -scores))[:k]
    return [(int(keys[i]), float(scores[i])) for i in order]


@pytest.mark.parametrize("metric", ["cosine", "euclidean"])
@pytest.mark.parametrize("name, filters, mask", FILTERS, ids=[f[0] for f in FILTERS])
def test_exact_search_equals_brute_force_inside_the_filter(metric, name, filters, mask):
    index, vectors = random_index(metric)
    assert not index.hnsw
    assert_exact_inside_filter(index, vectors, metric, np.random.default_rng(1), 15, filters, mask)


def assert_exact_inside_filter(index, vectors, metric: str, rng, queries: int, filters, mask) -> None:
    """Every search's hits equal brute force inside the filter: the same keys in order, the same scores."""
    keys = np.arange(N)
    keep = mask(keys)
    for _ in range(queries):
        q = rng.normal(size=DIMS)
        expected = brute_force(vectors[keep], keys[keep], q, metric, 10)
        got = index.search(q.tolist(), 10, filters)
        assert [k for k, _ in got] == [k for k, _ in expected]
        assert [s for _, s in got] == pytest.approx([s for _, s in expected], abs=2e-6)
        assert len(got) == min(10, int(keep.sum()))


@pytest.mark.parametrize("metric", ["cosine", "euclidean"])
@pytest.mark.parametrize("exact_max_scope", [0, 300])
def test_hnsw_recall_at_10_inside_filters(metric, exact_max_scope):
    index, vectors = random_index(metric, seed=2, hnsw_min_size=0, exact_max_scope=exact_max_scope,
                                  m=16, ef_construction=100, ef_search=64)
    assert index.hnsw
    assert_recall_inside_filters(index, vectors, metric, np.random.default_rng(3), 40)


def assert_recall_inside_filters(index, vectors, metric: str, rng, queries: int, check=None) -> None:
    """recall@10 >= 0.98 against brute force inside each of FILTERS, never fewer than k hits while the
    scope holds k; ``check(got, expected)`` sees every search's hits and the exact ones."""
    keys = np.arange(N)
    for name, filters, mask in FILTERS:
        found = wanted = 0
        for _ in range(queries):
            q = rng.normal(size=DIMS)
            keep = mask(keys)
            expected = brute_force(vectors[keep], keys[keep], q, metric, 10)
            got = index.search(q.tolist(), 10, filters)
            assert len(got) == len(expected), name
            if check is not None:
                check(got, expected)
            found += len({k for k, _ in expected} & {k for k, _ in got})
            wanted += len(expected)
        assert found / wanted >= 0.98, (name, found / wanted)


def test_tombstones_and_rebuild_keep_results_exact():
    rng = np.random.default_rng(4)
    index = VectorIndex(VectorConfig(8, "cosine"), ["g"])
    live = {}
    for key in range(1_000):
        live[key] = rng.normal(size=8)
        index.upsert(key, live[key].tolist(), {"g": key % 10})
    index.sync()
    for key in rng.choice(1_000, 400, replace=False):     # updates leave tombstones
        live[int(key)] = rng.normal(size=8)
        index.upsert(int(key), live[int(key)].tolist(), {"g": int(key) % 10})
    index.sync()
    assert index._dead == 0 and index._n == 1_000       # 400 dead of 1400 rows: past the fraction, compacted
    for key in list(live)[:150]:
        index.delete(key)
        del live[key]
    index.sync()
    assert index._dead == 150 and len(index) == 850       # below the fraction: still tombstones
    keys = np.array(sorted(live))
    vectors = np.array([live[k] for k in keys])
    for _ in range(10):
        q = rng.normal(size=8)
        expected = brute_force(vectors, keys, q, "cosine", 7)
        got = index.search(q.tolist(), 7)
        assert [k for k, _ in got] == [k for k, _ in expected]
        keep = keys % 10 == 3
        expected = brute_force(vectors[keep], keys[keep], q, "cosine", 7)
        assert [k for k, _ in index.search(q.tolist(), 7, [("g", "=", 3)])] == [k for k, _ in expected]


def test_filter_semantics_follow_cypher():
    index = VectorIndex(VectorConfig(2, "euclidean"), ["s", "t", "b"])
    rows = {1: {"s": "session-1", "t": 10, "b": True}, 2: {"s": "session-2", "t": 20.5, "b": False},
            3: {"s": "session-3", "t": 30}, 4: {"s": 7, "t": "x"}, 5: {}}
    for key, props in rows.items():
        index.upsert(key, [float(key), 0.0], props)
    index.sync()

    def keys(filters):
        return sorted(k for k, _ in index.search([0.0, 0.0], 10, filters))

    assert keys([("s", "=", "session-2")]) == [2]
    assert keys([("s", ">=", "session-2"), ("s", "<=", "session-3")]) == [2, 3]
    assert keys([("s", "IN", ["session-1", "session-3", 7])]) == [1, 3, 4]
    assert keys([("t", ">", 10)]) == [2, 3]
    assert keys([("t", "=", 10.0)]) == [1]                 # 10 = 10.0
    assert keys([("t", "<", "y")]) == [4]                  # strings compare with strings only
    assert keys([("b", "=", False)]) == [2]
    assert keys([("b", "<", True)]) == [2]                 # false < true
    assert keys([("t", "=", None)]) == []                  # null never matches
    with pytest.raises(ArgumentError, match="WITH"):
        keys([("nope", "=", 1)])


def test_wrong_dimensions_and_invalid_values_are_skipped_and_counted():
    index = VectorIndex(VectorConfig(3, "cosine"), [])
    assert index.upsert(1, [1.0, 0.0, 0.0], {})
    assert index.upsert(2, Vector([0.0, 1.0, 0.0]), {})
    assert not index.upsert(3, [1.0, 2.0], {})
    assert not index.upsert(4, [0.0, 0.0, 0.0], {})
    assert not index.upsert(5, ["a", "b", "c"], {})
    assert not index.upsert(6, [1.0, float("nan"), 0.0], {})
    index.sync()
    assert len(index) == 2 and sorted(index.skipped) == [3, 4, 5, 6]
    assert index.upsert(3, [0.0, 0.0, 2.0], {})            # a later valid value is indexed
    assert sorted(index.skipped) == [4, 5, 6]
    index.sync()
    assert index.search([0.0, 0.0, 1.0], 1) == [(3, 1.0)]
    with pytest.raises(ArgumentError, match="dimensions"):
        index.search([1.0, 0.0], 1)
    with pytest.raises(ArgumentError):
        index.search([0.0, 0.0, 0.0], 1)
    with pytest.raises(ArgumentError):
        index.search([1.0, 0.0, 0.0], -1)
    assert index.search([1.0, 0.0, 0.0], 0) == []
    for bad in ([1.0, float("nan"), 0.0], [float("inf"), 0.0, 0.0], [float("-inf"), 1.0, 1.0], [True, 0.0, 0.0],
                ["1", "0", "0"], [None, 1.0, 0.0]):
        with pytest.raises(ArgumentError):
            index.search(bad, 1)
    # ints and floats alike; squares beyond a double's range (either way) are not infinite or zero
    assert index.search([0, 0, 3], 1) == [(3, 1.0)]
    assert index.search([0.0, 1e-200, 1e200], 1) == [(3, 1.0)] == index.search([0.0, 0.0, 1e-200], 1)


def test_scores_follow_neo4j_and_ties_resolve_by_id():
    index = VectorIndex(VectorConfig(None, "cosine"), [])
    for key in (9, 4, 6):
        index.upsert(key, [1.0, 1.0], {})
    index.upsert(1, [-1.0, -1.0], {})
    index.sync()
    assert index.dims == 2                                  # taken from the first vector
    hits = index.search([2.0, 2.0], 4)
    assert [k for k, _ in hits] == [4, 6, 9, 1]
    assert [s for _, s in hits] == pytest.approx([1.0, 1.0, 1.0, 0.0], abs=1e-7)   # float32 arithmetic
    euclid = VectorIndex(VectorConfig(2, "euclidean"), [])
    euclid.upsert(1, [3.0, 4.0], {})
    euclid.sync()
    assert euclid.search([0.0, 0.0], 1) == [(1, pytest.approx(1 / 26))]


@pytest.mark.parametrize("hnsw_min_size", [10**9, 0])
def test_save_and_load(tmp_path, hnsw_min_size):
    index, vectors = random_index("cosine", seed=5, hnsw_min_size=hnsw_min_size)
    index.delete(0)
    index.sync()
    rng = np.random.default_rng(6)
    queries = [rng.normal(size=DIMS).tolist() for _ in range(5)]
    before = [index.search(q, 10, [("g", "<", 50)]) for q in queries]
    index.save(str(tmp_path))
    loaded = VectorIndex(VectorConfig(DIMS, "cosine", hnsw_min_size=hnsw_min_size), ["g", "h"])
    loaded.load(str(tmp_path))
    assert loaded.hnsw == index.hnsw and len(loaded) == N - 1
    assert [loaded.search(q, 10, [("g", "<", 50)]) for q in queries] == before
    loaded.upsert(N, vectors[1].tolist(), {"g": 1, "h": 1})
    loaded.sync()
    assert loaded.search(vectors[1].tolist(), 2)[0][1] == pytest.approx(1.0)


@pytest.mark.parametrize("metric", ["cosine", "euclidean"])
def test_gathered_and_faiss_exact_paths_agree(metric, monkeypatch):
    """Few allowed rows are scored by a numpy gather, many by FAISS with a selector: same ids and scores."""
    import relate.server.index.vector as vector_module
    index, vectors = random_index(metric, seed=4)
    for key in range(0, N, 7):           # tombstones inside the filters
        index.delete(key)
    keys = np.arange(N)
    alive = keys % 7 != 0
    rng = np.random.default_rng(5)
    for name, filters, mask in FILTERS + [("all", [("g", ">=", 0)], lambda keys: np.ones(len(keys), bool))]:
        keep = mask(keys) & alive
        for _ in range(5):
            q = rng.normal(size=DIMS)
            monkeypatch.setattr(vector_module, "GATHER_FRACTION", 1)
            monkeypatch.setattr(vector_module, "GATHER_MAX_VALUES", N * DIMS)
            gathered = index.search(q.tolist(), 10, filters)
            monkeypatch.setattr(vector_module, "GATHER_FRACTION", 2 * N)
            scanned = index.search(q.tolist(), 10, filters)
            expected = brute_force(vectors[keep], keys[keep], q, metric, 10)
            assert [k for k, _ in gathered] == [k for k, _ in scanned] == [k for k, _ in expected], name
            assert [s for _, s in gathered] == [s for _, s in scanned]      # bit-identical
            assert [s for _, s in gathered] == pytest.approx([s for _, s in expected], abs=2e-6)


def test_gathered_search_resolves_ties_by_id(monkeypatch):
    import relate.server.index.vector as vector_module
    monkeypatch.setattr(vector_module, "GATHER_FRACTION", 1)
    index = VectorIndex(VectorConfig(2, "cosine"), ["g"])
    for key in range(40, 0, -1):        # 40 identical vectors, inserted in reverse key order
        index.upsert(key, [1.0, 1.0], {"g": 1})
    index.upsert(100, [1.0, 0.0], {"g": 1})
    index.upsert(0, [1.0, 1.0], {"g": 2})     # outside the filter, so the gathered path runs
    index.sync()
    assert [k for k, _ in index.search([1.0, 1.0], 3, [("g", "=", 1)])] == [1, 2, 3]
    assert [k for k, _ in index.search([1.0, 0.0], 2, [("g", "=", 1)])] == [100, 1]


@pytest.mark.parametrize("hnsw_min_size", [0, 10**9])
def test_a_filter_keeping_every_row_searches_without_a_selector(hnsw_min_size, monkeypatch):
    index, _ = random_index("cosine", seed=6, hnsw_min_size=hnsw_min_size, exact_max_scope=0,
                            m=16, ef_construction=100, ef_search=64)
    index.delete(3)
    selectors = []
    original = VectorIndex._selector
    monkeypatch.setattr(VectorIndex, "_selector", lambda self, allowed: selectors.append(allowed) or
                        original(self, allowed))
    rng = np.random.default_rng(7)
    for _ in range(5):
        q = rng.normal(size=DIMS).tolist()
        selectors.clear()
        unfiltered = index.search(q, 10)
        plain = list(selectors)
        selectors.clear()
        assert index.search(q, 10, [("g", ">=", 0), ("h", "<", 1000)]) == unfiltered
        assert [a is None for a in selectors] == [a is None for a in plain]


RANGE_FILTERS = [[("g", ">=", 90)], [("g", ">", 89.5)], [("g", "<", 3)], [("g", "<=", 2)], [("g", "=", 7)],
                 [("g", "=", 7.0)], [("g", ">=", float("nan"))], [("g", "<", float("inf"))], [("g", ">", 10**30)],
                 [("g", "<", -5)]]


@pytest.mark.parametrize("filters", RANGE_FILTERS, ids=[repr(f) for f in RANGE_FILTERS])
def test_range_rows_from_the_sorted_column_equal_the_mask(filters, monkeypatch):
    """A one-property numeric filter answered by binary search in a sorted copy of the column, through
    writes (the copy follows every change), equals the mask over every row."""
    import relate.server.index.vector as V
    index, vectors = random_index("cosine", seed=8)
    q = np.random.default_rng(9).normal(size=DIMS).tolist()
    masked = index.search(q, 10, filters)
    monkeypatch.setattr(V, "RANGE_INDEX_AFTER", 1)
    used = []
    original = VectorIndex._range_rows
    monkeypatch.setattr(VectorIndex, "_range_rows", lambda self, f, n: used.append(original(self, f, n)) or used[-1])
    assert index.search(q, 10, filters) == masked
    assert used[-1] is not None or type(filters[0][2]) is int and filters[0][2] > 2 ** 53
    index.delete(int(masked[0][0]) if masked else 0)       # a change: the sorted copy is rebuilt
    index.set_filter_values(5, {"g": 95, "h": 5})
    index.sync()
    monkeypatch.setattr(V, "RANGE_INDEX_AFTER", 10**9)
    expected = index.search(q, 10, filters)                # the mask path again
    monkeypatch.setattr(V, "RANGE_INDEX_AFTER", 1)
    assert index.search(q, 10, filters) == expected


def test_range_rows_wait_for_stable_rows_and_skip_other_values(monkeypatch):
    import relate.server.index.vector as V
    monkeypatch.setattr(V, "RANGE_INDEX_AFTER", 3)
    index, _ = random_index("cosine", seed=10)
    q = [1.0] * DIMS
    built = [index._range_rows([("g", ">=", 50)], index._n) is not None for _ in range(4)]
    assert built == [False, False, True, True]
    index.upsert(10**6, [0.5] * DIMS, {"g": 60, "h": 1})    # a write: wait again
    assert index._range_rows([("g", ">=", 50)], index._n) is None
    index.upsert(10**6 + 1, [0.5] * DIMS, {"g": "sixty", "h": 1})
    for _ in range(5):
        assert [k for k, _ in index.search(q, 3, [("g", ">=", 50)])]
    index.upsert(10**6 + 2, [0.5] * DIMS, {"g": [1, 2], "h": 1})    # a value only Cypher compares
    for _ in range(5):
        assert index._range_rows([("g", ">=", 50)], index._n) is None


@pytest.mark.parametrize("metric", ["cosine", "euclidean"])
def test_permissive_filters_on_hnsw_post_filter_with_recall_and_fall_back(metric, monkeypatch):
    """A filter keeping >= 10% of the rows searches HNSW without a selector and keeps the first k passing;
    too few passing falls back to the selector search. Recall@10 stays >= 0.98 against brute force."""
    index, vectors = random_index(metric, seed=11, hnsw_min_size=0, exact_max_scope=0, m=16,
                                  ef_construction=100, ef_search=64)
    assert index.hnsw
    index.delete(4)
    index.sync()
    calls = {"post": 0, "selector": 0}
    post, hnsw = VectorIndex._postfilter_search, VectorIndex._hnsw_search
    monkeypatch.setattr(VectorIndex, "_postfilter_search",
                        lambda self, *a: calls.__setitem__("post", calls["post"] + 1) or post(self, *a))
    monkeypatch.setattr(VectorIndex, "_hnsw_search",
                        lambda self, *a: calls.__setitem__("selector", calls["selector"] + 1) or hnsw(self, *a))
    keys = np.arange(N)
    alive = keys != 4
    rng = np.random.default_rng(12)
    for filters, keep in (([("g", "<", 30)], keys % 100 < 30), ([("g", ">=", 85), ("h", "<", 1000)], keys % 100 >= 85)):
        found = 0
        for _ in range(20):
            q = rng.normal(size=DIMS)
            mask = keep & alive
            expected = {k for k, _ in brute_force(vectors[mask], keys[mask], q, metric, 10)}
            got = index.search(q.tolist(), 10, filters)
            assert len(got) == 10 and all(mask[k] for k, _ in got)
            assert [s for _, s in got] == sorted((s for _, s in got), reverse=True)
            found += len(expected & {k for k, _ in got})
        assert found / 200 >= 0.98, (filters, found / 200)
    assert calls["post"] == 40 and calls["selector"] == 0
    # tombstones only: the same post-filter drops the dead rows (no selector)
    got = index.search(vectors[4].tolist(), 10)
    assert calls["post"] == 41 and calls["selector"] == 0 and 4 not in {k for k, _ in got} and len(got) == 10
    # a query far from every row passing the filter: the post-filter comes back short, the selector answers
    calls.update(post=0, selector=0)
    monkeypatch.setattr("relate.server.index.vector.POSTFILTER_MARGIN", 0.01)
    monkeypatch.setattr("relate.server.index.vector.POSTFILTER_EXTRA", 0)
    got = index.search(vectors[0].tolist(), 10, [("g", ">=", 50)])
    assert calls == {"post": 1, "selector": 1} and len(got) == 10 and all(k % 100 >= 50 for k, _ in got)


def test_a_permissive_filter_below_exact_max_scope_post_filters_from_a_few_thousand_rows(monkeypatch):
    """The default exact_max_scope (15,000) keeps selective filters exact; a permissive one (>= 10% of the
    rows) over more than POSTFILTER_MIN_SCOPE rows searches HNSW and filters after (far cheaper than an exact
    scan of its scope), still k hits inside the filter at recall >= 0.98; a smaller scope stays exact."""
    from relate.server.index import vector as vector_module
    monkeypatch.setattr(vector_module, "POSTFILTER_MIN_SCOPE", 600)     # N here is 2,500 rows
    index, vectors = random_index("cosine", seed=21, hnsw_min_size=0, m=16, ef_construction=100, ef_search=64)
    assert index.hnsw and index.config.exact_max_scope >= N
    calls = {"post": 0, "exact": 0}
    post, exact = VectorIndex._postfilter_search, VectorIndex._exact_search
    monkeypatch.setattr(VectorIndex, "_postfilter_search",
                        lambda self, *a: calls.__setitem__("post", calls["post"] + 1) or post(self, *a))
    monkeypatch.setattr(VectorIndex, "_exact_search",
                        lambda self, *a: calls.__setitem__("exact", calls["exact"] + 1) or exact(self, *a))
    keys, rng, found = np.arange(N), np.random.default_rng(22), 0
    keep = keys % 100 < 30                                               # 750 rows: over 600, post-filtered
    for _ in range(20):
        q = rng.normal(size=DIMS)
        expected = {k for k, _ in brute_force(vectors[keep], keys[keep], q, "cosine", 10)}
        got = index.search(q.tolist(), 10, [("g", "<", 30)])
        assert len(got) == 10 and all(k % 100 < 30 for k, _ in got)
        found += len(expected & {k for k, _ in got})
    assert found / 200 >= 0.98 and calls == {"post": 20, "exact": 0}
    small = keys % 100 < 20                                              # 500 rows: exact, as before
    q = rng.normal(size=DIMS)
    got = index.search(q.tolist(), 10, [("g", "<", 20)])
    assert [k for k, _ in got] == [k for k, _ in brute_force(vectors[small], keys[small], q, "cosine", 10)]
    assert calls == {"post": 20, "exact": 1}
