"""Schema commands as Neo4j 5 spells and checks them (the Cypher manual's indexes and constraints pages):
SHOW's createStatement and options, the constraint type filters, YIELD paging, the IF [NOT] EXISTS
notifications, the conflicts Neo4j refuses, and db.resampleIndex / db.resampleOutdatedIndexes."""
from __future__ import annotations

import pytest

import relate
from relate.errors import RelateError

POINT_OPTIONS = ("OPTIONS {indexConfig: {`spatial.cartesian-3d.max`: [1000000.0, 1000000.0, 1000000.0],"
                 "`spatial.cartesian-3d.min`: [-1000000.0, -1000000.0, -1000000.0],"
                 "`spatial.cartesian.max`: [1000000.0, 1000000.0],`spatial.cartesian.min`: [-1000000.0, -1000000.0],"
                 "`spatial.wgs-84-3d.max`: [180.0, 90.0, 1000000.0],`spatial.wgs-84-3d.min`: [-180.0, -90.0, -1000000.0],"
                 "`spatial.wgs-84.max`: [180.0, 90.0],`spatial.wgs-84.min`: [-180.0, -90.0]}, indexProvider: 'point-1.0'}")


@pytest.fixture
def db():
    conn = relate.connect(":memory:")
    yield conn
    conn.close()


def run(db, query, params=None):
    return [tuple(row) for row in db.execute(query, params or {}).fetchall()]


def notes(db, query):
    result = db.execute(query)
    result.fetchall()
    return result.consume().notifications


def fails(db, query):
    with pytest.raises(RelateError) as info:
        db.execute(query).fetchall()
    return info.value


# ---------------------------------------------------------------- 1. SHOW INDEXES createStatement / options
def test_index_create_statements_quote_names_and_parse_again(db):
    run(db, "CREATE INDEX weird FOR (n:`My Label`) ON (n.`my prop`)")
    run(db, "CREATE TEXT INDEX t FOR ()-[r:KNOWS]-() ON (r.interest)")
    run(db, "CREATE POINT INDEX p FOR (n:Person) ON (n.sublocation)")
    run(db, "CREATE RANGE INDEX comp FOR ()-[r:PURCHASED]-() ON (r.date, r.amount)")
    rows = run(db, "SHOW INDEXES YIELD name, type, indexProvider, createStatement WHERE type <> 'LOOKUP'")
    assert rows == [
        ("comp", "RANGE", "range-1.0",
         "CREATE RANGE INDEX `comp` FOR ()-[r:`PURCHASED`]-() ON (r.`date`, r.`amount`)"),
        ("p", "POINT", "point-1.0", "CREATE POINT INDEX `p` FOR (n:`Person`) ON (n.`sublocation`) " + POINT_OPTIONS),
        ("t", "TEXT", "text-2.0",
         "CREATE TEXT INDEX `t` FOR ()-[r:`KNOWS`]-() ON (r.`interest`) "
         "OPTIONS {indexConfig: {}, indexProvider: 'text-2.0'}"),
        ("weird", "RANGE", "range-1.0", "CREATE RANGE INDEX `weird` FOR (n:`My Label`) ON (n.`my prop`)"),
    ]
    statements = [row[3] for row in rows]
    for name in ("comp", "p", "t", "weird"):
        run(db, f"DROP INDEX {name}")
    for statement in statements:          # every createStatement parses and recreates its index
        run(db, statement)
    assert [row[3] for row in run(db, "SHOW INDEXES YIELD name, type, indexProvider, createStatement "
                                      "WHERE type <> 'LOOKUP'")] == statements


def test_an_index_is_dropped_by_label_and_keys_in_the_older_form(db):
    """CREATE INDEX ON :L(p) is taken (4.x's form, FalkorDB's): DROP INDEX ON :L(p) drops it again."""
    run(db, "CREATE INDEX ON :Person(age)")
    run(db, "CREATE INDEX FOR (n:Person) ON (n.name, n.age)")
    assert db.execute("DROP INDEX ON :Person(age)").consume().counters.indexes_removed == 1
    assert run(db, "SHOW RANGE INDEXES YIELD properties") == [(["name", "age"],)]
    assert fails(db, "DROP INDEX ON :Person(age)").code == "Neo.ClientError.Schema.IndexNotFound"
    run(db, "DROP INDEX ON :Person(name, age)")
    assert run(db, "SHOW RANGE INDEXES") == []


