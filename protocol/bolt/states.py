"""The Bolt server state table: the session core's table (``relate.protocol.states``) plus Bolt's own
requests. Bolt has no ACK_FAILURE: after a FAILURE every request but RESET and GOODBYE is IGNORED."""
from __future__ import annotations

from ..states import IGNORING_STATES, SERVER_TRANSITIONS, State, Transition
from . import messages as bm

S = State

# LOGOFF ends the authenticated session (LOGON may follow); ROUTE and TELEMETRY leave READY as it is.
BOLT_ONLY: dict[State, dict[int, Transition]] = {
    S.READY: {bm.LOGOFF: Transition(S.AUTHENTICATION, failure=S.FAILED),
              bm.ROUTE: Transition(S.READY), bm.TELEMETRY: Transition(S.READY)},
}

BOLT_TRANSITIONS: dict[State, dict[int, Transition]] = {
    state: {**{sig: t for sig, t in table.items() if sig != 0x0E}, **BOLT_ONLY.get(state, {})}
    for state, table in SERVER_TRANSITIONS.items()
}


def bolt_transition(state: State, signature: int) -> Transition | None:
    """Where ``signature`` leads from ``state``; None when Bolt does not allow it there."""
    return BOLT_TRANSITIONS[state].get(signature)


def ignores(state: State) -> bool:
    """Requests in this state are answered IGNORED (FAILED until RESET, or a RESET is queued)."""
    return state in IGNORING_STATES
