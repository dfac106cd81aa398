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
