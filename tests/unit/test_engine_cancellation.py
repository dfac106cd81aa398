"""Timeouts and cancellation reach every long loop; UNWIND range() is lazy; LIMIT stops its input early."""
import threading
import time
import tracemalloc

import pytest

from relate.errors import QueryTimeout, Terminated
from relate.server.engine import Database

BIG = 10 ** 12           # far more rows than any of these statements could finish in a test

LONG_READS = {
    "unwind": f"UNWIND range(1, {BIG}) AS i RETURN count(i)",
    "filter": f"UNWIND range(1, {BIG}) AS i WITH i WHERE i < 0 RETURN i",
    "projection": f"UNWIND range(1, {BIG}) AS i WITH i * 2 AS j WHERE j < 0 RETURN j",
    "grouping": f"UNWIND range(1, {BIG}) AS i RETURN i % 7 AS k, count(*)",
    "sort": f"UNWIND range(1, {BIG}) AS i RETURN i ORDER BY -i",
    "top-k": f"UNWIND range(1, {BIG}) AS i RETURN i ORDER BY -i LIMIT 3",
    "distinct": f"UNWIND range(1, {BIG}) AS i RETURN DISTINCT i % 5",
    "apply": f"UNWIND range(1, {BIG}) AS i CALL (i) {{ RETURN i * 2 AS j }} RETURN count(j)",
    "range in RETURN": "RETURN size(range(1, 1000000000))",
    "comprehension": "RETURN size([x IN range(1, 100000000) WHERE x < 0])",
    "reduce": "WITH range(1, 30000000) AS xs RETURN reduce(s = 0, x IN xs | s + x)",
    "var-length": "MATCH p = (:K)-[*]->() RETURN count(p)",
}
LONG_WRITES = {
    "create": f"UNWIND range(1, {BIG}) AS i CREATE (:W {{i: i}})",
    "foreach": f"FOREACH (i IN range(1, {BIG}) | CREATE (:W))",
    "set": f"MATCH (k:K) UNWIND range(1, {BIG}) AS i SET k.v = i",
}


@pytest.fixture(scope="module")
def db():
    database = Database.open(None)
    # A complete graph of 9 nodes: the paths from any node are far too many to count in a test.
    database.session().run("UNWIND range(1, 9) AS i CREATE (:K {i: i}) WITH count(*) AS n "
                           "MATCH (a:K), (b:K) WHERE a <> b CREATE (a)-[:E]->(b)").consume()
    yield database
    database.close()


def _stopped_within(seconds: float, run, error):
    started = time.monotonic()
    with pytest.raises(error):
        run()
    elapsed = time.monotonic() - started
    assert elapsed < seconds, f"took {elapsed:.2f} s"


@pytest.mark.parametrize("query", LONG_READS.values(), ids=LONG_READS.keys())
def test_timeout_stops_every_long_read(db, query):
    session = db.session()
    _stopped_within(1.5, lambda: session.run(query, timeout=0.3).fetch(10), QueryTimeout)


@pytest.mark.parametrize("query", LONG_READS.values(), ids=LONG_READS.keys())
def test_cancel_from_another_thread_stops_every_long_read(db, query):
    session = db.session()
    timer = threading.Timer(0.3, session.cancel)
    timer.start()
    try:
        _stopped_within(1.5, lambda: session.run(query).fetch(10), Terminated)
    finally:
        timer.cancel()


@pytest.mark.parametrize("query", LONG_WRITES.values(), ids=LONG_WRITES.keys())
def test_a_cancelled_write_leaves_nothing(db, query):
    session = db.session()
    timer = threading.Timer(0.3, session.cancel)
    timer.start()
    try:
        _stopped_within(1.5, lambda: session.run(query).consume(), Terminated)
    finally:
        timer.cancel()
    assert session.run("MATCH (w:W) RETURN count(w)").fetch(1) == [(0,)]
    assert session.run("MATCH (k:K) WHERE k.v IS NOT NULL RETURN count(k)").fetch(1) == [(0,)]


@pytest.mark.parametrize("query", LONG_WRITES.values(), ids=LONG_WRITES.keys())
def test_a_timed_out_write_leaves_nothing(db, query):
    session = db.session()
    _stopped_within(1.5, lambda: session.run(query, timeout=0.3).consume(), QueryTimeout)
    assert session.run("MATCH (w:W) RETURN count(w)").fetch(1) == [(0,)]


