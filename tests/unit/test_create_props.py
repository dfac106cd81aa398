"""CREATE's property maps: taken by the store without a second copy when already clean (interned keys,
scalar values), and still copied, checked and interned when not; parameter row batches are not copied."""
from __future__ import annotations

import sys

import pytest

from relate.protocol.conversion import to_parameters
from relate.protocol.errors import CypherTypeError
from tests.helpers import rows as fetch


def _stored(db, label: str) -> list[dict]:
    store = db.store
    return [version.props for version in store._nodes.values()
            if version.props is not None and label in version.labels]


def test_a_load_batch_stores_every_value_with_the_interned_keys(db, session):
    rows = [{"id": i, "name": f"n{i}", "score": i * 0.5, "tags": ["a", "b"]} for i in range(50)]
    session.run("UNWIND $rows AS r CREATE (:N {id: r.id, name: r.name, score: r.score, tags: r.tags})",
                {"rows": rows}).consume()
    stored = sorted(_stored(db, "N"), key=lambda props: props["id"])
    assert [p["id"] for p in stored] == list(range(50))
    assert stored[7] == {"id": 7, "name": "n7", "score": 3.5, "tags": ["a", "b"]}
    for props in stored:
        for key in props:
            assert key is sys.intern(key)
    rows[0]["tags"].append("changed later")        # the store holds its own copy of a list
    assert stored[0]["tags"] == ["a", "b"]
    assert fetch(session, "MATCH (n:N {id: 0}) RETURN n.tags AS tags") == [(["a", "b"],)]


def test_a_parameter_map_with_nulls_and_temporal_values_is_cleaned(db, session):
    session.run("UNWIND $rows AS r CREATE (:M {a: r.a, b: r.b, when: date(r.d)})",
                {"rows": [{"a": 1, "b": None, "d": "2026-01-02"}]}).consume()
    (props,) = _stored(db, "M")
    assert set(props) == {"a", "when"}          # the null is not stored
    assert fetch(session, "MATCH (m:M) RETURN m.a, m.b, toString(m.when)") == [(1, None, "2026-01-02")]


def test_create_from_a_map_parameter_interns_its_keys(db, session):
    key = "".join(["dyn", "amic"])               # a str not interned by the compiler
    session.run("CREATE (:P $props)", {"props": {key: 1}}).consume()
    (props,) = _stored(db, "P")
    assert next(iter(props)) is sys.intern("dynamic")


def test_relationship_properties_take_the_same_path(db, session):
    session.run("CREATE (a:A), (b:B)").consume()
    session.run("UNWIND $rows AS r MATCH (a:A), (b:B) CREATE (a)-[:R {w: r.w, xs: r.xs}]->(b)",
                {"rows": [{"w": 2, "xs": [1, 2]}]}).consume()
    assert fetch(session, "MATCH ()-[r:R]->() RETURN r.w, r.xs") == [(2, [1, 2])]


def test_plain_row_batches_are_passed_on_without_a_copy():
    rows = [{"id": i, "name": "x", "score": 0.5, "ok": True, "none": None} for i in range(100)]
    assert to_parameters({"rows": rows})["rows"] is rows
    ids = list(range(1000))
    assert to_parameters({"ids": ids})["ids"] is ids


@pytest.mark.parametrize("rows, message", [
    ([{"id": 1}, {"id": 1 << 64}], "does not fit in 64 bits"),
    ([{"id": 1}, {2: "x"}], "map keys must be strings"),
    ([{"id": 1}, {"x": object()}], "not supported"),
])
def test_a_row_batch_with_one_bad_value_is_refused(rows, message):
    with pytest.raises(CypherTypeError, match=message):
        to_parameters({"rows": rows})


def test_row_values_needing_conversion_are_converted():
    converted = to_parameters({"rows": [{"id": 1}, {"xs": (1, 2)}]})["rows"]
    assert converted == [{"id": 1}, {"xs": [1, 2]}]
    assert type(converted[1]["xs"]) is list
