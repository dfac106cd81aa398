"""The one door from the client package into the engine: open an embedded database.

``relate.connect(path)`` and ``relate.aio.connect(path)`` call this; the import-rules test allows no
other client module to import ``relate.server``. The engine is imported on the first call only, so
network-only users never load it.
"""
from __future__ import annotations


def open_database(target: str, **options):
    """The engine's ``Database`` for a file path, or an in-memory one for ``:memory:``."""
    from relate.server.engine import Database
    return Database.open(None if target == ":memory:" else target, **options)


def admin_tools():
    """The engine's offline tools for ``relate import|dump|load|check`` (module ``relate.server.tools``)."""
    from relate.server import tools
    return tools
