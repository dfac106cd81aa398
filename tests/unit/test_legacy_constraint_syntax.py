"""Neo4j 5 removed the 4.x constraint syntax, CREATE CONSTRAINT ON (n:L) ASSERT ... and DROP CONSTRAINT ON
(...) ASSERT ...: a Neo.ClientError.Statement.SyntaxError there, and here, whose message points at the
keyword and names the 5.x form (FOR ... REQUIRE; DROP CONSTRAINT name)."""
from __future__ import annotations

import pytest

import relate
from relate.errors import CypherSyntaxError


@pytest.fixture
def db():
    connection = relate.connect(":memory:")
    yield connection
    connection.close()


def refusal(db, query: str) -> CypherSyntaxError:
    with pytest.raises(CypherSyntaxError) as failure:
        db.execute(query).consume()
    return failure.value


@pytest.mark.parametrize("query, keyword", [
    ("CREATE CONSTRAINT ON (n:Person) ASSERT n.id IS UNIQUE", "ON"),
    ("CREATE CONSTRAINT person_id ON (n:Person) ASSERT n.id IS UNIQUE", "ON"),
    ("CREATE CONSTRAINT IF NOT EXISTS ON (n:Person) ASSERT n.id IS UNIQUE", "ON"),
    ("create constraint on (n:Person) assert n.id is unique", "on"),
    ("CREATE CONSTRAINT ON (n:Person) ASSERT (n.a, n.b) IS NODE KEY", "ON"),
    ("CREATE CONSTRAINT ON ()-[r:KNOWS]-() ASSERT r.since IS NOT NULL", "ON"),
    ("CREATE CONSTRAINT ON (n:Person) ASSERT exists(n.id)", "ON"),       # 4.x existence: not 5.x grammar at all
    ("CREATE CONSTRAINT FOR (n:Person) ASSERT n.id IS UNIQUE", "ASSERT"),  # the mixed forms too
    ("CREATE CONSTRAINT ON (n:Person) REQUIRE n.id IS UNIQUE", "ON"),
])
def test_the_4x_create_form_is_a_syntax_error_naming_the_5x_one(db, query, keyword):
    error = refusal(db, query)
    assert error.code == "Neo.ClientError.Statement.SyntaxError"
    head = str(error).splitlines()[0]
    assert head.startswith(f"Invalid input '{keyword}': CREATE CONSTRAINT ... ON ... ASSERT ... is the Neo4j 4.x syntax")
    assert "FOR (n:Label) REQUIRE n.property IS UNIQUE" in head
    at = query.lower().index(f" {keyword.lower()} ") + 1          # the keyword's 0-based offset
    assert (error.line, error.column, error.offset) == (1, at + 1, at)
    assert db.execute("SHOW CONSTRAINTS").data() == []                  # nothing was created


def test_the_4x_drop_form_is_a_syntax_error_naming_drop_by_name(db):
    error = refusal(db, "DROP CONSTRAINT ON (n:Person) ASSERT n.id IS UNIQUE")
    assert error.code == "Neo.ClientError.Statement.SyntaxError"
    assert "DROP CONSTRAINT name [IF EXISTS]" in str(error) and error.column == 20


def test_the_5x_forms_and_constraints_named_on_or_assert_still_work(db):
    db.execute("CREATE CONSTRAINT person_id FOR (n:Person) REQUIRE n.id IS UNIQUE").consume()
    db.execute("CREATE CONSTRAINT ON FOR (n:Tag) REQUIRE n.name IS UNIQUE").consume()
    db.execute("CREATE CONSTRAINT ASSERT IF NOT EXISTS FOR ()-[r:KNOWS]-() REQUIRE r.since IS NOT NULL").consume()
    assert sorted(row[0] for row in db.execute("SHOW CONSTRAINTS YIELD name")) == ["ASSERT", "ON", "person_id"]
    db.execute("DROP CONSTRAINT ON").consume()
    db.execute("DROP CONSTRAINT ASSERT IF EXISTS").consume()
    assert [row[0] for row in db.execute("SHOW CONSTRAINTS YIELD name")] == ["person_id"]


def test_other_syntax_errors_keep_their_own_message(db):
    assert "expected" in str(refusal(db, "DROP CONSTRAINT foo ("))
    assert "CONSTRAINT" not in str(refusal(db, "MATCH (n) RETURN n ON (")).splitlines()[0]
