"""Vector indexes on FAISS: exact while small, HNSW once large, the k best always inside the filter.

The switch to HNSW of a live index is built in the background (searches stay exact meanwhile), and
unless ``vector.hnsw.ef_search`` is set, efSearch is calibrated on the index's own rows: the smallest
of a ladder reaching RECALL_TARGET recall@10 on sample queries, again whenever the index has grown 1.25x.

HNSW stores its vectors quantized to 8 bits a coordinate (``vector.quantization.enabled``, on by default,
as in Neo4j): the graph walk compares codes (a quarter of the memory, about twice the speed) and its
candidates are re-scored exactly from the float rows, so scores and ties are those of exact search.

Rows hold one vector each (cosine vectors are normalized on the way in); FAISS ids are row numbers,
so a filter mask over rows is directly an IDSelectorBitmap. Updates and deletes leave tombstones
(dead rows) that searches exclude; past a dead fraction the rows are compacted and FAISS rebuilt.
Scores are Neo4j's: cosine (1 + cos) / 2, euclidean 1 / (1 + d²).
"""
from __future__ import annotations

import math
import os
import pickle
import threading
from array import array

import faiss
import numpy as np
from time import monotonic as time_now

from relate.protocol.errors import ArgumentError

from ..inline import ON_LOOP, refuse_on_loop
from .filters import FilterColumns

import structlog

log = structlog.get_logger(__name__)

# Defaults chosen from bench/search.py (hash-384 notes, see docs/architecture.md "Search indexes").
# HNSW from 10,000 rows: measured (hash-384, 1 thread, CPU ms) exact 30k rows 2.2 ms; HNSW M32/efC200 at
# 30k ef 64 0.39 ms recall@10 0.987, ef 96 0.50 ms 0.9925; at 10k exact costs ~0.7 ms.
HNSW_MIN_SIZE = 10_000        # rows from which an index switches from exact search to HNSW
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
DEFAULT_EF_SEARCH = None      # None: calibrated per index ("auto"); a number fixes it
EF_UNCALIBRATED = 128         # efSearch until the first calibration
# Recalibrate once the index has grown by this factor: recall at a fixed efSearch falls as rows are added
# (an index fed in blocks and calibrated at half its final size answered 0.96 instead of 0.986 at 100k).
RECALIBRATE_GROWTH = 1.25
EF_LADDER = (16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024, 1536, 2048)
RECALL_TARGET = 0.98          # recall@10 on the calibration queries (harder than real ones, below)
# A quantized index walks its graph on code distances, which real queries feel more than the calibration
# queries do: at the same efSearch (64) the bench questions at N 30k got 0.987 quantized vs 0.991 float.
# Calibrated to 0.985 it takes ef 96: 0.990, still ~15% faster than float storage at ef 64.
RECALL_TARGET_QUANTIZED = 0.985
CALIBRATION_QUERIES = 64
# Calibration queries vs real ones, hash-384 notes N 30k, M32/efC200, recall@10 by efSearch 48/64/96/128:
# the bench questions 0.971/0.991/0.994/0.997; row + noise of norm 1.0: 0.973/0.978/0.989/0.997 (norm 0.5:
# 0.998 from ef 48, too easy); so the calibrated ef (96 there) gives real recall above the target.
CALIBRATION_NOISE = 1.0       # query = a stored row + noise of its norm (then normalized for cosine)
BACKGROUND_BUILD_MIN = 2_000  # an HNSW switch over fewer rows is built inline
CATCH_UP_ROWS = 64            # rows a background build adds under the write lock when it swaps in (~2 ms each)
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
# ... and from this many rows in scope, even below exact_max_scope (measured on a 2-vCPU VM, hash-384 N 30k,
# ts filter keeping 30%, k 10, embedded statement: exact 5.5 ms recall 1.0; post-filter 1.3 ms recall 0.979)
POSTFILTER_MIN_SCOPE = 2_000
POSTFILTER_MARGIN = 2.0
POSTFILTER_EXTRA = 8
# A one-property numeric range filter finds its rows by binary search in a sorted copy of the column
# (no mask over every row) once the rows have stayed unchanged for this many searches.
RANGE_INDEX_AFTER = 32
# On the server's event loop (relate.server.inline) a search must stay cheap, since FAISS cannot be
# interrupted: HNSW up to this efSearch, exact scoring of up to this many coordinates (~1 ms); a search
# that would cost more (or build a sorted column copy) runs on the session thread instead.
LOOP_MAX_EF = 512
LOOP_MAX_VALUES = 1 << 22
# Quantized HNSW (8-bit scalar quantizer). Measured, hash-384 N 30k, M32/efC200, 1 thread, recall@10 /
# µs per search: ef 64 float storage 0.990 / 249, 8-bit 0.982 / 121, 8-bit re-scoring 20 candidates
# 0.986 / 146 (40: the same recall, 172); ef 96 0.994 / 348 vs 0.991 / 181; the build 1.8x faster.
# The quantizer's range per coordinate is the rows' own when it is trained, widened by SQ_RANGE_MARGIN of
# it on each side for rows added later; below SQ_MIN_ROWS rows there is too little to train it on.
SQ_RANGE_MARGIN = 0.1
SQ_MIN_ROWS = 1_000
SQ_TRAIN_MAX = 100_000
RESCORE_FACTOR = 2            # candidates fetched per hit wanted, re-scored exactly
RESCORE_EXTRA = 10
RANK_ALL_MAX = 64             # up to this many scored rows are sorted whole (a partition first costs more)


