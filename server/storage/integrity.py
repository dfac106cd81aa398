"""WAL and checkpoint integrity: tell a torn tail (the last record cut short by a crash: dropped, as
always) from damage followed by valid records (refused: dropping them would silently lose acknowledged
commits), and detect missing files through the checkpoint manifest.

``manifest.json`` records what the last checkpoint expects: the snapshot's commit ts (0 = none yet)
and the first WAL segment that follows it. It is rewritten after every checkpoint and at open.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import msgpack

from relate.protocol.errors import DatabaseError

from .wal import HEADER_SIZE, _HEADER, _checksum, fsync_directory, list_segments, segment_name

if TYPE_CHECKING:
    from typing import Any, Callable, Sequence

    from .versions import Change

    # codec.decode, passed in (integrity must not import the codec's value classes).
    Decode = Callable[[bytes | memoryview], Any]

MANIFEST_NAME = "manifest.json"
DAMAGE_CODE = "Neo.DatabaseError.General.StorageDamageDetected"
_RECORD_START = 0x92        # every WAL payload is a msgpack array (commit_ts, changes)


class StorageDamaged(DatabaseError):
    """The database files are damaged or incomplete; nothing was changed. ``relate check DIR``
    describes the damage; opening with ``recover_truncate=True`` (``--recover-truncate``) drops
    what follows it."""
    code = DAMAGE_CODE


@dataclass
class Damage:
    """A bad record at ``offset`` of ``segment`` and the valid commits found after it."""
    segment: str
    offset: int
    later_commits: list[int] = field(default_factory=list)   # commit ts of valid records after the damage
    reason: str = "bad checksum or length"

    def describe(self) -> str:
        text = f"{os.path.basename(self.segment)} at byte {self.offset} ({self.reason})"
        if self.later_commits:
            text += (f", followed by {len(self.later_commits)} valid commit(s) "
                     f"(ts {min(self.later_commits)}..{max(self.later_commits)})")
        return text


def decode_record(payload: memoryview, path: str, offset: int, decode: Decode
                  ) -> tuple[int, Sequence[Change]]:
    """``decode(payload)`` as (commit_ts, changes); a CRC-valid record that is not one is damage."""
    try:
        commit_ts, changes = decode(payload)
    except (msgpack.UnpackException, ValueError, TypeError, msgpack.ExtraData) as exc:
        raise StorageDamaged(f"WAL record at byte {offset} of {path} passes its checksum but does not "
                             f"decode ({type(exc).__name__}: {exc})") from None
    if not isinstance(commit_ts, int) or not isinstance(changes, (list, tuple)):
        raise StorageDamaged(f"WAL record at byte {offset} of {path} is not a commit record")
    return commit_ts, changes


def valid_records_after(data: bytes, offset: int, decode: Decode) -> list[int]:
    """Commit ts of the CRC-valid, decodable records that start after ``offset`` (a resync scan:
    candidates are positions whose payload would start with a msgpack array header)."""
    found = []
    size = len(data)
    view = memoryview(data)
    position = data.find(bytes([_RECORD_START]), offset + 1 + HEADER_SIZE)
    while position != -1:
        start = position - HEADER_SIZE
        length, crc = _HEADER.unpack_from(data, start)
        end = position + length
        if 0 < length and end <= size and _checksum(data[start:start + 4], view[position:end]) == crc:
            try:
                commit_ts, _ = decode(view[position:end])
            except Exception:
                commit_ts = None
            if isinstance(commit_ts, int):
                found.append(commit_ts)
                position = data.find(bytes([_RECORD_START]), end + HEADER_SIZE)
                continue
        position = data.find(bytes([_RECORD_START]), position + 1)
    return found


def later_segment_commits(paths: list[str], decode: Decode) -> list[int]:
    """Commit ts of every valid record in ``paths`` (segments after a damaged one)."""
    found = []
    for path in paths:
        with open(path, "rb") as f:
            data = f.read()
        found += valid_records_after(data, -1 - HEADER_SIZE, decode) if data else []
    return found


# -- the checkpoint manifest ---------------------------------------------------------------------

def read_manifest(directory: str) -> dict[str, Any] | None:
    path = os.path.join(directory, MANIFEST_NAME)
    try:
        with open(path, "rb") as f:
            manifest = json.loads(f.read())
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        raise StorageDamaged(f"the checkpoint manifest {path} cannot be read: {exc}") from None
    if not isinstance(manifest, dict) or not isinstance(manifest.get("snapshot_ts"), int) \
            or not isinstance(manifest.get("wal_seq"), int):
        raise StorageDamaged(f"the checkpoint manifest {path} is malformed")
    return manifest


def write_manifest(directory: str, snapshot_ts: int, wal_seq: int) -> None:
    """Atomically record what the database directory must hold from now on."""
    path = os.path.join(directory, MANIFEST_NAME)
    temp = path + ".tmp"
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.write(fd, json.dumps({"format": 1, "snapshot_ts": snapshot_ts, "wal_seq": wal_seq}).encode())
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(temp, path)
    fsync_directory(directory)


def missing_files(directory: str, manifest: dict[str, Any] | None, snapshot_exists: bool) -> list[str]:
    """What the manifest expects that is not there: the snapshot, WAL segments (a gap included)."""
    if manifest is None:
        return []
    problems = []
    if manifest["snapshot_ts"] > 0 and not snapshot_exists:
        problems.append(f"snapshot.msgpack (the checkpoint at ts {manifest['snapshot_ts']})")
    seqs = [seq for seq, _ in list_segments(directory) if seq >= manifest["wal_seq"]]
    expected = manifest["wal_seq"]
    if not seqs:
        problems.append(f"WAL segment {segment_name(expected)} and any after it")
    else:
        # Gaps as ranges: a stray file named wal-99999999999999999999.log must not make this loop
        # (or a list) over every number up to it.
        present = sorted(set(seqs))
        for before, after in zip([expected - 1] + present, present):
            if after - before == 2:
                problems.append(f"WAL segment {segment_name(before + 1)}")
            elif after - before > 2:
                problems.append(f"WAL segments {segment_name(before + 1)} to {segment_name(after - 1)} "
                                f"({after - before - 1} of them)")
    return problems
