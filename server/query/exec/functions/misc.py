"""Functions of the statement's clock and randomness: ``timestamp()``, ``randomUUID()``."""
from __future__ import annotations

import uuid

from relate.server.query.exec.functions.registry import function


@function("timestamp", 0, pure=False)
def timestamp(ctx):
    """Milliseconds since the epoch at the statement's clock (stable within a statement)."""
    return int(ctx.now.timestamp() * 1000)


@function("randomUUID", 0, pure=False)
def random_uuid(ctx):
    """A random UUID string."""
    return str(uuid.uuid4())
