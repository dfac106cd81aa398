"""Cheap auto-commit reads run on the server's event loop thread (no hop to the session thread);
these check that doing so weakens nothing: a statement learned as cheap that turns out slow is
cancelled by the watchdog and re-run on the session thread, where time limits, errors and other
clients behave as before."""
from __future__ import annotations

import threading
import time

import pytest

import relate
from relate.protocol import messages as m
from relate.server.session import core

from .conftest import AUTH, ServerProcess
from .raw_client import RawClient

COUNT = "UNWIND range(1, $n) AS i WITH i WHERE i < 0 RETURN count(i) AS c"


@pytest.fixture(scope="module", params=["uvloop", "asyncio"])
def server(request, tmp_path_factory):
    process = ServerProcess(tmp_path_factory.mktemp("inline"), loop=request.param)
    yield process
    process.stop()


def test_a_cheap_statement_that_turns_slow_still_completes(server):
    with relate.connect(server.url, auth=AUTH) as conn, relate.connect(server.url, auth=AUTH) as other:
        for _ in range(5):                               # learned as cheap: runs inline from now on
            assert conn.execute(COUNT, n=10).fetchone().c == 0
        result = {}

        def slow():
            result["c"] = conn.execute(COUNT, n=1_500_000).fetchone().c
        thread = threading.Thread(target=slow)
        thread.start()
        time.sleep(0.2)
        pings = []
        while thread.is_alive() and len(pings) < 100:    # the loop is not held by the slow statement
            started = time.perf_counter()
            assert other.execute("RETURN 1 AS one").fetchone().one == 1
            pings.append(time.perf_counter() - started)
        thread.join()
        assert result["c"] == 0
        assert pings and sorted(pings)[len(pings) // 2] < 0.05
        assert conn.execute(COUNT, n=10).fetchone().c == 0


def test_errors_of_an_inline_statement_are_the_usual_ones(server):
    with relate.connect(server.url, auth=AUTH) as conn:
        for _ in range(5):
            assert conn.execute("RETURN 10 / $d AS x", d=2).fetchone().x == 5
        with pytest.raises(relate.RelateError) as inline_error:
            conn.execute("RETURN 10 / $d AS x", d=0).fetchall()
        with pytest.raises(relate.RelateError) as missing:
            conn.execute("RETURN 10 / $d AS x").fetchall()
        assert type(missing.value).__name__ == "ParameterMissing"
        assert conn.execute("RETURN 10 / $d AS x", d=5).fetchone().x == 2
        with relate.connect(server.url, auth=AUTH) as fresh:      # the same error on the session thread
            with pytest.raises(relate.RelateError) as worker_error:
                fresh.execute("RETURN 10 / $d AS x", d=0).fetchall()
        assert type(inline_error.value) is type(worker_error.value)
        assert inline_error.value.code == worker_error.value.code


def test_inline_statements_inside_a_transaction_run_on_the_session_thread(server):
    with relate.connect(server.url, auth=AUTH) as conn:
        for _ in range(5):
            conn.execute("MATCH (n:Inline) RETURN count(n) AS c").fetchall()
        with conn.begin() as tx:
            tx.execute("CREATE (:Inline)").consume()
            assert tx.execute("MATCH (n:Inline) RETURN count(n) AS c").fetchone().c == 1
            tx.rollback()
        assert conn.execute("MATCH (n:Inline) RETURN count(n) AS c").fetchone().c == 0


def test_query_timeout_still_applies_to_a_statement_learned_as_cheap(tmp_path):
    server = ServerProcess(tmp_path, "--query-timeout", "1")
    try:
        with relate.connect(server.url, auth=AUTH) as conn:
            for _ in range(5):
                assert conn.execute(COUNT, n=10).fetchone().c == 0
            started = time.perf_counter()
            with pytest.raises(relate.QueryTimeout):
                conn.execute(COUNT, n=50_000_000).fetchall()
            assert time.perf_counter() - started < 5
            assert conn.execute(COUNT, n=10).fetchone().c == 0
    finally:
        server.stop()


@pytest.mark.parametrize("query, inline", [
    ("MATCH (n:Note {id: $id}) RETURN n.text AS text", True),
    ("CALL db.awaitIndexes(10)", False),
    ("MATCH (n:Note) SEARCH n IN (VECTOR INDEX e FOR $v LIMIT 3) SCORE AS s RETURN n", True),
    ("PROFILE MATCH (n) RETURN n", False),
])
def test_procedures_never_run_inline(query, inline):
    assert (core._NOT_INLINE.search(query) is None) is inline


SEARCH = """MATCH (n:Doc) SEARCH n IN (VECTOR INDEX doc_e FOR $v LIMIT 3) SCORE AS s
RETURN n.name AS name ORDER BY s DESC, name"""


def test_searches_learned_as_cheap_see_every_commit_and_embed_on_the_session_thread(server):
    """A search that runs inline still sees the commit just before it (an index catching up runs on the
    session thread), and a text query (an embedding: a model call) answers as on the session thread."""
    with relate.connect(server.url, auth=AUTH) as conn:
        conn.execute("CREATE VECTOR INDEX doc_e IF NOT EXISTS FOR (n:Doc) ON (n.e) OPTIONS {indexConfig: "
                     "{`vector.dimensions`: 3, `vector.similarity_function`: 'cosine'}}").consume()
        conn.execute("UNWIND range(1, 20) AS i CREATE (:Doc {name: 'd' + toString(i), e: [1.0, toFloat(i), 0.5]})"
                     ).consume()
        conn.execute("CALL db.awaitIndexes(30)").consume()
        for _ in range(5):                                   # learned as cheap
            assert len(conn.execute(SEARCH, v=[1.0, 1.0, 0.5]).fetchall()) == 3
        for i in range(10):                                  # a write, then at once a search for it
            e = [0.0, 0.1 * (i + 1), 1.0]
            conn.execute("CREATE (:Doc {name: $name, e: $e})", name=f"new{i}", e=e).consume()
            assert conn.execute(SEARCH, v=e).fetchone().name == f"new{i}"

        # the same statement with a text query: embedded by the index's embedder, on the session thread
        conn.execute("CREATE VECTOR INDEX doc_t IF NOT EXISTS FOR (n:Txt) ON (n.e) OPTIONS {indexConfig: "
                     "{`vector.similarity_function`: 'cosine', `vector.embedder`: 'hash-384'}}").consume()
        conn.execute("UNWIND ['red apple', 'green pear', 'blue sky'] AS t "
                     "CREATE (:Txt {name: t, e: ai.text.embed(t)})").consume()
        conn.execute("CALL db.awaitIndexes(30)").consume()
        text = SEARCH.replace("Doc", "Txt").replace("doc_e", "doc_t").replace("LIMIT 3", "LIMIT 1")
        vector = conn.execute("RETURN ai.text.embed('blue sky') AS v").fetchone().v
        for _ in range(5):
            assert [r.name for r in conn.execute(text, v=vector).fetchall()] == ["blue sky"]
        assert [r.name for r in conn.execute(text, v="blue sky").fetchall()] == ["blue sky"]


def test_a_cheap_statement_that_returns_more_than_a_batch_streams_them_all(server):
    """A statement learned as cheap that now has more rows than one batch is run on the session
    thread (its rows must not stream under the inline budget's deadline): every row arrives."""
    query = "UNWIND range(1, $n) AS i RETURN i"
    with relate.connect(server.url, auth=AUTH) as conn:
        for _ in range(5):
            assert [r.i for r in conn.execute(query, n=3).fetchall()] == [1, 2, 3]
        result = conn.execute(query, n=250_000)
        total = 0
        for i, row in enumerate(result, 1):
            assert row.i == i
            total += 1
        assert total == 250_000
        assert [r.i for r in conn.execute(query, n=2).fetchall()] == [1, 2]


def _learned_as_cheap(client: RawClient, query: str, params: dict) -> None:
    for _ in range(3):
        client.send(m.Run(query, params, {}), m.Pull(m.ALL, m.LAST_QUERY))
        assert isinstance(client.recv(), m.Success)
        rows, summary = client.recv_until_summary()
        assert isinstance(summary, m.Success) and summary.metadata.get("type") == "r"


def test_a_cheap_run_with_a_partial_pull_keeps_the_rest_for_the_next_pull(server):
    # The reader answers a cheap RUN+PULL pair itself (SessionCore.answer_now); a PULL of fewer rows
    # than the result holds must still leave the rest open, as the usual path does.
    client = RawClient(server.port)
    try:
        assert all(isinstance(reply, m.Success) for reply in client.login(*AUTH))
        query = "UNWIND range(1, 5) AS i RETURN i"
        _learned_as_cheap(client, query, {})
        client.send(m.Run(query, {}, {}), m.Pull(2, m.LAST_QUERY))
        started = client.recv()
        assert isinstance(started, m.Success) and started.metadata["fields"] == ["i"]
        rows, more = client.recv_until_summary()
        assert rows == [[1], [2]] and more.metadata == {"has_more": True}
        client.send(m.Pull(m.ALL, m.LAST_QUERY))
        rows, summary = client.recv_until_summary()
        assert rows == [[3], [4], [5]] and summary.metadata.get("type") == "r"
        client.send(m.Run("RETURN 1 AS one", {}, {}), m.Pull(m.ALL, m.LAST_QUERY))   # READY again
        assert isinstance(client.recv(), m.Success)
        assert client.recv_until_summary()[0] == [[1]]
    finally:
        client.close()


def test_thousands_of_pipelined_cheap_statements_are_answered_in_order(server):
    # Pairs arrive in chunks of any size: some are answered by the reader, the rest by the request
    # processor; none may overtake another.
    client = RawClient(server.port)
    try:
        assert all(isinstance(reply, m.Success) for reply in client.login(*AUTH))
        query = "RETURN $i AS i, $text AS text"
        _learned_as_cheap(client, query, {"i": 0, "text": ""})
        count = 3000
        client.send(*[message for i in range(count)
                      for message in (m.Run(query, {"i": i, "text": "x" * (i % 700)}, {}), m.Pull(m.ALL, m.LAST_QUERY))])
        for i in range(count):
            started = client.recv()
            assert isinstance(started, m.Success), started
            rows, summary = client.recv_until_summary()
            assert rows == [[i, "x" * (i % 700)]] and isinstance(summary, m.Success)
    finally:
        client.close()
