"""Write-ahead log: numbered segment files of framed records (length, CRC32, msgpack payload).

A record is ``<u32 length><u32 crc32(length bytes + payload)><payload>``. Recovery reads records in
order and stops at the first torn or corrupt one, truncating the segment there and deleting any
later segment (nothing after a bad record can be trusted to follow a complete history).
"""
from __future__ import annotations

import os
import struct
import zlib

from relate.protocol.errors import DatabaseError

_LENGTH = struct.Struct("<I")
_HEADER = struct.Struct("<II")
HEADER_SIZE = _HEADER.size
MAX_RECORD = (1 << 32) - 1
SEGMENT_PREFIX, SEGMENT_SUFFIX = "wal-", ".log"


def segment_name(seq: int) -> str:
    return f"{SEGMENT_PREFIX}{seq:010d}{SEGMENT_SUFFIX}"


def list_segments(directory: str) -> list[tuple[int, str]]:
    """(seq, path) of every WAL segment in the directory, oldest first."""
    found: list[tuple[int, str]] = []
    for name in os.listdir(directory):
        if name.startswith(SEGMENT_PREFIX) and name.endswith(SEGMENT_SUFFIX):
            digits = name[len(SEGMENT_PREFIX):-len(SEGMENT_SUFFIX)]
            if digits.isascii() and digits.isdigit():        # not '²': int() refuses what isdigit() allows
                found.append((int(digits), os.path.join(directory, name)))
    return sorted(found)


def fsync_path(path: str) -> None:
    """Flush a file's data, or a directory's entries, to disk."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def fsync_directory(directory: str) -> None:
    """Make a create/rename/unlink in ``directory`` durable."""
    fsync_path(directory)


def _checksum(length_bytes: bytes, payload: bytes | memoryview) -> int:
    return zlib.crc32(payload, zlib.crc32(length_bytes))


def read_segment(path: str) -> tuple[list[memoryview], int, bool]:
    """(payloads, end offset of the last good record, whether a bad record or tail was found)."""
    with open(path, "rb") as f:
        data = f.read()
    view = memoryview(data)
    payloads: list[memoryview]
    payloads, offset, size = [], 0, len(data)
    while offset < size:
        if size - offset < HEADER_SIZE:
            return payloads, offset, True
        length, crc = _HEADER.unpack_from(data, offset)
        start = offset + HEADER_SIZE
        end = start + length
        if end > size:
            return payloads, offset, True
        payload = view[start:end]
        if _checksum(data[offset:offset + 4], payload) != crc:
            return payloads, offset, True
        payloads.append(payload)
        offset = end
    return payloads, offset, False


class WalWriter:
    """Appends records to the current segment; ``rotate`` starts a new one (for checkpoints)."""

    def __init__(self, directory: str, seq: int):
        self.directory = directory
        self.seq = seq
        self.fd = self._open(seq)
        self.size = os.fstat(self.fd).st_size
        self.bytes_written = 0           # since the last rotation
        self.broken = False              # a failed write could not be cut back: stop writing

    def _open(self, seq: int) -> int:
        path = os.path.join(self.directory, segment_name(seq))
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        fsync_directory(self.directory)
        return fd

    def append(self, payload: bytes) -> None:
        """Write one record (not yet durable: call ``sync``). On failure the segment is unchanged."""
        length = len(payload)
        if length > MAX_RECORD:
            raise DatabaseError(f"transaction too large for one WAL record ({length} bytes)")
        length_bytes = _LENGTH.pack(length)
        header = _HEADER.pack(length, _checksum(length_bytes, payload))
        fd = self.fd
        before = self.size
        try:
            written = os.writev(fd, [header, payload])
            total = HEADER_SIZE + length
            while written < total:   # short writes are rare on files but legal
                chunk = (header + payload)[written:]
                written += os.write(fd, chunk)
        except OSError as exc:
            # Cut the partial record so later records are not hidden behind a corrupt one.
            try:
                os.ftruncate(fd, before)
            except OSError:
                self.broken = True
            raise DatabaseError(f"cannot write the WAL: {exc}") from exc
        self.size = before + HEADER_SIZE + length
        self.bytes_written += HEADER_SIZE + length

    def sync(self) -> None:
        os.fsync(self.fd)

    def rotate(self) -> int:
        """Sync and close the current segment, open the next; returns the closed segment's seq."""
        os.fsync(self.fd)
        old_fd, old_seq = self.fd, self.seq
        self.fd = self._open(old_seq + 1)
        self.seq = old_seq + 1
        self.size = 0
        self.bytes_written = 0
        os.close(old_fd)
        return old_seq

    def remove_segments_through(self, seq: int) -> None:
        """Delete segments up to and including ``seq`` (their records are in a snapshot now)."""
        removed = False
        for number, path in list_segments(self.directory):
            if number <= seq:
                os.unlink(path)
                removed = True
        if removed:
            fsync_directory(self.directory)

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1
