"""Value codec round trips: plain msgpack values and every ext type (property-based)."""
import datetime as dt
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from relate import Duration, Node, Path, Relationship, Vector, temporal
from relate.protocol.hydration import value_codec
from relate.protocol import Codec, CodecError, Structure
from relate.protocol import codec as wire

codec = value_codec()


def round_trip(value):
    return codec.unpack(codec.pack(value))


ints = st.integers(min_value=-2 ** 63, max_value=2 ** 63 - 1)
scalars = st.none() | st.booleans() | ints | st.floats(allow_nan=False) | st.text() | st.binary()
keys = st.text(max_size=8)
plain = st.recursive(scalars, lambda inner: st.lists(inner, max_size=5) | st.dictionaries(keys, inner, max_size=5),
                     max_leaves=20)
properties = st.dictionaries(keys, plain, max_size=4)
nodes = st.builds(Node, st.integers(0, 2 ** 40), st.frozensets(st.text(min_size=1, max_size=6), max_size=3),
                  properties)
relationships = st.builds(Relationship, st.integers(0, 2 ** 40), st.text(min_size=1, max_size=6),
                          st.integers(0, 99), st.integers(0, 99), properties)


@st.composite
def paths(draw):
    rels = draw(st.lists(relationships, max_size=3))
    return Path(draw(st.lists(nodes, min_size=len(rels) + 1, max_size=len(rels) + 1)), rels)


@st.composite
def vectors(draw):
    kind = draw(st.sampled_from(["FLOAT32", "FLOAT64", "INTEGER8", "INTEGER16", "INTEGER32", "INTEGER64"]))
    dtype = np.dtype({"FLOAT32": np.float32, "FLOAT64": np.float64, "INTEGER8": np.int8, "INTEGER16": np.int16,
                      "INTEGER32": np.int32, "INTEGER64": np.int64}[kind])
    if dtype.kind == "f":
        values = draw(st.lists(st.floats(allow_nan=False, allow_infinity=False, width=dtype.itemsize * 8),
                               min_size=1, max_size=16))
    else:
        info = np.iinfo(dtype)
        values = draw(st.lists(st.integers(int(info.min), int(info.max)), min_size=1, max_size=16))
    return Vector(values, kind)


nanos_of_day = st.integers(0, temporal.NANOS_PER_DAY - 1)
offsets = st.integers(-18 * 3600, 18 * 3600)
dates = st.dates(min_value=dt.date(1, 1, 1), max_value=dt.date(9999, 12, 31)).map(temporal.Date.from_python)
times = st.builds(temporal.Time.of_nanos_of_day, nanos_of_day, offsets)
local_times = st.builds(temporal.LocalTime.of_nanos_of_day, nanos_of_day)
local_datetimes = st.builds(temporal.LocalDateTime.of, dates, nanos_of_day)
zones = st.sampled_from(["Europe/London", "America/New_York", "Asia/Kolkata", "UTC"])
datetimes = st.one_of(
    st.builds(lambda s, n, o: temporal.DateTime.from_state((s, n, o)),
              st.integers(-2 ** 35, 2 ** 37), st.integers(0, 999_999_999), offsets),
    st.builds(lambda s, n, z: temporal.DateTime.from_state((s, n, z)),
              st.integers(-2 ** 35, 2 ** 37), st.integers(0, 999_999_999), zones))
durations = st.builds(Duration, ints.filter(lambda x: abs(x) < 2 ** 40), ints.filter(lambda x: abs(x) < 2 ** 40),
                      ints.filter(lambda x: abs(x) < 2 ** 50), st.integers(0, 999_999_999))
domain = st.one_of(nodes, relationships, paths(), vectors(), dates, times, local_times, local_datetimes,
                   datetimes, durations)


@settings(max_examples=300, deadline=None)
@given(plain)
def test_plain_values_round_trip(value):
    assert round_trip(value) == value


@settings(max_examples=400, deadline=None)
@given(domain)
def test_domain_values_round_trip_with_their_types(value):
    out = round_trip(value)
    assert type(out) is type(value) and out == value


