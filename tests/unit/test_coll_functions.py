"""Cypher 25's coll.* functions (Neo4j 2025.11), the bare metric words of vector_distance / vector_norm and
toFloatList / toIntegerList of a VECTOR (Neo4j 2025.10), as Neo4j answers them."""
from __future__ import annotations

import math
import re

import pytest

from relate.errors import ArgumentError, CypherSyntaxError, CypherTypeError
from tests.helpers import rows

EXPECTED = {
    "coll.distinct([1, 1.0, 2, '2', null, null, [1], [1], {a: 1}, {a: 1}])": [1, 2, "2", None, [1], {"a": 1}],
    "coll.distinct([1.0, 1])": [1.0],
    "coll.distinct([[1, 1.0], [1.0, 1]])": [[1, 1.0]],
    "coll.distinct([])": [],
    "coll.flatten([1, [2, [3, [4]]], [], null])": [1, 2, [3, [4]], None],
    "coll.flatten([1, [2, [3, [4]]]], 0)": [1, [2, [3, [4]]]],
    "coll.flatten([1, [2, [3, [4]]]], 2)": [1, 2, 3, [4]],
    "coll.flatten([1, [2, [3, [4]]]], 10)": [1, 2, 3, 4],
    "coll.indexOf([1, 2, 1.0, null], 1.0)": 0,
    "coll.indexOf([null, 1], 1)": 1,
    "coll.indexOf([[1], {a: 1}], {a: 1})": 1,
    "coll.indexOf([[1, null]], [1, null])": -1,
    "coll.indexOf([1, 2], '1')": -1,
    "coll.insert([1, 2, 3], 0, 'x')": ["x", 1, 2, 3],
    "coll.insert([1, 2, 3], 3, 'x')": [1, 2, 3, "x"],
    "coll.insert([1, 2, 3], 1, null)": [1, None, 2, 3],
    "coll.max([1, 2.5, 'a', null, [1], true])": None,
    "coll.max([1, 1.0])": 1,
    "coll.max([[1], [1, 2], [0, 9]])": [1, 2],
    "coll.min([1, 2.5, 'a', null, [1], true])": [1],
    "coll.min([1.0, 1])": 1.0,
    "coll.min([null, 3])": 3,
    "coll.remove(['a', 'a', 'b', 'c', 'd'], 2)": ["a", "a", "c", "d"],
    "coll.sort([3, 'a', 1.5, null, [2], true, {a: 1}, 2])": [{"a": 1}, [2], "a", True, 1.5, 2, 3, None],
    "coll.sort(['b', 'A', 'a', 'ä', 'z'])": ["A", "a", "b", "z", "ä"],
    "coll.sort([[2, 1], [1, 2], [1], [1, null]])": [[1], [1, 2], [1, None], [2, 1]],
}


@pytest.mark.parametrize("call", sorted(EXPECTED))
def test_coll_functions_answer_as_neo4j(db, call):
    (got,), = rows(db, f"RETURN {call} AS x")
    assert got == EXPECTED[call]
    assert [type(v) for v in (got if type(got) is list else [got])] == \
        [type(v) for v in (EXPECTED[call] if type(got) is list else [EXPECTED[call]])]     # 1 stays 1, 1.0 stays 1.0


def test_null_arguments_give_null(db):
    assert rows(db, "RETURN coll.distinct(null), coll.flatten(null), coll.flatten([1], null), coll.indexOf(null, 1), "
                    "coll.indexOf([1], null), coll.insert(null, 0, 1), coll.insert([1], null, 2), coll.max(null), "
                    "coll.min(null), coll.remove([1], null), coll.sort(null)") == [(None,) * 11]


def test_nan_sorts_above_numbers_and_never_repeats(db):
    distinct, largest, ordered = rows(db, "RETURN coll.distinct([0.0/0.0, 0.0/0.0, 1]), coll.max([1, 0.0/0.0]), "
                                          "coll.sort([2, 0.0/0.0, 1])")[0]
    assert len(distinct) == 3 and math.isnan(largest) and ordered[:2] == [1, 2] and math.isnan(ordered[2])


