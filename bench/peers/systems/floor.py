"""The raw floors: FAISS + tantivy called directly with a plain-Python hop and adjacency counts, and Whoosh
for full-text. What a hand-written pipeline costs, without a query language or a database around it."""
from __future__ import annotations

import math
import os
from collections import defaultdict

import numpy as np

from .. import reference as R
from ..workload import Workload
from .base import System

from relate.server.index.vector import HNSW_MIN_SIZE  # noqa: E402  as Relate: exact below, HNSW (M 32, efC 200) above
HNSW_M, HNSW_EF_CONSTRUCTION, HNSW_EF_SEARCH = 32, 200, 256
EXACT_MAX_SCOPE = 20_000      # as Relate: a filter keeping at most this many rows is searched exactly
POSTFILTER_MIN_SHARE, POSTFILTER_MARGIN, POSTFILTER_EXTRA = 0.1, 2.0, 8   # as Relate: see server/index/vector.py
EF_LADDER = (32, 64, 128, 256, 512, 1024, 2048)


class _Graph:
    """Adjacency in dicts: note -> topics, topic -> about count, topic -> decisions."""

    def __init__(self, wl: Workload):
        self.topics_of: dict[int, list[int]] = defaultdict(list)
        self.about_notes: dict[int, list[int]] = defaultdict(list)
        for i, t in wl.about:
            self.topics_of[i].append(t)
            self.about_notes[t].append(i)
        self.decisions: dict[int, list[tuple[int, str, int]]] = defaultdict(list)
        for i, t, text, ts in wl.decided:
            self.decisions[t].append((ts, text, i))

    def latest_decision(self, t: int) -> str | None:
        found = self.decisions.get(t)
        return max(found)[1] if found else None

    def two_hop_anchored(self, note: int) -> int:
        return sum(len(self.about_notes[t]) - 1 for t in self.topics_of[note])

    def two_hop_global(self) -> int:
        return sum(len(d) * (len(d) - 1) for d in self.decisions.values())