def test_index_options_column(db):
    run(db, "CREATE TEXT INDEX t FOR (n:Book) ON (n.title)")
    run(db, "CREATE POINT INDEX p FOR (n:Person) ON (n.location)")
    rows = dict(run(db, "SHOW INDEXES YIELD name, options"))
    assert rows["t"] == {"indexConfig": {}, "indexProvider": "text-2.0"}
    assert rows["p"]["indexProvider"] == "point-1.0"
    assert rows["p"]["indexConfig"]["spatial.wgs-84.min"] == [-180.0, -90.0]
    assert rows["p"]["indexConfig"]["spatial.cartesian-3d.max"] == [1000000.0, 1000000.0, 1000000.0]


def test_constraint_owned_index_shows_the_constraint_statement(db):
    run(db, "CREATE CONSTRAINT uniqueBookIsbn FOR (book:Book) REQUIRE (book.isbn) IS UNIQUE")
    assert run(db, "SHOW RANGE INDEXES YIELD name, type, owningConstraint, createStatement") == [
        ("uniqueBookIsbn", "RANGE", "uniqueBookIsbn",
         "CREATE CONSTRAINT `uniqueBookIsbn` FOR (n:`Book`) REQUIRE (n.`isbn`) IS UNIQUE "
         "OPTIONS {indexConfig: {}, indexProvider: 'range-1.0'}")]


# ---------------------------------------------------------------- 2. SHOW CONSTRAINTS options / createStatement
def _constraints(db):
    run(db, "CREATE CONSTRAINT actor_fullname FOR (n:Actor) REQUIRE (n.firstname, n.surname) IS NODE KEY")
    run(db, "CREATE CONSTRAINT author_name FOR (a:Author) REQUIRE a.name IS NOT NULL")
    run(db, "CREATE CONSTRAINT book_isbn FOR (b:Book) REQUIRE b.isbn IS UNIQUE")
    run(db, "CREATE CONSTRAINT knows_since_how FOR ()-[r:KNOWS]-() REQUIRE (r.since, r.how) IS RELATIONSHIP KEY")
    run(db, "CREATE CONSTRAINT movie_title FOR (m:Movie) REQUIRE m.title IS :: STRING")
    run(db, "CREATE CONSTRAINT part_of FOR ()-[p:PART_OF]-() REQUIRE p.order IS :: INTEGER")
    run(db, "CREATE CONSTRAINT sequels FOR ()-[s:SEQUEL_OF]-() REQUIRE s.order IS UNIQUE")
    run(db, "CREATE CONSTRAINT wrote_year FOR ()-[w:WROTE]-() REQUIRE w.year IS NOT NULL")


def test_show_constraints_yield_star(db):
    _constraints(db)
    result = db.execute("SHOW CONSTRAINTS YIELD *")
    rows = result.fetchall()
    assert list(result.keys()) == ["id", "name", "type", "entityType", "labelsOrTypes", "properties", "ownedIndex",
                                   "propertyType", "options", "createStatement"]
    book = [tuple(r) for r in rows if r["name"] == "book_isbn"][0]
    assert book[1:] == ("book_isbn", "UNIQUENESS", "NODE", ["Book"], ["isbn"], "book_isbn", None,
                        {"indexConfig": {}, "indexProvider": "range-1.0"},
                        "CREATE CONSTRAINT `book_isbn` FOR (n:`Book`) REQUIRE (n.`isbn`) IS UNIQUE")
    by_name = {r["name"]: r for r in rows}
    assert by_name["author_name"]["options"] is None
    assert by_name["movie_title"]["options"] is None
    assert by_name["sequels"]["options"] == {"indexConfig": {}, "indexProvider": "range-1.0"}


