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


PLACEABLE = ("VECTOR", "FULLTEXT")


def split_placement(kind: str, options: dict | None) -> tuple[dict | None, dict]:
    """CREATE ... OPTIONS without `shards` / `replicas` (for the kind's own validation), and those
    settings validated; ArgumentError for a kind that cannot be sharded."""
    config = options.get("indexConfig") if isinstance(options, dict) else None
    if not isinstance(config, dict) or not any(key in config for key in PLACEMENT_KEYS):
        return options, {}
    if str(kind).upper() not in PLACEABLE:
        raise ArgumentError(f"A {str(kind).lower()} index cannot be sharded; `shards` and `replicas` apply "
                            f"to {' and '.join(k.lower() for k in PLACEABLE)} indexes")
    where = {key: placement_value(key, config[key]) for key in PLACEMENT_KEYS if key in config}
    rest = {key: value for key, value in config.items() if key not in PLACEMENT_KEYS}
    return {**options, "indexConfig": rest}, where


def is_sharded(config: dict) -> bool:
    """Whether an index lives in Ray shard actors (any `shards` setting, even 1, places it there)."""
    return config.get("shards") is not None
