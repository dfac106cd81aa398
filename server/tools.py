"""The offline tools behind ``relate import|dump|load|check``, for the shell to call through
``relate.embedded.admin_tools()`` (the client's one door into the engine)."""
from __future__ import annotations

import os
import shutil

from relate.protocol.errors import DatabaseError, RelateError

from .dbcheck import check_database
from .importer.run import run_import
from .storage.archive import archive_backup, dump_store, load_archive

__all__ = ["run_import", "dump_directory", "archive_backup", "load_and_index", "check_database"]


def dump_directory(directory: str, archive: str, progress=None) -> dict:
    """Archive a database directory that no process has open (the directory lock says so)."""
    from .storage import GraphStore
    if not os.path.isdir(directory):
        raise OSError(f"{directory} is not a database directory")
    store = GraphStore.open(directory)
    try:
        return dump_store(store, archive, progress)
    finally:
        store.close()


def load_and_index(archive: str, target: str, progress=None) -> dict:
    """Restore ``archive`` into the new directory ``target`` and build its search indexes. An archive
    that does not restore to a database that opens whole leaves no directory behind."""
    try:
        manifest = load_archive(archive, target, progress)
    except RecursionError:          # a hostile backup.json nested past the JSON decoder's stack
        raise DatabaseError(f"cannot load {archive}: its manifest is nested too deeply") from None
    try:
        _open_and_index(target)
    except BaseException as exc:
        shutil.rmtree(target, ignore_errors=True)
        if isinstance(exc, (RelateError, OSError)) or not isinstance(exc, Exception):
            raise
        raise DatabaseError(f"cannot load {archive}: the restored database does not open ({exc})") from None
    return manifest


def _open_and_index(target: str) -> None:
    """Open the restored directory, check its structure (the snapshot's checksum says nothing of a
    crafted archive: a relationship to a missing node) and wait for its search indexes."""
    from .engine import Database
    from .storage.verify import check_store
    db = Database.open(target)
    try:
        problems = check_store(db.store)
        if problems:
            raise DatabaseError("the archive restores to a damaged database: "
                                + "; ".join(p.message for p in problems[:3]))
        if db.index_manager is not None and not db.index_manager.await_indexes(86400):
            raise OSError("search indexes did not come online")
    finally:
        db.close()
