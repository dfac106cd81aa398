"""Sharded placement of vector and full-text indexes: n shards x r replicas as Ray actors.

An index declared with ``OPTIONS {indexConfig: {`shards`: n, `replicas`: r}}`` keeps its rows in Ray
actors (`shard.SearchShard`, each holding the same `VectorIndex` / `FullTextIndex` a local index uses)
instead of in the server process. `ManagedIndex` still resolves committed changes; the placement
(`placement.py`) routes them to shards by a stable hash (`assign.py`), in commit order, and fans
searches out, merging exactly (BM25 with global statistics, `global_stats.py`). See docs/scale-out.md.
"""
