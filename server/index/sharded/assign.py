"""Stable entity -> shard assignment: jump consistent hashing (Lamping & Veach, 2014).

Stable across processes and machines (no Python ``hash``), uniform, and when the shard count grows
from n to n + 1 only 1/(n + 1) of the entities move.
"""
from __future__ import annotations

_MASK = (1 << 64) - 1


def shard_of(key: int, shards: int) -> int:
    """The shard (0 <= s < ``shards``) that holds entity id ``key``."""
    if shards <= 1:
        return 0
    state = key & _MASK
    bucket, jump = -1, 0
    while jump < shards:
        bucket = jump
        state = (state * 2862933555777941757 + 1) & _MASK
        jump = int((bucket + 1) * ((1 << 31) / ((state >> 33) + 1)))
    return bucket


def shards_of(keys, shards: int):
    """`shard_of` for a numpy array of entity ids at once (bulk loads): the same jump hash, vectorised."""
    import numpy as np
    keys = np.asarray(keys)
    if shards <= 1:
        return np.zeros(len(keys), dtype=np.int64)
    state = keys.astype(np.int64).view(np.uint64).copy()       # two's complement, as key & _MASK
    bucket = np.full(len(keys), -1, dtype=np.int64)
    jump = np.zeros(len(keys), dtype=np.int64)
    active = np.ones(len(keys), dtype=bool)
    with np.errstate(over="ignore"):
        while active.any():
            bucket[active] = jump[active]
            state[active] = state[active] * np.uint64(2862933555777941757) + np.uint64(1)
            # the same float64 division and truncation as shard_of
            scale = float(1 << 31) / ((state[active] >> np.uint64(33)).astype(np.float64) + 1.0)
            jump[active] = ((bucket[active] + 1) * scale).astype(np.int64)
            active &= jump < shards
    return bucket
