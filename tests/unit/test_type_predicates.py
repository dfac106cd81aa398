"""Type predicate expressions (Neo4j 5 / GQL): ``x IS [NOT] :: TYPE``, ``x IS [NOT] TYPED TYPE``, ``x :: TYPE``,
with unions, NOT NULL, LIST<...>, graph types, ANY, NULL, NOTHING and PROPERTY VALUE."""
from __future__ import annotations

import pytest

from relate.errors import ConstraintValidationFailed, CypherSyntaxError
from tests.helpers import rows


def one(db, text):
    (row,) = rows(db, text)
    return row


def test_scalars_nulls_and_negation(db):
    assert one(db, "RETURN 1 IS :: INTEGER, 1 IS NOT :: STRING, 1.5 IS TYPED FLOAT, 'a' IS NOT TYPED STRING, "
                   "true :: BOOLEAN, null IS :: INTEGER, null IS :: INTEGER NOT NULL, null IS NOT :: INT NOT NULL") \
        == (True, True, True, False, True, True, False, True)


def test_unions_lists_and_aliases(db):
    assert one(db, "RETURN 'x' IS :: INTEGER | STRING, 2.5 IS :: ANY<INTEGER | STRING>, "
                   "[1, 2] IS :: LIST<INTEGER NOT NULL>, [1, null] IS :: LIST<INTEGER NOT NULL>, "
                   "[1, null] IS :: LIST<INTEGER>, [1, 'a'] IS :: LIST<INTEGER | STRING>, [] IS :: LIST<NOTHING>, "
                   "1 IS :: LIST<ANY>, 1 IS :: SIGNED INTEGER, true IS :: BOOL") \
        == (True, False, True, False, True, True, True, False, True, True)


def test_temporal_spatial_graph_and_catch_all_types(db):
    rows(db, "CREATE (:A {x: 1, tags: ['t']})-[:R]->(:B)")
    assert one(db, "MATCH p = (a:A)-[r]->(b) RETURN a IS :: NODE, r IS :: RELATIONSHIP, p IS :: PATH, "
                   "a IS :: ANY NODE, r IS :: EDGE, {k: 1} IS :: MAP, a.x IS :: PROPERTY VALUE, "
                   "a.tags IS :: PROPERTY VALUE, {k: 1} IS :: PROPERTY VALUE, a IS :: ANY, null IS :: NULL, "
                   "1 IS :: NULL, null IS :: NOTHING") \
        == (True, True, True, True, True, True, True, True, False, True, True, False, False)
    assert one(db, "RETURN date() IS :: DATE, datetime() IS :: ZONED DATETIME, localdatetime() IS :: "
                   "TIMESTAMP WITHOUT TIME ZONE, localtime() IS :: LOCAL TIME, time() IS :: ZONED TIME, "
                   "duration('P1D') IS :: DURATION, point({x: 1, y: 2}) IS :: POINT") == (True,) * 7


def test_in_where_and_before_other_clauses(db):
    assert rows(db, "UNWIND [1, 'a', 2.5, null, [1]] AS v WITH v WHERE v IS :: INTEGER | FLOAT "
                    "WITH v RETURN collect(v)") == [([1, 2.5],)]
    assert one(db, "UNWIND [1, 'a'] AS v RETURN count(CASE WHEN v IS :: STRING THEN 1 END)") == (1,)
    assert rows(db, "UNWIND ['b', 1, 'a'] AS v WITH v WHERE v IS :: STRING RETURN v ORDER BY v IS :: STRING "
                    "DESC, v") == [("a",), ("b",)]


def test_unknown_types_are_syntax_errors(db):
    with pytest.raises(CypherSyntaxError, match="Unknown type"):
        rows(db, "RETURN 1 IS :: FOO")
    with pytest.raises(CypherSyntaxError):
        rows(db, "RETURN 1 IS ::")


def test_vector_types_name_coordinates_and_dimension(db):
    """VECTOR, VECTOR<T>, VECTOR(n) and VECTOR<T>(n); INT8 and INTEGER8 are one coordinate type."""
    row = rows(db, "WITH vector([1, 2], 2, INT8) AS v RETURN v IS :: VECTOR, v IS :: VECTOR<INTEGER8>, "
                   "v IS :: VECTOR<INT8>(2), v IS :: VECTOR(2), v IS :: VECTOR<FLOAT32>(2), v IS :: VECTOR(3), "
                   "[1, 2] IS :: VECTOR, null IS :: VECTOR<INT8>(2), null IS :: VECTOR<INT8>(2) NOT NULL")[0]
    assert row == (True, True, True, True, False, False, False, True, False)


def test_unknown_vector_types_are_refused(db):
    for written in ("VECTOR<FOO>", "VECTOR(0)"):
        with pytest.raises(CypherSyntaxError, match="Unknown type"):
            rows(db, f"RETURN 1 IS :: {written}")


def test_a_property_type_constraint_can_require_a_vector_shape(db):
    rows(db, "CREATE CONSTRAINT vc FOR (n:V) REQUIRE n.v IS :: VECTOR<FLOAT32>(2)")
    rows(db, "CREATE (:V {v: vector([1, 2], 2, FLOAT32)})")
    with pytest.raises(ConstraintValidationFailed, match=r"VECTOR<FLOAT32>\(2\)"):
        rows(db, "CREATE (:V {v: vector([1, 2, 3], 3, FLOAT32)})")
    assert rows(db, "SHOW CONSTRAINTS YIELD name, propertyType") == [("vc", "VECTOR<FLOAT32>(2)")]
