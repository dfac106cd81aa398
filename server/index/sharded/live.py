"""The sharded placement of a live index (the `IndexManager(placement=...)` seam).

`placed` keeps an index in process unless its indexConfig has `shards`; then the live index is the
same `ManagedIndex` (commit queue, population, the kind's provider) whose structure is a
`placement.ShardedVector` / `ShardedFullText`: rows in Ray shard actors, searches fanned out. It also
gives the placement its `reseeder`: one shard's rows read from a store snapshot, for a replica that
lost its files when neither the log nor a peer can restore it.
"""
from __future__ import annotations

from ..managed import POPULATION_CHUNK, ManagedIndex
from .assign import shards_of
from .options import is_sharded


class ShardedLiveIndex(ManagedIndex):
    """A live index whose rows live in shard actors; the provider drives it like a local structure."""

    in_process = False

    def _new_impl(self, create: bool):
        from .placement import sharded_index
        impl = sharded_index(self.definition, self.directory, create)
        impl.reseeder = self._shard_rows
        return impl

    def _shard_rows(self, shard: int):
        """(commit ts of a store snapshot, the ops setting every entity of ``shard`` that the index holds
        in that snapshot, in chunks); the chunks read the snapshot lazily and close it at the end."""
        tx = self.store.begin_read()

        def chunks():
            try:
                if self._node:
                    keys = list(dict.fromkeys(k for t in self.definition.tokens for k in tx.nodes_by_label(t)))
                else:
                    keys = [k for t in self.definition.tokens for k in tx.rels_by_type(t)]
                impl = self.impl
                mine = [k for k, s in zip(keys, shards_of(keys, impl.n).tolist()) if s == shard]
                for start in range(0, len(mine), POPULATION_CHUNK):
                    ops = (impl.row_op(key, self._read_state(tx, key)) for key in mine[start:start + POPULATION_CHUNK])
                    yield [op for op in ops if op is not None]
            finally:
                tx.close()
        return tx.ts, chunks()

    def size(self) -> int | None:
        """SHOW INDEXES `size` (None while a shard has no up-to-date replica: it is restarting or rebuilding)."""
        return 0 if self.impl is None else self.impl.status_counts()[0]

    def skipped_count(self) -> int | None:
        return 0 if self.impl is None else self.impl.status_counts()[1]

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
