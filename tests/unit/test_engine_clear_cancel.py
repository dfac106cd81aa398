"""A cancel aimed at a statement that has ended (a RESET or time limit firing as a statement
finishes) must not terminate the session's next statement; Session.clear_cancel forgets it (the server
calls it; a session without external_cancel forgets a stale cancel at each statement by itself)."""
import threading
import time

import pytest

from relate.protocol.errors import Terminated
from tests.helpers import run


def _hold_writer(db, seconds):
    tx = db.store.begin_write()
    ready = threading.Event()

    def release():
        ready.set()
        time.sleep(seconds)
        tx.rollback()
    thread = threading.Thread(target=release)
    thread.start()
    ready.wait()
    return thread


def test_a_stale_cancel_is_cleared_before_the_next_statement(db):
    session = db.session()
    session.external_cancel = True                    # as the server runs it: it clears cancels itself
    run(session, "CREATE (:C)")                       # the statement is cached from now on
    session.cancel()                                  # aimed at a statement that already ended
    thread = _hold_writer(db, 0.3)
    with pytest.raises(Terminated):                   # what a stale cancel did to the next write
        run(session, "CREATE (:C)")
    thread.join()
    session.cancel()
    session.clear_cancel()
    thread = _hold_writer(db, 0.3)
    run(session, "CREATE (:C)")                       # waits for the writer, then runs
    thread.join()
    assert session.run("MATCH (c:C) RETURN count(c) AS n").fetch(1)[0][0] == 2


def test_an_embedded_session_forgets_a_stale_cancel_by_itself(db):
    session = db.session()
    run(session, "CREATE (:C)")
    session.cancel()                                  # aimed at a statement that already ended
    thread = _hold_writer(db, 0.3)
    run(session, "CREATE (:C)")                       # waits for the writer, then runs
    thread.join()
    assert session.run("MATCH (c:C) RETURN count(c) AS n").fetch(1)[0][0] == 2
