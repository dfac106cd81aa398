"""Query limits that hold against hostile statements: regex time, value size, statement size, parse
time under --query-timeout, and cancellation when the client leaves."""
import os
import threading
import time

import pytest

import relate
from relate.errors import ClientError, QueryTimeout, Terminated
from relate.server.engine import Database
from relate.server.query.exec import regex_match
from tests.security.conftest import AUTH
from tests.server.raw_client import RawClient
from relate.protocol import messages as m

CATASTROPHIC = "RETURN $s =~ '(a|aa)+$' AS hit"


@pytest.fixture(scope="module")
def db():
    database = Database.open(None, max_statement_bytes=200_000)
    yield database
    database.close()


def test_catastrophic_regex_stops_at_its_time_limit_and_releases_the_gil(db, monkeypatch):
    monkeypatch.setattr(regex_match, "MATCH_TIME_LIMIT_S", 0.5)
    ticks = []
    stop = threading.Event()

    def ticker():
        while not stop.is_set():
            ticks.append(time.perf_counter())
            time.sleep(0.01)
    thread = threading.Thread(target=ticker)
    thread.start()
    started = time.perf_counter()
    try:
        with pytest.raises(QueryTimeout):
            db.session().run(CATASTROPHIC, {"s": "a" * 60 + "!"}).fetch(1)
    finally:
        stop.set()
        thread.join()
    elapsed = time.perf_counter() - started
    assert elapsed < 5
    during = [t for t in ticks if started + 0.1 < t < started + 0.5]
    assert len(during) >= 10, "the match held the GIL"


def test_regex_semantics_are_kept(db):
    rows = db.session().run("RETURN 'ab' =~ 'a.' AS a, 'a(b)' =~ '\\\\Qa(b)\\\\E' AS b, 'foo' =~ '(?<x>f)o+' AS c, "
                            "'x' =~ $p AS d", {"p": "[A-Z]"}).fetch(1)
    assert rows == [(True, True, True, False)]


def test_string_doubling_is_refused_at_the_value_limit(db):
    with pytest.raises(ClientError) as caught:
        db.session().run("RETURN size(reduce(s = 'a', x IN range(1, 40) | s + s))", {}).fetch(1)
    assert caught.value.code == "Neo.ClientError.Statement.ValueTooLarge"
    with pytest.raises(ClientError):
        db.session().run("RETURN size(reduce(s = 'aa', x IN range(1, 40) | replace(s, 'a', s)))", {}).fetch(1)
    with pytest.raises(ClientError):
        db.session().run("RETURN size(reduce(l = [1], x IN range(1, 40) | l + l))", {}).fetch(1)


def test_statements_over_the_size_limit_are_refused_before_parsing(db):
    with pytest.raises(ClientError) as caught:
        db.session().run("RETURN '" + "x" * 300_000 + "'", {})
    assert caught.value.detail == "StatementTooLarge"


def test_query_timeout_covers_parsing():
    database = Database.open(None)
    try:
        query = "RETURN " + " + ".join(["1"] * 150_000)
        started = time.perf_counter()
        with pytest.raises(QueryTimeout):
            database.session().run(query, {}, timeout=0.3)
        session = database.session()
        threading.Timer(0.3, session.cancel).start()
        with pytest.raises(Terminated):
            session.run(query, {})
        assert time.perf_counter() - started < 20
    finally:
        database.close()


def _cpu_seconds(pid: int) -> float:
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def test_a_statement_stops_when_its_client_disconnects(start_server):
    server = start_server("--max-statement-bytes", "5000")
    client = RawClient(server.port)
    client.login(*AUTH)
    client.send(m.Run("UNWIND range(1, 10000000000) AS x WITH x WHERE x < 0 RETURN count(x)", {}, {}),
                m.Pull(-1, -1))
    time.sleep(0.5)
    client.sock.close()
    time.sleep(0.5)
    before = _cpu_seconds(server.pid)
    time.sleep(1.0)
    assert _cpu_seconds(server.pid) - before < 0.5, "the statement went on after its client left"
    with relate.connect(server.url, auth=AUTH) as conn:
        with pytest.raises(ClientError) as caught:
            conn.execute("RETURN '" + "x" * 6000 + "'")
        assert caught.value.code == "Neo.ClientError.Request.Invalid"
        assert conn.execute("RETURN 1").fetchall() == [(1,)]


def test_a_statement_waiting_for_the_writer_ends_when_its_client_leaves(start_server):
    import json
    import urllib.request
    server = start_server("--http-listen", "127.0.0.1:0")

    def connections():
        with urllib.request.urlopen(f"http://{server.info['http']}/health", timeout=10) as response:
            return json.loads(response.read())["connections"]
    holder = RawClient(server.port)
    holder.login(*AUTH)
    holder.send(m.Begin({}), m.Run("CREATE (:Held)", {}, {}), m.Pull(-1, -1))
    time.sleep(0.5)
    waiter = RawClient(server.port)
    waiter.login(*AUTH)
    waiter.send(m.Run("CREATE (:Waiting)", {}, {}), m.Pull(-1, -1))
    time.sleep(0.5)
    waiter.sock.close()
    deadline = time.monotonic() + 5
    while connections() > 1 and time.monotonic() < deadline:
        time.sleep(0.1)
    assert connections() == 1, "the waiting statement outlived its client"
    holder.sock.close()
