"""SHOW FUNCTIONS / SHOW PROCEDURES come from the registries: every routine listed, with a description."""
from __future__ import annotations

from relate.server.query.exec import functions
from tests.helpers import rows


def test_show_functions_lists_the_whole_registry_with_descriptions(db):
    shown = rows(db, "SHOW FUNCTIONS YIELD name, category, description, aggregating "
                     "RETURN name, category, description, aggregating")
    names = {r[0] for r in shown}
    assert names == {info.name for info in functions.catalog()} and len(names) > 124
    assert {"toUpper", "datetime.fromEpochMillis", "duration.inDays", "text.trigram.similarity",
            "percentileCont", "ai.text.embed"} <= names           # spelled as users write them
    assert all(description for _, _, description, _ in shown)
    assert ("collect", "Aggregating", "A list of the non-null values.", True) in shown
    # every registered function, temporal ones included, declares its arity the same way
    assert functions.arity("date.truncate") == (1, 3) and functions.arity("toUpper") == (1, 1)


def test_show_procedures_lists_the_registry_with_descriptions(db):
    shown = rows(db, "SHOW PROCEDURES YIELD name, description RETURN name, description")
    assert {name for name, _ in shown} == {p.name for p in db.procedures.all()}
    assert all(description for _, description in shown)
