"""Cypher 25 clauses: LET (WITH *, e AS x, item by item), FILTER [WHERE] (WITH * WHERE), FINISH (no rows)."""
from __future__ import annotations

import pytest

from relate.errors import CypherSyntaxError
from tests.helpers import rows


@pytest.fixture
def people(db):
    rows(db, "CREATE (:P {name: 'a', age: 30}), (:P {name: 'b', age: 20}), (:P {name: 'c'})")
    return db


def test_let_binds_values_and_later_items_see_earlier_ones(people):
    assert rows(people, "LET x = 1 RETURN x") == [(1,)]
    assert rows(people, "MATCH (n:P) LET a = n.age, b = a * 2 WITH n, b WHERE b > 50 RETURN n.name, b") == [("a", 60)]


def test_filter_with_or_without_where(people):
    assert rows(people, "MATCH (n:P) FILTER n.age > 25 RETURN n.name") == [("a",)]
    assert rows(people, "MATCH (n:P) FILTER WHERE n.age IS NULL RETURN n.name") == [("c",)]
    assert rows(people, "MATCH (n:P) LET a = n.age FILTER a < 25 RETURN n.name, a") == [("b", 20)]


def test_finish_runs_the_query_and_returns_nothing(people):
    session = people.session()
    result = session.run("MATCH (n:P) SET n.seen = true FINISH")
    assert list(result.columns) == [] and result.fetch(10) == []
    assert result.consume().counters.properties_set == 3
    assert rows(people, "MATCH (n:P) WHERE n.seen RETURN count(*)") == [(3,)]
    assert rows(people, "MATCH (n:P) FINISH") == []


def test_finish_must_be_last(people):
    with pytest.raises(CypherSyntaxError, match="FINISH can only be the last clause"):
        rows(people, "MATCH (n) FINISH RETURN 1")


def test_the_new_words_stay_usable_as_names(db):
    assert rows(db, "WITH 1 AS let, 2 AS filter, 3 AS finish RETURN let + filter + finish") == [(6,)]
