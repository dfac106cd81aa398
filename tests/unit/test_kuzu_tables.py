"""Kuzu's schema and bulk load, for scripts written for Kuzu: CREATE NODE | REL TABLE become a node key and
property type constraints, COPY loads CSV (header, delim, lists) and Parquet files by column position
through the import directory's rules in one transaction, DROP TABLE drops a table's data and schema,
``CALL show_tables()`` / ``CALL table_info(name)`` answer as Kuzu's do; the tables survive a reopen."""
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import relate
from relate.errors import ClientError
from tests.helpers import raises_code
from relate.server import privileges

USERS = "Adam,30\nKarissa,40\nZhang,50\nNoura,25\n"
FOLLOWS = "Adam,Karissa,2020\nAdam,Zhang,2020\nKarissa,Zhang,2021\nZhang,Noura,2022\n"
SCHEMA = ["CREATE NODE TABLE User(name STRING PRIMARY KEY, age INT64)",
          "CREATE NODE TABLE City(name STRING, population INT64, loc DOUBLE[2], PRIMARY KEY (name))",
          "CREATE REL TABLE Follows(FROM User TO User, since INT64)",
          "CREATE REL TABLE LivesIn(FROM User TO City, MANY_ONE)"]


@pytest.fixture
def files(tmp_path):
    (tmp_path / "user.csv").write_text(USERS)
    (tmp_path / "follows.csv").write_text(FOLLOWS)
    (tmp_path / "city.csv").write_text('name|population|loc\nWaterloo|150000|"[1.5,2.5]"\nKitchener|200000|\n')
    (tmp_path / "lives.csv").write_text("Adam,Waterloo\nNoura,Kitchener\n")
    return tmp_path


@pytest.fixture
def conn(files):
    with relate.connect(":memory:", import_dir=str(files)) as connection:
        for statement in SCHEMA:
            connection.execute(statement).consume()
        yield connection


def values(conn, query, params=None):
    return [tuple(row) for row in conn.execute(query, params or {})]


def test_tables_are_constraints_and_show_as_kuzu_shows_them(conn):
    constraints = {(row["name"], row["type"]) for row in conn.execute("SHOW CONSTRAINTS YIELD name, type")}
    assert ("User_pk", "NODE_KEY") in constraints and ("User_age_type", "NODE_PROPERTY_TYPE") in constraints
    assert ("City_loc_type", "NODE_PROPERTY_TYPE") in constraints
    assert ("Follows_since_type", "RELATIONSHIP_PROPERTY_TYPE") in constraints
    assert values(conn, "CALL show_tables() RETURN name, type ORDER BY name") == [
        ("City", "NODE"), ("Follows", "REL"), ("LivesIn", "REL"), ("User", "NODE")]
    assert values(conn, "CALL table_info('City') RETURN name, type, `primary key`") == [
        ("name", "STRING", True), ("population", "INT64", False), ("loc", "DOUBLE[2]", False)]
    conn.execute("CREATE NODE TABLE IF NOT EXISTS User(x INT64 PRIMARY KEY)").consume()     # nothing changes
    assert values(conn, "CALL table_info('User') YIELD name RETURN name") == [("name",), ("age",)]