def test_show_constraints_create_statements(db):
    _constraints(db)
    assert run(db, "SHOW CONSTRAINTS YIELD name, type, createStatement") == [
        ("actor_fullname", "NODE_KEY",
         "CREATE CONSTRAINT `actor_fullname` FOR (n:`Actor`) REQUIRE (n.`firstname`, n.`surname`) IS NODE KEY"),
        ("author_name", "NODE_PROPERTY_EXISTENCE",
         "CREATE CONSTRAINT `author_name` FOR (n:`Author`) REQUIRE (n.`name`) IS NOT NULL"),
        ("book_isbn", "UNIQUENESS", "CREATE CONSTRAINT `book_isbn` FOR (n:`Book`) REQUIRE (n.`isbn`) IS UNIQUE"),
        ("knows_since_how", "RELATIONSHIP_KEY",
         "CREATE CONSTRAINT `knows_since_how` FOR ()-[r:`KNOWS`]-() REQUIRE (r.`since`, r.`how`) IS RELATIONSHIP KEY"),
        ("movie_title", "NODE_PROPERTY_TYPE",
         "CREATE CONSTRAINT `movie_title` FOR (n:`Movie`) REQUIRE (n.`title`) IS :: STRING"),
        ("part_of", "RELATIONSHIP_PROPERTY_TYPE",
         "CREATE CONSTRAINT `part_of` FOR ()-[r:`PART_OF`]-() REQUIRE (r.`order`) IS :: INTEGER"),
        ("sequels", "RELATIONSHIP_UNIQUENESS",
         "CREATE CONSTRAINT `sequels` FOR ()-[r:`SEQUEL_OF`]-() REQUIRE (r.`order`) IS UNIQUE"),
        ("wrote_year", "RELATIONSHIP_PROPERTY_EXISTENCE",
         "CREATE CONSTRAINT `wrote_year` FOR ()-[r:`WROTE`]-() REQUIRE (r.`year`) IS NOT NULL"),
    ]


def test_constraint_create_statements_parse_again(db):
    _constraints(db)
    run(db, "CREATE CONSTRAINT `odd name` FOR (n:`A Label`) REQUIRE n.`a prop` IS UNIQUE")
    statements = [row[0] for row in run(db, "SHOW CONSTRAINTS YIELD createStatement")]
    for (name,) in run(db, "SHOW CONSTRAINTS YIELD name"):
        run(db, "DROP CONSTRAINT $name", {"name": name})
    for statement in statements:
        run(db, statement)
    assert [row[0] for row in run(db, "SHOW CONSTRAINTS YIELD createStatement")] == statements


# ---------------------------------------------------------------- 3. SHOW filters and YIELD paging
@pytest.mark.parametrize("filter_, names", [
    ("", ["actor_fullname", "author_name", "book_isbn", "knows_since_how", "movie_title", "part_of", "sequels",
          "wrote_year"]),
    ("ALL", ["actor_fullname", "author_name", "book_isbn", "knows_since_how", "movie_title", "part_of", "sequels",
             "wrote_year"]),
    ("NODE UNIQUE", ["book_isbn"]),
    ("NODE UNIQUENESS", ["book_isbn"]),
    ("REL UNIQUE", ["sequels"]),
    ("RELATIONSHIP UNIQUENESS", ["sequels"]),
    ("UNIQUE", ["book_isbn", "sequels"]),
    ("UNIQUENESS", ["book_isbn", "sequels"]),
    ("NODE EXIST", ["author_name"]),
    ("NODE PROPERTY EXISTENCE", ["author_name"]),
    ("REL EXISTENCE", ["wrote_year"]),
    ("RELATIONSHIP PROPERTY EXIST", ["wrote_year"]),
    ("EXISTENCE", ["author_name", "wrote_year"]),
    ("PROPERTY EXIST", ["author_name", "wrote_year"]),
    ("NODE PROPERTY TYPE", ["movie_title"]),
    ("REL PROPERTY TYPE", ["part_of"]),
    ("RELATIONSHIP PROPERTY TYPE", ["part_of"]),
    ("PROPERTY TYPE", ["movie_title", "part_of"]),
    ("NODE KEY", ["actor_fullname"]),
    ("REL KEY", ["knows_since_how"]),
    ("RELATIONSHIP KEY", ["knows_since_how"]),
    ("KEY", ["actor_fullname", "knows_since_how"]),
])
def test_show_constraint_filters(db, filter_, names):
    _constraints(db)
    assert [r[0] for r in run(db, f"SHOW {filter_} CONSTRAINTS YIELD name")] == names
    assert [r[0] for r in run(db, f"SHOW {filter_} CONSTRAINT YIELD name")] == names


