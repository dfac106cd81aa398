"""Neo4j 5's user administration forms: SET PASSWORD CHANGE [NOT] REQUIRED, SET STATUS, [SET | REMOVE]
HOME DATABASE, CREATE OR REPLACE USER, RENAME USER, SHOW ROLES [WITH USERS]; SET ENCRYPTED PASSWORD refused
(a hash taken as the password would let its text log in)."""
from __future__ import annotations

import pytest

import relate
from relate.errors import ClientError, CypherSyntaxError


@pytest.fixture
def db():
    conn = relate.connect(":memory:")
    yield conn
    conn.close()


def users(db):
    return {row[0]: row[1:] for row in db.execute("SHOW USERS YIELD user, passwordChangeRequired, suspended, home")
            .values()}


def test_create_and_alter_user_options(db):
    db.execute("CREATE USER ada SET PASSWORD 'password-1' SET PASSWORD CHANGE NOT REQUIRED SET STATUS SUSPENDED "
               "SET HOME DATABASE neo4j").consume()
    assert users(db)["ada"] == [False, True, "neo4j"]
    assert not db._session.db.users.verify("ada", "password-1")            # suspended: no login
    db.execute("ALTER USER ada SET STATUS ACTIVE REMOVE HOME DATABASE").consume()
    db.execute("ALTER USER ada SET PASSWORD CHANGE REQUIRED").consume()
    assert users(db)["ada"] == [True, False, None]
    assert db._session.db.users.verify("ada", "password-1")
    db.execute("ALTER USER ada SET PASSWORD 'password-2' CHANGE NOT REQUIRED SET STATUS ACTIVE").consume()
    assert db._session.db.users.verify("ada", "password-2") and users(db)["ada"][0] is False


def test_create_or_replace_and_rename(db):
    db.execute("CREATE USER bob SET PASSWORD 'password-1'").consume()
    db.execute("GRANT ROLE editor TO bob").consume()
    assert db.execute("CREATE OR REPLACE USER bob SET PASSWORD 'password-9' CHANGE NOT REQUIRED").consume() \
        .counters.system_updates == 1
    assert db._session.db.users.verify("bob", "password-9") and not db._session.db.users.verify("bob", "password-1")
    db.execute("GRANT ROLE editor TO bob").consume()
    db.execute("RENAME USER bob TO robert").consume()
    assert "bob" not in users(db) and db._session.db.users.verify("robert", "password-9")
    assert db.execute("SHOW ROLES WITH USERS YIELD role, member WHERE member = 'robert' RETURN role").values() == [
        ["reader"], ["editor"]]
    assert db.execute("RENAME USER nobody IF EXISTS TO x").consume().counters.system_updates == 0
    with pytest.raises(ClientError, match="does not exist"):
        db.execute("RENAME USER nobody TO x").consume()
    db.execute("CREATE USER carol SET PASSWORD 'password-1'").consume()
    with pytest.raises(ClientError, match="already exists"):
        db.execute("RENAME USER robert TO carol").consume()


def test_show_roles(db):
    assert db.execute("SHOW ROLES").values() == [["reader"], ["editor"], ["admin"]]
    assert db.execute("SHOW ROLES YIELD role WHERE role STARTS WITH 'ed'").values() == [["editor"]]


@pytest.mark.parametrize("statement", ["CREATE USER eve SET ENCRYPTED PASSWORD '1,6d57a3f1,5b9f2f6e'",
                                       "CREATE USER eve SET PASSWORD 'password-1'; ALTER USER eve SET ENCRYPTED "
                                       "PASSWORD '1,ab,cd'"])
def test_an_encrypted_password_is_refused_not_stored_as_the_password(db, statement):
    *setup, last = statement.split("; ")
    for text in setup:
        db.execute(text).consume()
    with pytest.raises(ClientError) as caught:
        db.execute(last).consume()
    assert caught.value.code == "Neo.ClientError.General.InvalidArguments" and "ENCRYPTED" in caught.value.message
    assert not db._session.db.users.verify("eve", last.split("'")[1])


@pytest.mark.parametrize("statement", ["CREATE OR REPLACE USER z IF NOT EXISTS SET PASSWORD 'password-1'",
                                       "CREATE USER z SET PASSWORD 'password-1' SET STATUS ACTIVE SET STATUS SUSPENDED"])
def test_contradictory_user_clauses_are_syntax_errors(db, statement):
    with pytest.raises(CypherSyntaxError):
        db.execute(statement).consume()


def test_the_new_words_stay_usable_as_names(db):
    assert db.execute("WITH 1 AS rename, 2 AS suspended, 3 AS active, 4 AS replace "
                      "RETURN rename + suspended + active + replace AS n").values() == [[10]]
    db.execute("CREATE (:Job {status: 'ACTIVE', replace: true})").consume()
    assert db.execute("MATCH (j:Job) WHERE j.status = 'ACTIVE' AND j.replace RETURN count(j)").values() == [[1]]


def test_show_functions_by_origin_and_procedures_executable_by_a_user(db):
    every = db.execute("SHOW FUNCTIONS YIELD name").values()
    built_in = db.execute("SHOW BUILT IN FUNCTIONS YIELD name, isBuiltIn").values()
    defined = db.execute("SHOW USER DEFINED FUNCTIONS YIELD name, isBuiltIn").values()
    assert built_in and defined and len(built_in) + len(defined) == len(every)
    assert {row[1] for row in built_in} == {True} and all(row[0].startswith("apoc.") for row in defined)
    procedures = db.execute("SHOW PROCEDURES YIELD name").values()
    assert db.execute("SHOW PROCEDURES EXECUTABLE BY CURRENT USER YIELD name").values() == procedures  # embedded
    db.execute("CREATE USER rita SET PASSWORD 'password-1'").consume()      # a reader
    readable = {row[0] for row in db.execute("SHOW PROCEDURES EXECUTABLE BY rita YIELD name").values()}
    assert "db.labels" in readable and "dbms.components" in readable
    assert "db.backup" not in readable and "db.createLabel" not in readable
    db.execute("GRANT ROLE admin TO rita").consume()
    assert len(db.execute("SHOW PROCEDURES EXECUTABLE BY rita YIELD name").values()) == len(procedures)
