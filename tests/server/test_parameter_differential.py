"""One table of Python parameter values run through an embedded connection and a real server
connection: every statement must give identical results, or identical error classes and codes."""
from __future__ import annotations

import datetime as dt
import decimal
import enum
import uuid
import zoneinfo

import numpy as np
import pytest

import relate
from relate.temporal import Date, DateTime, LocalDateTime, LocalTime
from relate.values import Duration, Vector

from .conftest import AUTH, ServerProcess

UTC = dt.timezone.utc


class Color(enum.IntEnum):
    RED = 1


VALUES = {
    "int": 42, "int64_max": 2**63 - 1, "int64_min": -2**63, "float": 1.5, "str": "héllo", "bool": True,
    "none": None, "bytes": b"\x00\xffab", "bytearray": bytearray(b"xy"), "intenum": Color.RED,
    "list": [1, 2, 3], "tuple": (1, 2, 3), "set": {3}, "frozenset": frozenset({"a"}),
    "nested": {"a": (1, 2), "b": {"c": {1.5}}},
    "datetime_utc": dt.datetime(2024, 5, 6, 7, 8, 9, 123456, tzinfo=UTC),
    "datetime_zone": dt.datetime(2024, 5, 6, 7, 8, 9, tzinfo=zoneinfo.ZoneInfo("Europe/Paris")),
    "datetime_naive": dt.datetime(2024, 5, 6, 7, 8, 9),
    "date": dt.date(2024, 2, 29), "time_naive": dt.time(12, 30, 1, 5),
    "time_zoned": dt.time(12, 30, tzinfo=dt.timezone(dt.timedelta(hours=2))),
    "timedelta": dt.timedelta(days=1, seconds=5, microseconds=7),
    "np_int": np.int32(7), "np_float": np.float64(2.5), "np_bool": np.bool_(True), "np_str": np.str_("s"),
    "np_f32_vector": np.array([0.5, 1.5, 2.5], dtype=np.float32),
    "np_f64_array": np.array([0.5, 1.5]), "np_int_array": np.array([1, 2, 3], dtype=np.int64),
    "np_2d": np.array([[1, 2], [3, 4]]),
    "decimal": decimal.Decimal("1.5"), "uuid": uuid.UUID(int=1), "object": object(),
    "int_too_big": 2**64, "int_too_small": -2**63 - 1, "nested_bad": [1, {"a": decimal.Decimal(1)}],
    "bad_key": {1: "a"},
    "point": relate.Point.cartesian(1.5, -2.0), "point_wgs84_3d": relate.Point.wgs84(12.5, 55.6, 10.0),
    # Lists of floats (embeddings): the same values must come out, every bit of them.
    "float_list": [i / 7 for i in range(-10, 30)],
    "float_list_edges": [-0.0, 0.0, 5e-324, 1.7976931348623157e308, float("inf"), float("-inf")] * 3,
    "float_list_with_int": [0.5] * 20 + [3],
    "float_tuple": tuple(i * 0.25 for i in range(20)),
    "np_f64_long": np.arange(20, dtype=np.float64) / 3,
    "rows_with_embeddings": [{"id": i, "e": [i + j / 10 for j in range(16)]} for i in range(3)],
    "nested_float_lists": [[j / 3 for j in range(16)], [1.0] * 16],
}

STATEMENTS = [
    "RETURN $x AS x",
    "CREATE (n:Diff {x: $x}) RETURN n.x AS x",
    "RETURN $x = $x AS same, $x IS NULL AS missing",
    "RETURN size($x) AS n",
    "RETURN 1 IN $x AS has_one, 3 IN $x AS has_three",
    "RETURN $x < datetime('2030-01-01T00:00Z') AS before",
    "RETURN $x + duration('P1D') AS later",
    "RETURN date('2024-01-01') + $x AS shifted",
    "RETURN $x * 2 AS twice",
    "UNWIND $x AS item RETURN item ORDER BY item",
]


def _outcome(connection, statement, value):
    try:
        return ("rows", [tuple(row) for row in connection.execute(statement, {"x": value})])
    except relate.RelateError as exc:
        return ("error", type(exc).__name__, exc.code)


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    server = ServerProcess(tmp_path_factory.mktemp("diff"))
    remote = relate.connect(server.url, auth=AUTH)
    embedded = relate.connect(str(tmp_path_factory.mktemp("emb") / "db"))
    yield embedded, remote
    remote.close()
    embedded.close()
    server.stop()


def _same(a, b) -> bool:
    # Vectors compare by coordinates; everything else with ==.
    return a == b


