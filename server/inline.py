"""Statements the server runs on its event loop thread (known-cheap auto-commit reads, see
session/core.py) must never wait: not for a model call, nor for a search index that is populating,
catching up on commits or remote. Such a step raises ``MustNotWait`` there, and the server runs the
statement again on the session's own thread, where waiting is fine (it is a read: nothing to undo).
Nor may it run long: past ``INLINE_UNTIL`` its own checks raise ``OverInlineBudget`` (a kind of
MustNotWait), so no watchdog thread has to wake up and compete for the GIL while statements run."""
from __future__ import annotations

from contextvars import ContextVar

from relate.protocol.errors import TransientError

ON_LOOP: ContextVar[bool] = ContextVar("relate_statement_on_loop", default=False)
# time.monotonic() by which a statement running on the loop must be done (None: not on the loop)
INLINE_UNTIL: ContextVar[float | None] = ContextVar("relate_inline_until", default=None)


class MustNotWait(TransientError):
    """A statement running on the event loop reached a step that may wait (never reaches a client)."""


class OverInlineBudget(MustNotWait):
    """A statement running on the event loop outlived its budget: it runs again on the session thread."""


def refuse_on_loop(why: str) -> None:
    """Raise MustNotWait when the current statement runs on the event loop thread."""
    if ON_LOOP.get():
        raise MustNotWait(f"this statement {why}: it runs on the session thread")
