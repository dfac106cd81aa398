"""Expressions of parameters and literals only (``datetime($since).epochMillis``) are computed once per
statement, not once per row, and answer as before; row-dependent and volatile ones still run per row.
Every occurrence of the same such expression in a statement shares the one value."""
from relate.server.query.exec.functions import temporal
from tests.helpers import rows, run


def parsed_texts(monkeypatch) -> list:
    """The temporal strings parsed from now on, in order (temporal._parse counted)."""
    calls: list = []
    parse = temporal._parse

    def counting(kind, text, zone):
        calls.append(text)
        return parse(kind, text, zone)
    monkeypatch.setattr(temporal, "_parse", counting)
    return calls


def test_a_parameter_only_filter_is_parsed_once_per_statement(db, monkeypatch):
    calls = parsed_texts(monkeypatch)
    text = ("UNWIND range(0, 99) AS i WITH i WHERE i * 1000 >= datetime($since).epochMillis "
            "RETURN count(*) AS c, min(i) AS first")
    assert rows(db, text, {"since": "1970-01-01T00:00:50Z"}) == [(50, 50)]
    assert calls == ["1970-01-01T00:00:50Z"]
    # the next statement computes its own value
    assert rows(db, text, {"since": "1970-01-01T00:01:30Z"}) == [(10, 90)]
    assert len(calls) == 2


def test_values_per_row_stay_per_row(db):
    assert rows(db, "UNWIND [1, 2, 3] AS i RETURN i + toInteger($x) AS y, toUpper($s) + toString(i) AS z",
                {"x": "10", "s": "a"}) == [(11, "A1"), (12, "A2"), (13, "A3")]
    # rand() is volatile: a value per row
    assert len({r[0] for r in rows(db, "UNWIND range(1, 50) AS i RETURN rand() AS r")}) > 1
    # lists are built again per use: changing one row's list leaves the others alone
    assert rows(db, "UNWIND [1, 2] AS i WITH i, reverse($xs) AS l RETURN l + [i] AS l",
                {"xs": [1, 2]}) == [([2, 1, 1],), ([2, 1, 2],)]


def test_a_failing_parameter_expression_fails_each_statement(db):
    import pytest
    from relate.protocol.errors import RelateError
    for _ in range(2):
        with pytest.raises(RelateError):
            rows(db, "UNWIND [1, 2] AS i RETURN datetime($since) AS d", {"since": "not a date"})


def test_every_occurrence_of_one_expression_shares_the_value(db, monkeypatch):
    run(db, "UNWIND range(1, 50) AS i CREATE (:E {ts: i * 1000})")
    calls = parsed_texts(monkeypatch)
    text = ("MATCH (e:E) WHERE e.ts >= datetime($since).epochMillis RETURN count(e) AS c "
            "UNION ALL MATCH (e:E) WHERE e.ts < datetime($since).epochMillis + 1 RETURN count(e) AS c")
    assert rows(db, text, {"since": "1970-01-01T00:00:10Z"}) == [(41,), (10,)]
    assert calls == ["1970-01-01T00:00:10Z"]
    # different expressions keep their own values; the next statement computes again
    assert rows(db, "RETURN datetime($a).epochMillis AS a, datetime($b).epochMillis AS b",
                {"a": "1970-01-01T00:00:01Z", "b": "1970-01-01T00:00:02Z"}) == [(1000, 2000)]
    assert rows(db, text, {"since": "1970-01-01T00:00:20Z"}) == [(31,), (20,)]
    assert calls == ["1970-01-01T00:00:10Z", "1970-01-01T00:00:01Z", "1970-01-01T00:00:02Z",
                     "1970-01-01T00:00:20Z"]