@pytest.mark.parametrize("name", list(VALUES))
def test_embedded_and_remote_agree(both, name):
    embedded, remote = both
    value = VALUES[name]
    for statement in STATEMENTS:
        local = _outcome(embedded, statement, value)
        wire = _outcome(remote, statement, value)
        assert _same(local, wire), f"{name}: {statement}\n embedded: {local}\n remote:   {wire}"


EXPECTED = [
    ("RETURN $x AS x", dt.datetime(2024, 5, 6, 7, 8, 9, tzinfo=UTC),
     DateTime(2024, 5, 6, 7, 8, 9, tzinfo=UTC)),
    ("RETURN $x AS x", dt.datetime(2024, 5, 6, 7, 8, 9), LocalDateTime(2024, 5, 6, 7, 8, 9)),
    ("RETURN $x AS x", dt.date(2024, 2, 29), Date(2024, 2, 29)),
    ("RETURN $x AS x", dt.time(1, 2, 3), LocalTime(1, 2, 3)),
    ("RETURN $x AS x", dt.timedelta(days=2, seconds=3), Duration(days=2, seconds=3)),
    ("RETURN $x < datetime() AS x", dt.datetime.now(UTC) - dt.timedelta(minutes=1), True),
    ("RETURN $x + duration('P1D') AS x", dt.datetime(2024, 5, 6, tzinfo=UTC), DateTime(2024, 5, 7, tzinfo=UTC)),
    ("RETURN size($x) AS x", (1, 2), 2),
    ("RETURN 2 IN $x AS x", {1, 2}, True),
    ("RETURN size($x) AS x", np.array([1.0, 2.0, 3.0]), 3),
    ("RETURN $x AS x", np.array([1.0, 2.0], dtype=np.float32), Vector([1.0, 2.0], "FLOAT32")),
    ("RETURN $x AS x", np.int64(5), 5),
    ("CREATE (n:Diff {b: $x}) RETURN n.b AS x", b"\x00\x01", b"\x00\x01"),
]


@pytest.mark.parametrize("statement,value,expected", EXPECTED)
def test_both_modes_give_the_driver_answer(both, statement, value, expected):
    for connection in both:
        got = connection.execute(statement, {"x": value}).fetchall()[0][0]
        assert got == expected and type(got) is type(expected), (connection.target, got)


@pytest.mark.parametrize("value", [decimal.Decimal("1"), uuid.uuid4(), object(), 2**64, -2**63 - 1, {"k": [object()]}])
def test_unsupported_values_are_refused_alike(both, value):
    for connection in both:
        with pytest.raises(relate.CypherTypeError) as info:
            connection.execute("RETURN $x AS x", {"x": value})
        assert info.value.code == "Neo.ClientError.Statement.TypeError"


def test_float_lists_come_back_exact_and_as_floats(both):
    """An embedding as a list of floats: every bit survives the wire (negative zero, the extremes,
    subnormals, NaN), the items stay floats (not ints, not a vector), an int among them stays an int."""
    floats = [-0.0, 5e-324, 1.7976931348623157e308, float("nan"), float("-inf")] + [i / 3 for i in range(20)]
    for connection in both:
        got = connection.execute("RETURN $x AS x", {"x": floats}).fetchall()[0][0]
        assert [repr(v) for v in got] == [repr(v) for v in floats] and all(type(v) is float for v in got)
        mixed = connection.execute("RETURN $x AS x", {"x": [0.5] * 20 + [3]}).fetchall()[0][0]
        assert mixed[-1] == 3 and type(mixed[-1]) is int
        stored = connection.execute("CREATE (n:Packed {e: $x}) RETURN n.e AS e, size($x) AS n",
                                    {"x": floats[5:]}).fetchall()[0]
        assert stored == (floats[5:], 20)


def test_deep_nesting_is_a_typed_error(both):
    value: list = []
    for _ in range(10_000):
        value = [value]
    for connection in both:
        with pytest.raises(relate.CypherTypeError):
            connection.execute("RETURN $x AS x", {"x": value})


def test_bytes_are_stored_indexed_and_survive_reopen(tmp_path):
    blob = b"\x00\x01\xff"
    with relate.connect(tmp_path / "db") as db:
        db.execute("CREATE INDEX blob_b FOR (n:Blob) ON (n.b)")
        db.execute("CREATE (:Blob {b: $b, parts: [$b]})", {"b": blob})
        assert db.execute("MATCH (n:Blob {b: $b}) RETURN n.b AS b", {"b": blob}).fetchall()[0].b == blob
    with relate.connect(tmp_path / "db") as db:
        row = db.execute("MATCH (n:Blob) WHERE n.b = $b RETURN n.b AS b, n.parts AS p", {"b": blob}).fetchone()
        assert (row.b, row.p) == (blob, [blob])
