"""The transition table: what each state accepts and where each outcome leads."""
import pytest

from relate.protocol import messages as m
from relate.protocol.states import (CLIENT_TRANSITIONS, SERVER_TRANSITIONS, State, Transition,
                                    server_transition)

S = State


@pytest.mark.parametrize("state, signature, ok, streaming, in_tx, after", [
    (S.CONNECTED, m.HELLO, True, False, False, S.AUTHENTICATION),
    (S.CONNECTED, m.HELLO, False, False, False, S.DEFUNCT),
    (S.AUTHENTICATION, m.LOGON, True, False, False, S.READY),
    (S.AUTHENTICATION, m.LOGON, False, False, False, S.DEFUNCT),       # bad password closes
    (S.READY, m.RUN, True, True, False, S.STREAMING),
    (S.READY, m.RUN, False, False, False, S.FAILED),
    (S.STREAMING, m.PULL, True, True, False, S.STREAMING),
    (S.STREAMING, m.PULL, True, False, False, S.READY),
    (S.READY, m.BEGIN, True, False, True, S.TX_READY),
    (S.TX_READY, m.RUN, True, True, True, S.TX_STREAMING),
    (S.TX_STREAMING, m.RUN, True, True, True, S.TX_STREAMING),
    (S.TX_STREAMING, m.PULL, True, False, True, S.TX_READY),
    (S.TX_STREAMING, m.COMMIT, True, False, False, S.READY),
    (S.TX_READY, m.ROLLBACK, True, False, False, S.READY),
    (S.FAILED, m.ACK_FAILURE, True, False, True, S.TX_READY),          # the tx survived the statement
    (S.FAILED, m.ACK_FAILURE, True, True, True, S.TX_STREAMING),
    (S.FAILED, m.ACK_FAILURE, True, False, False, S.READY),
    (S.FAILED, m.RESET, True, False, False, S.READY),
    (S.INTERRUPTED, m.RESET, True, False, False, S.READY),
    (S.TX_STREAMING, m.GOODBYE, True, False, False, S.DEFUNCT),
])
def test_transitions(state, signature, ok, streaming, in_tx, after):
    assert server_transition(state, signature).after(ok, streaming=streaming, in_tx=in_tx) is after


@pytest.mark.parametrize("state, signature", [
    (S.CONNECTED, m.RUN), (S.AUTHENTICATION, m.RUN), (S.READY, m.PULL), (S.READY, m.COMMIT),
    (S.STREAMING, m.RUN), (S.STREAMING, m.BEGIN), (S.TX_READY, m.BEGIN), (S.TX_READY, m.PULL),
    (S.FAILED, m.RUN), (S.INTERRUPTED, m.ACK_FAILURE), (S.READY, m.ACK_FAILURE), (S.READY, m.HELLO),
])
def test_wrong_state_requests_are_not_in_the_table(state, signature):
    assert server_transition(state, signature) is None


def test_every_state_is_covered_and_failures_never_leave_the_table():
    for table in (SERVER_TRANSITIONS, CLIENT_TRANSITIONS):
        assert set(table) == set(State)
        for transitions in table.values():
            for transition in transitions.values():
                assert isinstance(transition, Transition)
                assert transition.failure in (S.FAILED, S.DEFUNCT)


def test_goodbye_and_reset_are_accepted_everywhere_after_login():
    for state in (S.READY, S.STREAMING, S.TX_READY, S.TX_STREAMING, S.FAILED, S.INTERRUPTED):
        assert server_transition(state, m.GOODBYE) is not None
        assert server_transition(state, m.RESET) is not None