@pytest.mark.parametrize("call, message", [
    ("coll.flatten([1, [2]], -1)", "Function argument to 'coll.flatten()' is out of range"),
    ("coll.insert([1, 2, 3], 4, 'x')", "Function argument to 'coll.insert()' is out of range"),
    ("coll.insert([1, 2, 3], -1, 'x')", "Function argument to 'coll.insert()' is out of range"),
    ("coll.remove([1, 2, 3], 3)", "Function argument to 'coll.remove()' is out of range"),
    ("coll.remove([], 0)", "The argument `list` in the `coll.remove()` function must not be empty."),
])
def test_indexes_out_of_range_are_argument_errors(db, call, message):
    with pytest.raises(ArgumentError, match=re.escape(message)):
        rows(db, f"RETURN {call}")


def test_wrong_types_and_arity_are_typed_errors(db):
    with pytest.raises(CypherTypeError, match="coll.max"):
        rows(db, "WITH 'abc' AS s RETURN coll.max(s)")
    with pytest.raises(CypherTypeError, match="coll.remove"):
        rows(db, "WITH 1.0 AS i RETURN coll.remove([1, 2], i)")
    with pytest.raises(CypherSyntaxError, match="Too many parameters for function 'coll.sort'"):
        rows(db, "RETURN coll.sort([1], [2])")
    with pytest.raises(CypherSyntaxError, match="Insufficient parameters for function 'coll.insert'"):
        rows(db, "RETURN coll.insert([1], 0)")


def test_show_functions_lists_them(db):
    names = rows(db, "SHOW FUNCTIONS YIELD name WHERE name STARTS WITH 'coll.' RETURN collect(name)")[0][0]
    assert names == ["coll.distinct", "coll.flatten", "coll.indexOf", "coll.insert", "coll.max", "coll.min",
                     "coll.remove", "coll.sort"]


def test_vector_metrics_are_bare_words_as_in_neo4j(db):
    row = rows(db, "WITH vector([3.0, 4.0], 2, FLOAT32) AS v, vector([0.0, 0.0], 2, FLOAT32) AS o "
                   "RETURN vector_distance(v, o, EUCLIDEAN), vector_distance(v, o, EUCLIDEAN_SQUARED), "
                   "vector_distance(v, o, MANHATTAN), vector_norm(v, EUCLIDEAN), vector_norm(v, MANHATTAN), "
                   "vector_distance([1.0, 0.0], [0.0, 1.0], 'euclidean')")[0]
    assert row == (5.0, 25.0, 7.0, 5.0, 7.0, pytest.approx(math.sqrt(2)))
    with pytest.raises(CypherSyntaxError, match="Variable `CHEBYSHEV` not defined"):
        rows(db, "RETURN vector_distance([1.0], [2.0], CHEBYSHEV)")


def test_a_variable_named_like_a_metric_elsewhere_stays_a_variable(db):
    assert rows(db, "WITH 2 AS EUCLIDEAN RETURN EUCLIDEAN + 1") == [(3,)]


def test_vectors_convert_to_lists(db):
    assert rows(db, "RETURN toFloatList(vector([1, 2], 2, INT8)), toIntegerList(vector([1.7, -2.5], 2, FLOAT64)), "
                    "toFloatList(vector([0.5], 1, FLOAT32))") == [([1.0, 2.0], [1, -2], [0.5])]


def test_coordinate_types_and_normal_forms_are_bare_words_too(db):
    vec, text = rows(db, "RETURN vector([1, 2], 2, FLOAT32), normalize('Å', NFD)")[0]
    assert vec.coordinate_type == "FLOAT32" and vec.dimension == 2 and text == "A\u030a"
