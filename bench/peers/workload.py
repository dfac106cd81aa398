"""The seeded workload: the cookbook's graph at scale (notes, ~50 topics, ABOUT/DECIDED edges), questions,
hash-384 embeddings. Generated once per (n, seed) and cached as .npz + .json for the worker processes."""
from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass, field
from datetime import datetime, timezone

import numpy as np

from relate.embedders import DIMS, hash384_batch

T0_MS = 1_767_225_600_000          # 2026-01-01T00:00:00Z; note i's ts is T0 + a distinct minute
MINUTE_MS = 60_000
TOPICS = 50
TOPIC_WORDS = 30
VOCABULARY = 3000
QUESTIONS = 100
FILTERS = {"ts30": 0.30, "ts1": 0.01}   # share of notes a ts filter keeps


@dataclass
class Workload:
    """Everything every system loads and queries; ids are strings, index i is note i."""
    n: int
    seed: int
    ids: list[str]
    texts: list[str]
    sessions: list[str]
    ts: np.ndarray                      # int64 epoch ms, distinct
    embeddings: np.ndarray              # float32 (n, 384), L2-normalized
    topics: list[str]
    about: list[tuple[int, int]]        # (note index, topic index)
    decided: list[tuple[int, int, str, int]]   # (note index, topic index, text, ts)
    questions: list[str]
    question_vectors: np.ndarray        # float32 (QUESTIONS, 384)
    lookups: list[int]                  # note indexes for point lookups and 2-hop anchors
    since_ms: dict[str, int] = field(default_factory=dict)   # filter name -> smallest ts kept

    @property
    def all_since_ms(self) -> int:
        return T0_MS

    def since_iso(self, ms: int) -> str:
        return datetime.fromtimestamp(ms / 1000, tz=timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _vocabulary(rng: np.random.Generator) -> list[str]:
    """Pronounceable words ending in 'a' or 'o': no English stop word, and no stemmer (Porter, Snowball)
    changes them, so every system's analyzer sees the same terms."""
    consonants, vowels = "bdfgklmnprstvz", "aiou"
    words: set[str] = set()
    while len(words) < VOCABULARY:
        syllables = int(rng.integers(2, 5))
        w = "".join(consonants[rng.integers(14)] + vowels[rng.integers(4)] for _ in range(syllables - 1))
        words.add(w + consonants[rng.integers(14)] + "ao"[rng.integers(2)])
    return sorted(words)


def _sentence(rng, length: int, topic_words: list[list[str]], general: list[str], cdf: np.ndarray,
              shares: tuple[float, ...], unique: bool = False) -> str:
    """``length`` words: from each topic word list with its share, the rest Zipf-distributed over the vocabulary."""
    out: list[str] = []
    while len(out) < length:
        u, word = rng.random(), None
        for words, share in zip(topic_words, shares):
            if u < share:
                word = words[rng.integers(len(words))]
                break
            u -= share
        if word is None:
            word = general[min(int(np.searchsorted(cdf, rng.random())), len(general) - 1)]
        if unique and word in out:
            continue
        out.append(word)
    return " ".join(out)


def generate(n: int, seed: int = 7) -> Workload:
    """N notes of 8-30 words, 1-2 ABOUT edges each, N/5 DECIDED edges, QUESTIONS questions; all seeded."""
    rng = np.random.default_rng(seed)
    vocab = _vocabulary(rng)
    order = rng.permutation(len(vocab))
    topic_words = [[vocab[i] for i in order[t * TOPIC_WORDS:(t + 1) * TOPIC_WORDS]] for t in range(TOPICS)]
    general = [vocab[i] for i in order[TOPICS * TOPIC_WORDS:]]
    weights = 1.0 / np.arange(1, len(general) + 1)
    cdf = np.cumsum(weights / weights.sum())
    topics = [f"topic{t:02d}" for t in range(TOPICS)]
    width = max(6, len(str(n)))
    ids = [f"n{i:0{width}d}" for i in range(n)]
    ts = T0_MS + rng.permutation(n).astype(np.int64) * MINUTE_MS
    texts, about = [], []
    for i in range(n):
        primary = int(rng.integers(TOPICS))
        second = int(rng.integers(TOPICS)) if rng.random() < 0.3 else None
        if second == primary:
            second = None
        words = [topic_words[primary]] + ([topic_words[second]] if second is not None else [])
        shares = (0.5, 0.15) if second is not None else (0.5,)
        texts.append(_sentence(rng, int(rng.integers(8, 31)), words, general, cdf, shares))
        about.append((i, primary))
        if second is not None:
            about.append((i, second))
    primary_of = {}
    for i, t in about:
        primary_of.setdefault(i, t)
    deciders = sorted(rng.choice(n, size=n // 5, replace=False).tolist())
    decided = [(i, primary_of[i], _sentence(rng, int(rng.integers(4, 9)), [topic_words[primary_of[i]]],
                                            general, cdf, (0.7,)), int(ts[i])) for i in deciders]
    questions = []
    for _ in range(QUESTIONS):
        t = int(rng.integers(TOPICS))
        questions.append(_sentence(rng, int(rng.integers(6, 11)), [topic_words[t]], general, cdf, (0.6,),
                                   unique=True))
    lookups = rng.integers(0, n, size=QUESTIONS).tolist()
    # A filter keeping share s keeps the notes whose ts is among the newest ceil(s * n) minutes.
    since = {name: T0_MS + (n - max(1, math.ceil(share * n))) * MINUTE_MS for name, share in FILTERS.items()}
    return Workload(n, seed, ids, texts, [f"session-{i // 200:04d}" for i in range(n)], ts,
                    hash384_batch(texts), topics, about, decided, questions, hash384_batch(questions),
                    lookups, since)


def save(wl: Workload, stem: str) -> None:
    np.savez(stem + ".npz", ts=wl.ts, embeddings=wl.embeddings, question_vectors=wl.question_vectors)
    meta = {k: getattr(wl, k) for k in ("n", "seed", "ids", "texts", "sessions", "topics", "about", "decided",
                                        "questions", "lookups", "since_ms")}
    with open(stem + ".json.tmp", "w") as f:
        json.dump(meta, f)
    os.replace(stem + ".json.tmp", stem + ".json")


def load(stem: str) -> Workload:
    with open(stem + ".json") as f:
        meta = json.load(f)
    arrays = np.load(stem + ".npz")
    meta["about"] = [tuple(x) for x in meta["about"]]
    meta["decided"] = [tuple(x) for x in meta["decided"]]
    return Workload(ts=arrays["ts"], embeddings=arrays["embeddings"], question_vectors=arrays["question_vectors"],
                    **meta)


def cached(n: int, seed: int, directory: str) -> tuple[Workload, str]:
    """The workload for (n, seed), generated on first use; returns it and its file stem."""
    os.makedirs(directory, exist_ok=True)
    stem = os.path.join(directory, f"workload-n{n}-s{seed}-d{DIMS}")
    if os.path.exists(stem + ".json") and os.path.exists(stem + ".npz"):
        return load(stem), stem
    wl = generate(n, seed)
    save(wl, stem)
    return wl, stem
