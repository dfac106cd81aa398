"""The coordinator side of a sharded index: routes committed changes to shard actors, fans searches out.

`ShardedVector` and `ShardedFullText` offer the interface `ManagedIndex` drives for a local
`VectorIndex` / `FullTextIndex`, so population, commit-order queues, WHERE filters and SEARCH work
unchanged. Writes are buffered per shard and sent as numbered batches when `ManagedIndex` reports the
commit ts they bring the index to (`committed`), to every replica; the batches since the last save
stay in a log, from which a replica that restarted (Ray restarts a dead actor, which reloads its
saved files) catches up. Every shard answer carries its position, so an answer from a replica that
is behind is never merged: it is caught up and asked again, or another replica answers, or the
search fails with a retryable TransientError — never a partial result. Searches run side by side
(the read side of a readers-writer lock; sends take the write side, so a search never sees half a
batch), and the shard actors serve several calls at once. A replica that cannot catch up (no log back
to its position, no up-to-date peer) is re-seeded from the graph store in the background (`reseeder`).
"""
from __future__ import annotations

import heapq
import json
import os
import socket
import threading
import time
import uuid
import zlib

import structlog

from relate.protocol.errors import RelateError, TransientError

from ..analyzers import get_analyzer
from ..fulltext import FullTextIndex
from ..rwlock import RWLock
from .assign import shard_of, shards_of
from .cluster import NAMESPACE, ray_module
from .global_stats import GlobalStats
from .shard import SearchShard

log = structlog.get_logger(__name__)

SEND_CHUNK = 5_000          # buffered ops per shard that are sent without waiting for a commit ts
CALL_TIMEOUT_S = 60.0       # one shard call (apply, search, save)
RESTART_WAIT_S = 30.0       # how long a search waits for a shard whose only replicas Ray is restarting
REPAIR_BACKOFF_S = (0.2, 5.0)   # the repairer's first and longest pause between tries at a lagging replica
SHARD_CONCURRENCY = 8      # calls one shard actor serves at once (searches share its read lock)
PLACEMENT = "placement.json"
UNAVAILABLE = "Neo.TransientError.General.DatabaseUnavailable"


class _Replica:
    __slots__ = ("name", "handle", "seq", "healthy", "error", "rebuilding")

    def __init__(self, name: str, handle):
        self.name, self.handle = name, handle
        self.seq = 0              # the position the coordinator last saw it at
        self.healthy = True
        self.error = ""
        self.rebuilding = False   # being re-seeded from the graph store: no batches, no searches


class _Shard:
    __slots__ = ("replicas", "seq", "log", "buffer", "turn", "repair")

    def __init__(self, replicas: list[_Replica]):
        self.replicas = replicas
        self.seq = 0              # the last batch sent
        self.log: list[tuple[int, int | None, list]] = []    # batches since the last save
        self.buffer: list = []    # ops not sent yet
        self.turn = 0             # round robin over replicas for searches
        self.repair = threading.Lock()   # one catch-up (replay, copy, re-seed start) at a time


