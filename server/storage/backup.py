"""Online backups: a consistent copy of the graph at one snapshot ts, written while writers go on.

``backup(store, directory)`` registers a read snapshot (MVCC keeps its versions alive), writes the
snapshot file of ``snapshot.py`` for that ts into a new directory plus ``backup.json``; the copy
opens as an ordinary database (search indexes rebuild from it on first open).
"""
from __future__ import annotations

import json
import os
import time
from typing import TYPE_CHECKING

from relate.protocol.errors import DatabaseError

from . import snapshot
from .bulk import require_new_directory
from .wal import fsync_directory

if TYPE_CHECKING:
    from typing import Any

    from .store import GraphStore

MANIFEST_NAME = "backup.json"       # not manifest.json: the storage keeps its own checkpoint manifest
BACKUP_FORMAT = 1


def backup(store: GraphStore, directory: str) -> dict[str, Any]:
    """Write a consistent copy of ``store`` into the new directory; returns the manifest."""
    if store.directory is not None and os.path.realpath(directory) == os.path.realpath(store.directory):
        raise DatabaseError("a backup cannot be written over the database itself")
    require_new_directory(directory)
    reader = store.begin_read()
    try:
        ts = reader.ts
        header = {
            "format": snapshot.FORMAT, "ts": ts,
            # ids past the snapshot's may exist later; upper bounds keep ids unique in the copy
            "next_node_id": store._next_node_id, "next_rel_id": store._next_rel_id,
            "schema": dict(reader.schema()),
            "keys": list(store._key_names),
            "labels": list(store._label_names),
            "types": list(store._type_names),
            "indexes": [list(ident) for ident in reader.property_indexes()],
        }
        snapshot.write_snapshot(directory, store, ts, header)
        manifest = {"kind": "relate-backup", "format": BACKUP_FORMAT, "snapshot_format": snapshot.FORMAT,
                    "ts": ts, "nodes": reader.count_nodes(), "relationships": reader.count_rels(),
                    "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    finally:
        reader.close()
    write_manifest(directory, manifest)
    return manifest


def write_manifest(directory: str, manifest: dict[str, Any]) -> None:
    path = os.path.join(directory, MANIFEST_NAME)
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        json.dump(manifest, f, indent=1, sort_keys=True)
        f.flush()
        os.fsync(f.fileno())
    os.replace(path + ".tmp", path)
    fsync_directory(directory)
