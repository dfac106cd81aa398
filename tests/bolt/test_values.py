"""Relate values <-> Bolt structures (server side), without a network: the cases the driver tests
cannot reach (Bolt 5 clients, hostile structures)."""
import pytest

from relate import temporal
from relate.protocol.bolt.handshake import BoltVersion
from relate.protocol.bolt.packstream import Packer, PackStreamError, Structure, Unpacker
from relate.server.net.bolt_values import BoltValueError, dehydrator, hydrator
from relate.values import Duration, Node, Path, Point, Relationship, Vector

V5, V6 = BoltVersion(5, 8), BoltVersion(6, 0)


def _through(value, version=V6):
    """Pack as the server sends it, then read back the raw structures."""
    return Unpacker().unpack(Packer(dehydrator(version)).pack(value))


def _hydrated(structure, version=V6):
    return Unpacker(hydrator(version)).unpack(Packer().pack(structure))


def test_vectors_are_structures_on_bolt_6_and_lists_before():
    vector = Vector([1.5, -2.0], "FLOAT32")
    on6 = _through(vector)
    assert on6.tag == ord("V") and on6.fields == [b"\xC6", bytes.fromhex("3FC00000 C0000000")]
    assert _through(vector, V5) == [1.5, -2.0]
    back = _hydrated(on6)
    assert isinstance(back, Vector) and back.coordinate_type == "FLOAT32" and back.tolist() == [1.5, -2.0]
    with pytest.raises(PackStreamError):
        _hydrated(on6, V5)                         # no Vector type before Bolt 6


def test_path_walked_against_a_relationship_uses_a_negative_index():
    a, b = Node(1, ["A"]), Node(2, ["B"])
    knows = Relationship(10, "KNOWS", 1, 2)
    path = _through(Path([a, b, a], [knows, knows]))           # a -> b, then back over the same edge
    nodes, rels, indices = path.fields
    assert [n.fields[3] for n in nodes] == ["n:1", "n:2"]
    assert [r.fields[3] for r in rels] == ["r:10"] and rels[0].tag == ord("r")
    assert indices == [1, 1, -1, 0]


def test_relationship_carries_element_ids_of_its_ends():
    rel = _through(Relationship(7, "T", 3, 4, {"w": 1}))
    assert rel.fields == [7, 3, 4, "T", {"w": 1}, "r:7", "n:3", "n:4"]


@pytest.mark.parametrize("value", [
    temporal.Date(1969, 12, 31), temporal.LocalDateTime(1960, 1, 1, 0, 0, 0, nanosecond=1),
    temporal.LocalTime(0, 0, 0, nanosecond=5), temporal.Time.parse("10:00+05:30"),
    temporal.DateTime.parse("2024-10-27T02:30:00.000000007[Europe/Paris]"),
    temporal.DateTime.parse("1901-01-01T00:00:00-03:00"), Duration(-1, 2, -3, 4),
])
def test_temporals_round_trip_through_their_structures(value):
    structure = _through(value)
    back = _hydrated(structure)
    assert back == value and type(back) is type(value)
    if isinstance(value, temporal.DateTime):
        assert back.zone_id == value.zone_id


def test_named_zones_use_the_zone_id_form():
    assert _through(temporal.DateTime.parse("2024-01-01T00:00[Asia/Tokyo]")).tag == ord("i")
    assert _through(temporal.DateTime.parse("2024-01-01T00:00+09:00")).tag == ord("I")


@pytest.mark.parametrize("value, tag", [
    (Point.cartesian(1.5, -2.0), b"X"), (Point.wgs84(12.5, 55.6), b"X"), (Point.cartesian(1.0, 2.0, 3.0), b"Y"),
    (Point.wgs84(-0.1, 51.5, 35.0), b"Y"),
])
def test_points_round_trip_as_point2d_and_point3d(value, tag):
    structure = _through(value)
    assert structure.tag == ord(tag) and structure.fields == [value.srid, *value.coordinates]
    back = _hydrated(structure)
    assert back == value and type(back) is Point


@pytest.mark.parametrize("structure", [
    Structure(b"X", [7203, 1.0]), Structure(b"X", [9999, 1.0, 2.0]), Structure(b"Y", [7203, 1.0, 2.0, 3.0]),
    Structure(b"X", [9157, 1.0, 2.0]), Structure(b"X", [7203, "a", 2.0]), Structure(b"X", ["7203", 1.0, 2.0]),
    Structure(b"N", [1, [], {}, "n:1"]), Structure(b"D", ["x"]), Structure(b"D", [1, 2]),
    Structure(b"i", [0, 0, "Not/AZone"]), Structure(b"E", [1, 2, 3]), Structure(b"Q", []),
    Structure(b"D", [10 ** 12]), Structure(b"V", [b"\xC6", b"\x00\x00\x00"]), Structure(b"V", [b"\xAA", b""]),
])
def test_hostile_or_unsupported_parameters_are_typed_errors(structure):
    with pytest.raises(PackStreamError) as caught:
        _hydrated(structure)
    assert caught.value.code in ("Neo.ClientError.Statement.TypeError", "Neo.ClientError.Request.InvalidFormat")
    assert isinstance(caught.value, BoltValueError) or caught.value.code.endswith("InvalidFormat")