class _Placement:
    """n shards x r replicas of one index as named Ray actors."""

    def __init__(self, definition, directory: str | None, create: bool = True):
        self.definition = definition
        self.directory = directory
        self.n = definition.config.get("shards") or 1
        self.r = definition.config.get("replicas") or 1
        self.ray = ray_module()
        self._lock = threading.RLock()      # the write buffers
        self._rw = RWLock()                 # searches share it; sending a batch takes it alone
        # (shard number) -> (snapshot commit ts, chunks of that shard's ops read from the graph store);
        # set by the live index (sharded/live.py); None (no store) leaves a lost replica BEHIND
        self.reseeder = None
        self._known: set[int] = set()
        self._repairer: threading.Thread | None = None   # catches up replicas that missed batches (_repair_loop)
        self._repairer_lock = threading.Lock()   # its own: searches holding the read side start it
        # stable for a database directory on this host (a restarted server finds its actors again)
        home = f"{socket.gethostname()}:{os.path.abspath(directory)}" if directory else f"mem-{uuid.uuid4()}"
        self._prefix = f"relate-{zlib.crc32(home.encode()):08x}-{definition.name}"
        self.shards = [_Shard([self._attach(s, r, fresh=create) for r in range(self.r)]) for s in range(self.n)]

    # ---- actors -----------------------------------------------------------------------------
    def _attach(self, s: int, r: int, fresh: bool) -> _Replica:
        ray = self.ray
        name = f"{self._prefix}-s{s}-r{r}"
        shard_dir = None if self.directory is None else os.path.join(self.directory, f"shard-{s}-r{r}")
        actor = ray.remote(SearchShard).options(
            name=name, namespace=NAMESPACE, get_if_exists=True, lifetime="detached", max_restarts=-1,
            max_task_retries=0, num_cpus=0, scheduling_strategy="SPREAD",
            max_concurrency=SHARD_CONCURRENCY)
        handle = actor.remote(self.definition.to_catalog(), self.definition.name, shard_dir)
        replica = _Replica(name, handle)
        if fresh:
            self._get(handle.reset.remote())
        else:
            replica.seq = self._get(handle.position.remote())[0]
        return replica

    def _get(self, ref):
        """ray.get with the shard's own errors (ArgumentError, ...) raised as themselves."""
        ray = self.ray
        try:
            return ray.get(ref, timeout=CALL_TIMEOUT_S)
        except ray.exceptions.RayTaskError as exc:
            cause = getattr(exc, "cause", None)
            if isinstance(cause, RelateError):
                raise cause from None
            raise

    def _dead(self, exc: BaseException) -> bool:
        e = self.ray.exceptions
        return isinstance(exc, (e.RayActorError, e.ActorUnavailableError, e.GetTimeoutError, e.ObjectLostError))

    # ---- changes ----------------------------------------------------------------------------
    def _route(self, key: int, op) -> None:
        shard = self.shards[shard_of(key, self.n)]
        shard.buffer.append(op)
        if len(shard.buffer) >= SEND_CHUNK:
            self._send([shard], None)

    def committed(self, ts: int) -> None:
        """Send every buffered op, stamped with the commit ts the index now covers."""
        with self._lock:
            self._send([shard for shard in self.shards if shard.buffer], ts)

    def _send(self, shards: list[_Shard], ts: int | None) -> None:
        """One numbered batch to every replica of each of ``shards``, all shards applying at once."""
        if not shards:
            return
        with self._rw.write():
            refs = []
            for shard in shards:
                ops, shard.buffer = shard.buffer, []
                shard.seq += 1
                shard.log.append((shard.seq, ts, ops))
                payload = self.ray.put(ops)      # once in the object store, however many replicas
                refs += [(shard, replica, replica.handle.apply.remote(shard.seq, ts, payload))
                         for replica in shard.replicas if not replica.rebuilding]
            for shard, replica, ref in refs:
                self._applied(shard, replica, ref)

    def _applied(self, shard: _Shard, replica: _Replica, ref) -> None:
        try:
            status, position = self._get(ref)
            replica.seq = position
            if status == "gap":
                self._catch_up(shard, replica)
            replica.healthy = replica.seq == shard.seq
            if not replica.rebuilding:
                replica.error = ""
        except Exception as exc:           # a dead replica catches up when it is back
            if not self._dead(exc):
                raise
            replica.healthy, replica.error = False, f"{type(exc).__name__}"
            log.warning("shard.replica_down", replica=replica.name, error=type(exc).__name__)
            self._schedule_repair()

    def _catch_up(self, shard: _Shard, replica: _Replica) -> bool:
        """Replay the logged batches the replica lacks; False when the log does not reach back to it
        (then it is copied from a peer, or re-seeded from the store in the background)."""
        with shard.repair:
            if replica.rebuilding:
                return False
            replica.seq = self._get(replica.handle.position.remote())[0]
            missing = [batch for batch in shard.log if batch[0] > replica.seq]
            if replica.seq < shard.seq and (not missing or missing[0][0] != replica.seq + 1):
                if not self._copy_from_peer(shard, replica):
                    if self.reseeder is not None:
                        self._start_reseed(shard, replica)
                        return False
                    replica.healthy, replica.error = False, f"behind at batch {replica.seq}; the log starts later"
                    self._schedule_repair()          # a peer may be up to date later
                    return False
                missing = [batch for batch in shard.log if batch[0] > replica.seq]
            for seq, ts, ops in missing:
                status, replica.seq = self._get(replica.handle.apply.remote(seq, ts, ops))
            replica.healthy, replica.error = replica.seq == shard.seq, ""
            return replica.healthy

    def _start_reseed(self, shard: _Shard, replica: _Replica) -> None:
        """Re-seed ``replica`` from the graph store in a background thread (SHOW INDEXES: REBUILDING)."""
        replica.rebuilding, replica.healthy = True, False
        replica.error = "rebuilding from the store: its files are gone and the log starts later"
        log.warning("shard.replica_reseeding", replica=replica.name, batch=replica.seq)
        threading.Thread(target=self._reseed, args=(shard, replica), name=f"reseed-{replica.name}",
                         daemon=True).start()

    def _reseed(self, shard: _Shard, replica: _Replica) -> None:
        """Rows of the shard from a store snapshot taken after batch ``base`` was formed, then the logged
        batches after ``base``. Every op sets an entity's whole state, so replaying a change the snapshot
        already holds is harmless; the log keeps those batches (save() does not trim it meanwhile)."""
        started, chunks = time.monotonic(), None
        try:
            base = shard.seq                 # every batch up to here holds changes older than the snapshot
            self._get(replica.handle.reset.remote())
            ts, chunks = self.reseeder(self.shards.index(shard))
            rows = 0
            for ops in chunks:               # started at once: its finally closes the snapshot
                if ops:
                    rows = self._get(replica.handle.load_rows.remote(ops))
            replica.seq = self._get(replica.handle.mark.remote(base, ts))
            log.info("shard.replica_reseeded", replica=replica.name, batch=base, commit_ts=ts, rows=rows,
                     seconds=round(time.monotonic() - started, 2))
        except Exception as exc:             # Ray restarted it meanwhile, or the store closed: next search retries
            replica.error = f"re-seed failed: {type(exc).__name__}"
            log.warning("shard.reseed_failed", replica=replica.name, error=type(exc).__name__)
            replica.rebuilding = False
            self._schedule_repair()
            return
        finally:
            if chunks is not None:
                chunks.close()
        replica.rebuilding = False
        self._catch_up(shard, replica)

    def _copy_from_peer(self, shard: _Shard, replica: _Replica) -> bool:
        """Start a replica over from an up-to-date peer's files (it lost its own, and the log no longer
        reaches back to its position); False when no peer can give them."""
        for peer in shard.replicas:
            if peer is replica or not peer.healthy:
                continue
            try:
                seq, ts, files = self._get(peer.handle.export.remote())
                replica.seq = self._get(replica.handle.restore.remote(seq, ts, files))
                log.info("shard.replica_copied", replica=replica.name, source=peer.name, batch=seq)
                return True
            except Exception as exc:
                if not self._dead(exc):
                    raise
        return False

    def _schedule_repair(self) -> None:
        """Start the repairer unless it runs. Searches prefer healthy replicas, so without it a replica that
        missed batches while Ray restarted it would stay behind for as long as its peer lives."""
        with self._repairer_lock:
            if self._repairer is None or not self._repairer.is_alive():
                self._repairer = threading.Thread(target=self._repair_loop, name=f"repair-{self._prefix}",
                                                  daemon=True)
                self._repairer.start()

    def _lagging(self) -> list[tuple[_Shard, _Replica]]:
        return [(shard, replica) for shard in list(self.shards) for replica in shard.replicas
                if not replica.healthy and not replica.rebuilding]

    def _repair_loop(self) -> None:
        """Until every replica is healthy (or the index is closed): probe each lagging replica and, once it
        answers, replay what it missed (`_catch_up`), pausing longer after each round that left one behind."""
        pause = REPAIR_BACKOFF_S[0]
        while True:
            time.sleep(pause)
            lagging = self._lagging()
            if not lagging:
                with self._repairer_lock:   # a replica marked down meanwhile starts a new repairer
                    if not self._lagging():
                        self._repairer = None
                        return
                continue
            for shard, replica in lagging:
                try:
                    self.ray.get(replica.handle.position.remote(), timeout=2.0)   # back yet? (no lock held)
                    with self._rw.read():                                      # no batch is half sent
                        if shard in self.shards and self._catch_up(shard, replica):
                            log.info("shard.replica_caught_up", replica=replica.name, batch=replica.seq)
                except Exception as exc:    # still restarting: try again after the pause
                    replica.error = replica.error or type(exc).__name__
                    if not self._dead(exc):
                        log.warning("shard.repair_failed", replica=replica.name, error=repr(exc))
            pause = min(pause * 2, REPAIR_BACKOFF_S[1])

    # ---- fan-out ----------------------------------------------------------------------------
    def _fan_out(self, method: str, args_of, wait: bool = True) -> list:
        """Call ``method(*args_of(s))`` on one replica of every shard at once; each answer is
        (position, result). An answer from a replica that is behind, or a dead replica, is retried on
        the next replica (after catching the first one up); a shard without an up-to-date replica
        fails the whole call with a retryable TransientError (after waiting up to RESTART_WAIT_S for a
        replica that Ray restarts or that is re-seeded, unless ``wait`` is False)."""
        with self._rw.read():
            pending = []
            for s, shard in enumerate(self.shards):
                order = shard.replicas[shard.turn:] + shard.replicas[:shard.turn]
                shard.turn = (shard.turn + 1) % len(shard.replicas)
                order.sort(key=lambda rep: (rep.rebuilding, not rep.healthy))   # healthy first, stable
                first = order[0]
                pending.append((s, order, getattr(first.handle, method).remote(*args_of(s))))
            results = []
            for s, order, ref in pending:
                results.append(self._answer(s, order, method, args_of(s), ref, wait))
            return results

    def _answer(self, s: int, order: list[_Replica], method: str, args: tuple, ref, wait: bool = True):
        shard = self.shards[s]
        deadline = time.monotonic() + RESTART_WAIT_S
        while True:
            errors, restarting = [], False
            for replica in order:
                if replica.rebuilding:         # being re-seeded: worth waiting for, briefly
                    restarting, ref = True, None
                    errors.append(f"{replica.name}: rebuilding")
                    continue
                try:
                    if ref is None:
                        if replica.seq != shard.seq and not self._catch_up(shard, replica):
                            restarting = restarting or replica.rebuilding
                            errors.append(f"{replica.name}: {replica.error}")
                            continue
                        ref = getattr(replica.handle, method).remote(*args)
                    position, result = self._get(ref)
                    ref = None
                    if position == shard.seq:
                        replica.seq, replica.healthy = position, True
                        return result
                    # restarted since it was last seen: catch it up, then ask it again
                    if self._catch_up(shard, replica):
                        position, result = self._get(getattr(replica.handle, method).remote(*args))
                        if position == shard.seq:
                            return result
                    restarting = restarting or replica.rebuilding      # a re-seed started: wait for it
                    errors.append(f"{replica.name}: at batch {position}, expected {shard.seq}")
                except Exception as exc:
                    ref = None
                    if not self._dead(exc):
                        raise
                    # Ray is restarting it (it reloads its files): worth waiting for, briefly
                    restarting = restarting or isinstance(exc, self.ray.exceptions.ActorUnavailableError)
                    replica.healthy, replica.error = False, type(exc).__name__
                    errors.append(f"{replica.name}: {type(exc).__name__}")
                    self._schedule_repair()
            if not restarting or not wait or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        raise TransientError(f"Index `{self.definition.name}`: shard {s} has no live, up-to-date replica "
                             f"({'; '.join(errors)}); retry the query", code=UNAVAILABLE)

    # ---- state ------------------------------------------------------------------------------
    def _infos(self) -> list[list[dict | None]]:
        out = []
        for shard in self.shards:
            row = []
            for replica in shard.replicas:
                try:
                    row.append(self._get(replica.handle.info.remote()))
                except Exception as exc:
                    if not self._dead(exc):
                        raise
                    row.append(None)
            out.append(row)
        return out

    def health(self) -> list[dict]:
        """SHOW INDEXES `shards`: per shard and replica its state, batch position, commit ts and size."""
        with self._rw.read():
            rows = []
            for s, (shard, infos) in enumerate(zip(self.shards, self._infos())):
                for r, (replica, info) in enumerate(zip(shard.replicas, infos)):
                    if replica.rebuilding:
                        state = "REBUILDING"
                    elif info is None:
                        state = "DOWN"
                    elif info["seq"] == shard.seq:
                        state = "ONLINE"
                    else:
                        state = "BEHIND"
                    rows.append({"shard": s, "replica": r, "state": state, "actor": replica.name,
                                 "batch": None if info is None else info["seq"], "expectedBatch": shard.seq,
                                 "commitTs": None if info is None else info["ts"],
                                 "size": None if info is None else info["size"], "error": replica.error})
            return rows

    def _sizes(self, wait: bool = True) -> list[dict]:
        """One answering replica's info per shard."""
        return self._fan_out("info_at", lambda s: (), wait)

    def status_counts(self) -> tuple[int | None, int | None]:
        """(rows, skipped) for SHOW INDEXES without waiting for a shard being restarted or re-seeded;
        (None, None) while a shard has no up-to-date replica."""
        try:
            infos = self._sizes(wait=False)
        except TransientError:
            return None, None
        return sum(info["size"] for info in infos), sum(len(info["skipped"]) for info in infos)

    def __len__(self) -> int:
        return sum(info["size"] for info in self._sizes())

    def __contains__(self, key: int) -> bool:
        return key in self._known

    @property
    def skipped(self) -> dict:
        merged: dict = {}
        for info in self._sizes():
            merged.update(info["skipped"])
        return merged

    def save(self, directory: str, rw=None) -> None:
        """Each replica saves its files; the placement notes every shard's batch position."""
        with self._lock:
            self._send([shard for shard in self.shards if shard.buffer], None)
            with self._rw.write():
                self._save(directory)

    def _save(self, directory: str) -> None:
        path = os.path.join(directory, PLACEMENT)
        if os.path.exists(path):
            os.remove(path)         # valid again only once every replica has saved
        positions, complete = [], True
        for shard in self.shards:
            saved = []
            for replica in shard.replicas:
                if replica.rebuilding:      # not a valid copy yet: keep the log for it
                    saved.append(None)
                    continue
                try:
                    saved.append(self._get(replica.handle.save.remote())[0])
                except Exception as exc:
                    if not self._dead(exc):
                        raise
                    saved.append(None)
            if all(seq == shard.seq for seq in saved):
                shard.log.clear()   # every replica's files now hold these batches
            else:                   # keep the log for the replica that missed the save
                complete = False
                log.warning("shard.save_incomplete", index=self.definition.name, positions=saved)
            positions.append(shard.seq)
        if not complete:
            return                  # no placement.json: a restarted server rebuilds this index
        with open(path, "w") as fh:
            json.dump({"shards": self.n, "replicas": self.r, "positions": positions,
                       "actors": [[rep.name for rep in shard.replicas] for shard in self.shards],
                       "known": sorted(self._known)}, fh)

    def load(self, directory: str) -> None:
        """Re-attach to the shard actors (running, or restarted from their files) at the saved positions."""
        with open(os.path.join(directory, PLACEMENT)) as fh:
            state = json.load(fh)
        if state["shards"] != self.n or state["replicas"] != self.r:
            raise ValueError("the placement changed")
        for shard, position in zip(self.shards, state["positions"]):
            shard.seq = position
            for replica in shard.replicas:
                if replica.seq != position:
                    raise ValueError(f"{replica.name} is at batch {replica.seq}, the index files at {position}")
        self._known = set(state["known"])

    def close(self) -> None:
        """Let go of the actors (they keep running: a restarted server re-attaches)."""
        self.shards = []

    def destroy(self) -> None:
        """DROP INDEX: end the actors and delete their files."""
        for shard in self.shards:
            for replica in shard.replicas:
                try:
                    self._get(replica.handle.reset.remote())
                    self.ray.kill(replica.handle, no_restart=True)
                except Exception as exc:
                    log.warning("shard.destroy_failed", replica=replica.name, error=type(exc).__name__)
        self.shards = []

    def sync(self, threads: int = 1, rw=None) -> None:
        """Writes are sent when their commit ts is known (`committed`)."""


