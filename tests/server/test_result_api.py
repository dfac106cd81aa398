"""The Result helpers (single, value, values, data, keys, peek), reading a consumed result, reading
after the connection closed, and executescript: the same in embedded and network modes."""
from __future__ import annotations

import pytest

import relate

from .conftest import AUTH, ServerProcess


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    process = ServerProcess(tmp_path_factory.mktemp("results"))
    yield process
    process.stop()


@pytest.fixture(params=["embedded", "remote"])
def connect(request, server, tmp_path):
    opened = []

    def open_one():
        if request.param == "embedded":
            connection = relate.connect(":memory:")
        else:
            connection = relate.connect(server.url, auth=AUTH)
        opened.append(connection)
        return connection
    yield open_one
    for connection in opened:
        connection.close()


def test_single_is_strict(connect):
    db = connect()
    assert db.execute("RETURN 1 AS x").single() == (1,)
    with pytest.raises(relate.ResultNotSingleError, match="no row"):
        db.execute("UNWIND [] AS x RETURN x").single()
    with pytest.raises(relate.ResultNotSingleError, match="more than one"):
        db.execute("UNWIND [1, 2] AS x RETURN x").single()
    assert db.execute("UNWIND [] AS x RETURN x").single(strict=False) is None
    assert db.execute("UNWIND [7, 8] AS x RETURN x").single(strict=False).x == 7
    assert db.execute("RETURN 5 AS after").single().after == 5      # the connection is still usable


def test_value_values_data_keys_peek(connect):
    db = connect()
    query = "UNWIND [1, 2, 3] AS x RETURN x, x * 10 AS y"
    assert db.execute(query).value() == [1, 2, 3]
    assert db.execute(query).value("y") == [10, 20, 30]
    assert db.execute(query).value("nope", default=0) == [0, 0, 0]
    assert db.execute(query).values() == [[1, 10], [2, 20], [3, 30]]
    assert db.execute(query).values("y") == [[10], [20], [30]]
    assert db.execute(query).data() == [{"x": 1, "y": 10}, {"x": 2, "y": 20}, {"x": 3, "y": 30}]
    assert db.execute(query).data("x") == [{"x": 1}, {"x": 2}, {"x": 3}]
    result = db.execute(query)
    assert result.keys() == ["x", "y"]
    assert result.peek() == (1, 10) and result.peek() == (1, 10)
    assert result.fetchone() == (1, 10)
    assert result.peek() == (2, 10 * 2)
    assert [tuple(row) for row in result] == [(2, 20), (3, 30)]
    assert result.peek() is None


def test_a_consumed_result_cannot_be_iterated_again(connect):
    db = connect()
    result = db.execute("UNWIND [1, 2] AS x RETURN x")
    assert result.fetchall() == [(1,), (2,)]
    with pytest.raises(relate.ResultConsumedError):
        list(result)
    consumed = db.execute("UNWIND [1, 2] AS x RETURN x")
    consumed.consume()
    with pytest.raises(relate.ResultConsumedError):
        consumed.fetchall()
    assert consumed.summary.query_type == "r"


def test_reading_after_the_connection_closed_is_a_typed_error(connect):
    db = connect()
    result = db.execute("UNWIND range(1, 5000) AS x RETURN x")
    rows = iter(result)
    assert next(rows) == (1,)
    db.close()
    with pytest.raises(relate.ResultConsumedError, match="connection was closed"):
        next(rows)
    with pytest.raises(relate.ResultConsumedError):
        result.fetchone()


def test_executescript_runs_every_statement(connect):
    db = connect()
    script = """
        CREATE (:Script {s: 'a;b'});   // a comment; with a semicolon
        /* a block; comment */ CREATE (:Script {s: "c"});
        MATCH (n:Script) SET n.seen = true
    """
    summaries = db.executescript(script)
    assert [s.counters.nodes_created for s in summaries] == [1, 1, 0]
    assert db.execute("MATCH (n:Script) WHERE n.seen RETURN n.s AS s ORDER BY s").value() == ["a;b", "c"]
    with pytest.raises(relate.CypherSyntaxError):
        db.executescript("CREATE (:Script {s: 'd'}); CREATE (:Script")
    assert db.execute("MATCH (n:Script) RETURN count(n) AS c").single().c == 3


def test_the_asyncio_result_has_the_same_helpers(server):
    import asyncio

    import relate.aio

    async def check(target, auth):
        db = await relate.aio.connect(target, auth=auth)
        try:
            result = await db.execute("UNWIND [1, 2] AS x RETURN x, x * 10 AS y")
            assert result.keys() == ["x", "y"] and await result.peek() == (1, 10)
            assert await result.value("y") == [10, 20]
            with pytest.raises(relate.ResultConsumedError):
                [row async for row in result]
            assert (await (await db.execute("RETURN 1 AS a")).single()).a == 1
            with pytest.raises(relate.ResultNotSingleError):
                await (await db.execute("UNWIND [1, 2] AS x RETURN x")).single()
            assert await (await db.execute("UNWIND [1, 2] AS x RETURN x")).data("x") == [{"x": 1}, {"x": 2}]
        finally:
            await db.close()
    asyncio.run(check(":memory:", None))
    asyncio.run(check(server.url, AUTH))


@pytest.mark.parametrize("rows", [0, 1, 999, 1000, 1001, 2500])
@pytest.mark.parametrize("fetch_size", [None, 7, 5000])
def test_fetchall_returns_every_row_whatever_the_batches(server, rows, fetch_size):
    """fetchall stops as soon as a short batch comes with the summary (no extra fetch), and never
    early: a network batch bigger than the client's own (fetch_size 5000) still comes back whole."""
    for connection in (relate.connect(":memory:"),
                       relate.connect(server.url + (f"?fetch_size={fetch_size}" if fetch_size else ""), auth=AUTH)):
        with connection as db:
            result = db.execute("UNWIND range(1, $n) AS i RETURN i", n=rows)
            if rows:
                assert result.fetchone() == (1,)
            rest = result.fetchall()
            assert [row[0] for row in rest] == list(range(2, rows + 1))
            assert result.summary.query_type == "r"
            with pytest.raises(relate.ResultConsumedError):
                result.fetchall()
            assert db.execute("RETURN 1 AS x").fetchall() == [(1,)]      # the connection goes on