class FaissTantivyFloor(System):
    name = "floor"
    role = "floor"
    notes = (f"FAISS (exact below {HNSW_MIN_SIZE:,} notes, HNSW M 32 above; filters: exact up to "
             f"{EXACT_MAX_SCOPE:,} rows, a post-filter when 10% or more pass, else a bitmap selector: Relate's "
             "strategy) + tantivy (BM25) + Python dicts")

    def start(self, workdir: str) -> None:
        self.workdir = workdir

    def load_nodes(self, wl: Workload) -> None:
        self.wl = wl
        self.row_of = {nid: i for i, nid in enumerate(wl.ids)}
        self.vectors = np.ascontiguousarray(wl.embeddings, dtype=np.float32)

    def load_edges(self, wl: Workload) -> None:
        self.graph = _Graph(wl)

    def build_indexes(self, wl: Workload) -> None:
        self.build_vector_index(wl)
        self.build_text_index(wl)

    def build_vector_index(self, wl: Workload) -> None:
        import faiss
        faiss.omp_set_num_threads(1)   # every system queries on one thread
        if wl.n >= HNSW_MIN_SIZE:
            self.index = faiss.IndexHNSWFlat(384, HNSW_M, faiss.METRIC_INNER_PRODUCT)
            self.index.hnsw.efConstruction = HNSW_EF_CONSTRUCTION
            self.index.hnsw.efSearch = HNSW_EF_SEARCH
            faiss.omp_set_num_threads(2)
            self.index.add(self.vectors)
            faiss.omp_set_num_threads(1)
        else:
            self.index = faiss.IndexFlatIP(384)
            self.index.add(self.vectors)

    def build_text_index(self, wl: Workload) -> None:
        import tantivy
        builder = tantivy.SchemaBuilder()
        builder.add_integer_field("row", stored=True, fast=True)
        builder.add_text_field("text", stored=False)
        self.schema = builder.build()
        self.tantivy = tantivy.Index(self.schema, path=None)
        writer = self.tantivy.writer(heap_size=256 << 20, num_threads=1)
        for i, text in enumerate(wl.texts):
            writer.add_document(tantivy.Document(row=i, text=text))
        writer.commit()
        writer.wait_merging_threads()
        self.tantivy.reload()

    def levels(self) -> list[dict]:
        if self.wl.n < HNSW_MIN_SIZE:
            return []
        return [{"ef_search": HNSW_EF_SEARCH}] + [{"ef_search": ef} for ef in EF_LADDER]

    def set_level(self, level: dict, wl: Workload) -> None:
        self.index.hnsw.efSearch = level["ef_search"]

    # ---- operations --------------------------------------------------------------------------
    def _vector(self, v: np.ndarray, k: int, since_ms: int) -> list[int]:
        q = v.reshape(1, -1).astype(np.float32)
        if since_ms <= self.wl.all_since_ms:
            _, rows = self.index.search(q, k)
            return [int(r) for r in rows[0] if r >= 0]
        mask = self.wl.ts >= since_ms
        scope = int(mask.sum())
        if scope <= EXACT_MAX_SCOPE:            # a selective filter: exact over the rows it keeps
            rows = np.flatnonzero(mask)
            scores = self.vectors[rows] @ v
            best = np.argpartition(-scores, k - 1)[:k] if len(rows) > k else np.arange(len(rows))
            return rows[best[np.lexsort((rows[best], -scores[best]))]].tolist()
        import faiss
        n = len(mask)
        if isinstance(self.index, faiss.IndexHNSWFlat) and scope >= POSTFILTER_MIN_SHARE * n:
            # a permissive filter: the k' nearest without a selector, the first k passing (as Relate)
            wanted = min(n, math.ceil(POSTFILTER_MARGIN * k * n / scope) + POSTFILTER_EXTRA)
            params = faiss.SearchParametersHNSW(efSearch=max(self.index.hnsw.efSearch, wanted))
            _, rows = self.index.search(q, wanted, params=params)
            rows = rows[0][rows[0] >= 0]
            rows = rows[mask[rows]]
            if len(rows) >= k:
                return rows[:k].tolist()
        # a wide filter: FAISS with a bitmap selector, as Relate
        bitmap = np.packbits(mask, bitorder="little")
        selector = faiss.IDSelectorBitmap(len(mask), faiss.swig_ptr(bitmap))
        if isinstance(self.index, faiss.IndexHNSWFlat):
            ef = int(min(4096, self.index.hnsw.efSearch * min(32.0, math.sqrt(len(mask) / scope))))
            params = faiss.SearchParametersHNSW(sel=selector, efSearch=ef)
        else:
            params = faiss.SearchParameters(sel=selector)
        _, rows = self.index.search(q, k, params=params)
        return [int(r) for r in rows[0] if r >= 0]

    def _fulltext(self, q: str, k: int) -> list[int]:
        searcher = self.tantivy.searcher()
        query = self.tantivy.parse_query(" ".join(R.tokens(q)), ["text"])
        hits = searcher.search(query, k).hits
        return [searcher.doc(address)["row"][0] for _, address in hits]

    def ops(self) -> dict:
        ids = self.wl.ids

        def hybrid(p):
            k, since = p["k"], p["since_ms"]
            vector = self._vector(p["v"], k, since)
            ft = [i for i in self._fulltext(p["q"], k * 3) if self.wl.ts[i] >= since][:k]
            rrf: dict[int, float] = defaultdict(float)
            for ranked in (vector, ft):
                for rank, i in enumerate(ranked, 1):
                    rrf[i] += 1.0 / (R.RRF_K + rank)
            fused = sorted(rrf, key=lambda i: (-rrf[i], ids[i]))[:k]
            return [(ids[i], self.wl.topics[t], self.graph.latest_decision(t))
                    for i in fused for t in sorted(self.graph.topics_of[i], key=lambda t: self.wl.topics[t])]

        vector = lambda p: [ids[i] for i in self._vector(p["v"], p["k"], p["since_ms"])]  # noqa: E731
        return {
            "point_lookup": lambda p: self.wl.texts[self.row_of[p["id"]]],
            "vector": vector, "vector_ts30": vector, "vector_ts1": vector,
            "fulltext": lambda p: [ids[i] for i in self._fulltext(p["q"], p["k"])],
            "hybrid": hybrid,
            "two_hop_anchored": lambda p: self.graph.two_hop_anchored(self.row_of[p["id"]]),
            "two_hop_global": lambda p: self.graph.two_hop_global(),
        }


class WhooshFloor(System):
    name = "whoosh"
    role = "floor"
    notes = "Whoosh (BM25F), full-text only, an on-disk index"

    def start(self, workdir: str) -> None:
        self.path = os.path.join(workdir, "whoosh")
        os.makedirs(self.path, exist_ok=True)

    def load_nodes(self, wl: Workload) -> None:
        self.wl = wl

    def build_indexes(self, wl: Workload) -> None:
        from whoosh import fields, index
        from whoosh.analysis import LowercaseFilter, RegexTokenizer
        from whoosh.qparser import OrGroup, QueryParser
        analyzer = RegexTokenizer(r"[^\W_]+") | LowercaseFilter()      # Relate's default: no stop words
        schema = fields.Schema(row=fields.NUMERIC(stored=True), text=fields.TEXT(analyzer=analyzer))
        self.index = index.create_in(self.path, schema)
        writer = self.index.writer(limitmb=256)
        for i, text in enumerate(wl.texts):
            writer.add_document(row=i, text=text)
        writer.commit()
        self.searcher = self.index.searcher()
        self.parser = QueryParser("text", schema, group=OrGroup)

    def ops(self) -> dict:
        def fulltext(p):
            hits = self.searcher.search(self.parser.parse(p["q"]), limit=p["k"])
            return [self.wl.ids[hit["row"]] for hit in hits]
        return {"fulltext": fulltext}

    def close(self) -> None:
        if hasattr(self, "searcher"):
            self.searcher.close()