def test_show_constraints_yield_order_skip_limit(db):
    _constraints(db)
    assert run(db, "SHOW CONSTRAINTS YIELD name, type ORDER BY name DESC SKIP 1 LIMIT 2") == [
        ("sequels", "RELATIONSHIP_UNIQUENESS"), ("part_of", "RELATIONSHIP_PROPERTY_TYPE")]
    assert run(db, "SHOW CONSTRAINTS YIELD name AS n ORDER BY n LIMIT 1 RETURN n") == [("actor_fullname",)]
    assert run(db, "SHOW KEY CONSTRAINTS YIELD name, entityType WHERE entityType = 'RELATIONSHIP'") == [
        ("knows_since_how", "RELATIONSHIP")]
    assert run(db, "SHOW UNIQUE CONSTRAINTS YIELD name ORDER BY name DESC WHERE name STARTS WITH 'b' "
                   "RETURN name") == [("book_isbn",)]


def test_show_indexes_yield_order_skip_limit(db):
    for name in ("a", "b", "c"):
        run(db, f"CREATE INDEX {name} FOR (n:L) ON (n.{name})")
    assert run(db, "SHOW RANGE INDEXES YIELD name ORDER BY name DESC LIMIT 2") == [("c",), ("b",)]
    assert run(db, "SHOW RANGE INDEXES YIELD name, type ORDER BY name SKIP 1") == [("b", "RANGE"), ("c", "RANGE")]
    assert run(db, "SHOW INDEXES YIELD name, type WHERE name <> 'a' AND type <> 'LOOKUP' RETURN name "
                   "ORDER BY name DESC") == [("c",), ("b",)]


# ---------------------------------------------------------------- 4. IF [NOT] EXISTS notifications
def _note(code, title, description):
    return {"code": f"Neo.ClientNotification.Schema.{code}", "title": title, "description": description,
            "severity": "INFORMATION", "category": "SCHEMA"}


def test_create_index_if_not_exists_notification(db):
    run(db, "CREATE INDEX node_range_index_name FOR (n:Person) ON (n.surname)")
    assert notes(db, "CREATE INDEX node_range_index_name IF NOT EXISTS FOR (n:Person) ON (n.surname)") == [
        _note("IndexOrConstraintAlreadyExists",
              "`CREATE RANGE INDEX node_range_index_name IF NOT EXISTS FOR (e:Person) ON (e.surname)` has no effect.",
              "`RANGE INDEX node_range_index_name FOR (e:Person) ON (e.surname)` already exists.")]
    run(db, "CREATE TEXT INDEX node_text_index_nickname FOR (n:Person) ON (n.nickname)")
    assert notes(db, "CREATE TEXT INDEX node_index_name IF NOT EXISTS FOR (n:Person) ON (n.nickname)") == [
        _note("IndexOrConstraintAlreadyExists",
              "`CREATE TEXT INDEX node_index_name IF NOT EXISTS FOR (e:Person) ON (e.nickname)` has no effect.",
              "`TEXT INDEX node_text_index_nickname FOR (e:Person) ON (e.nickname)` already exists.")]
    assert len(run(db, "SHOW INDEXES")) == 4          # the two token lookup indexes every database has


