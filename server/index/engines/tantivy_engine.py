"""tantivy as a full-text engine: candidates by tantivy's BM25, boosted to track Relate's exact scores.

tantivy multiplies by (k1 + 1), keeps deleted documents in its statistics until segments merge,
divides tokens by all documents (not those holding the field) and rounds long field lengths down.
Each term query is boosted by exact_idf / ((k1 + 1) * tantivy_idf) with tantivy's idf estimated from
live documents (a lower bound of its real one), so exact <= R * tantivy for R = (live docs + docs
deleted since the build) / (docs holding the field) when the engine is up to date with the corpus
(in general: exact avgdl over a lower bound of tantivy's), plus float32 slack.
"""
from __future__ import annotations

import os
import threading
import time

import tantivy

from relate.errors import QueryTimeout

from ..corpus import K1, bm25_idf
from ..query_plan import PAll, PBool, PConst, PNone, PPhrase, PTerm, iter_leaves
from ..lucene_query import escape_regex

_FLOAT32_SLACK = 1 + 1e-4


def _add_tokens(doc, field: str, pairs: list) -> None:
    """Add analyzed tokens: as space-joined text when that splits back exactly (fast), else pre-tokenized."""
    joined = " ".join(token for _, token in pairs)
    if (not pairs or pairs[-1][0] == len(pairs) - 1) and len(joined.split()) == len(pairs):
        doc.add_text(field, joined)
    else:       # stop-word gaps in the positions, or tokens holding spaces (keyword analyzer)
        tokens = [tantivy.Token(text, pos, 0, 0) for pos, text in pairs]
        doc.add_pre_tokenized_text(field, tantivy.PreTokenizedString("", tokens))


class TantivyEngine:
    """One tantivy index: an integer fast field ``k`` (the entity id) and text fields f0..f{n-1}."""

    def __init__(self, directory: str | None, n_fields: int, create: bool):
        builder = tantivy.SchemaBuilder()
        builder.add_integer_field("k", stored=False, indexed=True, fast=True)
        for i in range(n_fields):
            # Tokens arrive analyzed; joined by spaces, tantivy's whitespace tokenizer splits them back.
            builder.add_text_field(f"f{i}", stored=False, tokenizer_name="whitespace", index_option="position")
        self._schema = builder.build()
        if directory is None:
            self._ix = tantivy.Index(self._schema)
        else:
            os.makedirs(directory, exist_ok=True)
            if create:
                for name in os.listdir(directory):
                    os.remove(os.path.join(directory, name))
            self._ix = tantivy.Index(self._schema, path=directory, reuse=not create)
        self._writer = self._ix.writer(heap_size=64_000_000, num_threads=1)
        self._lock = threading.Lock()
        self._ix.reload()
        self._searcher = self._ix.searcher()
        self.deleted_since_build = 0      # documents deleted since the index was built (bounds stale stats)

    def write(self, deletes, adds) -> None:
        if not deletes and not adds:
            return
        writer = self._writer
        for key in deletes:
            writer.delete_documents_by_term("k", key)
        for key, analyzed in adds:
            doc = tantivy.Document()
            doc.add_integer("k", key)
            for i, pairs in enumerate(analyzed):
                if pairs is not None:
                    _add_tokens(doc, f"f{i}", pairs)
            writer.add_document(doc)
        writer.commit()
        self._ix.reload()
        with self._lock:
            self._searcher = self._ix.searcher()

    def search(self, plan, corpus, limit, deadline):
        with self._lock:
            searcher = self._searcher
        if time.monotonic() > deadline:
            raise QueryTimeout("The full-text search ran out of time")
        q = self._compile(plan, corpus, searcher)
        hits = searcher.search(q, limit, count=False).hits
        if not hits:
            return []
        keys = searcher.fast_field_values("k", [address for _, address in hits])
        return [(int(key), score) for key, (score, _) in zip(keys, hits)]

    def note_deletes(self, count: int) -> None:
        """Count deletes before they are written, so bounds computed meanwhile stay safe."""
        self.deleted_since_build += count

    def score_bound(self, plan, corpus, engine_docs: int, engine_tokens: list) -> float:
        """R = avgdl / (a lower bound of tantivy's avgdl) per field, and at least 1 (see module doc)."""
        fields = {leaf.field for leaf in iter_leaves(plan) if isinstance(leaf, (PTerm, PPhrase))}
        worst = 1.0
        for f in fields:
            if corpus.field_docs[f] and engine_tokens[f]:
                tantivy_avgdl_low = engine_tokens[f] / (engine_docs + self.deleted_since_build)
                worst = max(worst, corpus.avgdl(f) / tantivy_avgdl_low)
        return worst * _FLOAT32_SLACK

    def _tantivy_idf(self, searcher, f: int, token: str) -> float:
        df = searcher.doc_freq(f"f{f}", token)
        return bm25_idf(max(searcher.num_docs, df), df)

    def _compile(self, node, corpus, searcher):
        kind = type(node)
        if kind is PTerm:
            q = tantivy.Query.term_query(self._schema, f"f{node.field}", node.token)
            return tantivy.Query.boost_query(q, node.weight / ((1 + K1) * self._tantivy_idf(searcher, node.field, node.token)))
        if kind is PPhrase:
            words = [(offset, token) for offset, token, _ in node.tokens]
            gaps = max(b[0] - a[0] for a, b in zip(node.tokens, node.tokens[1:])) - 1
            q = tantivy.Query.phrase_query(self._schema, f"f{node.field}", words, slop=node.slop + gaps)
            idf = sum(self._tantivy_idf(searcher, node.field, token) for _, token, _ in node.tokens)
            return tantivy.Query.boost_query(q, node.weight / ((1 + K1) * idf))
        if kind is PConst:
            pattern = escape_regex(node.text) + ".*" if node.kind == "prefix" else node.text
            q = tantivy.Query.regex_query(self._schema, f"f{node.field}", pattern)
            return tantivy.Query.const_score_query(q, node.boost)
        if kind is PAll:
            return tantivy.Query.const_score_query(tantivy.Query.all_query(), node.boost)
        if kind is PBool:
            clauses = [(tantivy.Occur.Must, self._compile(c, corpus, searcher)) for c in node.must]
            clauses += [(tantivy.Occur.Should, self._compile(c, corpus, searcher)) for c in node.should]
            clauses += [(tantivy.Occur.MustNot, self._compile(c, corpus, searcher)) for c in node.must_not]
            return tantivy.Query.boolean_query(clauses)
        return tantivy.Query.empty_query()

    def close(self) -> None:
        """Finish merges and drop the writer, which releases tantivy's directory lock."""
        writer, self._writer = self._writer, None
        if writer is not None:
            try:
                writer.wait_merging_threads()
            except ValueError:     # tantivy raises it once the writer was consumed; nothing to flush
                pass
            del writer
