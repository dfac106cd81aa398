"""The offline tools behind ``relate import|dump|load|check``, for the shell to call through
``relate.embedded.admin_tools()`` (the client's one door into the engine)."""
from __future__ import annotations

import os

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
    """Restore ``archive`` into the new directory ``target`` and build its search indexes."""
    from .engine import Database
    manifest = load_archive(archive, target, progress)
    db = Database.open(target)
    try:
        if db.index_manager is not None and not db.index_manager.await_indexes(86400):
            raise OSError("search indexes did not come online")
    finally:
        db.close()
    return manifest