def test_create_constraint_if_not_exists_notification(db):
    run(db, "CREATE CONSTRAINT sequels FOR ()-[s:SEQUEL_OF]-() REQUIRE s.order IS UNIQUE")
    run(db, "CREATE CONSTRAINT author_name FOR (a:Author) REQUIRE a.name IS NOT NULL")
    assert notes(db, "CREATE CONSTRAINT new_sequels IF NOT EXISTS "
                     "FOR ()-[sequel:SEQUEL_OF]-() REQUIRE sequel.order IS UNIQUE") == [
        _note("IndexOrConstraintAlreadyExists",
              "`CREATE CONSTRAINT new_sequels IF NOT EXISTS FOR ()-[e:SEQUEL_OF]-() REQUIRE (e.order) IS UNIQUE` "
              "has no effect.",
              "`CONSTRAINT sequels FOR ()-[e:SEQUEL_OF]-() REQUIRE (e.order) IS UNIQUE` already exists.")]
    assert notes(db, "CREATE CONSTRAINT author_name IF NOT EXISTS FOR ()-[a:AUTHORED]-() REQUIRE a.name IS UNIQUE") == [
        _note("IndexOrConstraintAlreadyExists",
              "`CREATE CONSTRAINT author_name IF NOT EXISTS FOR ()-[e:AUTHORED]-() REQUIRE (e.name) IS UNIQUE` "
              "has no effect.",
              "`CONSTRAINT author_name FOR (e:Author) REQUIRE (e.name) IS NOT NULL` already exists.")]
    result = db.execute("CREATE CONSTRAINT author_name IF NOT EXISTS FOR (a:Author) REQUIRE a.name IS NOT NULL")
    result.fetchall()
    assert result.consume().counters.constraints_added == 0
    assert len(run(db, "SHOW CONSTRAINTS")) == 2


def test_drop_if_exists_notification(db):
    assert notes(db, "DROP INDEX missing_index_name IF EXISTS") == [
        _note("IndexOrConstraintDoesNotExist", "`DROP INDEX missing_index_name IF EXISTS` has no effect.",
              "`missing_index_name` does not exist.")]
    assert notes(db, "DROP CONSTRAINT missing IF EXISTS") == [
        _note("IndexOrConstraintDoesNotExist", "`DROP CONSTRAINT missing IF EXISTS` has no effect.",
              "`missing` does not exist.")]


def test_no_notification_when_the_command_acts(db):
    assert notes(db, "CREATE INDEX i IF NOT EXISTS FOR (n:A) ON (n.x)") == []
    assert notes(db, "DROP INDEX i IF EXISTS") == []
    assert notes(db, "CREATE CONSTRAINT c IF NOT EXISTS FOR (n:A) REQUIRE n.x IS UNIQUE") == []
    assert notes(db, "DROP CONSTRAINT c IF EXISTS") == []


# ---------------------------------------------------------------- 5. conflicts Neo4j refuses
def test_constraint_over_existing_index(db):
    run(db, "CREATE INDEX book_word_count FOR (book:Book) ON (book.wordCount)")
    error = fails(db, "CREATE CONSTRAINT word_count FOR (book:Book) REQUIRE book.wordCount IS UNIQUE")
    assert error.code == "Neo.ClientError.Schema.IndexAlreadyExists"
    assert str(error).startswith("There already exists an index (:Book {wordCount}).\n"
                                 "A constraint cannot be created until the index has been dropped.")
    error = fails(db, "CREATE CONSTRAINT word_key FOR (book:Book) REQUIRE book.wordCount IS NODE KEY")
    assert error.code == "Neo.ClientError.Schema.IndexAlreadyExists"
    run(db, "CREATE CONSTRAINT word_exists FOR (book:Book) REQUIRE book.wordCount IS NOT NULL")   # no index


