"""Bookmarks name a commit of the one store: a transaction waits for the newest it names, refuses one of
another form at once, and one the store never reaches after a short wait (Neo4j's BookmarkTimeout)."""
from __future__ import annotations

import asyncio
import time

import pytest

from relate.errors import ClientError
from relate.protocol.errors import BookmarkTimeout, InvalidBookmark
from relate.server.session import bookmarks


class Store:
    def __init__(self, ts: int):
        self.last_commit_ts = ts


@pytest.mark.parametrize("marks", [["FB:abc"], ["rl:"], ["rl:-1"], ["rl:1x"], [17], "rl:1", ["rl:" + "9" * 40]])
def test_a_bookmark_of_another_form_is_refused_at_once(marks):
    with pytest.raises(InvalidBookmark) as caught:
        asyncio.run(bookmarks.reach(marks, Store(10)))
    assert caught.value.code == "Neo.ClientError.Transaction.InvalidBookmark"
    assert isinstance(caught.value, ClientError)


def test_reached_bookmarks_pass_and_the_newest_counts():
    asyncio.run(bookmarks.reach(["rl:3", "rl:10"], Store(10)))
    asyncio.run(bookmarks.reach([], Store(0)))
    assert bookmarks.newest(["rl:3", "rl:10", "rl:7"]) == 10


def test_a_bookmark_is_waited_for_until_its_commit_is_visible():
    store = Store(5)

    async def main():
        async def commit_later():
            await asyncio.sleep(0.05)
            store.last_commit_ts = 6
        task = asyncio.create_task(commit_later())
        await bookmarks.reach(["rl:6"], store, wait_s=5.0)
        await task
    started = time.monotonic()
    asyncio.run(main())
    assert time.monotonic() - started < 2.0


def test_a_bookmark_never_reached_is_a_transient_timeout():
    with pytest.raises(BookmarkTimeout) as caught:
        asyncio.run(bookmarks.reach(["rl:99"], Store(5), wait_s=0.05))
    assert caught.value.code == "Neo.TransientError.Transaction.BookmarkTimeout"
    assert "99" in caught.value.message and "5" in caught.value.message
