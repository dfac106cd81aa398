"""Dump archives: a versioned, gzip-compressed tar of a backup (``backup.json`` + the snapshot
file), and loading one into a new database directory.

Only the two known members are ever extracted (no paths, links or other names), so a hostile
archive cannot write outside the target; the snapshot's own checksum is verified on load.
"""
from __future__ import annotations

import io
import json
import os
import shutil
import tarfile
import tempfile
from typing import TYPE_CHECKING

from relate.protocol.errors import DatabaseError

from .backup import BACKUP_FORMAT, MANIFEST_NAME, backup
from .bulk import require_new_directory
from .snapshot import SNAPSHOT_NAME, read_snapshot

if TYPE_CHECKING:
    from typing import IO, Any, Protocol

    from .store import GraphStore

    class Progress(Protocol):
        """The part of a rich ``Progress`` bar the dump and load report to."""
        def add_task(self, description: str, total: float | None = ...) -> Any: ...
        def advance(self, task_id: Any, advance: float = ...) -> None: ...

ARCHIVE_FORMAT = 1
_MEMBERS = (MANIFEST_NAME, SNAPSHOT_NAME)
_COPY = 1 << 20


def archive_backup(backup_dir: str, archive_path: str, progress: Progress | None = None) -> dict[str, Any]:
    """Pack a backup directory (``backup()`` output) into ``archive_path``; returns its manifest."""
    with open(os.path.join(backup_dir, MANIFEST_NAME), encoding="utf-8") as f:
        manifest: dict[str, Any] = json.load(f)
    manifest["archive_format"] = ARCHIVE_FORMAT
    manifest_bytes = json.dumps(manifest, indent=1, sort_keys=True).encode()
    snapshot_path = os.path.join(backup_dir, SNAPSHOT_NAME)
    size = os.path.getsize(snapshot_path)
    task = progress.add_task("dump", total=size) if progress else None
    temp = archive_path + ".tmp"
    with tarfile.open(temp, "w:gz", compresslevel=6) as tar:
        info = tarfile.TarInfo(MANIFEST_NAME)
        info.size = len(manifest_bytes)
        tar.addfile(info, io.BytesIO(manifest_bytes))
        info = tarfile.TarInfo(SNAPSHOT_NAME)
        info.size = size
        with open(snapshot_path, "rb") as f:
            tar.addfile(info, _Counting(f, progress, task))
    os.replace(temp, archive_path)
    return manifest


def dump_store(store: GraphStore, archive_path: str, progress: Progress | None = None) -> dict[str, Any]:
    """A consistent archive of an open store (writers keep going)."""
    with tempfile.TemporaryDirectory(prefix="relate-dump-") as temp:
        backup(store, os.path.join(temp, "backup"))
        return archive_backup(os.path.join(temp, "backup"), archive_path, progress)


def load_archive(archive_path: str, target: str, progress: Progress | None = None) -> dict[str, Any]:
    """Unpack an archive into the new directory ``target`` (verified); returns its manifest."""
    require_new_directory(target)
    try:
        with tarfile.open(archive_path, "r:gz") as tar:
            members = {m.name: m for m in tar.getmembers()}
            if set(members) != set(_MEMBERS) or not all(m.isfile() for m in members.values()):
                raise DatabaseError(f"{archive_path} is not a Relate dump (members: {sorted(members)[:5]})")
            # (extractfile is None only for a non-file member, refused above)
            manifest = json.loads(tar.extractfile(members[MANIFEST_NAME]).read(1 << 20))  # type: ignore[union-attr]
            if not isinstance(manifest, dict):       # hostile JSON (a list, a number): not ours
                raise DatabaseError(f"{archive_path} is not a Relate dump ({MANIFEST_NAME} is not a map)")
            if manifest.get("kind") != "relate-backup" or manifest.get("archive_format") != ARCHIVE_FORMAT \
                    or manifest.get("format") != BACKUP_FORMAT:
                raise DatabaseError(f"{archive_path}: unsupported dump version {manifest.get('archive_format')!r}")
            snapshot_member = members[SNAPSHOT_NAME]
            free = shutil.disk_usage(target).free
            if snapshot_member.size > free:     # a few KB of gzip can claim terabytes: refuse, do not fill the disk
                raise DatabaseError(f"{archive_path}: its snapshot needs {snapshot_member.size} bytes, only {free} "
                                    f"are free at {target}")
            task = progress.add_task("load", total=snapshot_member.size) if progress else None
            source: IO[bytes] = tar.extractfile(snapshot_member)  # type: ignore[assignment]  # a file, as above
            with open(os.path.join(target, SNAPSHOT_NAME), "wb") as out:
                while True:
                    data = source.read(_COPY)
                    if not data:
                        break
                    out.write(data)
                    if progress:
                        progress.advance(task, len(data))
                out.flush()
                os.fsync(out.fileno())
        with open(os.path.join(target, MANIFEST_NAME), "w", encoding="utf-8") as f:
            json.dump(manifest, f, indent=1, sort_keys=True)
        for _ in read_snapshot(os.path.join(target, SNAPSHOT_NAME)):
            pass                       # raises DatabaseError on a damaged snapshot (footer, CRC)
    except (tarfile.TarError, EOFError, OSError, ValueError, RecursionError) as exc:   # RecursionError: nested JSON
        shutil.rmtree(target, ignore_errors=True)
        raise DatabaseError(f"cannot load {archive_path}: {type(exc).__name__}: {exc}"[:500]) from None
    except BaseException:
        shutil.rmtree(target, ignore_errors=True)
        raise
    return manifest


class _Counting:
    """A file wrapper that advances a progress bar as tarfile reads it."""

    def __init__(self, f: IO[bytes], progress: Progress | None, task: Any):
        self._f, self._progress, self._task = f, progress, task

    def read(self, n: int = -1) -> bytes:
        data = self._f.read(n)
        if self._progress:
            self._progress.advance(self._task, len(data))
        return data
