"""Write a new database directory in one pass: the snapshot file ``GraphStore.open`` loads, without
a WAL or any transaction (the offline bulk loader, ``relate import``, and ``relate load`` use it).

Records are packed straight into the snapshot stream (format of ``snapshot.py``); vectors may be
given as ``packed_vector(array)`` so float32 rows go to disk without becoming Python objects.
"""
from __future__ import annotations

import os
import zlib
from typing import TYPE_CHECKING

import msgpack
import numpy as np

from relate.protocol.errors import DatabaseError

from . import codec
from .snapshot import _FOOTER, _MAGIC, FORMAT, NODE_RECORD, REL_RECORD, SNAPSHOT_NAME, TEMP_NAME
from .wal import fsync_directory

if TYPE_CHECKING:
    from typing import Any

_CHUNK = 1 << 20
FLOAT32_TAG = b"FLOAT32\0"


def packed_vector(row: np.ndarray) -> msgpack.ExtType:
    """A float32 vector in its stored form (what the codec writes for ``Vector(row, 'FLOAT32')``)."""
    return msgpack.ExtType(codec.EXT_VECTOR, FLOAT32_TAG + np.ascontiguousarray(row, np.float32).tobytes())


def require_new_directory(directory: str) -> None:
    """Refuse a directory that already holds anything (a bulk write never merges into a database)."""
    if os.path.exists(directory) and (not os.path.isdir(directory) or os.listdir(directory)):
        raise DatabaseError(f"{directory} exists and is not an empty directory: bulk writes need a new one")
    os.makedirs(directory, exist_ok=True)


class SnapshotWriter:
    """``SnapshotWriter(dir, header)``; ``node(...)`` / ``rel(...)`` in any order; ``close()`` seals it.

    ``header`` needs ``next_node_id`` and ``next_rel_id``; ``schema``, ``keys`` and ``indexes``
    (property indexes as ``[entity, label, key]``) are optional. The file appears only when sealed.
    """

    def __init__(self, directory: str, header: dict[str, Any]):
        self.directory = directory
        self._temp = os.path.join(directory, TEMP_NAME)
        self._file = open(self._temp, "wb", buffering=0)
        self._packer = codec.new_packer()
        self._chunk = bytearray()
        self._crc = self._size = 0
        full = {"format": FORMAT, "ts": 1, "schema": {}, "keys": [], "indexes": []}
        full.update(header)
        self._emit(self._packer.pack(full))

    def _emit(self, data: bytes) -> None:
        self._crc = zlib.crc32(data, self._crc)
        self._size += len(data)
        self._file.write(data)

    def node(self, nid: int, labels: list[str], props: dict[str, Any]) -> None:
        self._chunk += self._packer.pack((NODE_RECORD, nid, labels, props))
        if len(self._chunk) >= _CHUNK:
            self._flush()

    def rel(self, rid: int, type_: str, start: int, end: int, props: dict[str, Any]) -> None:
        self._chunk += self._packer.pack((REL_RECORD, rid, type_, start, end, props))
        if len(self._chunk) >= _CHUNK:
            self._flush()

    def _flush(self) -> None:
        if self._chunk:
            self._emit(bytes(self._chunk))
            self._chunk.clear()

    def close(self) -> None:
        self._flush()
        self._file.write(_FOOTER.pack(_MAGIC, self._size, self._crc))
        os.fsync(self._file.fileno())
        self._file.close()
        os.replace(self._temp, os.path.join(self.directory, SNAPSHOT_NAME))
        fsync_directory(self.directory)

    def abort(self) -> None:
        self._file.close()
        if os.path.exists(self._temp):
            os.unlink(self._temp)
