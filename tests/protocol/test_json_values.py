"""Typed and plain JSON values: round trips, and typed errors for hostile input."""
import pytest

from relate.errors import ClientError
from relate.protocol.json_values import from_typed, to_plain, to_typed, typed_parameters
from relate.temporal import DateTime
from relate.values import Duration, Node, Path, Relationship, Vector


@pytest.mark.parametrize("value", [
    None, True, 0, -2 ** 63, 2 ** 63 - 1, 0.1, float("inf"), "", "snow \u2603", b"\x00\xff", [1, [2, "x"]],
    {"a": {"b": [None]}}, Duration(months=14, days=3, seconds=4, nanoseconds=7),
    DateTime.parse("2024-07-01T12:00:00.000000001[Europe/Stockholm]"), Vector([1.0, 2.5], "FLOAT64"),
])
def test_round_trip(value):
    assert from_typed(to_typed(value)) == value


def test_entities_round_trip():
    a, b = Node(1, ["A"], {"x": 2 ** 60}), Node(2, ["B"], {})
    r = Relationship(7, "R", 1, 2, {"w": 0.5})
    path = from_typed(to_typed(Path([a, b], [r])))
    assert list(path.nodes) == [a, b] and list(path.relationships) == [r]
    assert path.nodes[0]["x"] == 2 ** 60 and path.relationships[0]["w"] == 0.5
    assert to_plain(r)["startNodeElementId"] == to_plain(a)["elementId"]


@pytest.mark.parametrize("bad", [
    {"$type": "Integer", "_value": "1" * 30}, {"$type": "Integer", "_value": str(2 ** 63)},
    {"$type": "Integer", "_value": 5}, {"$type": "Float", "_value": "x"}, {"$type": "Base64", "_value": "%%"},
    {"$type": "Nope", "_value": 1}, {"_value": 1}, [1], {"$type": "Node", "_value": {"_element_id": "x"}},
    {"$type": "Path", "_value": [{"$type": "Integer", "_value": "1"}]}, {"$type": "Date", "_value": "2024-13-45"},
    {"$type": "Vector", "_value": {"coordinatesType": "WEIRD", "coordinates": []}},
    {"$type": "Boolean", "_value": "true"}, {"$type": "Map", "_value": []},
])
def test_hostile_values_raise_client_errors(bad):
    with pytest.raises(ClientError):
        from_typed(bad)


def test_depth_is_bounded():
    deep = {"$type": "Null", "_value": None}
    for _ in range(1000):
        deep = {"$type": "List", "_value": [deep]}
    with pytest.raises(ClientError, match="nested deeper"):
        typed_parameters({"p": deep})


@pytest.mark.parametrize("kind, value", [("INT8", "300"), ("INT16", "-40000"), ("INTEGER32", "9999999999")])
def test_a_vector_coordinate_outside_its_type_is_a_typed_error(kind, value):
    typed = {"v": {"$type": "Vector", "_value": {"coordinatesType": kind, "coordinates": ["1", value]}}}
    with pytest.raises(ClientError) as caught:
        typed_parameters(typed)
    assert caught.value.code == "Neo.ClientError.Request.InvalidFormat"
