"""SHOW DATABASE[S] / SHOW DEFAULT DATABASE / SHOW HOME DATABASE: the one database, as Neo4j tools expect."""
from __future__ import annotations

import pytest

from relate.errors import CypherSyntaxError
from tests.helpers import rows


def test_show_databases_lists_the_one_online_database(db):
    shown = rows(db, "SHOW DATABASES YIELD name, type, access, currentStatus, default, home, writer "
                     "RETURN name, type, access, currentStatus, default, home, writer")
    assert shown == [("neo4j", "standard", "read-write", "online", True, True, True)]
    columns = db.session().run("SHOW DATABASES").columns
    assert list(columns)[:4] == ["name", "type", "aliases", "access"] and "default" in columns


def test_show_database_by_name_and_the_default_and_home_forms(db):
    assert rows(db, "SHOW DATABASE neo4j YIELD name RETURN name") == [("neo4j",)]
    assert rows(db, "SHOW DATABASE 'neo4j' YIELD name RETURN name") == [("neo4j",)]
    assert rows(db, "SHOW DATABASE other YIELD name RETURN name") == []
    for form in ("DEFAULT", "HOME"):
        session = db.session()
        result = session.run(f"SHOW {form} DATABASE")
        assert "default" not in result.columns and "home" not in result.columns
        assert [row[0] for row in result.fetch(10)] == ["neo4j"]


def test_show_databases_where_and_yield_star(db):
    assert rows(db, "SHOW DATABASES WHERE name = 'neo4j' AND currentStatus = 'online' RETURN name") == [("neo4j",)]
    (row,) = rows(db, "SHOW DATABASES YIELD * RETURN lastCommittedTxn >= 0, replicationLag")
    assert row == (True, 0)
    with pytest.raises(CypherSyntaxError):
        rows(db, "SHOW DATABASES YIELD nope RETURN nope")


def test_the_new_words_stay_usable_as_names(db):
    assert rows(db, "WITH 1 AS home, 2 AS default, 3 AS database, 4 AS databases "
                    "RETURN home + default + database + databases") == [(10,)]