def test_index_over_constraint(db):
    run(db, "CREATE CONSTRAINT uniqueBookIsbn FOR (book:Book) REQUIRE (book.isbn) IS UNIQUE")
    error = fails(db, "CREATE INDEX bookIsbnIndex FOR (book:Book) ON (book.isbn)")
    assert error.code == "Neo.ClientError.Schema.ConstraintAlreadyExists"
    assert str(error).startswith(
        "There is a uniqueness constraint on (:Book {isbn}), so an index is already created that matches this.")
    run(db, "CREATE TEXT INDEX bookIsbnText FOR (book:Book) ON (book.isbn)")       # another index type: fine
    assert notes(db, "CREATE INDEX bookIsbnIndex IF NOT EXISTS FOR (book:Book) ON (book.isbn)")[0]["code"] == \
        "Neo.ClientNotification.Schema.IndexOrConstraintAlreadyExists"


def test_key_over_uniqueness_and_back(db):
    run(db, "CREATE CONSTRAINT book_title_year FOR (b:Book) REQUIRE (b.title, b.publicationYear) IS UNIQUE")
    error = fails(db, "CREATE CONSTRAINT book_titles FOR (book:Book) REQUIRE (book.title, book.publicationYear) "
                      "IS NODE KEY")
    assert error.code == "Neo.ClientError.Schema.ConstraintAlreadyExists"
    # Neo4j's schema rule ids: lookup indexes 1 and 2, then the owned index (3) and its constraint (4)
    assert str(error).startswith("Constraint already exists: Constraint( id=4, name='book_title_year', "
                                 "type='UNIQUENESS', schema=(:Book {title, publicationYear}), ownedIndex=3 )")
    run(db, "CREATE CONSTRAINT knows FOR ()-[r:KNOWS]-() REQUIRE r.since IS RELATIONSHIP KEY")
    error = fails(db, "CREATE CONSTRAINT knows_u FOR ()-[r:KNOWS]-() REQUIRE r.since IS UNIQUE")
    assert error.code == "Neo.ClientError.Schema.ConstraintAlreadyExists"
    assert "type='RELATIONSHIP KEY', schema=()-[:KNOWS {since}]-()" in str(error)


def test_same_schema_other_name_and_equivalent(db):
    run(db, "CREATE CONSTRAINT book_isbn FOR (b:Book) REQUIRE b.isbn IS UNIQUE")
    error = fails(db, "CREATE CONSTRAINT new_book_isbn FOR (book:Book) REQUIRE book.isbn IS UNIQUE")
    assert error.code == "Neo.ClientError.Schema.ConstraintAlreadyExists"
    assert str(error).startswith("Constraint already exists: Constraint( id=4, name='book_isbn', type='UNIQUENESS', "
                                 "schema=(:Book {isbn}), ownedIndex=3 )")
    error = fails(db, "CREATE CONSTRAINT book_isbn FOR (book:Book) REQUIRE book.isbn IS UNIQUE")
    assert error.code == "Neo.ClientError.Schema.EquivalentSchemaRuleAlreadyExists"
    assert str(error).startswith("An equivalent constraint already exists, 'Constraint( id=4, name='book_isbn'")
    error = fails(db, "CREATE CONSTRAINT book_isbn FOR ()-[a:AUTHORED]-() REQUIRE a.name IS UNIQUE")
    assert error.code == "Neo.ClientError.Schema.ConstraintWithNameAlreadyExists"
    assert str(error).startswith("There already exists a constraint called 'book_isbn'.")
    run(db, "CREATE INDEX example_index FOR (n:Book) ON (n.title)")
    error = fails(db, "CREATE INDEX bookTitleIndex FOR (book:Book) ON (book.title)")
    assert error.code == "Neo.ClientError.Schema.IndexAlreadyExists"
    assert str(error).startswith("There already exists an index (:Book {title}).")
    error = fails(db, "CREATE INDEX example_index FOR (book:Book) ON (book.title)")
    assert error.code == "Neo.ClientError.Schema.EquivalentSchemaRuleAlreadyExists"
    assert str(error).startswith("An equivalent index already exists, 'Index( id=5, name='example_index', "
                                 "type='RANGE', schema=(:Book {title}), indexProvider='range-1.0' )'.")
    error = fails(db, "CREATE INDEX example_index FOR (book:Book) ON (book.pages)")
    assert error.code == "Neo.ClientError.Schema.IndexWithNameAlreadyExists"
    assert str(error).startswith("There already exists an index called 'example_index'.")


