"""BM25 over shards with global term statistics (distributed Lucene's DFS query-then-fetch).

Phase one (`collect`): each shard reports, for the terms a query touches, its per-field document
count, token total and document frequencies. The coordinator sums them (`GlobalStats.merge`). Phase
two: each shard scores its candidates through `GlobalView`, its own corpus seen through the summed
statistics, so a document's score equals the one a single index over every document would give.
"""
from __future__ import annotations

from ..corpus import Corpus, bm25_idf
from ..plain_query import parse_query
from ..query_plan import build_plan


class _Recorder:
    """A corpus proxy that notes which terms building a query plan looks up (all of them: the plan's
    own short cuts, such as a phrase with a locally absent word, must not hide a term from the totals)."""

    def __init__(self, corpus: Corpus):
        self._corpus = corpus
        self.tokens: set[str] = set()
        self.pairs: set[tuple[int, str]] = set()
        self.docs, self.terms, self.field_docs = corpus.docs, corpus.terms, corpus.field_docs

    def __len__(self) -> int:
        return len(self._corpus)

    def term_id(self, token: str, create: bool = False) -> int:
        self.tokens.add(token)
        return self._corpus.term_id(token)

    def doc_freq(self, f: int, tid: int) -> int:
        if tid >= 0:
            self.pairs.add((f, self._corpus.terms[tid]))
        return self._corpus.doc_freq(f, tid)

    def idf(self, f: int, df: int) -> float:
        return self._corpus.idf(f, df)

    def avgdl(self, f: int) -> float:
        return self._corpus.avgdl(f)

    def field_terms(self, f: int):
        return self._corpus.field_terms(f)


def collect(index, query: str, mode: str) -> dict:
    """This shard's statistics for ``query``: {"docs": [N per field], "tokens": [...], "df": [[f, term, df]]}.
    A fuzzy term reports its local top variants; the global top variants are always among them."""
    corpus = index.corpus
    recorder = _Recorder(corpus)
    build_plan(parse_query(query, mode), index.properties, index.analyzer, recorder)
    pairs = set(recorder.pairs)
    for token in recorder.tokens:
        pairs.update((f, token) for f in range(len(corpus.fields)))
    df = []
    for f, term in pairs:
        count = corpus.doc_freq(f, corpus.term_id(term))
        if count:
            df.append((f, term, count))
    return {"docs": list(corpus.field_docs), "tokens": list(corpus.field_tokens), "df": df}


class GlobalStats:
    """Term statistics summed over every shard of an index (for one query)."""

    def __init__(self, fields: int):
        self.docs = [0] * fields
        self.tokens = [0] * fields
        self.df: dict[tuple[int, str], int] = {}

    @classmethod
    def merge(cls, parts: list[dict], fields: int) -> "GlobalStats":
        stats = cls(fields)
        for part in parts:
            for f in range(fields):
                stats.docs[f] += part["docs"][f]
                stats.tokens[f] += part["tokens"][f]
            for f, term, count in part["df"]:
                stats.df[(f, term)] = stats.df.get((f, term), 0) + count
        return stats

    def to_state(self) -> dict:
        return {"docs": self.docs, "tokens": self.tokens, "df": [[f, t, c] for (f, t), c in self.df.items()]}

    @classmethod
    def from_state(cls, state: dict) -> "GlobalStats":
        stats = cls(len(state["docs"]))
        stats.docs, stats.tokens = list(state["docs"]), list(state["tokens"])
        stats.df = {(f, t): c for f, t, c in state["df"]}
        return stats


class GlobalView:
    """One shard's corpus (documents, token ids) scored with global statistics: the `Corpus` interface
    that `build_plan`, `score_document` and the engines read."""

    def __init__(self, corpus: Corpus, stats: GlobalStats):
        self._corpus = corpus
        self._stats = stats
        self.docs = corpus.docs
        self.fields = corpus.fields
        self.field_docs = stats.docs
        # terms the shard lacks get ids past its vocabulary: no local document holds them
        self.terms = list(corpus.terms)
        self._ids = {}
        for _, term in stats.df:
            if term not in self._ids:
                tid = corpus.term_id(term)
                if tid < 0:
                    tid = len(self.terms)
                    self.terms.append(term)
                self._ids[term] = tid

    def __len__(self) -> int:
        return len(self._corpus)

    def term_id(self, token: str, create: bool = False) -> int:
        tid = self._ids.get(token)
        return self._corpus.term_id(token) if tid is None else tid

    def doc_freq(self, f: int, tid: int) -> int:
        if tid < 0:
            return 0
        return self._stats.df.get((f, self.terms[tid]), 0)

    def idf(self, f: int, df: int) -> float:
        return bm25_idf(self._stats.docs[f], df)

    def avgdl(self, f: int) -> float:
        n = self._stats.docs[f]
        return self._stats.tokens[f] / n if n else 1.0

    def field_terms(self, f: int):
        return ((term, self._ids[term]) for (field, term) in self._stats.df if field == f)