class ShardedVector(_Placement):
    """A vector index placed on shards; the interface of `VectorIndex` that `ManagedIndex` uses."""

    def __init__(self, definition, directory, create=True):
        super().__init__(definition, directory, create)
        from ..providers.vector import vector_config
        self.config = vector_config(definition)

    def upsert_many(self, items) -> int:
        with self._lock:
            for key, value, props in items:
                self._known.add(key)
                self._route(key, ("u", key, value, dict(props)))
        return len(items)

    def upsert_block(self, keys, vectors) -> int:
        """Bulk load: ``vectors[i]`` (a numpy block) for entity ``keys[i]``, without filter values; one
        vectorised hash splits the block, each shard's part travels as one array through the object
        store. Sent with the next ``committed``."""
        import numpy as np
        keys = np.asarray(keys, dtype=np.int64)
        with self._lock:
            owners = shards_of(keys, self.n)
            self._known.update(keys.tolist())
            for s, shard in enumerate(self.shards):
                mine = np.flatnonzero(owners == s)
                if len(mine):
                    shard.buffer.append(("B", keys[mine], vectors[mine]))
        return len(keys)

    def row_op(self, key: int, state) -> tuple | None:
        """The op that sets entity ``key`` to ``state`` (an entity's committed labels and properties) when
        re-seeding a shard from the store; None when the index does not hold it."""
        d = self.definition
        value = None if state is None or not d.covers(state.scope) else state.props.get(d.properties[0])
        return None if value is None else ("u", key, value, dict(state.props))

    def delete(self, key: int) -> bool:
        with self._lock:
            self._known.discard(key)
            self._route(key, ("d", key))
        return True

    def set_filter_values(self, key: int, props: dict) -> None:
        with self._lock:
            self._route(key, ("f", key, dict(props)))

    def options(self) -> dict:
        """The search-time settings (db.index.vector.setSearchOptions changes ``config``), sent to the shards
        with every search."""
        return {"ef_search": self.config.ef_search, "exact_max_scope": self.config.exact_max_scope}

    def search(self, vector, k: int, filters=()) -> list[tuple[int, float]]:
        """Every shard's top k, merged: the exact top k when the shards search exactly."""
        options = self.options()
        parts = self._fan_out("search_vector_at", lambda s: (vector, k, list(filters), None, options))
        return heapq.nsmallest(k, (hit for part in parts for hit in part), key=lambda h: (-h[1], h[0]))

    def search_many(self, vectors, k: int) -> list[list[tuple[int, float]]]:
        """One merged top k per query vector (relevance joins)."""
        return [self.search(vector, k) for vector in vectors]

    def search_keys(self, vector, k: int, keys, filters=()) -> list[tuple[int, float]]:
        by_shard: dict[int, list] = {}
        for key in keys:
            by_shard.setdefault(shard_of(key, self.n), []).append(key)
        options = self.options()
        parts = self._fan_out("search_vector_at", lambda s: (vector, k, list(filters), by_shard.get(s, []), options))
        return heapq.nsmallest(k, (hit for part in parts for hit in part), key=lambda h: (-h[1], h[0]))


