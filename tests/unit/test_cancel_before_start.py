"""A cancel() that comes after the server handed a request to the session thread but before the
statement set up its context still stops it (it was lost, and the statement ran to its end)."""
import pytest

from relate.protocol.errors import Terminated
from relate.server.engine import Database


@pytest.fixture
def session():
    db = Database.open(None)
    session = db.session()
    session.external_cancel = True
    yield session
    session.close()
    db.close()


@pytest.mark.parametrize("query", ["UNWIND range(1, $n) AS x RETURN count(x)",
                                   "UNWIND range(1, $n) AS x CREATE (:T) RETURN count(x)"])
@pytest.mark.parametrize("cached", [False, True])
def test_cancel_before_the_statement_starts_stops_it(session, query, cached):
    if cached:                           # planned once: the run skips the parse and its checks
        session.run(query, {"n": 2}).fetch(10)
        session.clear_cancel()
    session.cancel()                     # the client left before the statement began
    with pytest.raises(Terminated):
        session.run(query, {"n": 100_000_000}).fetch(10)


def test_clear_cancel_lets_the_next_request_run(session):
    session.cancel()
    session.clear_cancel()
    assert session.run("RETURN 1 AS one").fetch(10) == [(1,)]
