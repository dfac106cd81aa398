"""Exact term statistics and a compact forward index for one full-text index.

The engines (Whoosh, tantivy) find candidates; these statistics score them exactly as Lucene's BM25
would over the live documents: per field, N = documents with at least one token, df per term,
avgdl = tokens / N, and each document's token ids (so deletes and rescoring need no engine reads).
"""
from __future__ import annotations

import math
from array import array

K1 = 1.2
B = 0.75

GAP = -1   # a position left empty by a removed stop word


def bm25_idf(n_docs: int, df: int) -> float:
    """Lucene's BM25 idf: ln(1 + (N - n + 0.5) / (n + 0.5))."""
    return math.log(1 + (n_docs - df + 0.5) / (df + 0.5))


def bm25_term(idf: float, tf: float, dl: int, avgdl: float) -> float:
    """Lucene's BM25 term score without the (k1 + 1) factor, in the cookbook's evaluation order."""
    return idf * tf / (tf + K1 * (1 - B + B * dl / avgdl))


class Corpus:
    """Vocabulary, per-field statistics and per-document token ids (keys are entity ids)."""

    def __init__(self, fields: list[str]):
        self.fields = list(fields)
        self.vocab: dict[str, int] = {}
        self.terms: list[str] = []
        self.docs: dict[int, tuple] = {}                          # key -> per field array('i') or None
        self.field_docs = [0] * len(fields)                       # N per field
        self.field_tokens = [0] * len(fields)                     # total tokens per field
        self.df: list[dict[int, int]] = [{} for _ in fields]      # per field: term id -> doc count

    def __len__(self) -> int:
        return len(self.docs)

    def __contains__(self, key: int) -> bool:
        return key in self.docs

    def term_id(self, token: str, create: bool = False) -> int:
        tid = self.vocab.get(token)
        if tid is None and create:
            tid = self.vocab[token] = len(self.terms)
            self.terms.append(token)
        return -1 if tid is None else tid

    def add(self, key: int, analyzed: list) -> None:
        """Index ``key``; ``analyzed`` holds per field a list of (position, token) or None (no string)."""
        if key in self.docs:
            self.remove(key)
        per_field = []
        for f, pairs in enumerate(analyzed):
            if pairs is None:
                per_field.append(None)
                continue
            size = pairs[-1][0] + 1 if pairs else 0
            ids = array("i", [GAP]) * size
            for pos, token in pairs:
                ids[pos] = self.term_id(token, create=True)
            per_field.append(ids)
            self._count(f, ids, +1)
        self.docs[key] = tuple(per_field)

    def remove(self, key: int) -> bool:
        per_field = self.docs.pop(key, None)
        if per_field is None:
            return False
        for f, ids in enumerate(per_field):
            if ids is not None:
                self._count(f, ids, -1)
        return True

    def _count(self, f: int, ids: array, sign: int) -> None:
        dl = len(ids) - ids.count(GAP)
        if dl == 0:
            return
        self.field_docs[f] += sign
        self.field_tokens[f] += sign * dl
        df = self.df[f]
        for tid in set(ids):
            if tid == GAP:
                continue
            count = df.get(tid, 0) + sign
            if count:
                df[tid] = count
            else:
                del df[tid]

    # statistics used by scoring
    def doc_freq(self, f: int, tid: int) -> int:
        return self.df[f].get(tid, 0)

    def idf(self, f: int, df: int) -> float:
        return bm25_idf(self.field_docs[f], df)

    def avgdl(self, f: int) -> float:
        n = self.field_docs[f]
        return self.field_tokens[f] / n if n else 1.0

    def field_terms(self, f: int):
        """(term, term id) for every term with a live document in field ``f``."""
        terms = self.terms
        return ((terms[tid], tid) for tid in self.df[f])

    # persistence
    def to_state(self) -> dict:
        return {"fields": self.fields, "terms": self.terms,
                "docs": [[key, [None if ids is None else ids.tobytes() for ids in per_field]]
                         for key, per_field in self.docs.items()]}

    @classmethod
    def from_state(cls, state: dict) -> "Corpus":
        corpus = cls(state["fields"])
        corpus.terms = list(state["terms"])
        corpus.vocab = {t: i for i, t in enumerate(corpus.terms)}
        for key, per_field in state["docs"]:
            arrays = []
            for f, raw in enumerate(per_field):
                if raw is None:
                    arrays.append(None)
                    continue
                ids = array("i")
                ids.frombytes(raw)
                arrays.append(ids)
                corpus._count(f, ids, +1)
            corpus.docs[key] = tuple(arrays)
        return corpus
