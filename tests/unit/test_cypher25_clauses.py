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


# -- ORDER BY, SKIP/OFFSET and LIMIT as clauses of their own (Neo4j 5.24+, Cypher 25) ------------------------

@pytest.fixture
def numbers(db):
    rows(db, "UNWIND range(1, 5) AS i CREATE (:N {x: i})")
    return db


def test_standalone_order_by_skip_limit_page_the_rows_they_are_given(numbers):
    assert rows(numbers, "MATCH (n:N) ORDER BY n.x DESC LIMIT 2 RETURN n.x") == [(5,), (4,)]
    assert rows(numbers, "MATCH (n:N) ORDER BY n.x OFFSET 3 RETURN n.x") == [(4,), (5,)]
    assert rows(numbers, "MATCH (n:N) ORDER BY n.x SKIP 1 LIMIT 2 RETURN collect(n.x) AS xs") == [([2, 3],)]
    assert rows(numbers, "MATCH (n:N) LIMIT 2 RETURN count(*)") == [(2,)]
    assert rows(numbers, "MATCH (n:N) WITH n.x AS x WHERE x > 1 ORDER BY x DESC SKIP 1 LIMIT 1 RETURN x") == [(4,)]
    assert rows(numbers, "MATCH (n:N) ORDER BY n.x LIMIT 2 ORDER BY n.x DESC LIMIT 1 RETURN n.x") == [(2,)]


def test_standalone_paging_before_an_update_limits_what_is_updated(numbers):
    assert rows(numbers, "MATCH (n:N) ORDER BY n.x DESC LIMIT 1 SET n.top = true RETURN n.x") == [(5,)]
    assert rows(numbers, "MATCH (n:N) WHERE n.top RETURN collect(n.x)") == [([5],)]


def test_standalone_paging_checks_like_with(numbers):
    with pytest.raises(CypherSyntaxError, match="Variable `m` not defined"):
        rows(numbers, "MATCH (n:N) ORDER BY m.x RETURN n.x")
    with pytest.raises(CypherSyntaxError, match="LIMIT"):
        rows(numbers, "MATCH (n:N) LIMIT -1 RETURN n.x")