class VectorConfig:
    """Resolved configuration of one vector index."""

    def __init__(self, dimensions: int | None, similarity: str, m: int = DEFAULT_M,
                 ef_construction: int = DEFAULT_EF_CONSTRUCTION, ef_search: int | None = DEFAULT_EF_SEARCH,
                 hnsw_min_size: int = HNSW_MIN_SIZE, exact_max_scope: int = EXACT_MAX_SCOPE,
                 quantization: bool = True):
        self.dimensions = dimensions
        self.quantization = quantization
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
        if kinds <= _NUMBER_TYPES:
            return np.frombuffer(array("d", value))      # C doubles straight from Python numbers
        if all(issubclass(t, (int, float, np.number)) and t is not bool and not issubclass(t, np.bool_)
               for t in kinds):
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
        self._flat_of = None          # (FAISS index, hnsw, its flat part): see _flat
        self._faiss_rows = 0          # rows already added to FAISS
        self.hnsw = False
        self.quantized = False        # the HNSW in use stores 8-bit codes (candidates are re-scored)
        self.skipped: dict[int, str] = {}   # entity id -> why its value was not indexed
        self._version = 0             # bumped by every change to the rows or their filter values
        self._ranges: dict = {}       # prop -> (version, sorted (values, rows)) for range filters
        self._range_wait: dict = {}   # prop -> (version, searches seen at that version)
        self._params: dict = {}       # efSearch -> selector-less SearchParametersHNSW
        self.auto_ef = EF_UNCALIBRATED   # the calibrated efSearch (used when the config sets none)
        self.calibrated_at = 0        # rows when last calibrated
        self._layout = 0              # bumped when rows move (compaction): a background build is void
        self._building: threading.Thread | None = None
        self._cancel_build = False

    def ef(self) -> int:
        """The efSearch in force: the configured one, else the calibrated one."""
        return self.config.ef_search or self.auto_ef

    # ---- size -----------------------------------------------------------------------------
    def __len__(self) -> int:
        return self._n - self._dead

    def __contains__(self, key: int) -> bool:
        return key in self._row_of

    def content(self) -> dict[int, bytes]:
        """Every indexed entity's vector (float32 bytes, as stored): what ``relate check`` compares with
        a rebuild, whatever order the rows are in."""
        return {int(self._keys[row]): self._vectors[row].tobytes() for row in self._row_of.values()}

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

    def sync(self, threads: int = 1, rw=None) -> None:
        """After a batch of writes: compact past the dead fraction, pick exact or HNSW, feed FAISS new rows.

        With ``rw`` (the index's readers-writer lock, held for writing by the caller) a switch to HNSW
        over many rows is built by a background thread that swaps it in under ``rw`` when done."""
        if self.dims is None:
            return
        if self._dead >= DEAD_MIN and self._dead > DEAD_FRACTION * self._n:
            self._compact()
        # hysteresis: back to exact only well below the threshold, so sizes near it do not flap
        size, threshold = len(self), self.config.hnsw_min_size
        want_hnsw = size >= threshold if not self.hnsw else size >= threshold // 2
        if self._building is not None and not want_hnsw:
            self._cancel_build = True
        if want_hnsw and not self.hnsw and rw is not None and self._faiss is not None \
                and size >= BACKGROUND_BUILD_MIN:
            if self._building is None:
                self._start_build(threads, rw)
        elif self._faiss is None or want_hnsw != self.hnsw:
            self.hnsw = want_hnsw
            self._faiss, self.quantized = self._new_faiss(want_hnsw, self._n)
            self._faiss_rows = 0
            self._params = {}
        if self._faiss_rows < self._n:
            faiss.omp_set_num_threads(threads)
            rows = np.arange(self._faiss_rows, self._n, dtype=np.int64)
            self._faiss.add_with_ids(self._vectors[self._faiss_rows:self._n], rows)
            self._faiss_rows = self._n
        if self.hnsw and self.config.ef_search is None and self._building is None \
                and len(self) >= RECALIBRATE_GROWTH * max(self.calibrated_at, 1):
            if rw is None:
                self._adopt_ef(self._calibrate(self._faiss, self._n), self._n)
            else:
                self._start_build(threads, rw, calibrate_only=True)

    # ---- background HNSW builds and efSearch calibration ----------------------------------------
    def _start_build(self, threads: int, rw, calibrate_only: bool = False) -> None:
        self._cancel_build = False
        self._building = threading.Thread(target=self._build, args=(threads, rw, self._layout, calibrate_only),
                                          name="vector-hnsw-build", daemon=True)
        self._building.start()

    def wait_build(self, timeout_s: float | None = None) -> bool:
        """Wait for a background build or calibration; False on timeout."""
        thread = self._building
        if thread is not None:
            thread.join(timeout_s)
            return not thread.is_alive()
        return True

    def _build(self, threads: int, rw, layout: int, calibrate_only: bool) -> None:
        try:
            if calibrate_only:
                with rw.read():          # FAISS must not grow while it is searched
                    n = self._faiss_rows
                    ef = self._calibrate(self._faiss, n)
                with rw.write():
                    if self._layout == layout and self.hnsw:
                        self._adopt_ef(ef, n)
                return
            started = time_now()
            index, quantized = self._new_faiss(True, self._n)
            built = 0
            while True:          # add rows outside the lock until only a few arrived meanwhile
                if self._cancel_build or self._layout != layout:
                    return
                n = self._n
                vectors = self._vectors      # read after n: holds rows [0, n) even if it grew since
                if n - built <= CATCH_UP_ROWS and built:
                    break
                faiss.omp_set_num_threads(threads)
                index.add_with_ids(vectors[built:n], np.arange(built, n, dtype=np.int64))
                built = n
            ef = self._calibrate(index, built) if self.config.ef_search is None else None
            with rw.write():
                if self._cancel_build or self._layout != layout:
                    return
                n = self._n
                if built < n:
                    index.add_with_ids(self._vectors[built:n], np.arange(built, n, dtype=np.int64))
                self._faiss, self._faiss_rows, self.hnsw, self._params = index, n, True, {}
                self.quantized = quantized
                self._adopt_ef(ef, n)
            log.info("vector.hnsw_built", rows=n, seconds=round(time_now() - started, 2), ef_search=self.ef())
        except Exception:        # the exact index stays in place; the next sync tries again
            log.exception("vector.hnsw_build_failed")
        finally:
            self._building = None

    def _adopt_ef(self, ef: int | None, n: int) -> None:
        if ef is not None:
            self.auto_ef, self.calibrated_at = ef, n
            self._params = {}

    def _calibrate(self, index, n: int) -> int | None:
        """The smallest efSearch of EF_LADDER reaching RECALL_TARGET recall@10 against exact search on
        sample queries near the rows (the HNSW's own flat storage gives the truth)."""
        live = np.flatnonzero(self._alive[:n])
        if len(live) < 100:
            return None
        rng = np.random.default_rng(n)
        sample = self._vectors[rng.choice(live, min(CALIBRATION_QUERIES, len(live)), replace=False)]
        noise = rng.normal(0.0, 1.0, sample.shape).astype(np.float32)
        scale = np.linalg.norm(sample, axis=1, keepdims=True) if not self.cosine else 1.0
        noise *= CALIBRATION_NOISE * scale / np.linalg.norm(noise, axis=1, keepdims=True)
        queries = sample + noise
        if self.cosine:
            queries /= np.linalg.norm(queries, axis=1, keepdims=True)
        queries = np.ascontiguousarray(queries, dtype=np.float32)
        metric = faiss.METRIC_INNER_PRODUCT if self.cosine else faiss.METRIC_L2
        _, truth = faiss.knn(queries, self._vectors[:n], min(10, n), metric=metric)    # blockwise, exact
        quantized = isinstance(faiss.downcast_index(index.index), faiss.IndexHNSWSQ)
        fetch = self._candidates(10) if quantized else 10
        for ef in EF_LADDER:
            params = faiss.SearchParametersHNSW()
            params.efSearch = ef
            _, found = index.search(queries, fetch, params=params)
            if quantized:         # as searches do: the candidates re-scored exactly, the best 10 kept
                found = [self._exact_top(q, rows[rows >= 0], 10) for q, rows in zip(queries, found)]
            hits = sum(len(set(a[a >= 0].tolist()) & set(b[b >= 0].tolist())) for a, b in zip(found, truth))
            if hits >= (RECALL_TARGET_QUANTIZED if quantized else RECALL_TARGET) * np.count_nonzero(truth >= 0):
                return ef
        return EF_LADDER[-1]

    def _exact_top(self, q: np.ndarray, rows: np.ndarray, k: int) -> np.ndarray:
        """The k best of a few ``rows`` for query ``q`` by their float vectors, best first, padded with -1
        (calibration's re-scoring of a quantized index's candidates, as searches do)."""
        block = self._vectors[rows]
        raw = block @ q
        if not self.cosine:           # squared L2, negated so that larger is better for both metrics
            raw = 2 * raw - (block * block).sum(axis=1)
        out = np.full(k, -1, dtype=np.int64)
        best = rows[np.argsort(-raw, kind="stable")[:k]]
        out[:len(best)] = best
        return out

    @staticmethod
    def _candidates(k: int) -> int:
        return max(RESCORE_FACTOR * k, k + RESCORE_EXTRA)

    def _new_faiss(self, hnsw: bool, n: int):
        """A new FAISS index (its quantizer trained on rows [0, n) when it quantizes) and whether it does."""
        metric = faiss.METRIC_INNER_PRODUCT if self.cosine else faiss.METRIC_L2
        quantized = False
        if hnsw:
            live = np.flatnonzero(self._alive[:n])
            if self.config.quantization and len(live) >= SQ_MIN_ROWS:
                inner = faiss.IndexHNSWSQ(self.dims, faiss.ScalarQuantizer.QT_8bit, self.config.m, metric)
                faiss.downcast_index(inner.storage).sq.rangestat_arg = SQ_RANGE_MARGIN
                if len(live) > SQ_TRAIN_MAX:
                    live = np.sort(np.random.default_rng(n).choice(live, SQ_TRAIN_MAX, replace=False))
                inner.train(np.ascontiguousarray(self._vectors[live]))
                quantized = True
            else:
                inner = faiss.IndexHNSWFlat(self.dims, self.config.m, metric)
            inner.hnsw.efConstruction = self.config.ef_construction
        else:
            inner = faiss.IndexFlatIP(self.dims) if self.cosine else faiss.IndexFlatL2(self.dims)
        return faiss.IndexIDMap2(inner), quantized

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
        self._faiss, self.quantized = None, False
        self._layout += 1
        self._version += 1

    # ---- search ---------------------------------------------------------------------------
    def query_vector(self, vector) -> np.ndarray:
        values = vector_values(vector)
        if values is None:
            raise ArgumentError("The query vector must be a list of numbers or a vector")
        if self.dims is not None and len(values) != self.dims:
            raise ArgumentError(f"The query vector has {len(values)} dimensions, the index has {self.dims}")
        # A finite sum of squares means finite coordinates (a NaN or an infinity makes it NaN or
        # infinite); only when it is not are the coordinates looked at one by one.
        square_sum = float(np.vdot(values, values))       # vdot: no overflow warning
        if not math.isfinite(square_sum) and not np.all(np.isfinite(values)):
            raise ArgumentError("The query vector holds a NaN or infinite coordinate")
        if self.cosine:
            if square_sum == 0 or not math.isfinite(square_sum):
                # all zero, or squares beyond a double's range: scaled by the largest coordinate first
                peak = float(np.abs(values).max())
                if peak == 0:
                    raise ArgumentError("A cosine vector search needs a non-zero query vector")
                values = values / peak
                square_sum = float(np.vdot(values, values))
            values = values / math.sqrt(square_sum)
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
        # A permissive filter (or tombstones only) on HNSW: the nearest without a selector, filtered after;
        # from POSTFILTER_MIN_SCOPE rows on, since that beats an exact scan of the scope well below
        # exact_max_scope (N 30k, a filter keeping 30%: 1.3 ms at recall 0.98 vs 5.5 ms exact)
        if self.hnsw and (filters or allowed is not None) and scope >= POSTFILTER_MIN_SHARE * n \
                and (not filters or scope > min(self.config.exact_max_scope, POSTFILTER_MIN_SCOPE)):
            hits = self._postfilter_search(q, k, filters, allowed, scope)
            if hits is not None:
                return hits
        # exact_max_scope is for selective filters (HNSW with a selector is slow on few rows); unfiltered,
        # HNSW wins
        if self.hnsw and (scope > self.config.exact_max_scope or not filters):
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
        if ON_LOOP.get() and not self._gathers(scope) and n * (self.dims or 0) > LOOP_MAX_VALUES:
            refuse_on_loop("scans a large vector index exactly")
        return self._exact_search(q, k, allowed, scope)

    def search_many(self, vectors, k: int) -> list[list[tuple[int, float]]]:
        """search() without filters for several query vectors (a relevance join's distinct anchors):
        one FAISS call when the search is exact over live rows only, else one search() each."""
        if not vectors or k <= 0 or self.dims is None or not len(self) or self._dead or self.quantized or \
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
        if ON_LOOP.get() and len(rows) * (self.dims or 0) > LOOP_MAX_VALUES:
            refuse_on_loop("scores many candidate vectors")
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
            refuse_on_loop("sorts a filter column")        # once, then searches use the copy
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
        index, hnsw = self._faiss, self.hnsw
        cached = self._flat_of           # two SWIG downcasts cost more than a small exact search's scoring
        if cached is not None and cached[0] is index and cached[1] == hnsw:
            return cached[2]
        inner = faiss.downcast_index(index.index)
        flat = faiss.downcast_index(inner.storage) if hnsw else inner
        self._flat_of = (index, hnsw, flat)
        return flat

    def _selector(self, allowed: np.ndarray | None):
        if allowed is None:
            return None, None
        bits = np.packbits(allowed, bitorder="little")
        return faiss.IDSelectorBitmap(len(allowed), faiss.swig_ptr(bits)), bits

    def _exact_search(self, q: np.ndarray, k: int, allowed, scope: int | None = None) -> list[tuple[int, float]]:
        """Exact k best among the allowed rows; FAISS computes only the selected rows' distances."""
        if allowed is not None and scope is not None and self._gathers(scope):
            return self._gather_search(q, k, np.flatnonzero(allowed))
        if self.quantized:
            return self._scan_search(q, k, allowed)
        selector, _bits = self._selector(allowed)
        params = faiss.SearchParameters(sel=selector) if selector is not None else None
        # a few extra rows so that ties at the k-th score resolve by entity id
        raw, rows = self._flat().search(q[None, :], min(k + 8, self._n), params=params)
        found = rows[0] >= 0
        return self._ranked(rows[0][found], self._scores(raw[0][found]), k)

    def _scan_search(self, q: np.ndarray, k: int, allowed) -> list[tuple[int, float]]:
        """Exact k best among the allowed rows of a quantized index (its FAISS part holds codes, not the
        vectors), scored from the float rows: the allowed ones by index, or every row."""
        if allowed is not None:
            return self._gather_search(q, k, np.flatnonzero(allowed))
        n = self._n
        q = np.ascontiguousarray(q, dtype=np.float32)
        raw = np.empty(n, dtype=np.float32)
        kernel = faiss.fvec_inner_products_ny if self.cosine else faiss.fvec_L2sqr_ny
        kernel(faiss.swig_ptr(raw), faiss.swig_ptr(q), faiss.swig_ptr(self._vectors), self.dims, n)
        return self._top(np.arange(n), self._scores(raw), k)

    def _top(self, rows: np.ndarray, scores: np.ndarray, k: int) -> list[tuple[int, float]]:
        if len(rows) > max(k, RANK_ALL_MAX):
            # keep every row tied with the k-th score so that ties resolve by entity id
            kth = scores[np.argpartition(scores, len(scores) - k)[len(scores) - k:]].min()
            keep = np.flatnonzero(scores >= kth)
            rows, scores = rows[keep], scores[keep]
        return self._ranked(rows, scores, k)

    def _gather_search(self, q: np.ndarray, k: int, rows: np.ndarray) -> list[tuple[int, float]]:
        """Exact k best among the given rows, scored in place by FAISS's by-index kernel (no copy of their
        vectors; the same per-row arithmetic as its flat search). Measured, N 100k, 384 dims, 1 thread:
        2,000 / 5,000 / 10,000 rows 0.11 / 0.31 / 1.2 ms, against a flat scan with a bitmap selector
        0.33 / 0.64 / 1.8 ms and a gather-then-score 0.19 / 0.91 / 2.8 ms."""
        rows = np.ascontiguousarray(rows, dtype=np.int64)
        q = np.ascontiguousarray(q, dtype=np.float32)
        raw = np.empty(len(rows), dtype=np.float32)
        kernel = faiss.fvec_inner_products_by_idx if self.cosine else faiss.fvec_L2sqr_by_idx
        kernel(faiss.swig_ptr(raw), faiss.swig_ptr(q), faiss.swig_ptr(self._vectors), faiss.swig_ptr(rows),
               self.dims, 1, len(rows))
        return self._top(rows, self._scores(raw), k)

    def _postfilter_search(self, q: np.ndarray, k: int, filters, allowed, scope: int):
        """A permissive filter on HNSW: the k' nearest without a selector, then the first k that pass; None
        when fewer than k pass (the caller falls back to the selector search)."""
        n = self._n                    # FAISS rows, tombstones included
        wanted = min(n, int(math.ceil(POSTFILTER_MARGIN * k * n / scope)) + POSTFILTER_EXTRA)
        if wanted > EF_MAX:
            return None
        if ON_LOOP.get() and max(self.ef(), wanted) > LOOP_MAX_EF:
            refuse_on_loop("searches HNSW wide")
        params = self._plain_params(max(self.ef(), wanted))
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
        if self.quantized:            # the first passing candidates, in code order, re-scored exactly
            return self._gather_search(q, k, rows[ok][:self._candidates(k)])
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
        base = max(self.ef(), 2 * k)
        ef = int(min(EF_MAX, base * min(32.0, math.sqrt(len(self) / scope))))
        if ON_LOOP.get() and ef > LOOP_MAX_EF:
            refuse_on_loop("searches HNSW wide")
        selector, _bits = self._selector(allowed)
        if selector is None:
            params = self._plain_params(ef)
        else:
            params = faiss.SearchParametersHNSW()
            params.efSearch = ef
            params.sel = selector
        if self.quantized:            # codes find the candidates; the float rows score them
            _, rows = self._faiss.search(q[None, :], self._candidates(k), params=params)
            return self._gather_search(q, k, rows[0][rows[0] >= 0])
        raw, rows = self._faiss.search(q[None, :], k, params=params)
        found = rows[0] >= 0
        return self._ranked(rows[0][found], self._scores(raw[0][found]), k)

    # ---- persistence ----------------------------------------------------------------------
    def save(self, directory: str, rw=None) -> None:
        n = self._n
        state = {"dims": self.dims, "n": n, "dead": self._dead, "hnsw": self.hnsw,
                 "auto_ef": self.auto_ef, "calibrated_at": self.calibrated_at,
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
        self.auto_ef = state.get("auto_ef", EF_UNCALIBRATED)
        self.calibrated_at = state.get("calibrated_at", 0)
        self._version += 1
        path = os.path.join(directory, "hnsw.faiss")
        if state["hnsw"] and os.path.exists(path):
            self._faiss = faiss.read_index(path)
            self._faiss_rows = n
            self.hnsw = True
            self.quantized = isinstance(faiss.downcast_index(self._faiss.index), faiss.IndexHNSWSQ)
        else:
            self._faiss, self._faiss_rows, self.quantized = None, 0, False
        self.sync()
