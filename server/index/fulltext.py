"""Full-text indexes: one interface over two engines, scores exactly Lucene's BM25.

The engine (Whoosh or tantivy) finds candidates in its own score order; each candidate is rescored
exactly from the index's `Corpus` (live statistics and token ids). The bound R the engine returns says
how far its order can stray (exact <= R * engine score), so candidates are fetched, widening the
window, until the k-th exact score beats R times the last candidate's engine score: the top k is
then exact, not approximate.

Writes reach the corpus at once but the engine in batches (engine commits cost milliseconds): the
documents changed since the last engine commit form an overlay that every search scores directly,
so a committed write is searchable immediately without waiting for an engine commit.
"""
from __future__ import annotations

import os
import time

import msgpack

from relate.protocol.errors import ArgumentError

from .analyzers import get_analyzer
from .corpus import GAP, Corpus
from .engines import open_engine
from .plain_query import LUCENE, parse_query
from .query_plan import PNone, build_plan, compile_scorer
from .rwlock import NoLock

DEFAULT_TIMEOUT_S = 30.0
ENGINE_BATCH = 500              # overlay size that triggers an engine commit right away
COMPACT_DELETED_RATIO = 1.0     # rebuild a tantivy engine once it holds this many deleted docs per live one


class FullTextIndex:
    """One full-text index over ``properties`` (field i = property i). Callers hold the index's locks."""

    def __init__(self, properties: list[str], analyzer: str | None, engine: str, directory: str | None,
                 create: bool = True):
        self.properties = list(properties)
        self.analyzer = get_analyzer(analyzer)
        self.engine_kind = engine
        self.directory = directory
        self.corpus = Corpus(self.properties)
        self.engine = open_engine(engine, self._engine_dir(), len(self.properties), create)
        self.overlay: dict[int, list | None] = {}      # changed since the last engine commit
        self.engine_keys: set[int] = set()             # documents the engine holds

    def _engine_dir(self) -> str | None:
        return None if self.directory is None else os.path.join(self.directory, self.engine_kind)

    def __len__(self) -> int:
        return len(self.corpus)

    def content(self) -> dict[int, tuple]:
        """Every indexed entity's tokens per field (as terms, positions kept): what ``relate check``
        compares with a rebuild (term ids differ between builds; the terms do not)."""
        terms = self.corpus.terms
        return {key: tuple(None if ids is None else tuple(None if t == GAP else terms[t] for t in ids)
                           for ids in per_field)
                for key, per_field in self.corpus.docs.items()}

    # ---- documents ------------------------------------------------------------------------
    def analyze(self, props: dict) -> list | None:
        """Per field (position, token) pairs, None for a field without a string; None when no field has one."""
        fields, any_text = [], False
        for prop in self.properties:
            value = props.get(prop)
            if isinstance(value, str):
                fields.append(self.analyzer.analyze(value))
                any_text = True
            elif isinstance(value, list) and value and all(isinstance(v, str) for v in value):
                pairs, offset = [], 0
                for item in value:          # a string list is one field; positions run on
                    item_pairs = self.analyzer.analyze(item)
                    pairs += [(offset + pos, token) for pos, token in item_pairs]
                    offset += item_pairs[-1][0] + 1 if item_pairs else 0
                fields.append(pairs)
                any_text = True
            else:
                fields.append(None)
        return fields if any_text else None

    def _unchanged(self, key: int, analyzed: list) -> bool:
        current = self.corpus.docs.get(key)
        if current is None:
            return False
        terms = self.corpus.terms
        for ids, pairs in zip(current, analyzed):
            if (ids is None) != (pairs is None):
                return False
            if ids is not None and [(p, terms[t]) for p, t in enumerate(ids) if t != GAP] != pairs:
                return False
        return True

    def apply(self, docs: dict[int, list | None]) -> None:
        """Upsert (analyzed) or delete (None) documents by entity id; searchable on return."""
        for key, analyzed in docs.items():
            if analyzed is not None and self._unchanged(key, analyzed):
                continue
            self.corpus.remove(key)
            if analyzed is not None:
                self.corpus.add(key, analyzed)
            if analyzed is None and key not in self.engine_keys:
                self.overlay.pop(key, None)
            else:
                self.overlay[key] = analyzed

    def wants_engine_flush(self) -> bool:
        return len(self.overlay) >= ENGINE_BATCH

    def flush_engine(self, rw=None) -> None:
        """Commit the overlay to the engine. The caller blocks other writes; searches go on meanwhile
        (they see the overlay either way) and ``rw`` is taken only to drop the flushed overlay."""
        if not self.overlay:
            return
        rw = rw or NoLock()
        overlay = dict(self.overlay)
        deletes = [key for key in overlay if key in self.engine_keys]
        adds = [(key, analyzed) for key, analyzed in overlay.items() if analyzed is not None]
        self.engine.note_deletes(len(deletes))
        self.engine.write(deletes, adds)
        with rw.write():
            self.overlay.clear()
            self.engine_keys.difference_update(deletes)
            self.engine_keys.update(key for key, _ in adds)
            if getattr(self.engine, "deleted_since_build", 0) > COMPACT_DELETED_RATIO * max(len(self.corpus), 1000):
                self.rebuild_engine()

    def rebuild_engine(self) -> None:
        """Write every live document into a fresh engine (drops the engine's stale statistics)."""
        self.engine.close()
        self.engine = open_engine(self.engine_kind, self._engine_dir(), len(self.properties), create=True)
        terms = self.corpus.terms
        docs = [(key, [None if ids is None else [(p, terms[t]) for p, t in enumerate(ids) if t != GAP]
                       for ids in per_field]) for key, per_field in self.corpus.docs.items()]
        for start in range(0, len(docs), 20_000):
            self.engine.write([], docs[start:start + 20_000])
        self.overlay.clear()
        self.engine_keys = set(self.corpus.docs)

    # ---- search ---------------------------------------------------------------------------
    def search(self, query: str, skip: int = 0, limit: int | None = None,
               timeout_s: float | None = None, *, mode: str = LUCENE, keys=None,
               accept=None, corpus=None, written=None) -> list[tuple[int, float]]:
        """The exact Lucene BM25 top (skip + limit) for ``query``, best first (ties by entity id).

        ``mode``: 'lucene' syntax or 'plain' words. ``keys``: only these entity ids (scored directly, so a
        small candidate set costs its size only). ``accept(key)``: a pre-filter; the top k is taken among
        the accepted documents. ``corpus``: this index's documents seen through other statistics (a
        shard scoring with global ones, `sharded.global_stats.GlobalView`, or a transaction's own writes,
        `corpus.WrittenView`). ``written``: entity ids whose documents ``corpus`` holds in another state
        than the engine (scored directly, like the overlay)."""
        for name, value in (("skip", skip), ("limit", limit)):
            if value is not None and (type(value) is not int or value < 0):
                raise ArgumentError(f"A full-text search's {name} must be a non-negative integer, got {value!r}")
        tree = parse_query(query, mode)
        deadline = time.monotonic() + (timeout_s or DEFAULT_TIMEOUT_S)
        corpus = self.corpus if corpus is None else corpus
        plan = build_plan(tree, self.properties, self.analyzer, corpus)
        want = skip + (len(corpus) if limit is None else limit)
        if isinstance(plan, PNone) or want == 0 or not len(corpus):
            return []
        score_of = compile_scorer(plan, corpus)
        if keys is not None:
            return self._search_keys(score_of, keys, accept, skip, want, corpus)
        overlay = self.overlay if not written else set(self.overlay) | set(written)
        fresh = []                        # changed since the engine commit: scored directly
        for key in overlay:
            doc = corpus.docs.get(key)
            if doc is not None and (accept is None or accept(key)):
                score = score_of(doc)
                if score is not None:
                    fresh.append((key, score))
        # The engine holds no more documents than this: a huge LIMIT must not make it allocate room for
        # a billion hits (tantivy sizes its collector by the limit and aborts the process when it cannot).
        ceiling = len(self.corpus) + len(overlay) + getattr(self.engine, "deleted_since_build", 0) + 1
        fetch = min(ceiling, want + max(8, want // 4))
        while True:
            hits, bound = self.engine.search(plan, corpus, fetch, deadline)
            scored = list(fresh)
            for key, _ in hits:
                if key in overlay or (accept is not None and not accept(key)):
                    continue
                doc = corpus.docs.get(key)
                score = None if doc is None else score_of(doc)
                if score is not None:
                    scored.append((key, score))
            scored.sort(key=lambda hit: (-hit[1], hit[0]))
            if len(hits) < fetch or fetch >= ceiling:         # the engine has no more matches
                break
            if len(scored) >= want and scored[want - 1][1] > bound * hits[-1][1]:
                break
            fetch = min(ceiling, fetch * 4)
        return scored[skip:want]

    def _search_keys(self, score_of, keys, accept, skip: int, want: int, corpus) -> list[tuple[int, float]]:
        scored = []
        for key in set(keys):
            doc = corpus.docs.get(key)
            if doc is None or (accept is not None and not accept(key)):
                continue
            score = score_of(doc)
            if score is not None:
                scored.append((key, score))
        scored.sort(key=lambda hit: (-hit[1], hit[0]))
        return scored[skip:want]

    # ---- persistence ----------------------------------------------------------------------
    def save(self, directory: str, rw=None) -> None:
        self.flush_engine(rw)
        state = {"corpus": self.corpus.to_state(),
                 "deleted_since_build": getattr(self.engine, "deleted_since_build", 0)}
        with open(os.path.join(directory, "corpus.msgpack"), "wb") as fh:
            fh.write(msgpack.packb(state, use_bin_type=True))

    def load(self, directory: str) -> None:
        with open(os.path.join(directory, "corpus.msgpack"), "rb") as fh:
            state = msgpack.unpackb(fh.read(), raw=False, strict_map_key=False)
        self.corpus = Corpus.from_state(state["corpus"])
        if hasattr(self.engine, "deleted_since_build"):
            self.engine.deleted_since_build = state["deleted_since_build"]
        self.overlay.clear()              # files are saved right after an engine commit
        self.engine_keys = set(self.corpus.docs)

    def close(self) -> None:
        self.engine.close()
