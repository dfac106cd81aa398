"""Result.to_arrow() / to_df(): Cypher types become the matching Arrow types, batch by batch."""
import datetime

import pyarrow as pa
import pytest

import relate


@pytest.fixture
def conn():
    connection = relate.connect(":memory:")
    yield connection
    connection.close()


def one_column(conn, expression, **params):
    return conn.execute(f"RETURN {expression} AS v", params).to_arrow().column("v")


def test_scalars_keep_their_types(conn):
    table = conn.execute("RETURN 1 AS i, 2.5 AS f, 'x' AS s, true AS b, null AS n, 2^62 AS g, "
                         "9223372036854775807 AS big").to_arrow()
    assert table.schema.field("i").type == pa.int64() and table.column("i").to_pylist() == [1]
    assert table.schema.field("f").type == pa.float64()
    assert table.schema.field("s").type == pa.string() and table.schema.field("b").type == pa.bool_()
    assert table.schema.field("n").type == pa.null()
    assert table.column("big").to_pylist() == [2 ** 63 - 1]


def test_temporal_values(conn):
    zoned = one_column(conn, "datetime('2024-07-01T12:00:00.123456789[Europe/Stockholm]')")
    assert zoned.type == pa.timestamp("ns", tz="Europe/Stockholm")
    assert zoned.cast(pa.int64()).to_pylist() == [1719828000123456789]      # the exact instant, in ns
    offset = one_column(conn, "datetime('2024-01-01T21:40:32-01:00')")
    assert offset.type == pa.timestamp("ns", tz="-01:00")
    assert offset.to_pylist()[0] == datetime.datetime(2024, 1, 1, 22, 40, 32, tzinfo=datetime.timezone.utc)
    assert one_column(conn, "localdatetime('2024-01-01T10:00')").type == pa.timestamp("ns")
    assert one_column(conn, "date('2024-02-29')").to_pylist() == [datetime.date(2024, 2, 29)]
    assert one_column(conn, "localtime('12:00:00.000000001')").type == pa.time64("ns")
    duration = one_column(conn, "duration('P1M2DT3.5S')")
    assert duration.type == pa.month_day_nano_interval()
    assert duration.to_pylist()[0] == pa.MonthDayNano([1, 2, 3_500_000_000])


def test_lists_maps_and_entities(conn):
    assert one_column(conn, "[1, 2, 3]").type == pa.list_(pa.int64())
    maps = one_column(conn, "{a: 1, b: 'x', c: [1.5]}")
    assert maps.type == pa.struct([("a", pa.int64()), ("b", pa.string()), ("c", pa.list_(pa.float64()))])
    assert maps.to_pylist() == [{"a": 1, "b": "x", "c": [1.5]}]
    conn.execute("CREATE (:P {name: 'Ann', age: 40})-[:KNOWS {since: 2020}]->(:P {name: 'Bob'})").consume()
    table = conn.execute("MATCH (a)-[r]->(b) RETURN a, r").to_arrow()
    node = table.column("a").to_pylist()[0]
    assert node["labels"] == ["P"] and node["properties"] == {"name": "Ann", "age": 40}
    assert table.column("r").to_pylist()[0]["type"] == "KNOWS"


def test_batches_are_built_incrementally_and_unified(conn):
    result = conn.execute("UNWIND range(1, 25) AS i RETURN CASE WHEN i > 10 THEN i * 1.5 END AS v, i")
    batches = list(result.iter_arrow_batches(10))
    assert [b.num_rows for b in batches] == [10, 10, 5]
    assert batches[0].schema.field("v").type == pa.null()              # the first ten are null
    table = conn.execute("UNWIND range(1, 25) AS i RETURN CASE WHEN i > 10 THEN i * 1.5 END AS v, i") \
        .to_arrow(batch_rows=10)
    assert table.schema.field("v").type == pa.float64() and table.num_rows == 25
    assert table.column("v").to_pylist()[10] == 16.5


def test_to_df_is_built_from_arrow(conn):
    df = conn.execute("UNWIND range(1, 3) AS i RETURN i, toString(i) AS s, "
                      "datetime({epochSeconds: i, timezone: 'UTC'}) AS t").to_df()
    assert list(df.columns) == ["i", "s", "t"]
    assert str(df["i"].dtype) == "int64" and df["i"].tolist() == [1, 2, 3]
    assert str(df["t"].dt.tz) == "UTC"
