"""Vector indexes on FAISS: exact while small, HNSW once large, the k best always inside the filter.

Rows hold one vector each (cosine vectors are normalized on the way in); FAISS ids are row numbers,
so a filter mask over rows is directly an IDSelectorBitmap. Updates and deletes leave tombstones
(dead rows) that searches exclude; past a dead fraction the rows are compacted and FAISS rebuilt.
Scores are Neo4j's: cosine (1 + cos) / 2, euclidean 1 / (1 + d²).
"""
from __future__ import annotations

import math
import os
import pickle

import faiss
import numpy as np

from relate.protocol.errors import ArgumentError

from .filters import FilterColumns

# Defaults chosen from bench/search.py (hash-384 notes, see docs/architecture.md "Search indexes").
HNSW_MIN_SIZE = 50_000        # rows from which an index switches from exact search to HNSW
EXACT_MAX_SCOPE = 15_000      # a filtered search over at most this many rows runs exactly
# An exact filtered search gathers the allowed rows and scores them with FAISS's own distance kernels
# (bit-identical to its flat search) instead of a flat scan of every row through a selector, when they are
# few: at most 1/GATHER_FRACTION of the rows and GATHER_MAX_VALUES coordinates (the copy grows with both).
# Measured, hash-384, 1 thread: N 100k, 1,000 rows: FAISS + selector 0.22 ms, gather 0.11 ms; 2,000:
# 0.39 vs 0.35; 4,000: 0.63 vs 1.3 (random rows); N 20k, 1,000 rows: 0.14 vs 0.14.
GATHER_FRACTION = 32
GATHER_MAX_VALUES = 1 << 19
DEFAULT_M = 32
DEFAULT_EF_CONSTRUCTION = 200
DEFAULT_EF_SEARCH = 256
EF_MAX = 4096
DEAD_FRACTION = 0.25          # rebuild when this share of rows are tombstones
DEAD_MIN = 256
# A permissive filter (keeping at least POSTFILTER_MIN_SHARE of the rows) on an HNSW index searches without
# a selector for k' = POSTFILTER_MARGIN * k / share + POSTFILTER_EXTRA neighbours (efSearch at least k') and
# keeps the first k that pass; FAISS HNSW with a selector explores far more of the graph. Fewer than k
# passing falls back to the selector search (tombstones alone take the same path). Measured, hash-384 N 100k,
# ts filter keeping 30%, k 10, CPU ms per VectorIndex.search on a loaded 2-core machine: selector (efSearch
# 467) 3.7 ms, recall 0.996; post-filter (efSearch 256, k' 75) 1.8 ms, recall 0.989 (efSearch 384: 0.993).
POSTFILTER_MIN_SHARE = 0.1
POSTFILTER_MARGIN = 2.0
POSTFILTER_EXTRA = 8
# A one-property numeric range filter finds its rows by binary search in a sorted copy of the column
# (no mask over every row) once the rows have stayed unchanged for this many searches.
RANGE_INDEX_AFTER = 32


class VectorConfig:
    """Resolved configuration of one vector index."""

    def __init__(self, dimensions: int | None, similarity: str, m: int = DEFAULT_M,
                 ef_construction: int = DEFAULT_EF_CONSTRUCTION, ef_search: int = DEFAULT_EF_SEARCH,
                 hnsw_min_size: int = HNSW_MIN_SIZE, exact_max_scope: int = EXACT_MAX_SCOPE):
        self.dimensions = dimensions
        self.similarity = similarity
        self.m = m
        self.ef_construction = ef_construction
        self.ef_search = ef_search
        self.hnsw_min_size = hnsw_min_size
        self.exact_max_scope = exact_max_scope


