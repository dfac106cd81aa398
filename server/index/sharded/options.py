"""The placement settings of a search index: `shards` and `replicas` in indexConfig."""
from __future__ import annotations

from relate.protocol.errors import ArgumentError

PLACEMENT_KEYS = ("shards", "replicas")
MAX_SHARDS = 256
MAX_REPLICAS = 8


def placement_value(key: str, value) -> int:
    """A validated `shards` (1..256) or `replicas` (1..8) setting."""
    top = MAX_SHARDS if key == "shards" else MAX_REPLICAS
    if type(value) is not int or not 1 <= value <= top:
        raise ArgumentError(f"Index setting `{key}` must be an integer from 1 to {top}, got {value!r}")
    return value


def is_sharded(config: dict) -> bool:
    """Whether an index lives in Ray shard actors (any `shards` setting, even 1, places it there)."""
    return config.get("shards") is not None
