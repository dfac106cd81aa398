"""Whoosh (whoosh-reloaded) as a full-text engine, scoring with Lucene's BM25 on Relate's statistics.

Whoosh stores field lengths in one byte, rounded up (11 tokens read back as 12). The scorer takes
the smallest length that encodes to the stored byte, never more than the true length, so Whoosh's
score is never below the exact one: the score bound is 1.
"""
from __future__ import annotations

import os
import threading
import time
import uuid

from whoosh import collectors, fields, query as wq
from whoosh.analysis import Token, Tokenizer
from whoosh.filedb.filestore import FileStorage, RamStorage
from whoosh.scoring import WeightingModel, WeightLengthScorer
from whoosh.util.numeric import byte_to_length

from relate.protocol.errors import QueryTimeout

from ..corpus import bm25_idf, bm25_term
from ..query_plan import PAll, PBool, PConst, PPhrase, PTerm


class _Analyzed(str):
    """A field value carrying Relate's (position, token) pairs; Whoosh only passes str values to analyzers."""

    def __new__(cls, pairs):
        value = super().__new__(cls, "")
        value.pairs = pairs
        return value


class PreAnalyzed(Tokenizer):
    """Yields tokens from a list of (position, token) pairs that Relate's analyzer already produced."""

    def __call__(self, value, positions=False, chars=False, keeporiginal=False, removestops=True,
                 start_pos=0, start_char=0, tokenize=True, mode="", **kwargs):
        token = Token(positions, chars, removestops=removestops, mode=mode, **kwargs)
        pairs = value.pairs if isinstance(value, _Analyzed) else list(enumerate(value.split()))
        for pos, text in pairs:
            token.text = text
            token.boost = 1.0
            token.stopped = False
            if positions:
                token.pos = start_pos + pos
            if chars:
                token.startchar = token.endchar = start_char
            yield token


def _length_floors() -> dict[int, int]:
    """Whoosh's stored length -> the smallest true length stored as the same byte."""
    floors, previous = {}, 0
    for code in range(1, 256):
        length = byte_to_length(code)
        floors[length] = previous + 1 if code > 1 else length
        previous = length
    return floors


LENGTH_FLOOR = _length_floors()


class _LuceneBM25(WeightingModel):
    """Lucene's BM25 term score with Relate's exact idf and avgdl (the field length is Whoosh's)."""

    def __init__(self, corpus):
        self.corpus = corpus

    def scorer(self, searcher, fieldname, text, qf=1):
        f = int(fieldname[1:])
        if isinstance(text, bytes):
            text = text.decode("utf-8")
        corpus = self.corpus
        idf = bm25_idf(corpus.field_docs[f], corpus.doc_freq(f, corpus.term_id(text)))
        return _BM25Scorer(searcher, fieldname, text, idf, corpus.avgdl(f))


class _BM25Scorer(WeightLengthScorer):
    def __init__(self, searcher, fieldname, text, idf, avgdl):
        self.idf = idf
        self.avgdl = avgdl
        self.setup(searcher, fieldname, text)

    def _score(self, weight, length):
        return bm25_term(self.idf, weight, LENGTH_FLOOR.get(length, length), self.avgdl)


class WhooshEngine:
    """One Whoosh index: an ID field ``k`` (the entity id) and text fields f0..f{n-1}."""

    def __init__(self, directory: str | None, n_fields: int, create: bool):
        schema = fields.Schema(k=fields.ID(stored=True, unique=True),
                               **{f"f{i}": fields.TEXT(analyzer=PreAnalyzed(), phrase=True)
                                  for i in range(n_fields)})
        if directory is None:
            # A RAM index spills temporary files to /tmp/<index name>.tmp: the name must be unique.
            self._ix = RamStorage().create_index(schema, indexname=f"relate-{uuid.uuid4().hex}")
        else:
            os.makedirs(directory, exist_ok=True)
            storage = FileStorage(directory)
            self._ix = storage.create_index(schema) if create or not storage.index_exists() \
                else storage.open_index()
        self._lock = threading.Lock()       # Whoosh searchers are not safe to share between threads
        self._searcher = None
        self._weighting = _LuceneBM25(None)

    def write(self, deletes, adds) -> None:
        if not deletes and not adds:
            return
        writer = self._ix.writer(limitmb=256)
        try:
            for key in deletes:
                writer.delete_by_term("k", str(key))
            for key, analyzed in adds:
                doc = {f"f{i}": _Analyzed(pairs) for i, pairs in enumerate(analyzed) if pairs is not None}
                writer.add_document(k=str(key), **doc)
        except BaseException:
            writer.cancel()
            raise
        writer.commit()
        with self._lock:
            if self._searcher is not None:
                self._searcher.close()
            self._searcher = None

    def search(self, plan, corpus, limit, deadline):
        q = self._compile(plan, corpus)
        with self._lock:
            self._weighting.corpus = corpus
            if self._searcher is None:
                self._searcher = self._ix.searcher(weighting=self._weighting)
            searcher = self._searcher
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise QueryTimeout("The full-text search ran out of time")
            collector = collectors.TimeLimitCollector(searcher.collector(limit=limit), remaining,
                                                      use_alarm=False)
            try:
                searcher.search_with_collector(q, collector)
            except collectors.TimeLimit:
                raise QueryTimeout(f"The full-text search did not finish within {remaining:.1f} s") from None
            results = collector.results()
            return [(int(hit["k"]), hit.score) for hit in results], 1 + 1e-9

    def note_deletes(self, count: int) -> None:
        """Whoosh scores with Relate's statistics, so deleted documents do not skew them."""

    def _compile(self, node, corpus):
        kind = type(node)
        if kind is PTerm:
            live_idf = corpus.idf(node.field, corpus.doc_freq(node.field, node.tid))
            return wq.Term(f"f{node.field}", node.token, boost=node.weight / live_idf)
        if kind is PPhrase:
            gaps = max(b[0] - a[0] for a, b in zip(node.tokens, node.tokens[1:]))
            # Whoosh's slop bounds each gap; a superset of Relate's total-distance slop.
            return wq.Phrase(f"f{node.field}", [t for _, t, _ in node.tokens], slop=node.slop + gaps,
                             boost=node.boost)
        if kind is PConst:
            name = f"f{node.field}"
            inner = wq.Prefix(name, node.text) if node.kind == "prefix" else wq.Regex(name, node.text)
            return wq.ConstantScoreQuery(inner, score=node.boost)
        if kind is PAll:
            return wq.ConstantScoreQuery(wq.Every(), score=node.boost)
        if kind is PBool:
            base = None
            if node.must:
                base = wq.And([self._compile(c, corpus) for c in node.must])
            if node.should:
                optional = wq.Or([self._compile(c, corpus) for c in node.should])
                base = optional if base is None else wq.AndMaybe(base, optional)
            if node.must_not:
                base = wq.AndNot(base, wq.Or([self._compile(c, corpus) for c in node.must_not]))
            return base
        return wq.NullQuery

    def close(self) -> None:
        with self._lock:
            if self._searcher is not None:
                self._searcher.close()
                self._searcher = None
        self._ix.close()
