"""Exact answers computed in plain numpy/Python from the workload: the yardstick for recall and for the
agreement checks (brute-force cosine, Lucene BM25, the cookbook's RECALL fusion and hop, 2-hop counts)."""
from __future__ import annotations

import math
import re
from collections import Counter, defaultdict

import numpy as np

from .workload import Workload

K1, B = 1.2, 0.75
RRF_K = 60
TIE_EPS = 1e-6      # scores this close to the k-th exact score count as equally correct
_TOKEN = re.compile(r"[^\W_]+")


def tokens(text: str) -> list[str]:
    """Relate's default analyzer: lowercased runs of letters and digits, no stop words."""
    return _TOKEN.findall(text.lower())


class Reference:
    """Exact results over one workload."""

    def __init__(self, wl: Workload):
        self.wl = wl
        self.order = np.argsort(np.asarray(wl.ids))          # id order = index order (zero-padded ids)
        postings: dict[str, dict[int, int]] = defaultdict(dict)
        lengths = np.zeros(wl.n, dtype=np.float64)
        for i, text in enumerate(wl.texts):
            toks = tokens(text)
            lengths[i] = len(toks)
            for term, tf in Counter(toks).items():
                postings[term][i] = tf
        self.postings = {t: (np.fromiter(d.keys(), np.int64), np.fromiter(d.values(), np.float64))
                         for t, d in postings.items()}
        self.norm = K1 * (1 - B + B * lengths / lengths.mean())
        self.topics_of: dict[int, list[int]] = defaultdict(list)
        self.about_in: Counter = Counter()
        for i, t in wl.about:
            self.topics_of[i].append(t)
            self.about_in[t] += 1
        self.latest: dict[int, tuple[int, str]] = {}
        decided_in: Counter = Counter()
        for i, t, text, ts in wl.decided:
            decided_in[t] += 1
            if t not in self.latest or ts > self.latest[t][0]:
                self.latest[t] = (ts, text)
        self.decided_in = decided_in

    # ---- scores ----------------------------------------------------------------------------
    def vector_scores(self, v: np.ndarray) -> np.ndarray:
        return self.wl.embeddings.astype(np.float64) @ np.asarray(v, dtype=np.float64)

    def bm25_scores(self, query: str) -> np.ndarray:
        scores = np.zeros(self.wl.n)
        n = self.wl.n
        for term in tokens(query):       # each query term is one clause, as Lucene's parser makes it
            if term not in self.postings:
                continue
            docs, tf = self.postings[term]
            idf = math.log(1 + (n - len(docs) + 0.5) / (len(docs) + 0.5))
            scores[docs] += idf * tf / (tf + self.norm[docs])
        return scores

    def _top(self, scores: np.ndarray, k: int, mask: np.ndarray | None = None) -> list[int]:
        """Indexes of the k best scores (ties by id), only where mask and score > 0 for BM25 callers."""
        idx = np.arange(self.wl.n) if mask is None else np.flatnonzero(mask)
        best = idx[np.lexsort((idx, -scores[idx]))][:k]
        return best.tolist()

    # ---- answers ---------------------------------------------------------------------------
    def vector_top(self, v, k: int = 10, since_ms: int | None = None) -> tuple[list[int], np.ndarray]:
        scores = self.vector_scores(v)
        mask = None if since_ms is None else self.wl.ts >= since_ms
        return self._top(scores, k, mask), scores

    def fulltext_top(self, query: str, k: int = 10) -> tuple[list[int], np.ndarray]:
        scores = self.bm25_scores(query)
        return self._top(scores, k, scores > 0), scores

    def recall_rows(self, q: str, v, k: int = 10, since_ms: int | None = None) -> list[tuple[str, str, str | None]]:
        """The cookbook's RECALL: vector top-k and full-text top-k (of k*3, filtered) fused by RRF, then
        each note's topics with the topic's latest decision; rows (id, topic, decided) in output order."""
        since_ms = self.wl.all_since_ms if since_ms is None else since_ms
        vector, _ = self.vector_top(v, k, since_ms)
        ft, fscores = self.fulltext_top(q, k * 3)
        ft = [i for i in ft if self.wl.ts[i] >= since_ms][:k]
        rrf: dict[int, float] = defaultdict(float)
        for ranked in (vector, ft):
            for rank, i in enumerate(ranked, 1):
                rrf[i] += 1.0 / (RRF_K + rank)
        fused = sorted(rrf, key=lambda i: (-rrf[i], self.wl.ids[i]))[:k]
        rows = []
        for i in fused:
            for t in sorted(self.topics_of[i], key=lambda t: self.wl.topics[t]):
                latest = self.latest.get(t)
                rows.append((self.wl.ids[i], self.wl.topics[t], latest[1] if latest else None))
        return rows

    def two_hop_anchored(self, note: int) -> int:
        """Paths (n {id})-[a:ABOUT]->(:Topic)<-[b:ABOUT]-(m:Note) with a <> b (Cypher's relationship
        uniqueness), so n is its own m only through a second topic."""
        return sum(self.about_in[t] - 1 for t in self.topics_of[note])

    def two_hop_global(self) -> int:
        """Paths (:Note)-[d1:DECIDED]->(:Topic)<-[d2:DECIDED]-(:Note) with d1 <> d2."""
        return sum(c * (c - 1) for c in self.decided_in.values())


def note_index(nid: str) -> int:
    """Note ids are 'n' plus the zero-padded index."""
    return int(nid[1:])


def recall_at_k(returned_ids: list[str], exact: list[int], scores: np.ndarray,
                allowed: np.ndarray | None = None) -> float:
    """Share of the exact top-k found; an id whose exact score ties the k-th best (within TIE_EPS) counts,
    one outside ``allowed`` (a filter mask) does not."""
    if not exact:
        return 1.0
    floor = scores[exact[-1]] - TIE_EPS
    hits = 0
    for nid in dict.fromkeys(returned_ids):
        i = note_index(nid)
        if 0 <= i < len(scores) and scores[i] >= floor and (allowed is None or allowed[i]):
            hits += 1
    return min(1.0, hits / len(exact))