@settings(max_examples=100, deadline=None)
@given(st.lists(domain, max_size=4), st.dictionaries(keys, domain, max_size=3))
def test_domain_values_nested_in_lists_and_maps(items, mapping):
    assert round_trip([items, mapping]) == [items, mapping]


def test_graph_entities_keep_every_field():
    node = round_trip(Node(7, ["B", "A"], {"v": Vector([1.5, 2.5], "FLOAT64"), "when": temporal.Date(2024, 2, 29)}))
    assert (node.id, node.labels, node["when"], node["v"].coordinate_type) == (7, {"A", "B"},
                                                                                temporal.Date(2024, 2, 29), "FLOAT64")
    rel = round_trip(Relationship(3, "KNOWS", 1, 2, {"since": 1999}))
    assert (rel.id, rel.type, rel.start_id, rel.end_id, rel.properties) == (3, "KNOWS", 1, 2, {"since": 1999})


def test_vector_keeps_type_dimension_and_bytes():
    vector = round_trip(Vector(np.arange(384, dtype=np.float32) / 7, "FLOAT32"))
    assert vector.dimension == 384 and vector.coordinate_type == "FLOAT32"
    assert vector.to_numpy().dtype == np.float32
    assert np.array_equal(vector.to_numpy(), np.arange(384, dtype=np.float32) / 7)


def test_nan_and_infinity_survive():
    out = round_trip([math.inf, -math.inf, math.nan])
    assert out[:2] == [math.inf, -math.inf] and math.isnan(out[2])


def test_python_datetime_parameters_become_relate_temporals():
    out = round_trip([dt.date(2020, 5, 17), dt.datetime(2020, 5, 17, 8, 30, tzinfo=dt.timezone.utc),
                      dt.datetime(2020, 5, 17, 8, 30), dt.time(8, 30), dt.timedelta(days=2, seconds=5)])
    assert [type(v) for v in out] == [temporal.Date, temporal.DateTime, temporal.LocalDateTime,
                                      temporal.LocalTime, Duration]
    assert out[4] == Duration(days=2, seconds=5)


def test_unknown_ext_types_stay_structures_and_codec_without_hooks_keeps_them():
    bare = Codec()
    packed = codec.pack(Node(1, ["X"], {}))
    structure = bare.unpack(packed)
    assert structure == Structure(wire.NODE, [1, ["X"], {}])
    assert bare.pack(structure) == packed


@pytest.mark.parametrize("value", [object(), 2 ** 64, {1, 2j}])
def test_unencodable_values_raise_codec_error(value):
    with pytest.raises(CodecError):
        codec.pack(value)


@pytest.mark.parametrize("data", [b"\xc1", b"\x92\x01", b"\xd9\x05ab", b"\xc7\x02\x01\x91\x00",
                                  b"\xc7\x03\x04\x93\xa1X", bytes([0xdd, 0xff, 0xff, 0xff, 0xff])])
def test_garbage_raises_codec_error(data):
    with pytest.raises(CodecError):
        codec.unpack(data)


def _deep(levels):
    value = []
    for _ in range(levels):
        value = [value]
    return value


@pytest.mark.parametrize("shape", ["list tail", "map value", "list head"])
def test_too_deep_found_behind_long_runs_of_scalars(shape):
    """Long lists of scalars are passed over quickly by the depth check, but a deep value hidden
    among (or after) many scalars is still refused, whatever its position."""
    deep = _deep(wire.MAX_DEPTH + 5)
    floats = [0.5] * 400
    value = {"list tail": floats + [deep], "map value": {**{f"k{i}": i for i in range(40)}, "z": deep},
             "list head": [deep] + floats}[shape]
    with pytest.raises(wire.ValueTooDeep):
        wire.check_depth([value], wire.MAX_DEPTH)


def test_long_flat_parameter_list_decodes_within_the_depth_limit():
    value = {"v": [float(i) for i in range(384)], "ids": list(range(1000)), "names": ["a"] * 50}
    assert value_codec(strict=True).unpack(codec.pack(value)) == value
