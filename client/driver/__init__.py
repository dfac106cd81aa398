"""The network driver: ``relate.connect("relate://host:7688", auth=(user, password))``.

The asyncio implementation in ``_async/`` is the source of truth; ``_sync/`` is generated from it by
``unasync.py`` (see docs/protocol.md, "Driver"). ``relate.protocol.hydration`` maps values to wire structures.
"""
from __future__ import annotations


def connect_remote(url: str, auth: tuple[str, str] | None = None, **options):
    """A ``relate.Connection`` to a Relate server (blocking API)."""
    from .remote import open_remote_connection
    return open_remote_connection(url, auth=auth, **options)