def test_conflicting_property_types(db):
    run(db, "CREATE CONSTRAINT part_of FOR ()-[part:PART_OF]-() REQUIRE part.order IS :: INTEGER")
    error = fails(db, "CREATE CONSTRAINT new_part_of FOR ()-[part:PART_OF]-() REQUIRE part.order IS :: FLOAT")
    assert error.code == "Neo.ClientError.Schema.ConstraintAlreadyExists"
    assert str(error).startswith(
        "Conflicting constraint already exists: Constraint( id=3, name='part_of', type='RELATIONSHIP PROPERTY TYPE', "
        "schema=()-[:PART_OF {order}]-(), propertyType=INTEGER )")


def test_index_named_like_a_constraint(db):
    run(db, "CREATE CONSTRAINT bookRecommendations FOR (book:Book) REQUIRE (book.recommend) IS NOT NULL")
    error = fails(db, "CREATE INDEX bookRecommendations FOR (book:Book) ON (book.recommendations)")
    assert error.code == "Neo.ClientError.Schema.ConstraintWithNameAlreadyExists"
    assert str(error).startswith("There already exists a constraint called 'bookRecommendations'.")
    assert notes(db, "CREATE INDEX bookRecommendations IF NOT EXISTS FOR (book:Book) ON (book.recommendations)") == [
        _note("IndexOrConstraintAlreadyExists",
              "`CREATE RANGE INDEX bookRecommendations IF NOT EXISTS FOR (e:Book) ON (e.recommendations)` "
              "has no effect.",
              "`CONSTRAINT bookRecommendations FOR (e:Book) REQUIRE (e.recommend) IS NOT NULL` already exists.")]


# ---------------------------------------------------------------- 6. resampling procedures
def test_resample_procedures(db):
    run(db, "CREATE INDEX i FOR (n:A) ON (n.x)")
    run(db, "CREATE CONSTRAINT c FOR (n:A) REQUIRE n.y IS UNIQUE")
    assert run(db, "CALL db.resampleIndex('i')") == []
    assert run(db, "CALL db.resampleIndex($name)", {"name": "c"}) == []     # a constraint's own index
    assert run(db, "CALL db.resampleOutdatedIndexes()") == []
    error = fails(db, "CALL db.resampleIndex('missing')")
    assert error.code == "Neo.ClientError.Schema.IndexNotFound"
    assert str(error).startswith("No such index 'missing'")
    names = [r[0] for r in run(db, "SHOW PROCEDURES YIELD name WHERE name STARTS WITH 'db.resample'")]
    assert names == ["db.resampleIndex", "db.resampleOutdatedIndexes"]


def test_search_index_if_not_exists_notification(db):
    run(db, "CREATE FULLTEXT INDEX ft FOR (n:Doc) ON EACH [n.body]")
    assert notes(db, "CREATE FULLTEXT INDEX ft2 IF NOT EXISTS FOR (n:Doc) ON EACH [n.body]") == [
        _note("IndexOrConstraintAlreadyExists",
              "`CREATE FULLTEXT INDEX ft2 IF NOT EXISTS FOR (e:Doc) ON EACH [e.body]` has no effect.",
              "`FULLTEXT INDEX ft FOR (e:Doc) ON EACH [e.body]` already exists.")]
    assert [r[0] for r in run(db, "SHOW FULLTEXT INDEXES YIELD name")] == ["ft"]


