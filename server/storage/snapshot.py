"""Checkpoint files: the whole graph at one commit ts as a msgpack stream plus a checksummed footer.

Written to a temp file, fsynced, then atomically renamed over ``snapshot.msgpack``; the footer
(magic, stream length, CRC32) makes a truncated or damaged file fail loudly instead of loading half.
"""
from __future__ import annotations

import os
import struct
import zlib
from typing import TYPE_CHECKING

from relate.protocol.errors import DatabaseError

from . import codec
from .versions import visible
from .wal import fsync_directory

if TYPE_CHECKING:
    from typing import IO, Any, Iterator

    from .store import GraphStore
    from .versions import NodeVersion, RelVersion

SNAPSHOT_NAME = "snapshot.msgpack"
TEMP_NAME = "snapshot.msgpack.tmp"
FORMAT = 1
_FOOTER = struct.Struct("<4sQI")
_MAGIC = b"RLSN"
_CHUNK = 1 << 20
NODE_RECORD, REL_RECORD = 0, 1


def _private(path: str, flags: int) -> int:
    return os.open(path, flags, 0o600)


def write_snapshot(directory: str, store: GraphStore, ts: int, header: dict[str, Any]) -> None:
    """Write the graph as seen at ``ts`` (a registered snapshot keeps those versions alive).
    A failed write (a full disk) leaves no temp file and raises DatabaseError; the previous
    snapshot and the WAL still hold everything."""
    try:
        _write_snapshot(directory, store, ts, header)
    except OSError as exc:
        try:
            os.unlink(os.path.join(directory, TEMP_NAME))
        except OSError:
            pass
        raise DatabaseError(f"cannot write the checkpoint in {directory}: {exc.strerror or exc}",
                            code="Neo.DatabaseError.General.StorageWriteFailed") from None


def _write_snapshot(directory: str, store: GraphStore, ts: int, header: dict[str, Any]) -> None:
    temp = os.path.join(directory, TEMP_NAME)
    packer = codec.new_packer()
    crc = size = 0
    with open(temp, "wb", buffering=0, opener=_private) as f:
        def emit(data: bytes) -> None:
            nonlocal crc, size
            crc = zlib.crc32(data, crc)
            size += len(data)
            f.write(data)

        emit(packer.pack(header))
        chunk = bytearray()
        rec: NodeVersion | RelVersion | None
        for nid, rec in list(store._nodes.items()):
            if rec.ts > ts:
                rec = visible(rec.prev, ts)
                if rec is None:
                    continue
            if rec.props is None:
                continue
            chunk += packer.pack((NODE_RECORD, nid, list(rec.labels), rec.props))
            if len(chunk) >= _CHUNK:
                emit(bytes(chunk))
                chunk.clear()
        for rid, rec in list(store._rels.items()):
            if rec.ts > ts:
                rec = visible(rec.prev, ts)
                if rec is None:
                    continue
            if rec.props is None:
                continue
            chunk += packer.pack((REL_RECORD, rid, rec.type, rec.start, rec.end, rec.props))
            if len(chunk) >= _CHUNK:
                emit(bytes(chunk))
                chunk.clear()
        if chunk:
            emit(bytes(chunk))
        f.write(_FOOTER.pack(_MAGIC, size, crc))
        os.fsync(f.fileno())
    os.replace(temp, os.path.join(directory, SNAPSHOT_NAME))
    fsync_directory(directory)


class _CheckedReader:
    """File reader that stops at ``limit`` bytes and keeps a running CRC32 of what it returned."""

    def __init__(self, f: IO[bytes], limit: int):
        self._f = f
        self._left = limit
        self.crc = 0

    def read(self, n: int = -1) -> bytes:
        if self._left <= 0:
            return b""
        if n < 0 or n > self._left:
            n = self._left
        data = self._f.read(n)
        self._left -= len(data)
        self.crc = zlib.crc32(data, self.crc)
        return data


def read_snapshot(path: str) -> Iterator[Any]:
    """Yield the header dict, then node and relationship records; raise DatabaseError if damaged."""
    total = os.path.getsize(path)
    if total < _FOOTER.size:
        raise DatabaseError(f"snapshot {path} is truncated")
    with open(path, "rb") as f:
        f.seek(total - _FOOTER.size)
        magic, size, crc = _FOOTER.unpack(f.read(_FOOTER.size))
        if magic != _MAGIC or size != total - _FOOTER.size:
            raise DatabaseError(f"snapshot {path} is damaged (bad footer)")
        f.seek(0)
        reader = _CheckedReader(f, size)
        unpacker = codec.new_unpacker(reader)
        first = True
        for item in unpacker:
            if first:
                if not isinstance(item, dict) or item.get("format") != FORMAT:
                    raise DatabaseError(f"snapshot {path} has an unknown format")
                first = False
            yield item
        if reader.crc != crc:
            raise DatabaseError(f"snapshot {path} is damaged (checksum mismatch)")
