"""``CALL db.backup($directory)``: an online, consistent copy of the database (storage/backup.py)."""
from __future__ import annotations

from relate.protocol.errors import ProcedureCallFailed, RelateError


def register(registry) -> None:
    registry.register("db.backup", [("directory", "STRING?")],
                      [("directory", "STRING?"), ("ts", "INTEGER?"), ("nodes", "INTEGER?"),
                       ("relationships", "INTEGER?")], _backup,
                      description="An online, consistent copy of the database into a directory.")


def _backup(ctx, directory):
    from relate.server.storage.backup import backup
    if not directory:
        raise ProcedureCallFailed("db.backup needs a directory", phase="runtime")
    try:
        manifest = backup(ctx.db.store, directory)
    except RelateError:
        raise
    except OSError as exc:
        raise ProcedureCallFailed(f"db.backup failed: {exc.strerror or exc}", phase="runtime") from None
    yield {"directory": directory, "ts": manifest["ts"], "nodes": manifest["nodes"],
           "relationships": manifest["relationships"]}
