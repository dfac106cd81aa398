"""The sharded placement of a live index (the `IndexManager(placement=...)` seam).

`placed` keeps an index in process unless its indexConfig has `shards`; then the live index is the
same `ManagedIndex` (commit queue, population, the kind's provider) whose structure is a
`placement.ShardedVector` / `ShardedFullText`: rows in Ray shard actors, searches fanned out.
"""
from __future__ import annotations

from ..managed import ManagedIndex
from .options import is_sharded


class ShardedLiveIndex(ManagedIndex):
    """A live index whose rows live in shard actors; the provider drives it like a local structure."""

    in_process = False

    def _new_impl(self, create: bool):
        from .placement import sharded_index
        return sharded_index(self.definition, self.directory, create)

    def shard_health(self) -> list[dict]:
        """SHOW INDEXES' `shards` column: each replica's state, batch position, commit ts and size."""
        return [] if self.impl is None else self.impl.health()

    def destroy(self) -> None:
        """DROP INDEX: end the shard actors and their files too."""
        if self.impl is not None:
            self.impl.destroy()
        super().destroy()


def placed(definition, store, directory: str | None, build_threads: int) -> ManagedIndex:
    """In process, or on shards when the definition's indexConfig has `shards`."""
    cls = ShardedLiveIndex if is_sharded(definition.config) else ManagedIndex
    return cls(definition, store, directory, build_threads)
