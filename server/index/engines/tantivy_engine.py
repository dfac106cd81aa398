"""tantivy as a full-text engine: candidates by tantivy's BM25, boosted to track Relate's exact scores.

tantivy multiplies by (k1 + 1), keeps deleted documents in its statistics until segments merge,
divides tokens by all documents (not those holding the field) and rounds long field lengths down.
Its statistics per searcher (N' and avgdl' per field) are read once from an explanation; each term
query is boosted by exact_weight / ((k1 + 1) * tantivy_idf), so per term tantivy scores
exact_weight * tf / (tf + k1 * (1 - b + b * dl' / avgdl')) with dl' <= dl. Hence
exact <= R * tantivy with R = max(1, avgdl / avgdl') over the query's fields (plus float32 slack).
"""
from __future__ import annotations

import json
import os
import threading
import time

import tantivy

from relate.protocol.errors import QueryTimeout

from ..corpus import K1, bm25_idf
from ..lucene_query import escape_regex
from ..query_plan import PAll, PBool, PConst, PPhrase, PTerm, iter_leaves


def _terms_by_field(plan) -> dict[int, list[str]]:
    out: dict[int, list[str]] = {}
    for leaf in iter_leaves(plan):
        if isinstance(leaf, PTerm):
            out.setdefault(leaf.field, []).append(leaf.token)
        elif isinstance(leaf, PPhrase):
            out.setdefault(leaf.field, []).extend(token for _, token, _ in leaf.tokens)
    return out


_FLOAT32_SLACK = 1 + 1e-4


def _add_tokens(doc, field: str, pairs: list) -> None:
    """Add analyzed tokens: as space-joined text when that splits back exactly (fast), else pre-tokenized."""
    joined = " ".join(token for _, token in pairs)
    if (not pairs or pairs[-1][0] == len(pairs) - 1) and len(joined.split()) == len(pairs):
        doc.add_text(field, joined)
    else:       # stop-word gaps in the positions, or tokens holding spaces (keyword analyzer)
        tokens = [tantivy.Token(text, pos, 0, 0) for pos, text in pairs]
        doc.add_pre_tokenized_text(field, tantivy.PreTokenizedString("", tokens))


def _explained(node: dict, description: str):
    """The value of the explanation node whose description starts with ``description``."""
    if node.get("description", "").startswith(description):
        return node.get("value")
    for child in node.get("details", ()) or ():
        found = _explained(child, description)
        if found is not None:
            return found
    return None


class _Snapshot:
    """A searcher and the statistics read from it (they change only with the searcher)."""
    __slots__ = ("searcher", "field_stats")

    def __init__(self, searcher):
        self.searcher = searcher
        self.field_stats: dict[int, tuple[float, float] | None] = {}   # field -> (N', avgdl')


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
        self._snapshot = _Snapshot(self._ix.searcher())
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
            self._snapshot = _Snapshot(self._ix.searcher())

    def search(self, plan, corpus, limit, deadline):
        """Up to ``limit`` (key, tantivy score), best first, and the bound R for them."""
        with self._lock:
            snap = self._snapshot
        if time.monotonic() > deadline:
            raise QueryTimeout("The full-text search ran out of time")
        bound = 1.0
        for f, tokens in _terms_by_field(plan).items():
            stats = self._field_stats(snap, f, tokens)
            if stats is not None and corpus.field_docs[f]:
                bound = max(bound, corpus.avgdl(f) / stats[1])
        q = self._compile(plan, corpus, snap)
        # tantivy sizes its collector by the limit: never ask for more hits than there are documents
        hits = snap.searcher.search(q, max(1, min(limit, snap.searcher.num_docs + 1)), count=False).hits
        if not hits:
            return [], bound * _FLOAT32_SLACK
        keys = snap.searcher.fast_field_values("k", [address for _, address in hits])
        return [(int(key), score) for key, (score, _) in zip(keys, hits)], bound * _FLOAT32_SLACK

    def _field_stats(self, snap: _Snapshot, f: int, tokens) -> tuple[float, float] | None:
        """tantivy's (N', avgdl') for field f, read from the explanation of a term it holds."""
        if f in snap.field_stats:
            return snap.field_stats[f]
        stats = None
        for token in tokens:
            q = tantivy.Query.term_query(self._schema, f"f{f}", token)
            hits = snap.searcher.search(q, 1, count=False).hits
            if hits:
                explanation = json.loads(q.explain(snap.searcher, hits[0][1]).to_json())
                total = _explained(explanation, "N, total number of docs")
                avgdl = _explained(explanation, "avgdl, average length of field")
                if total and avgdl:
                    stats = (float(total), float(avgdl))
                break
        if stats is not None:
            snap.field_stats[f] = stats
        return stats

    def note_deletes(self, count: int) -> None:
        """Count deletes before they are written, so bounds computed meanwhile stay safe."""
        self.deleted_since_build += count

    def _tantivy_idf(self, snap: _Snapshot, f: int, token: str) -> float:
        df = snap.searcher.doc_freq(f"f{f}", token)
        stats = snap.field_stats.get(f)
        # without statistics no document of the field holds these terms: any positive idf will do
        total = stats[0] if stats else max(snap.searcher.num_docs, df)
        return bm25_idf(total, df)

    def _compile(self, node, corpus, snap):
        kind = type(node)
        if kind is PTerm:
            q = tantivy.Query.term_query(self._schema, f"f{node.field}", node.token)
            return tantivy.Query.boost_query(q, node.weight / ((1 + K1) * self._tantivy_idf(snap, node.field, node.token)))
        if kind is PPhrase:
            words = [(offset, token) for offset, token, _ in node.tokens]
            gaps = max(b[0] - a[0] for a, b in zip(node.tokens, node.tokens[1:])) - 1
            q = tantivy.Query.phrase_query(self._schema, f"f{node.field}", words, slop=node.slop + gaps)
            idf = sum(self._tantivy_idf(snap, node.field, token) for _, token, _ in node.tokens)
            return tantivy.Query.boost_query(q, node.weight / ((1 + K1) * idf))
        if kind is PConst:
            pattern = escape_regex(node.text) + ".*" if node.kind == "prefix" else node.text
            q = tantivy.Query.regex_query(self._schema, f"f{node.field}", pattern)
            return tantivy.Query.const_score_query(q, node.boost)
        if kind is PAll:
            return tantivy.Query.const_score_query(tantivy.Query.all_query(), node.boost)
        if kind is PBool:
            clauses = [(tantivy.Occur.Must, self._compile(c, corpus, snap)) for c in node.must]
            clauses += [(tantivy.Occur.Should, self._compile(c, corpus, snap)) for c in node.should]
            clauses += [(tantivy.Occur.MustNot, self._compile(c, corpus, snap)) for c in node.must_not]
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
