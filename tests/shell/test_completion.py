"""Completion: keywords, commands, parameters, and names fetched from a real (embedded) database."""
import pytest
from prompt_toolkit.document import Document

import relate
from relate.shell.completion import CypherCompleter, SchemaNames


@pytest.fixture(scope="module")
def schema():
    with relate.connect(":memory:") as db:
        db.execute("CREATE (:Person {name: 'Ann', `home town`: 'Oslo'})-[:KNOWS {since: 1}]->(:Person:`Odd Label`)")
        names = SchemaNames()
        names.refresh(db)
    return names


def inserted(completer, text):
    return [text_ for text_, _ in completer.suggest(text)]


def test_schema_names_come_from_the_database(schema):
    assert schema.labels == ["Odd Label", "Person"]
    assert schema.rel_types == ["KNOWS"]
    assert {"name", "home town", "since"} <= set(schema.property_keys)
    assert not schema.stale


def test_schema_refresh_fails_soft():
    class Broken:
        def execute(self, query, params=None):
            raise relate.ServiceUnavailable("gone")

    names = SchemaNames()
    names.labels = ["Kept"]
    names.refresh(Broken())
    assert names.labels == ["Kept"]


def test_labels_types_and_keys_by_context(schema):
    completer = CypherCompleter(schema)
    assert inserted(completer, "MATCH (p:Pe") == ["Person"]
    assert inserted(completer, "MATCH (p:O") == ["`Odd Label`"]
    assert inserted(completer, "MATCH (a)-[r:K") == ["KNOWS"]
    assert inserted(completer, "MATCH (a)-[r:X|K") == ["KNOWS"]
    assert inserted(completer, "RETURN p.na") == ["name"]
    assert "`home town`" in inserted(completer, "MATCH (p {na: 1, ")
    assert inserted(completer, "MATCH (p {name:") == []      # a value goes there, not a name
    assert inserted(completer, "RETURN 'p:Pe") == []          # inside a string: nothing sensible to offer


def test_keywords_functions_commands_and_parameters(schema):
    completer = CypherCompleter(schema, lambda: ["limit", "since"])
    assert inserted(completer, "MATCH (n) RET") == ["RETURN"]
    assert inserted(completer, "match (n) ret") == ["return"]
    assert "ORDER BY" in inserted(completer, "MATCH (n) RETURN n ORD")
    assert "collect(" in inserted(completer, "RETURN coll")
    assert inserted(completer, "RETURN vector.similarity.c") == ["vector.similarity.cosine("]
    assert inserted(completer, ":par") == [":param", ":params"]
    assert inserted(completer, "RETURN $li") == ["limit"]


def test_functions_and_procedures_come_from_show_functions_and_show_procedures(schema):
    with relate.connect(":memory:") as db:
        every_function = {row[0] for row in db.execute("SHOW FUNCTIONS YIELD name RETURN name")}
        every_procedure = {row[0] for row in db.execute("SHOW PROCEDURES YIELD name RETURN name")}
    assert set(schema.functions) == every_function and len(every_function) > 124
    assert set(schema.procedures) == every_procedure
    completer = CypherCompleter(schema)
    for name in every_function:            # each one completes from its own full name
        assert name + "(" in inserted(completer, "RETURN " + name)
    assert inserted(completer, "RETURN text.trigram.s") == ["text.trigram.similarity("]
    assert inserted(completer, "RETURN datetime.fromEpochM") == ["datetime.fromEpochMillis("]
    assert inserted(completer, "CALL db.index.trigram.queryN") == ["db.index.trigram.queryNodes("]
    assert "db.labels(" not in inserted(completer, "RETURN db.la")     # procedures only after CALL


def test_routines_are_fetched_once_per_connection(schema):
    class Counting:
        def __init__(self):
            self.queries = []

        def execute(self, query, params=None):
            self.queries.append(query)
            return []

    names, connection = SchemaNames(), Counting()
    names.refresh(connection)
    names.refresh(connection)
    assert sum("SHOW FUNCTIONS" in q for q in connection.queries) == 1
    assert sum("db.labels" in q for q in connection.queries) == 2


def test_completions_replace_the_word_being_typed(schema):
    completer = CypherCompleter(schema)
    completion, = completer.get_completions(Document("MATCH (n:Pe"), None)
    assert (completion.text, completion.start_position) == ("Person", -2)
