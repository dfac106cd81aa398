"""Trigrams as PostgreSQL's pg_trgm defines them, and an inverted trigram index for nearest names.

pg_trgm semantics: lowercase; words are runs of letters and digits; each word is padded with two spaces
in front and one behind; a string's trigrams are the set of 3-character windows over its padded words;
similarity is the Jaccard measure |A ∩ B| / |A ∪ B|.

``TrigramIndex`` maps trigram -> posting list of row numbers (compact ``array('i')``, read as numpy
without copying) and answers ``search(text, k, threshold)`` by counting shared trigrams per row with one
``bincount`` over the query's postings. Self-contained: ``build``, ``apply`` (upserts and deletes by key),
``search``; ``NameIndexes`` keeps one per (label, property) in step with a store's commits.
"""
from __future__ import annotations

import re
import threading
from array import array

import numpy as np

_WORD = re.compile(r"[^\W_]+")


def trigrams(text: str) -> set[str]:
    """The pg_trgm trigram set of ``text``."""
    out: set[str] = set()
    for word in _WORD.findall(text.lower()):
        padded = "  " + word + " "
        out.update(padded[i:i + 3] for i in range(len(padded) - 2))
    return out


def trigram_similarity(a: str, b: str) -> float:
    """pg_trgm's similarity(a, b): Jaccard over the trigram sets; 0.0 when both are empty."""
    ta, tb = trigrams(a), trigrams(b)
    union = len(ta | tb)
    return 0.0 if union == 0 else len(ta & tb) / union


class TrigramIndex:
    """Nearest strings by trigram similarity over (key, text) pairs; keys are ints (entity ids)."""

    def __init__(self) -> None:
        self._postings: dict[str, array] = {}
        self._row_of: dict[int, int] = {}
        self._keys = array("q")              # row -> key (-1 once deleted)
        self._sizes = array("i")             # row -> number of trigrams
        self._texts: list[str | None] = []
        self._dead = 0
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._row_of)

    def __contains__(self, key: int) -> bool:
        return key in self._row_of

    def build(self, items) -> None:
        """Add every (key, text) of ``items`` (an index being built; texts that are not strings are skipped)."""
        with self._lock:
            for key, text in items:
                self._upsert(key, text)

    def apply(self, changes: dict) -> None:
        """Upsert (key -> text) or delete (key -> None) entries."""
        with self._lock:
            for key, text in changes.items():
                self._delete(key)
                self._upsert(key, text)
            if self._dead > 1024 and self._dead > len(self._row_of):
                self._compact()

    def text(self, key: int) -> str | None:
        row = self._row_of.get(key)
        return None if row is None else self._texts[row]

    def _upsert(self, key: int, text) -> None:
        if not isinstance(text, str):
            return
        if key in self._row_of:
            self._delete(key)
        grams = trigrams(text)
        row = len(self._keys)
        self._keys.append(key)
        self._sizes.append(len(grams))
        self._texts.append(text)
        self._row_of[key] = row
        postings = self._postings
        for gram in grams:
            posting = postings.get(gram)
            if posting is None:
                postings[gram] = array("i", (row,))
            else:
                posting.append(row)

    def _delete(self, key: int) -> None:
        row = self._row_of.pop(key, None)
        if row is not None:
            self._keys[row] = -1            # postings keep the row; searches skip dead rows
            self._texts[row] = None
            self._dead += 1

    def _compact(self) -> None:
        live = [(key, self._texts[row]) for key, row in self._row_of.items()]
        self._postings, self._row_of = {}, {}
        self._keys, self._sizes, self._texts, self._dead = array("q"), array("i"), [], 0
        for key, text in live:
            self._upsert(key, text)

    def search(self, text: str, k: int = 10, threshold: float = 0.3) -> list[tuple[int, float]]:
        """The ``k`` keys most similar to ``text`` with similarity >= ``threshold``, best first (ties by key)."""
        query = trigrams(text)
        if not query or k <= 0:
            return []
        with self._lock:
            n = len(self._keys)
            lists = [np.frombuffer(self._postings[g], dtype=np.int32) for g in query if g in self._postings]
            if not lists or n == 0:
                return []
            counts = np.bincount(np.concatenate(lists), minlength=n)
            sizes = np.frombuffer(self._sizes, dtype=np.int32)
            keys = np.frombuffer(self._keys, dtype=np.int64)
            # Jaccard >= t needs shared >= t * |query|: only rows past that bound are scored
            rows = np.flatnonzero(counts >= max(1, int(np.ceil(threshold * len(query) - 1e-9))))
            rows = rows[keys[rows] >= 0]
            shared = counts[rows].astype(np.float64)
            sims = shared / (len(query) + sizes[rows] - shared)
            keep = sims >= threshold
            rows, sims = rows[keep], sims[keep]
            if len(rows) > k:
                part = np.argpartition(-sims, k - 1)[:k]
                kth = sims[part].min()
                sel = np.flatnonzero(sims >= kth)
                rows, sims = rows[sel], sims[sel]
            found = keys[rows].copy()
            del lists, sizes, keys        # release the buffer views before the lock (arrays may grow)
        order = np.lexsort((found, -sims))[:k]
        return [(int(found[i]), float(sims[i])) for i in order]