# ---------------------------------------------------------------- token lookup indexes and stable ids
def test_every_database_has_the_two_token_lookup_indexes():
    fresh = relate.connect(":memory:")
    try:
        assert run(fresh, "SHOW INDEXES YIELD id, name, type, entityType, labelsOrTypes, properties, indexProvider") == [
            (1, "index_343aff4e", "LOOKUP", "NODE", None, None, "token-lookup-1.0"),
            (2, "index_f7700477", "LOOKUP", "RELATIONSHIP", None, None, "token-lookup-1.0")]
        assert run(fresh, "SHOW LOOKUP INDEXES YIELD createStatement") == [
            ("CREATE LOOKUP INDEX `index_343aff4e` FOR (n) ON EACH labels(n)",),
            ("CREATE LOOKUP INDEX `index_f7700477` FOR ()-[r]-() ON EACH type(r)",)]
        error = fails(fresh, "CREATE LOOKUP INDEX FOR (n) ON EACH labels(n)")
        assert error.code == "Neo.ClientError.Schema.EquivalentSchemaRuleAlreadyExists"
        assert fresh.execute("DROP INDEX index_343aff4e").consume().counters.indexes_removed == 1
        assert run(fresh, "SHOW LOOKUP INDEXES YIELD name") == [("index_f7700477",)]
        run(fresh, "CREATE (:A)")
        assert run(fresh, "MATCH (n:A) RETURN count(n)") == [(1,)]     # label scans never needed it
        assert fresh.execute("CREATE LOOKUP INDEX by_label FOR (n) ON EACH labels(n)").consume().counters.indexes_added == 1
        assert run(fresh, "SHOW LOOKUP INDEXES YIELD name, entityType") == [("by_label", "NODE"),
                                                                         ("index_f7700477", "RELATIONSHIP")]
    finally:
        fresh.close()


def test_schema_ids_are_given_once_in_creation_order():
    fresh = relate.connect(":memory:")
    try:
        run(fresh, "CREATE INDEX a_idx FOR (n:A) ON (n.x)")
        run(fresh, "CREATE CONSTRAINT book_isbn FOR (b:Book) REQUIRE b.isbn IS UNIQUE")
        run(fresh, "CREATE TEXT INDEX c_idx FOR (n:C) ON (n.t)")
        ids = dict(run(fresh, "SHOW INDEXES YIELD name, id"))
        assert ids == {"index_343aff4e": 1, "index_f7700477": 2, "a_idx": 3, "book_isbn": 4, "c_idx": 6}
        assert run(fresh, "SHOW CONSTRAINTS YIELD name, id, ownedIndex") == [("book_isbn", 5, "book_isbn")]
        assert run(fresh, "SHOW TEXT INDEXES YIELD id") == [(6,)]                     # a filter keeps ids
        run(fresh, "DROP INDEX a_idx")
        assert dict(run(fresh, "SHOW INDEXES YIELD name, id"))["c_idx"] == 6          # so does a drop
        run(fresh, "CREATE INDEX d_idx FOR (n:D) ON (n.x)")
        assert dict(run(fresh, "SHOW INDEXES YIELD name, id"))["d_idx"] == 7
    finally:
        fresh.close()


@pytest.mark.parametrize("statement, code", [
    ("CREATE TEXT INDEX t2 FOR (n:L) ON (n.a, n.b)", "Neo.ClientError.Statement.SyntaxError"),
    ("CREATE POINT INDEX p2 FOR (n:L) ON (n.a, n.b)", "Neo.ClientError.Statement.SyntaxError"),
    ("CREATE INDEX r FOR (n:L) ON (n.a) OPTIONS {indexProvider: 'native-btree-1.0'}",
     "Neo.ClientError.Statement.ArgumentError"),
    ("CREATE TEXT INDEX t FOR (n:L) ON (n.a) OPTIONS {indexProvider: 'range-1.0'}",
     "Neo.ClientError.Statement.ArgumentError"),
])
def test_index_forms_neo4j_5_refuses(db, statement, code):
    assert fails(db, statement).code == code
    assert run(db, "SHOW INDEXES YIELD name WHERE name IN ['t2', 'p2', 'r', 't']") == []


def test_index_providers_neo4j_5_accepts(db):
    run(db, "CREATE INDEX r FOR (n:L) ON (n.a) OPTIONS {indexProvider: 'range-1.0'}")
    run(db, "CREATE TEXT INDEX t FOR (n:L) ON (n.b) OPTIONS {indexProvider: 'text-1.0'}")
    assert sorted(run(db, "SHOW INDEXES YIELD name WHERE name IN ['r', 't']")) == [("r",), ("t",)]