def test_cancel_stops_a_statement_in_an_explicit_transaction_and_keeps_earlier_ones(db):
    session = db.session()
    session.begin()
    session.run("CREATE (:T)").consume()
    timer = threading.Timer(0.3, session.cancel)
    timer.start()
    _stopped_within(1.5, lambda: session.run(f"UNWIND range(1, {BIG}) AS i CREATE (:T)").consume(), Terminated)
    assert session.run("MATCH (t:T) RETURN count(t)").fetch(1) == [(1,)]
    session.rollback()


def test_unwind_range_does_not_build_the_list():
    database = Database.open(None)
    session = database.session()
    tracemalloc.start()
    try:
        assert session.run("UNWIND range(1, 200000) AS i RETURN count(i)").fetch(1) == [(200_000,)]
        assert session.run("UNWIND range($a, $b, 2) AS i RETURN sum(i)", {"a": 1, "b": 200_000}).fetch(1) \
            == [(10_000_000_000,)]
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
        database.close()
    assert peak < 2 << 20, f"peak {peak / 2 ** 20:.1f} MiB"     # the built list alone takes 7 MiB


def test_range_keeps_its_semantics_when_lazy():
    database = Database.open(None)
    session = database.session()
    assert session.run("UNWIND range(5, 1, -2) AS i RETURN collect(i)").fetch(1) == [([5, 3, 1],)]
    assert session.run("UNWIND range(1, 0) AS i RETURN count(i)").fetch(1) == [(0,)]
    assert session.run("FOREACH (i IN range(1, 3) | CREATE (:F {i: i}))").consume().counters.nodes_created == 3
    with pytest.raises(Exception, match="can't be 0"):
        session.run("UNWIND range(1, 5, 0) AS i RETURN i").fetch(1)
    with pytest.raises(Exception, match="null"):
        session.run("UNWIND range(1, $n) AS i RETURN i", {"n": None}).fetch(1)
    database.close()


def test_large_constant_range_is_not_built_at_plan_time():
    database = Database.open(None)
    session = database.session()
    started = time.monotonic()
    session.run("RETURN size(range(1, 50000000)) AS n", timeout=0.2)    # plans; runs only when fetched
    assert time.monotonic() - started < 0.5
    database.close()


def _rows_pulled(database, query):
    """How many rows the test.rows procedure produced while ``query`` ran (it yields 0, 1, 2, ...)."""
    pulled = []

    def rows(ctx, n):
        for i in range(n):
            pulled.append(i)
            yield {"i": i}
    database.procedures.register("test.rows", [("n", "INTEGER?")], [("i", "INTEGER?")], rows)
    session = database.session()
    result = session.run(query)
    out = result.fetch(100)
    result.close()
    return out, len(pulled)


def test_limit_stops_pulling_its_input():
    database = Database.open(None)
    rows, pulled = _rows_pulled(database, "CALL test.rows(100000) YIELD i RETURN i LIMIT 3")
    assert rows == [(0,), (1,), (2,)] and pulled == 3
    rows, pulled = _rows_pulled(database, "CALL test.rows(100000) YIELD i WITH i LIMIT 5 RETURN sum(i)")
    assert rows == [(10,)] and pulled == 5
    database.close()


def test_limit_zero_does_not_run_its_input():
    database = Database.open(None)
    rows, pulled = _rows_pulled(database, "CALL test.rows(100000) YIELD i RETURN i LIMIT 0")
    assert rows == [] and pulled == 0
    rows, pulled = _rows_pulled(database, "CALL test.rows(100000) YIELD i RETURN i ORDER BY i LIMIT 0")
    assert rows == [] and pulled == 0
    database.close()


def test_limit_zero_after_writes_still_writes():
    database = Database.open(None)
    session = database.session()
    assert session.run("UNWIND range(1, 3) AS i CREATE (n:N) RETURN n LIMIT 0").fetch(10) == []
    assert session.run("UNWIND range(1, 3) AS i CREATE (n:N) RETURN n ORDER BY n LIMIT 0").fetch(10) == []
    assert session.run("MATCH (n:N) RETURN count(n)").fetch(1) == [(6,)]
    database.close()


def test_profile_shows_a_scan_stopped_by_limit():
    database = Database.open(None)
    session = database.session()
    session.run("UNWIND range(1, 5000) AS i CREATE (:N {i: i})").consume()
    plan = session.run("PROFILE MATCH (n:N) RETURN n.i LIMIT 2").consume().plan

    def find(op):
        if op["operator"] == "NodeByLabelScan":
            return op
        return next(filter(None, (find(c) for c in op["children"])), None)
    assert find(plan)["rows"] == 2
    database.close()