class NameIndexes:
    """Trigram indexes over one string property of the nodes of one label, kept in step with commits."""

    def __init__(self, store):
        self.store = store
        self._indexes: dict[tuple[str, str], TrigramIndex] = {}
        self._lock = threading.Lock()
        self._pending: dict[tuple[str, str], list] = {}
        store.add_commit_listener(self._on_commit)

    def get(self, label: str, prop: str) -> TrigramIndex:
        """The index of (label, prop), built from the store on first use."""
        key = (label, prop)
        with self._lock:
            index = self._indexes.get(key)
            if index is not None:
                return index
            self._pending[key] = []          # commits that land while the snapshot is read
        index = TrigramIndex()
        tx = self.store.begin_read()
        try:
            ts = tx.ts
            index.build((nid, tx.node_prop(nid, prop)) for nid in tx.nodes_by_label(label))
        finally:
            tx.close()
        with self._lock:
            for changes, commit_ts in self._pending.pop(key):
                if commit_ts > ts:
                    index.apply(_resolve(self.store, _changes_for(changes, label, prop), label, prop))
            self._indexes[key] = index
        return index

    def _on_commit(self, changes: list, commit_ts: int) -> None:
        with self._lock:
            for key, queue in self._pending.items():
                queue.append((changes, commit_ts))
            indexes = list(self._indexes.items())
        for (label, prop), index in indexes:
            updates = _changes_for(changes, label, prop)
            if updates:
                index.apply(_resolve(self.store, updates, label, prop))

    def close(self) -> None:
        if hasattr(self.store, "remove_commit_listener"):
            self.store.remove_commit_listener(self._on_commit)


_LOOKUP = object()      # the change does not say the node's label or text: read the node


def _changes_for(changes: list, label: str, prop: str) -> dict:
    """key -> text | None | _LOOKUP for the commit's changes touching (label, prop)."""
    out: dict = {}
    for change in changes:
        kind = change[0]
        if kind == "node+" and label in change[2]:
            out[change[1]] = change[3].get(prop)
        elif kind == "node-" and label in change[2]:
            out[change[1]] = None
        elif (kind == "nprop" and change[2] == prop) or (kind in ("label+", "label-") and change[2] == label):
            out[change[1]] = _LOOKUP
    return out


def _resolve(store, updates: dict, label: str, prop: str) -> dict:
    lookups = [key for key, value in updates.items() if value is _LOOKUP]
    if lookups:
        tx = store.begin_read()
        try:
            for key in lookups:
                alive = tx.node_exists(key) and label in tx.node_labels(key)
                updates[key] = tx.node_prop(key, prop) if alive else None
        finally:
            tx.close()
    return updates