@pytest.mark.parametrize("statement, code", [
    ("CREATE NODE TABLE User(name STRING PRIMARY KEY)", "Neo.ClientError.Schema.EquivalentSchemaRuleAlreadyExists"),
    ("CREATE NODE TABLE T(a INT64, b STRING)", "Neo.ClientError.Statement.ArgumentError"),
    ("CREATE NODE TABLE T(a INT64 PRIMARY KEY, PRIMARY KEY (a))", "Neo.ClientError.Statement.ArgumentError"),
    ("CREATE NODE TABLE T(a INT64, PRIMARY KEY (b))", "Neo.ClientError.Statement.ArgumentError"),
    ("CREATE NODE TABLE T(a WIDGET PRIMARY KEY)", "Neo.ClientError.Statement.SyntaxError"),
    ("CREATE NODE TABLE T(a INT64 PRIMARY KEY, a STRING)", "Neo.ClientError.Statement.ArgumentError"),
    ("CREATE REL TABLE R(FROM User TO Nowhere)", "Neo.ClientError.Statement.ArgumentError"),
    ("CREATE REL TABLE R(since INT64)", "Neo.ClientError.Statement.SyntaxError"),
    ("DROP TABLE Nowhere", "Neo.ClientError.Statement.ArgumentError"),
    ("COPY Nowhere FROM 'user.csv'", "Neo.ClientError.Statement.ArgumentError"),
    ("COPY User FROM 'user.csv' (colour='red')", "Neo.ClientError.Statement.ArgumentError"),
    ("COPY User FROM 'user.csv' (ignore_errors=true)", "Neo.ClientError.Statement.ArgumentError"),
    ("COPY User FROM '../user.csv'", "Neo.ClientError.Statement.ExternalResourceFailed"),
    ("COPY User FROM '/etc/passwd'", "Neo.ClientError.Statement.ExternalResourceFailed"),
    ("COPY LivesIn FROM 'lives.csv' (delim='||')", "Neo.ClientError.Statement.TypeError"),
    ("COPY User FROM 'user.csv' (header='yes')", "Neo.ClientError.Statement.ArgumentError"),
    ("COPY User FROM 'user.csv' (skip='two')", "Neo.ClientError.Statement.ArgumentError"),
    ("COPY User FROM 'user.csv' (skip=-1)", "Neo.ClientError.Statement.ArgumentError"),
    ("COPY LivesIn FROM 'lives.csv' (from=1, to=2)", "Neo.ClientError.Statement.ArgumentError"),
])
def test_bad_tables_and_copies_are_typed_errors(conn, statement, code):
    raises_code(conn, statement, code)


def test_copy_loads_nodes_and_relationships_by_position(conn):
    assert conn.execute("COPY User FROM 'user.csv'").summary.counters.nodes_created == 4
    conn.execute("COPY City FROM 'city.csv' (header=true, delim='|')").consume()
    conn.execute("COPY Follows FROM 'follows.csv'").consume()
    conn.execute("COPY LivesIn FROM 'lives.csv'").consume()
    assert values(conn, "MATCH (a:User)-[f:Follows]->(b:User) RETURN a.name, f.since, b.name ORDER BY f.since, b.name") \
        == [("Adam", 2020, "Karissa"), ("Adam", 2020, "Zhang"), ("Karissa", 2021, "Zhang"), ("Zhang", 2022, "Noura")]
    assert values(conn, "MATCH (c:City) RETURN c.name, c.population, c.loc ORDER BY c.name") == [
        ("Kitchener", 200000, None), ("Waterloo", 150000, [1.5, 2.5])]
    assert values(conn, "MATCH (u:User)-[:LivesIn]->(c:City) RETURN u.name, c.name ORDER BY u.name") == [
        ("Adam", "Waterloo"), ("Noura", "Kitchener")]
    with pytest.raises(ClientError) as caught:            # the column types hold for later writes too
        conn.execute("CREATE (:User {name: 'Bob', age: 'old'})").consume()
    assert caught.value.code == "Neo.ClientError.Schema.ConstraintValidationFailed"


def test_copy_reads_parquet_columns_by_position(conn, files):
    pq.write_table(pa.table({"n": ["Paris", "Lyon"], "p": [2_100_000, 520_000], "l": [[2.3, 48.8], [4.8, 45.7]]}),
                   files / "cities.parquet")
    conn.execute("COPY City FROM $file", {"file": "cities.parquet"}).consume()
    assert values(conn, "MATCH (c:City) RETURN c.name, c.population, c.loc ORDER BY c.name") == [
        ("Lyon", 520000, [4.8, 45.7]), ("Paris", 2100000, [2.3, 48.8])]


def test_a_failing_copy_writes_nothing(conn, files):
    conn.execute("COPY User FROM 'user.csv'").consume()
    (files / "more.csv").write_text("Ann,20\nAdam,31\n")         # Adam again: the primary key refuses
    with pytest.raises(ClientError) as caught:
        conn.execute("COPY User FROM 'more.csv'").consume()
    assert caught.value.code == "Neo.ClientError.Schema.ConstraintValidationFailed"
    assert values(conn, "MATCH (u:User {name: 'Ann'}) RETURN u") == []
    (files / "ghosts.csv").write_text("Adam,Karissa,1\nAdam,Ghost,2\n")
    with pytest.raises(ClientError) as caught:
        conn.execute("COPY Follows FROM 'ghosts.csv'").consume()
    assert "Ghost" in str(caught.value) and "line 2" in str(caught.value)
    assert values(conn, "MATCH ()-[f:Follows]->() RETURN count(f)") == [(0,)]


