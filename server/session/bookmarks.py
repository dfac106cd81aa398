"""Bookmarks: ``rl:<commit timestamp>`` of the one store. A transaction that names bookmarks starts
once the store has committed up to the newest of them (Neo4j's causal chaining); a bookmark of another
form is refused, and one the store never reaches is refused after a short wait."""
from __future__ import annotations

import asyncio
import time
from typing import Any

from relate.protocol.errors import BookmarkTimeout, InvalidBookmark

PREFIX = "rl:"
WAIT_S = 5.0          # a commit becomes visible within microseconds of its bookmark; this is ample
_POLL_S = 0.005


def bookmark(ts: int) -> str:
    return f"{PREFIX}{ts}"


def newest(marks: Any) -> int | None:
    """The newest commit timestamp ``marks`` (a list of bookmark strings) asks for; None for none."""
    if marks is None:
        return None
    if not isinstance(marks, (list, tuple)):
        raise InvalidBookmark(f"bookmarks must be a list of strings, not {type(marks).__name__}")
    found = None
    for mark in marks:
        ts = _timestamp(mark)
        found = ts if found is None else max(found, ts)
    return found


def _timestamp(mark: Any) -> int:
    if isinstance(mark, str) and mark.startswith(PREFIX) and mark[len(PREFIX):].isdigit() \
            and len(mark) <= len(PREFIX) + 19:
        return int(mark[len(PREFIX):])
    shown = repr(mark)[:60]
    raise InvalidBookmark(f"Supplied bookmark {shown} is not one this server gave out (expected "
                          f"'{PREFIX}<commit>', as returned by a commit or a statement's summary)")


async def reach(marks: Any, store, wait_s: float = WAIT_S) -> None:
    """Return once ``store`` has committed up to every bookmark in ``marks``; InvalidBookmark for one
    of another form, BookmarkTimeout for one it does not reach within ``wait_s``."""
    wanted = newest(marks)
    if wanted is None or store is None or store.last_commit_ts >= wanted:
        return
    deadline = time.monotonic() + wait_s
    while store.last_commit_ts < wanted:
        if time.monotonic() >= deadline:
            raise BookmarkTimeout(
                f"Database 'neo4j' not up to the requested version: {wanted}. Latest database version is "
                f"{store.last_commit_ts} (a bookmark from another database, or from before a restore)")
        await asyncio.sleep(_POLL_S)
