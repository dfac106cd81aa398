"""Session states and the transition table each side follows.

The server looks up every request in ``SERVER_TRANSITIONS``: a request missing for the current state
is a protocol violation (the session goes FAILED, or DEFUNCT before authentication), except in FAILED
and INTERRUPTED, where it is answered IGNORED. The driver checks ``CLIENT_TRANSITIONS`` before sending,
so a misuse raises locally instead of costing a round trip.
"""
from __future__ import annotations

import enum
from typing import NamedTuple

from .messages import (ACK_FAILURE, BEGIN, COMMIT, DISCARD, GOODBYE, HELLO, LOGON, PULL, RESET, ROLLBACK,
                       RUN)


class State(enum.Enum):
    CONNECTED = "CONNECTED"            # handshake done, HELLO expected
    AUTHENTICATION = "AUTHENTICATION"  # HELLO done, LOGON expected
    READY = "READY"
    STREAMING = "STREAMING"            # an auto-commit result is open
    TX_READY = "TX_READY"              # an explicit transaction is open, no result open
    TX_STREAMING = "TX_STREAMING"      # ... with one or more results open
    FAILED = "FAILED"                  # a request failed: IGNORED until ACK_FAILURE or RESET
    INTERRUPTED = "INTERRUPTED"        # RESET arrived and is queued: IGNORED until it is processed
    DEFUNCT = "DEFUNCT"                # closed


class Transition(NamedTuple):
    """Where a request leads. ``success`` by default; ``streaming`` when results stay open after it;
    ``in_tx`` when an explicit transaction survives it; ``failure`` when it is answered FAILURE."""
    success: State
    streaming: State | None = None
    in_tx: State | None = None
    failure: State = State.FAILED

    def after(self, ok: bool, *, streaming: bool = False, in_tx: bool = False) -> State:
        if not ok:
            return self.failure
        if streaming and self.streaming is not None:
            return self.streaming
        if in_tx and self.in_tx is not None:
            return self.in_tx
        return self.success


S = State
_BYE = Transition(S.DEFUNCT, failure=S.DEFUNCT)
_RESET = Transition(S.READY, failure=S.DEFUNCT)

SERVER_TRANSITIONS: dict[State, dict[int, Transition]] = {
    S.CONNECTED: {HELLO: Transition(S.AUTHENTICATION, failure=S.DEFUNCT), GOODBYE: _BYE},
    S.AUTHENTICATION: {LOGON: Transition(S.READY, failure=S.DEFUNCT), GOODBYE: _BYE},
    S.READY: {RUN: Transition(S.READY, streaming=S.STREAMING), BEGIN: Transition(S.TX_READY),
              RESET: _RESET, GOODBYE: _BYE},
    S.STREAMING: {PULL: Transition(S.READY, streaming=S.STREAMING),
                  DISCARD: Transition(S.READY, streaming=S.STREAMING), RESET: _RESET, GOODBYE: _BYE},
    S.TX_READY: {RUN: Transition(S.TX_READY, streaming=S.TX_STREAMING), COMMIT: Transition(S.READY),
                 ROLLBACK: Transition(S.READY), RESET: _RESET, GOODBYE: _BYE},
    # RUN may open further results (each has its qid); COMMIT first consumes the open ones.
    S.TX_STREAMING: {RUN: Transition(S.TX_STREAMING, streaming=S.TX_STREAMING),
                     PULL: Transition(S.TX_READY, streaming=S.TX_STREAMING),
                     DISCARD: Transition(S.TX_READY, streaming=S.TX_STREAMING),
                     COMMIT: Transition(S.READY), ROLLBACK: Transition(S.READY), RESET: _RESET,
                     GOODBYE: _BYE},
    # ACK_FAILURE keeps a transaction the failed statement did not end (the engine rolled the
    # statement back to its savepoint); RESET always ends it.
    S.FAILED: {ACK_FAILURE: Transition(S.READY, streaming=S.TX_STREAMING, in_tx=S.TX_READY),
               RESET: _RESET, GOODBYE: _BYE},
    S.INTERRUPTED: {RESET: _RESET, GOODBYE: _BYE},
    S.DEFUNCT: {},
}

# The driver walks the same table: it predicts its session's state from the replies it reads and
# refuses a request the table does not allow before sending it (the server would only reject it).
CLIENT_TRANSITIONS = SERVER_TRANSITIONS

IGNORING_STATES = frozenset({S.FAILED, S.INTERRUPTED})
AUTHENTICATED_STATES = frozenset({S.READY, S.STREAMING, S.TX_READY, S.TX_STREAMING, S.FAILED,
                                  S.INTERRUPTED})
TX_STATES = frozenset({S.TX_READY, S.TX_STREAMING})


def server_transition(state: State, signature: int) -> Transition | None:
    """The transition for ``signature`` in ``state``; None when the request is not allowed there."""
    return SERVER_TRANSITIONS[state].get(signature)
