"""The network driver: ``relate.connect("relate://host:7688", auth=(user, password))``.

The asyncio implementation in ``_async/`` is the source of truth; ``_sync/`` is generated from it by
``unasync.py`` (see docs/protocol.md, "Driver"). ``relate.protocol.hydration`` maps values to wire structures.
"""
from __future__ import annotations

import sys

from relate.protocol import hydration

# The module's name before it moved into the kernel; code written against it keeps working.
sys.modules[__name__ + ".hydration"] = hydration


def connect_remote(url: str, auth: tuple[str, str] | None = None, **options):
    """A ``relate.Connection`` to a Relate server (blocking API)."""
    from .remote import open_remote_connection
    return open_remote_connection(url, auth=auth, **options)
