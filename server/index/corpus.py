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


def token_ids(analyzed: list, term_id) -> tuple:
    """Per field, the term ids by position (GAP where a stop word was), or None for a field without text;
    ``term_id(token, create=True)`` numbers the terms."""
    per_field = []
    for pairs in analyzed:
        if pairs is None:
            per_field.append(None)
            continue
        ids = array("i", [GAP]) * (pairs[-1][0] + 1 if pairs else 0)
        for pos, token in pairs:
            ids[pos] = term_id(token, create=True)
        per_field.append(ids)
    return tuple(per_field)


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
        per_field = token_ids(analyzed, self.term_id)
        for f, ids in enumerate(per_field):
            if ids is not None:
                self._count(f, ids, +1)
        self.docs[key] = per_field

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


class WrittenView:
    """A corpus seen as it will be once a transaction commits: documents it wrote (``update``) replace the
    committed ones, and the statistics follow. The `Corpus` interface that `build_plan`, the scorers and
    the engines read; nothing of the committed corpus is copied (terms new to it get ids past its
    vocabulary), and the statistics are the committed ones plus this view's differences."""

    def __init__(self, corpus: Corpus):
        self.base = corpus
        self.fields = corpus.fields
        self.terms = _Terms(corpus.terms, [])
        self._extra: dict[str, int] = {}
        self._docs_delta = [0] * len(corpus.fields)
        self._tokens_delta = [0] * len(corpus.fields)
        self._df: dict[tuple[int, int], int] = {}       # (field, term id) -> change in document frequency
        self._gone: set[int] = set()                     # committed documents this view hides
        self._new: dict[int, tuple] = {}
        self.written: set[int] = set()                   # every key updated: scored from this view
        self.docs = _WrittenDocs(corpus.docs, self._gone, self._new)

    def update(self, key: int, analyzed: list | None) -> None:
        """``key``'s document is now ``analyzed`` (per field (position, token) pairs), or None: gone."""
        self.written.add(key)
        old = self._new.pop(key, None)
        if old is not None:
            self._count(old, -1)
        elif key not in self._gone and key in self.base.docs:
            self._gone.add(key)
            self._count(self.base.docs[key], -1)
        if analyzed is None:
            return
        self._new[key] = token_ids(analyzed, self.term_id)
        self._count(self._new[key], +1)

    def _count(self, per_field: tuple, sign: int) -> None:
        for f, ids in enumerate(per_field):
            if ids is None:
                continue
            dl = len(ids) - ids.count(GAP)
            if dl == 0:
                continue
            self._docs_delta[f] += sign
            self._tokens_delta[f] += sign * dl
            for tid in set(ids):
                if tid != GAP:
                    self._df[(f, tid)] = self._df.get((f, tid), 0) + sign

    @property
    def field_docs(self) -> list[int]:
        return [n + d for n, d in zip(self.base.field_docs, self._docs_delta)]

    def __len__(self) -> int:
        return len(self.docs)

    def __contains__(self, key: int) -> bool:
        return key in self.docs

    def term_id(self, token: str, create: bool = False) -> int:
        tid = self.base.term_id(token)
        if tid >= 0:
            return tid
        tid = self._extra.get(token, -1)
        if tid < 0 and create:
            tid = self._extra[token] = len(self.terms)
            self.terms.extra.append(token)
        return tid

    def doc_freq(self, f: int, tid: int) -> int:
        if tid < 0:
            return 0
        base = self.base.doc_freq(f, tid) if tid < len(self.terms.base) else 0
        return base + self._df.get((f, tid), 0)

    def idf(self, f: int, df: int) -> float:
        return bm25_idf(self.base.field_docs[f] + self._docs_delta[f], df)

    def avgdl(self, f: int) -> float:
        n = self.base.field_docs[f] + self._docs_delta[f]
        return (self.base.field_tokens[f] + self._tokens_delta[f]) / n if n else 1.0

    def field_terms(self, f: int):
        """(term, term id) for every term with a live document in field ``f``."""
        for term, tid in self.base.field_terms(f):
            if self.doc_freq(f, tid) > 0:
                yield term, tid
        for (field, tid), delta in self._df.items():
            if field == f and tid >= len(self.terms.base) and delta > 0:
                yield self.terms[tid], tid


class _Terms:
    """Term ids -> terms: the committed vocabulary, then a transaction's new terms."""
    __slots__ = ("base", "extra")

    def __init__(self, base: list[str], extra: list[str]):
        self.base, self.extra = base, extra

    def __getitem__(self, tid: int) -> str:
        base = self.base
        return base[tid] if tid < len(base) else self.extra[tid - len(base)]

    def __len__(self) -> int:
        return len(self.base) + len(self.extra)


class _WrittenDocs:
    """The documents mapping of a `WrittenView`: committed ones less ``gone``, plus ``new``."""
    __slots__ = ("base", "gone", "new")

    def __init__(self, base: dict, gone: set, new: dict):
        self.base, self.gone, self.new = base, gone, new

    def get(self, key: int, default=None):
        found = self.new.get(key)
        if found is not None:
            return found
        return default if key in self.gone else self.base.get(key, default)

    def __getitem__(self, key: int) -> tuple:
        found = self.get(key)
        if found is None:
            raise KeyError(key)
        return found

    def __contains__(self, key: int) -> bool:
        return self.get(key) is not None

    def __len__(self) -> int:
        return len(self.base) - len(self.gone) + len(self.new)
