"""A procedure without outputs inside a query passes its input rows on (the one row a query starts
with included); called on its own it returns no rows; OPTIONAL does not add a second row."""
from tests.helpers import rows


def test_a_void_procedure_passes_rows_on(db):
    assert rows(db, "CALL db.awaitIndexes() RETURN 1 AS x") == [(1,)]
    assert rows(db, "CALL db.awaitIndexes()") == []
    assert rows(db, "UNWIND [1, 2] AS y CALL db.awaitIndexes() RETURN y") == [(1,), (2,)]
    assert rows(db, "CALL { CALL db.awaitIndexes() RETURN 2 AS z } RETURN z") == [(2,)]


def test_optional_call_of_a_void_procedure_keeps_one_row_each(db):
    assert rows(db, "OPTIONAL CALL db.awaitIndexes() RETURN 3 AS w") == [(3,)]
    assert rows(db, "UNWIND [1, 2] AS y OPTIONAL CALL db.awaitIndexes() RETURN y") == [(1,), (2,)]
