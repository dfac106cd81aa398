"""The deterministic hash-384 embedder of the cookbook: feature hashing over words and character
trigrams, L2-normalized. It captures lexical overlap, not meaning; bench, examples and tests share it."""
from __future__ import annotations

import hashlib
import math
import re
from typing import Iterable

import numpy as np

DIMS = 384
_WORD = re.compile(r"[a-z0-9]+")


def features(text: str) -> list[str]:
    """The hashed features of a text: its lowercased words, then each word's character trigrams."""
    words = _WORD.findall(text.lower())
    # A word shorter than three characters contributes itself once more as its only "trigram".
    return words + [w[i:i + 3] for w in words for i in range(max(1, len(w) - 2))]


def _bucket(feature: str) -> tuple[int, float]:
    h = int.from_bytes(hashlib.blake2b(feature.encode(), digest_size=8).digest(), "little")
    return h % DIMS, (1.0 if h >> 63 else -1.0)


def hash384(text: str) -> list[float]:
    """hash-384: feature hashing over words and character trigrams, L2-normalized."""
    v = [0.0] * DIMS
    for f in features(text):
        i, sign = _bucket(f)
        v[i] += sign
    norm = math.sqrt(sum(x * x for x in v)) or 1.0
    return [x / norm for x in v]


embed = hash384  # the cookbook's name for it


def hash384_batch(texts: Iterable[str]) -> np.ndarray:
    """hash384 of many texts as one float32 array of shape (n, DIMS)."""
    rows = [hash384(t) for t in texts]
    return np.asarray(rows, dtype=np.float32).reshape(len(rows), DIMS)


def round6(vector: Iterable[float]) -> list[float]:
    """Each component rounded to six significant digits, as the cookbook's fixtures store them."""
    return [float(f"{x:.6g}") for x in vector]
