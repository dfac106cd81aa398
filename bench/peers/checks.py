"""Scores each system's answers against the exact reference: recall@10 and hits returned for vector search,
overlap with exact BM25 for full-text, row agreement for the hybrid recall, equality for counts/lookups."""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from . import ops as O
from .reference import Reference, recall_at_k


class Checker:
    def __init__(self, ref: Reference):
        self.ref = ref
        self.wl = ref.wl
        self._vector = lru_cache(maxsize=None)(self._vector_exact)
        self._fulltext = lru_cache(maxsize=None)(self._fulltext_exact)
        self._hybrid = lru_cache(maxsize=None)(self._hybrid_exact)
        self._global = None

    def _vector_exact(self, qi: int, since_ms: int):
        since = None if since_ms <= self.wl.all_since_ms else since_ms
        exact, scores = self.ref.vector_top(self.wl.question_vectors[qi], O.K, since)
        return exact, scores, (None if since is None else self.wl.ts >= since)

    def _fulltext_exact(self, qi: int):
        return self.ref.fulltext_top(self.wl.questions[qi], O.K)

    def _hybrid_exact(self, qi: int, since_ms: int):
        return self.ref.recall_rows(self.wl.questions[qi], self.wl.question_vectors[qi], O.K, since_ms)

    def exact(self, op: O.Op, r: int):
        """The exact answer of repetition r (what agreement is checked against)."""
        p = O.params(self.wl, op, r)
        if op.kind == "vector":
            return [self.wl.ids[i] for i in self._vector(p["qi"], p["since_ms"])[0]]
        if op.kind == "fulltext":
            return [self.wl.ids[i] for i in self._fulltext(p["qi"])[0]]
        if op.kind == "hybrid":
            return self._hybrid(p["qi"], p["since_ms"])
        if op.name == "two_hop_anchored":
            return self.ref.two_hop_anchored(p["note"])
        if op.name == "two_hop_global":
            if self._global is None:
                self._global = self.ref.two_hop_global()
            return self._global
        if op.kind == "lookup":
            return self.wl.texts[p["note"]]
        return 1

    def score(self, op: O.Op, results: list, first: int = 0) -> dict:
        """results[i] is repetition first + i's answer. Returns recall (mean), returned (mean hits), agree (share of
        repetitions whose answer equals the exact one; for searches: recall 1.0 with ties allowed)."""
        recalls, returned, agree = [], [], []
        for r, result in enumerate(results, first):
            p = O.params(self.wl, op, r)
            if op.kind == "vector":
                exact, scores, allowed = self._vector(p["qi"], p["since_ms"])
                rec = recall_at_k(result, exact, scores, allowed)
                recalls.append(rec)
                returned.append(len(result))
                agree.append(rec == 1.0 and len(result) == len(exact))
            elif op.kind == "fulltext":
                exact, scores = self._fulltext(p["qi"])
                rec = recall_at_k(result, exact, scores)
                recalls.append(rec)
                returned.append(len(result))
                agree.append(rec == 1.0 and len(result) == len(exact))
            elif op.kind == "hybrid":
                exact = self._hybrid(p["qi"], p["since_ms"])
                want = {row[0] for row in exact}
                got = {row[0] for row in result}
                recalls.append(len(want & got) / len(want) if want else 1.0)
                returned.append(len(got))
                agree.append(sorted(map(tuple, result), key=repr) == sorted(exact, key=repr))
            else:
                agree.append(result == self.exact(op, r))
        out = {"agree": float(np.mean(agree)) if agree else None}
        if recalls:
            out["recall"] = float(np.mean(recalls))
            out["returned"] = float(np.mean(returned))
        return out


def first_mismatch(checker: Checker, op: O.Op, results: list):
    """(repetition, answer, exact answer) of the first repetition that disagrees, or None."""
    for r, result in enumerate(results):
        if checker.score(op, [result], first=r)["agree"] != 1.0:
            return r, result, checker.exact(op, r)
    return None
