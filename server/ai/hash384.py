"""The cookbook's hash-384 embedder, computed on the server (the engine may not import the client).

Same algorithm as ``relate.embedders.hash384`` (words and their character trigrams, blake2b feature
hashing into 384 signed buckets, L2-normalized); a test holds the two to identical vectors.
"""
from __future__ import annotations

import hashlib
import math
import re
from functools import lru_cache

DIMS = 384
_WORD = re.compile(r"[a-z0-9]+")


@lru_cache(maxsize=65536)
def _bucket(feature: str) -> tuple[int, float]:
    h = int.from_bytes(hashlib.blake2b(feature.encode(), digest_size=8).digest(), "little")
    return h % DIMS, (1.0 if h >> 63 else -1.0)


def hash384(text: str) -> list[float]:
    """hash-384 of ``text``: a 384-dimensional unit vector (all zeros for text without words)."""
    words = _WORD.findall(text.lower())
    v = [0.0] * DIMS
    for f in words + [w[i:i + 3] for w in words for i in range(max(1, len(w) - 2))]:
        i, sign = _bucket(f)
        v[i] += sign
    norm = math.sqrt(sum(x * x for x in v)) or 1.0
    return [x / norm for x in v]