class ShardedFullText(_Placement):
    """A full-text index placed on shards; BM25 with global statistics (DFS query-then-fetch)."""

    analyze = FullTextIndex.analyze       # the same analysis as a local index, done by the coordinator

    def __init__(self, definition, directory, create=True):
        super().__init__(definition, directory, create)
        self.properties = list(definition.properties)
        self.analyzer = get_analyzer(definition.config.get("fulltext.analyzer"))

    def apply(self, docs: dict) -> None:
        with self._lock:
            for key, analyzed in docs.items():
                if analyzed is None:
                    self._known.discard(key)
                else:
                    self._known.add(key)
                self._route(key, (key, analyzed))

    def row_op(self, key: int, state) -> tuple | None:
        """The op that sets entity ``key`` to ``state`` when re-seeding a shard from the store (see ShardedVector)."""
        if state is None or not self.definition.covers(state.scope):
            return None
        return key, self.analyze(state.props)

    def wants_engine_flush(self) -> bool:
        return False

    def flush_engine(self, rw=None) -> None:
        """Each shard commits its own engine."""

    def search(self, query: str, skip: int = 0, limit: int | None = None, timeout_s: float | None = None, *,
               mode: str = "lucene", keys=None, accept=None) -> list[tuple[int, float]]:
        """The exact BM25 rows [skip, skip + limit): global statistics first, then every shard's top
        (skip + limit) scored with them, merged. With ``accept`` (a predicate the shards cannot run) the
        window widens until the accepted rows of the merged, exactly ordered prefix suffice."""
        for name, value in (("skip", skip), ("limit", limit)):
            if value is not None and (type(value) is not int or value < 0):
                from relate.protocol.errors import ArgumentError
                raise ArgumentError(f"A full-text search's {name} must be a non-negative integer, got {value!r}")
        by_shard = None
        if keys is not None:
            by_shard = {}
            for key in keys:
                by_shard.setdefault(shard_of(key, self.n), []).append(key)
        parts = self._fan_out("term_stats_at", lambda s: (query, mode))
        stats = GlobalStats.merge(parts, len(self.properties)).to_state()
        want = None if limit is None else skip + limit
        fetch = want if accept is None or want is None else max(2 * want, 16)
        while True:
            parts = self._fan_out("search_text_at", lambda s: (
                query, fetch, stats, mode, None if by_shard is None else by_shard.get(s, []), timeout_s))
            merged = sorted((hit for part in parts for hit in part), key=lambda h: (-h[1], h[0]))
            if accept is None:
                return merged[skip:want]
            exhausted = fetch is None or all(len(part) < fetch for part in parts)
            exact = merged if exhausted else merged[:fetch]     # the merged prefix that is exact
            accepted = [hit for hit in exact if accept(hit[0])]
            if exhausted or (want is not None and len(accepted) >= want):
                return accepted[skip:want]
            fetch *= 4


def sharded_index(definition, directory: str | None, create: bool):
    """The sharded placement of ``definition`` (a vector or full-text index)."""
    from ..definitions import VECTOR
    cls = ShardedVector if definition.type == VECTOR else ShardedFullText
    return cls(definition, directory, create)
