"""One search shard: the engine's own `VectorIndex` or `FullTextIndex` over the entities hashed to it.

Run as a Ray actor (`placement.py` wraps it with ``ray.remote``). Batches arrive numbered: batch
``seq`` applies only on top of ``seq - 1``, so each change applies exactly once and in commit order;
a duplicate is ignored and a gap is refused (the coordinator then replays what the shard lacks).
``save()`` writes the index files with the position they cover; a restarted actor reloads them and
reports that position, from which it catches up. The actor serves several calls at once (a threaded
Ray actor): searches share a readers-writer lock, changes take it alone.
"""
from __future__ import annotations

import json
import os
import shutil
import tempfile
import threading

from ..definitions import VECTOR, IndexDefinition
from ..providers import get_provider
from ..rwlock import RWLock
from .global_stats import GlobalStats, GlobalView, collect

META = "shard.json"
BULK_ROWS = 25_000      # rows of a bulk block ("B") handed to the index at a time (bounds its temporaries)


def rss_bytes() -> int | None:
    """This process's resident memory (Linux /proc), for SHOW INDEXES and the benchmarks."""
    try:
        with open("/proc/self/statm") as fh:
            return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return None


class SearchShard:
    """A vector or full-text shard with its applied position (batch sequence number, commit ts)."""

    def __init__(self, catalog_entry: dict, name: str, directory: str | None):
        self.definition = IndexDefinition.from_catalog(name, catalog_entry)
        self.directory = directory
        self.seq, self.ts = 0, 0      # last batch applied, and the commit ts it brought the shard to
        self.impl = None
        self.rw = RWLock()            # searches share it; changes, resets and saves take it alone
        self._gauge = threading.Lock()
        self.searching = self.peak_searching = 0     # searches running now / at most at once
        if directory is not None:
            self._load()
        if self.impl is None:
            self.impl = self._new_impl(create=True)

    def _new_impl(self, create: bool):
        """The kind's own structure, opened by its provider as for an in-process index."""
        return get_provider(self.definition.type).open(self.definition, self.directory, create)

    def _load(self) -> None:
        """Reopen the saved files and their position; on any failure start empty at position 0."""
        try:
            with open(os.path.join(self.directory, META)) as fh:
                meta = json.load(fh)
            impl = self._new_impl(create=False)
            impl.load(self.directory)
        except Exception:             # missing or unreadable: the coordinator replays or resyncs
            return
        self.impl = impl
        self.seq, self.ts = meta["seq"], meta["ts"]

    # ---- changes ----------------------------------------------------------------------------
    def position(self) -> tuple[int, int]:
        return self.seq, self.ts

    def apply(self, seq: int, ts: int | None, ops: list) -> tuple[str, int]:
        """Apply batch ``seq``: vector ops ("u", key, value, filter props) upsert, ("B", keys, vectors) a
        bulk block without filter values, ("f", key, filter props) new filter values, ("d", key) delete;
        full-text ops (key, analyzed or None). Returns ("applied" | "duplicate" | "gap", the position)."""
        with self.rw.write():
            if seq <= self.seq:
                return "duplicate", self.seq
            if seq != self.seq + 1:
                return "gap", self.seq
            self._apply_ops(ops)
            self.seq = seq
            if ts is not None:
                self.ts = ts
            return "applied", self.seq

    def _apply_ops(self, ops: list) -> None:
        impl = self.impl
        if self.definition.type == VECTOR:
            upserts = []
            for op in ops:
                if op[0] == "u":
                    upserts.append(op[1:])
                    continue
                if upserts:               # keep the order: flush pending upserts first
                    impl.upsert_many(upserts)
                    upserts = []
                if op[0] == "B":
                    keys, block = op[1], op[2]
                    for start in range(0, len(keys), BULK_ROWS):
                        part = keys[start:start + BULK_ROWS].tolist()
                        impl.upsert_many([(key, block[start + i], {}) for i, key in enumerate(part)])
                elif op[0] == "d":
                    impl.delete(op[1])
                else:
                    impl.set_filter_values(op[1], op[2])
            impl.upsert_many(upserts)
            impl.sync(1)
        else:
            impl.apply(dict(ops))
            if impl.wants_engine_flush():
                impl.flush_engine()

    # ---- re-seeding from the graph store (no replica and no log to catch up from) ------------
    def load_rows(self, ops: list) -> int:
        """Add rows read from the store while this shard is re-seeded (after ``reset``); the position
        stays 0 until ``mark`` sets it. Returns the shard's size."""
        with self.rw.write():
            self._apply_ops(ops)
            return len(self.impl)

    def mark(self, seq: int, ts: int) -> int:
        """End a re-seed: the rows now stand for batch ``seq`` (commit ``ts``); saved with it."""
        with self.rw.write():
            self.seq, self.ts = seq, ts
            self._save()
            return self.seq

    def reset(self) -> None:
        """Drop every row and the saved files (a new index, or a full resync, follows)."""
        with self.rw.write():
            self._reset()

    def _reset(self) -> None:
        if hasattr(self.impl, "close"):
            self.impl.close()
        if self.directory is not None:
            shutil.rmtree(self.directory, ignore_errors=True)
        self.impl = self._new_impl(create=True)
        self.seq = self.ts = 0

    # ---- searches ---------------------------------------------------------------------------
    def tune(self, options: dict | None) -> None:
        """Adopt the coordinator's search-time settings (db.index.vector.setSearchOptions), sent with
        every search so that a restarted actor (built from the original definition) honours them too."""
        config = getattr(self.impl, "config", None)
        for name, value in (options or {}).items():
            if config is not None and name in ("ef_search", "exact_max_scope") and getattr(config, name) != value:
                setattr(config, name, value)

    def search_vector(self, vector, k: int, filters: list, keys=None, options=None) -> list[tuple[int, float]]:
        self.tune(options)
        if keys is not None:
            return self.impl.search_keys(vector, k, keys, filters)
        return self.impl.search(vector, k, filters)

    def term_stats(self, query: str, mode: str) -> dict:
        return collect(self.impl, query, mode)

    def search_text(self, query: str, limit: int, stats: dict, mode: str, keys=None,
                    timeout_s: float | None = None) -> list[tuple[int, float]]:
        view = GlobalView(self.impl.corpus, GlobalStats.from_state(stats))
        return self.impl.search(query, 0, limit, timeout_s, mode=mode, keys=keys, corpus=view)

    def _at(self, fn, args):
        """(position, answer) computed under the read lock: searches run side by side, never during a change."""
        with self.rw.read():
            with self._gauge:
                self.searching += 1
                self.peak_searching = max(self.peak_searching, self.searching)
            try:
                return self.seq, fn(*args)
            finally:
                with self._gauge:
                    self.searching -= 1

    # the coordinator's calls: every answer carries the position it was computed at
    def search_vector_at(self, *args):
        return self._at(self.search_vector, args)

    def term_stats_at(self, *args):
        return self._at(self.term_stats, args)

    def search_text_at(self, *args):
        return self._at(self.search_text, args)

    def info_at(self):
        return self._at(self.info, ())

    # ---- state ------------------------------------------------------------------------------
    def info(self) -> dict:
        config = getattr(self.impl, "config", None)
        return {"seq": self.seq, "ts": self.ts, "size": len(self.impl),
                "skipped": dict(getattr(self.impl, "skipped", {})), "pid": os.getpid(), "rss": rss_bytes(),
                "peakSearches": self.peak_searching,
                "efSearch": self.impl.ef() if hasattr(self.impl, "ef") else None,
                "exactMaxScope": getattr(config, "exact_max_scope", None)}

    def save(self) -> tuple[int, int]:
        """Write the files and the position they cover; returns that position."""
        with self.rw.write():
            return self._save()

    def _save(self) -> tuple[int, int]:
        if self.directory is None:
            return self.seq, self.ts
        os.makedirs(self.directory, exist_ok=True)
        meta = os.path.join(self.directory, META)
        if os.path.exists(meta):
            os.remove(meta)           # the files are being rewritten: not a valid position until done
        self.impl.save(self.directory)
        tmp = meta + ".tmp"
        with open(tmp, "w") as fh:
            json.dump({"seq": self.seq, "ts": self.ts}, fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, meta)
        return self.seq, self.ts

    def export(self) -> tuple[int, int, dict[str, bytes]]:
        """This shard's saved files and position, for a peer replica that must start over (`restore`)."""
        with self.rw.read():
            return self._export()

    def _export(self) -> tuple[int, int, dict[str, bytes]]:
        with tempfile.TemporaryDirectory(prefix="relate-shard-") as tmp:
            self.impl.save(tmp)
            files = {}
            for root, _, names in os.walk(tmp):
                for name in names:
                    path = os.path.join(root, name)
                    with open(path, "rb") as fh:
                        files[os.path.relpath(path, tmp)] = fh.read()
        return self.seq, self.ts, files

    def restore(self, seq: int, ts: int, files: dict[str, bytes]) -> int:
        """Replace every row with a peer's exported files at its position (then save them here)."""
        with self.rw.write():
            return self._restore(seq, ts, files)

    def _restore(self, seq: int, ts: int, files: dict[str, bytes]) -> int:
        if hasattr(self.impl, "close"):
            self.impl.close()
        with tempfile.TemporaryDirectory(prefix="relate-shard-") as tmp:
            for rel, data in files.items():
                path = os.path.normpath(os.path.join(tmp, rel))
                if not path.startswith(tmp + os.sep):
                    raise ValueError(f"bad file name {rel!r}")
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "wb") as fh:
                    fh.write(data)
            impl = self._new_impl(create=True)
            impl.load(tmp)
        if self.definition.type != VECTOR:
            impl.rebuild_engine()     # a full-text export is its corpus: the engine is rebuilt from it
        self.impl = impl
        self.seq, self.ts = seq, ts
        self._save()
        return self.seq

    def close(self) -> None:
        if hasattr(self.impl, "close"):
            self.impl.close()