def test_copy_inside_a_transaction_rolls_back_with_it(conn):
    conn.begin()
    conn.execute("COPY User FROM 'user.csv'").consume()
    assert values(conn, "MATCH (u:User) RETURN count(u)") == [(4,)]
    conn.rollback()
    assert values(conn, "MATCH (u:User) RETURN count(u)") == [(0,)]


def test_drop_table_drops_its_data_and_waits_for_the_tables_that_use_it(conn):
    conn.execute("COPY User FROM 'user.csv'").consume()
    conn.execute("COPY Follows FROM 'follows.csv'").consume()
    with pytest.raises(ClientError, match="Follows"):
        conn.execute("DROP TABLE User").consume()
    conn.execute("DROP TABLE Follows").consume()
    assert values(conn, "MATCH ()-[f:Follows]->() RETURN count(f)") == [(0,)]
    conn.execute("DROP TABLE LivesIn").consume()
    conn.execute("DROP TABLE User").consume()
    assert values(conn, "MATCH (u:User) RETURN count(u)") == [(0,)]
    assert "User_pk" not in {row["name"] for row in conn.execute("SHOW CONSTRAINTS YIELD name")}
    conn.execute("DROP TABLE IF EXISTS User").consume()
    conn.execute("CREATE NODE TABLE User(id INT64 PRIMARY KEY)").consume()      # the name is free again
    assert values(conn, "CALL table_info('User') YIELD name RETURN name") == [("id",)]


def test_tables_survive_a_reopen(files, tmp_path_factory):
    path = str(tmp_path_factory.mktemp("kuzu") / "db")
    with relate.connect(path, import_dir=str(files)) as conn:
        conn.execute(SCHEMA[0]).consume()
        conn.execute("COPY User FROM 'user.csv'").consume()
    with relate.connect(path, import_dir=str(files)) as conn:
        assert values(conn, "CALL show_tables() YIELD name RETURN name") == [("User",)]
        assert values(conn, "MATCH (u:User) RETURN count(u)") == [(4,)]


def test_copy_needs_an_editor_and_tables_an_admin(conn):
    db = conn._session.db if hasattr(conn, "_session") else None
    if db is None:
        pytest.fail("the embedded connection exposes its engine session")
    assert privileges.required_role(db.prepare_uncached("COPY User FROM 'user.csv'")) == "editor"
    assert privileges.required_role(db.prepare_uncached("CREATE NODE TABLE T(a INT64 PRIMARY KEY)")) == "admin"
    assert privileges.required_role(db.prepare_uncached("DROP TABLE User")) == "admin"


def test_a_serial_key_is_numbered_by_copy(conn, files):
    conn.execute("CREATE NODE TABLE Note(id SERIAL PRIMARY KEY, text STRING, stars INT64)").consume()
    (files / "notes.csv").write_text("first,1\nsecond,2\n")
    (files / "more.csv").write_text("text,stars\nthird,3\n")
    conn.execute("COPY Note FROM 'notes.csv'").consume()
    conn.execute("COPY Note FROM 'more.csv' (header=true)").consume()
    pq.write_table(pa.table({"text": ["fourth"], "stars": [4]}), files / "notes.parquet")
    conn.execute("COPY Note FROM 'notes.parquet'").consume()
    assert values(conn, "MATCH (n:Note) RETURN n.id, n.text, n.stars ORDER BY n.id") == [
        (0, "first", 1), (1, "second", 2), (2, "third", 3), (3, "fourth", 4)]
    with pytest.raises(ClientError):
        conn.execute("CREATE NODE TABLE Bad(name STRING PRIMARY KEY, n SERIAL)").consume()


def test_a_drop_table_that_fails_keeps_the_data(conn, monkeypatch):
    """The data's deletion and the schema's drop are one transaction: a failure in the second undoes the first."""
    from relate.server.query import ast
    from relate.server.query.schema import commands

    def failing(*args):
        raise ClientError("the schema part failed", code="Neo.DatabaseError.General.UnknownError")
    conn.execute("COPY User FROM 'user.csv'").consume()
    conn.execute("DROP TABLE LivesIn").consume()
    conn.execute("DROP TABLE Follows").consume()
    monkeypatch.setitem(commands._HANDLERS, ast.DropTable, failing)
    with pytest.raises(ClientError, match="schema part failed"):
        conn.execute("DROP TABLE User").consume()
    assert values(conn, "MATCH (u:User) RETURN count(u)") == [(4,)]
    assert not conn.in_transaction
