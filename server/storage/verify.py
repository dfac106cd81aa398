"""Storage checks for ``relate check``: the snapshot file, every WAL segment, and - on a private
copy opened normally - relationship endpoints and property indexes against a rebuild.

``verify(directory)`` never changes the directory (recovery, which may truncate a torn WAL tail,
runs on a temporary copy). It returns a list of ``Problem``; an empty list means healthy. The WAL
checks may grow (issue 11); callers only read ``Problem.kind`` and ``Problem.message``.
"""
from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass
from typing import TYPE_CHECKING

from . import codec
from .indexes import PropertyIndex
from .snapshot import SNAPSHOT_NAME, read_snapshot
from .vacuum import fill_index
from .wal import list_segments, read_segment

if TYPE_CHECKING:
    from typing import Callable

    from .store import GraphStore


@dataclass(frozen=True)
class Problem:
    kind: str          # snapshot | wal | structure | index | constraint | search-index | open
    message: str


def verify(directory: str, opened: Callable[[GraphStore, str], list[Problem]] | None = None) -> list[Problem]:
    """Check the files of ``directory``; ``opened(store)`` (optional) adds checks on the open copy."""
    problems: list[Problem] = []
    if not os.path.isdir(directory):
        return [Problem("open", f"{directory} is not a directory")]
    snapshot = os.path.join(directory, SNAPSHOT_NAME)
    if os.path.exists(snapshot):
        try:
            for _ in read_snapshot(snapshot):
                pass
        except Exception as exc:         # any damage: bad footer, checksum, undecodable record
            problems.append(Problem("snapshot", f"{SNAPSHOT_NAME}: {getattr(exc, 'message', None) or exc}"))
    for seq, path in list_segments(directory):
        name = os.path.basename(path)
        payloads, good_end, damaged = read_segment(path)
        if damaged:
            problems.append(Problem("wal", f"{name}: damaged record or torn tail after byte {good_end} "
                                           f"({len(payloads)} good records before it)"))
        for payload in payloads:
            try:
                codec.decode(payload)
            except Exception as exc:
                problems.append(Problem("wal", f"{name}: undecodable record ({exc})"))
                break
    if any(p.kind == "snapshot" for p in problems):
        return problems
    with tempfile.TemporaryDirectory(prefix="relate-check-") as temp:
        copy = os.path.join(temp, "db")
        shutil.copytree(directory, copy, ignore=shutil.ignore_patterns("LOCK"))
        from .store import GraphStore
        try:
            store = GraphStore.open(copy, sync=False)
        except Exception as exc:
            problems.append(Problem("open", f"the database does not open: {getattr(exc, 'message', None) or exc}"))
            return problems
        try:
            problems += check_store(store)
            if opened is not None:
                problems += opened(store, copy)
        finally:
            store.close()
    return problems


def check_store(store: GraphStore) -> list[Problem]:
    """Relationship endpoints exist; every property index holds what a rebuild from the data holds."""
    problems = []
    with store.begin_read() as tx:
        for rid in tx.all_rels():
            start, end = tx.rel_endpoints(rid)
            if not (tx.node_exists(start) and tx.node_exists(end)):
                problems.append(Problem("structure", f"relationship {rid} points at a missing node"))
        for ident in tx.property_indexes():
            live = store._prop_indexes.get(tuple(ident))  # type: ignore[arg-type]  # (entity, label, key)
            if live is None:
                continue
            rebuilt = PropertyIndex(*ident, 0)
            fill_index(store, rebuilt)
            expected = set(rebuilt.entry_pairs())
            actual = set(live.entry_pairs())
            missing = expected - actual
            if missing:
                entity, label, key = ident
                problems.append(Problem("index", f"property index ({entity} {label}.{key}) lacks "
                                                 f"{len(missing)} of the {len(expected)} entries a rebuild has"))
    return problems