def vector_values(value) -> np.ndarray | None:
    """A property value as a float array, or None when it is not a vector (or a list of numbers)."""
    if hasattr(value, "to_numpy"):
        return np.asarray(value.to_numpy(), dtype=np.float64)
    if isinstance(value, np.ndarray) and value.ndim == 1 and value.dtype.kind in "fiu" and len(value):
        return value.astype(np.float64)
    if isinstance(value, (list, tuple)) and value:
        kinds = set(map(type, value))
        if kinds <= _NUMBER_TYPES or all(issubclass(t, (int, float, np.number)) and t is not bool
                                         and not issubclass(t, np.bool_) for t in kinds):
            return np.asarray(value, dtype=np.float64)
    return None


_NUMBER_TYPES = {int, float}


class VectorIndex:
    """The rows, filter columns and FAISS index of one vector index. Callers hold the index's locks."""

    def __init__(self, config: VectorConfig, filter_props: list[str]):
        self.config = config
        self.cosine = config.similarity == "cosine"
        self.dims = config.dimensions
        self._capacity = 0
        self._vectors = np.empty((0, self.dims or 0), dtype=np.float32)
        self._keys = np.empty(0, dtype=np.int64)
        self._alive = np.empty(0, dtype=bool)
        self.columns = FilterColumns(filter_props)
        self._row_of: dict[int, int] = {}
        self._n = 0                   # rows in use
        self._dead = 0
        self._faiss = None
        self._faiss_rows = 0          # rows already added to FAISS
        self.hnsw = False
        self.skipped: dict[int, str] = {}   # entity id -> why its value was not indexed
        self._version = 0             # bumped by every change to the rows or their filter values
        self._ranges: dict = {}       # prop -> (version, sorted (values, rows)) for range filters
        self._range_wait: dict = {}   # prop -> (version, searches seen at that version)
        self._params: dict = {}       # efSearch -> selector-less SearchParametersHNSW

    # ---- size -----------------------------------------------------------------------------
    def __len__(self) -> int:
        return self._n - self._dead

    def __contains__(self, key: int) -> bool:
        return key in self._row_of

    # ---- writes ---------------------------------------------------------------------------
    def upsert(self, key: int, value, filter_props: dict) -> bool:
        """Index ``value`` for ``key`` (replacing its old row); False when the value is skipped."""
        return self.upsert_many([(key, value, filter_props)]) == 1

    def upsert_many(self, items) -> int:
        """Index [(key, value, filter props)] in one go (vectorized checks); returns how many were indexed."""
        keys, arrays, props = [], [], []
        for key, value, filter_props in items:
            self.delete(key)
            vector = vector_values(value)
            if vector is None:
                self.skipped[key] = "not a list of numbers"
                continue
            if self.dims is None:
                self._set_dims(len(vector))
            if len(vector) != self.dims:
                self.skipped[key] = f"{len(vector)} dimensions, the index has {self.dims}"
                continue
            keys.append(key)
            arrays.append(vector)
            props.append(filter_props)
        if not keys:
            return 0
        block = np.vstack(arrays)
        ok = np.isfinite(block).all(axis=1)
        if self.cosine:
            norms = np.linalg.norm(np.where(ok[:, None], block, 0.0), axis=1)
            ok &= norms > 0
            block = block / np.where(norms > 0, norms, 1.0)[:, None]
        for i in np.flatnonzero(~ok):
            self.skipped[keys[i]] = "not finite" if not np.isfinite(arrays[i]).all() else \
                "zero vector (cosine needs a direction)"
        good = np.flatnonzero(ok)
        if len(good) == 0:
            return 0
        if self._n + len(good) > self._capacity:
            self._grow(max(1024, 2 * (self._n + len(good))))
        start = self._n
        end = start + len(good)
        self._vectors[start:end] = block[good]
        good_keys = [keys[i] for i in good]
        self._keys[start:end] = good_keys
        self._alive[start:end] = True
        for offset, i in enumerate(good):
            self._row_of[keys[i]] = start + offset
            self.columns.set_row(start + offset, props[i])
        self._n = end
        self._version += 1
        return len(good)

    def delete(self, key: int) -> bool:
        self.skipped.pop(key, None)
        row = self._row_of.pop(key, None)
        if row is None:
            return False
        self._alive[row] = False
        self._dead += 1
        self._version += 1
        return True

    def set_filter_values(self, key: int, filter_props: dict) -> None:
        row = self._row_of.get(key)
        if row is not None:
            self.columns.set_row(row, filter_props)
            self._version += 1

    def _set_dims(self, dims: int) -> None:
        self.dims = dims
        self._vectors = np.empty((self._capacity, dims), dtype=np.float32)

    def _grow(self, capacity: int) -> None:
        vectors = np.empty((capacity, self.dims or 0), dtype=np.float32)
        vectors[:self._n] = self._vectors[:self._n]
        self._vectors = vectors
        self._keys = np.concatenate([self._keys, np.zeros(capacity - self._capacity, dtype=np.int64)])
        self._alive = np.concatenate([self._alive, np.zeros(capacity - self._capacity, dtype=bool)])
        self.columns.grow(capacity)
        self._capacity = capacity

    def sync(self, threads: int = 1) -> None:
        """After a batch of writes: compact past the dead fraction, pick exact or HNSW, feed FAISS new rows."""
        if self.dims is None:
            return
        if self._dead >= DEAD_MIN and self._dead > DEAD_FRACTION * self._n:
            self._compact()
        # hysteresis: back to exact only well below the threshold, so sizes near it do not flap
        size, threshold = len(self), self.config.hnsw_min_size
        want_hnsw = size >= threshold if not self.hnsw else size >= threshold // 2
        if self._faiss is None or want_hnsw != self.hnsw:
            self.hnsw = want_hnsw
            self._faiss = self._new_faiss()
            self._faiss_rows = 0
        if self._faiss_rows < self._n:
            faiss.omp_set_num_threads(threads)
            rows = np.arange(self._faiss_rows, self._n, dtype=np.int64)
            self._faiss.add_with_ids(self._vectors[self._faiss_rows:self._n], rows)
            self._faiss_rows = self._n

    def _new_faiss(self):
        metric = faiss.METRIC_INNER_PRODUCT if self.cosine else faiss.METRIC_L2
        if self.hnsw:
            inner = faiss.IndexHNSWFlat(self.dims, self.config.m, metric)
            inner.hnsw.efConstruction = self.config.ef_construction
        else:
            inner = faiss.IndexFlatIP(self.dims) if self.cosine else faiss.IndexFlatL2(self.dims)
        return faiss.IndexIDMap2(inner)

    def _compact(self) -> None:
        keep = np.flatnonzero(self._alive[:self._n])
        capacity = max(1024, 2 * len(keep))
        vectors = np.empty((capacity, self.dims), dtype=np.float32)
        vectors[:len(keep)] = self._vectors[keep]
        keys = np.zeros(capacity, dtype=np.int64)
        keys[:len(keep)] = self._keys[keep]
        alive = np.zeros(capacity, dtype=bool)
        alive[:len(keep)] = True
        self.columns = self.columns.take(keep, capacity)
        self._vectors, self._keys, self._alive, self._capacity = vectors, keys, alive, capacity
        self._n, self._dead = len(keep), 0
        self._row_of = {int(k): row for row, k in enumerate(keys[:len(keep)])}
        self._faiss = None
        self._version += 1

    # ---- search ---------------------------------------------------------------------------
    def query_vector(self, vector) -> np.ndarray:
        values = vector_values(vector)
        if values is None:
            raise ArgumentError("The query vector must be a list of numbers or a vector")
        if self.dims is not None and len(values) != self.dims:
            raise ArgumentError(f"The query vector has {len(values)} dimensions, the index has {self.dims}")
        if not np.all(np.isfinite(values)):
            raise ArgumentError("The query vector holds a NaN or infinite coordinate")
        if self.cosine:
            norm = np.linalg.norm(values)
            if norm == 0:
                raise ArgumentError("A cosine vector search needs a non-zero query vector")
            values = values / norm
        return values.astype(np.float32)

    def search(self, vector, k: int, filters=()) -> list[tuple[int, float]]:
        """The k best (entity id, score) inside ``filters``, best first (ties by id)."""
        if not isinstance(k, int) or isinstance(k, bool) or k < 0:
            raise ArgumentError(f"The number of neighbours must be a non-negative integer, got {k!r}")
        q = self.query_vector(vector)
        if k == 0 or self.dims is None or not len(self):
            return []
        faiss.omp_set_num_threads(1)    # per-request searches are faster on one thread
        n, live = self._n, len(self)
        allowed = rows = None           # the rows in scope: a mask over [0, n), or row numbers
        if filters:
            rows = self._range_rows(filters, n)
            if rows is None:
                allowed = self.columns.mask(filters, n)
                if self._dead:
                    allowed &= self._alive[:n]
                scope = int(np.count_nonzero(allowed))
            else:
                scope = len(rows)
            if scope == live:
                # the filter keeps every live row: search as if unfiltered (no selector)
                filters, allowed, rows = (), None, None
        else:
            scope = live
        if not filters and self._dead:
            allowed = self._alive[:n]
        if scope == 0:
            return []
        k = min(k, scope)
        if self.hnsw and scope > self.config.exact_max_scope:
            if (filters or allowed is not None) and scope >= POSTFILTER_MIN_SHARE * n:
                # a permissive filter, or tombstones only
                hits = self._postfilter_search(q, k, filters, allowed, scope)
                if hits is not None:
                    return hits
            if allowed is None and rows is not None:
                allowed = self._mask_of(rows, n)
            hits = self._hnsw_search(q, k, allowed, scope)
            if len(hits) >= k:
                return hits
            # HNSW with a selective filter can come back short: retry exactly
        if rows is not None and self._gathers(scope):
            return self._gather_search(q, k, np.sort(rows))
        if allowed is None and rows is not None:
            allowed = self._mask_of(rows, n)
        return self._exact_search(q, k, allowed, scope)

    def search_many(self, vectors, k: int) -> list[list[tuple[int, float]]]:
        """search() without filters for several query vectors (a relevance join's distinct anchors):
        one FAISS call when the search is exact over live rows only, else one search() each."""
        if not vectors or k <= 0 or self.dims is None or not len(self) or self._dead or \
                (self.hnsw and len(self) > self.config.exact_max_scope):
            return [self.search(v, k) for v in vectors]
        q = np.stack([self.query_vector(v) for v in vectors])
        faiss.omp_set_num_threads(1)
        raw, rows = self._flat().search(q, min(k + 8, self._n))
        k = min(k, len(self))
        out = []
        for i in range(len(vectors)):
            found = rows[i] >= 0
            out.append(self._ranked(rows[i][found], self._scores(raw[i][found]), k))
        return out

    def search_keys(self, vector, k: int, keys, filters=()) -> list[tuple[int, float]]:
        """The k best among the candidate entity ids ``keys`` (and inside ``filters``): exact, and costs
        the candidates only, however large the index."""
        q = self.query_vector(vector)
        if k <= 0 or self.dims is None:
            return []
        rows = np.array(sorted({self._row_of[key] for key in keys if key in self._row_of}), dtype=np.int64)
        if len(rows) and filters:
            rows = rows[self.columns.mask(filters, self._n, rows)]
        if not len(rows):
            return []
        return self._gather_search(q, min(k, len(rows)), rows)

    @staticmethod
    def _mask_of(rows: np.ndarray, n: int) -> np.ndarray:
        mask = np.zeros(n, dtype=bool)
        mask[rows] = True
        return mask

    def _range_rows(self, filters, n: int) -> np.ndarray | None:
        """The live rows passing a single numeric range/equality filter, by binary search in a sorted copy
        of its column (built once the rows have been stable for RANGE_INDEX_AFTER searches); None when the
        filter is anything else or the copy is not there yet."""
        if len(filters) != 1:
            return None
        prop, op, value = filters[0]
        column = self.columns.column(prop)
        op = op.upper() if isinstance(op, str) else op
        if column.other or type(value) not in (int, float):
            return None
        version = self._version
        cached = self._ranges.get(prop)
        if cached is None or cached[0] != version:
            seen_version, seen = self._range_wait.get(prop, (None, 0))
            seen = seen + 1 if seen_version == version else 1
            self._range_wait[prop] = (version, seen)
            if seen < RANGE_INDEX_AFTER:
                return None
            cached = (version, column.sorted_rows(self._alive, n))
            self._ranges[prop] = cached      # one assignment: concurrent readers see the old or the new
        return column.range_rows(op, value, cached[1])

    def _gathers(self, scope: int) -> bool:
        return scope * GATHER_FRACTION <= self._n and scope * self.dims <= GATHER_MAX_VALUES

    def _scores(self, raw: np.ndarray) -> np.ndarray:
        raw = raw.astype(np.float64)
        if self.cosine:
            return (1.0 + np.clip(raw, -1.0, 1.0)) / 2.0
        return 1.0 / (1.0 + np.maximum(raw, 0.0))

    def _ranked(self, rows: np.ndarray, scores: np.ndarray, k: int) -> list[tuple[int, float]]:
        keys = self._keys[rows]
        order = np.lexsort((keys, -scores))[:k]
        return [(int(keys[i]), float(scores[i])) for i in order]

    def _flat(self):
        """The flat index holding every row in row order: the exact index, or HNSW's own storage."""
        inner = faiss.downcast_index(self._faiss.index)
        return faiss.downcast_index(inner.storage) if self.hnsw else inner

    def _selector(self, allowed: np.ndarray | None):
        if allowed is None:
            return None, None
        bits = np.packbits(allowed, bitorder="little")
        return faiss.IDSelectorBitmap(len(allowed), faiss.swig_ptr(bits)), bits

    def _exact_search(self, q: np.ndarray, k: int, allowed, scope: int | None = None) -> list[tuple[int, float]]:
        """Exact k best among the allowed rows; FAISS computes only the selected rows' distances."""
        if allowed is not None and scope is not None and self._gathers(scope):
            return self._gather_search(q, k, np.flatnonzero(allowed))
        selector, _bits = self._selector(allowed)
        params = faiss.SearchParameters(sel=selector) if selector is not None else None
        # a few extra rows so that ties at the k-th score resolve by entity id
        raw, rows = self._flat().search(q[None, :], min(k + 8, self._n), params=params)
        found = rows[0] >= 0
        return self._ranked(rows[0][found], self._scores(raw[0][found]), k)

    def _gather_search(self, q: np.ndarray, k: int, rows: np.ndarray) -> list[tuple[int, float]]:
        """Exact k best among a few allowed rows: gather their vectors and score them with FAISS's kernel
        (cheaper than a FAISS flat scan over every row with a selector when the rows are few)."""
        block = self._vectors[rows]
        q = np.ascontiguousarray(q, dtype=np.float32)
        raw = np.empty(len(rows), dtype=np.float32)
        kernel = faiss.fvec_inner_products_ny if self.cosine else faiss.fvec_L2sqr_ny
        kernel(faiss.swig_ptr(raw), faiss.swig_ptr(q), faiss.swig_ptr(block), self.dims, len(rows))
        scores = self._scores(raw)
        if len(rows) > k:
            # keep every row tied with the k-th score so that ties resolve by entity id
            kth = scores[np.argpartition(scores, len(scores) - k)[len(scores) - k:]].min()
            keep = np.flatnonzero(scores >= kth)
            rows, scores = rows[keep], scores[keep]
        return self._ranked(rows, scores, k)

    def _postfilter_search(self, q: np.ndarray, k: int, filters, allowed, scope: int):
        """A permissive filter on HNSW: the k' nearest without a selector, then the first k that pass; None
        when fewer than k pass (the caller falls back to the selector search)."""
        n = self._n                    # FAISS rows, tombstones included
        wanted = min(n, int(math.ceil(POSTFILTER_MARGIN * k * n / scope)) + POSTFILTER_EXTRA)
        if wanted > EF_MAX:
            return None
        params = self._plain_params(max(self.config.ef_search, wanted))
        raw, rows = self._faiss.search(q[None, :], wanted, params=params)
        found = rows[0] >= 0
        rows, raw = rows[0][found], raw[0][found]
        if allowed is not None:
            ok = allowed[rows]
        else:
            ok = self.columns.mask(filters, self._n, rows)
            if self._dead:
                ok &= self._alive[rows]
        if np.count_nonzero(ok) < k:
            return None
        return self._ranked(rows[ok], self._scores(raw[ok]), k)

    def _plain_params(self, ef: int):
        """Selector-less HNSW search parameters for ``ef``, made once (FAISS only reads them: shareable)."""
        params = self._params.get(ef)
        if params is None:
            if len(self._params) > 64:
                self._params = {}
            params = faiss.SearchParametersHNSW()
            params.efSearch = ef
            self._params = {**self._params, ef: params}
        return params

    def _hnsw_search(self, q: np.ndarray, k: int, allowed, scope: int) -> list[tuple[int, float]]:
        base = max(self.config.ef_search, 2 * k)
        ef = int(min(EF_MAX, base * min(32.0, math.sqrt(len(self) / scope))))
        selector, _bits = self._selector(allowed)
        if selector is None:
            params = self._plain_params(ef)
        else:
            params = faiss.SearchParametersHNSW()
            params.efSearch = ef
            params.sel = selector
        raw, rows = self._faiss.search(q[None, :], k, params=params)
        found = rows[0] >= 0
        return self._ranked(rows[0][found], self._scores(raw[0][found]), k)

    # ---- persistence ----------------------------------------------------------------------
    def save(self, directory: str, rw=None) -> None:
        n = self._n
        state = {"dims": self.dims, "n": n, "dead": self._dead, "hnsw": self.hnsw,
                 "keys": self._keys[:n].copy(), "alive": self._alive[:n].copy(),
                 "columns": self.columns.take(np.arange(n), max(n, 1)), "skipped": self.skipped}
        np.save(os.path.join(directory, "vectors.npy"), self._vectors[:n])
        with open(os.path.join(directory, "rows.pickle"), "wb") as fh:
            pickle.dump(state, fh, protocol=pickle.HIGHEST_PROTOCOL)
        if self._faiss is not None and self.hnsw:
            faiss.write_index(self._faiss, os.path.join(directory, "hnsw.faiss"))

    def load(self, directory: str) -> None:
        with open(os.path.join(directory, "rows.pickle"), "rb") as fh:
            state = pickle.load(fh)
        vectors = np.load(os.path.join(directory, "vectors.npy"))
        n = state["n"]
        self.dims = state["dims"]
        self._capacity = max(n, 1)
        self._vectors = np.ascontiguousarray(vectors, dtype=np.float32).reshape(n, self.dims or 0)
        if n == 0:
            self._vectors = np.empty((1, self.dims or 0), dtype=np.float32)
        self._keys = state["keys"].copy() if n else np.zeros(1, dtype=np.int64)
        self._alive = state["alive"].copy() if n else np.zeros(1, dtype=bool)
        self.columns = state["columns"]
        self._n, self._dead = n, state["dead"]
        self._row_of = {int(self._keys[r]): r for r in range(n) if self._alive[r]}
        self.skipped = state["skipped"]
        self._version += 1
        path = os.path.join(directory, "hnsw.faiss")
        if state["hnsw"] and os.path.exists(path):
            self._faiss = faiss.read_index(path)
            self._faiss_rows = n
            self.hnsw = True
        else:
            self._faiss, self._faiss_rows = None, 0
        self.sync()
