"""Values as text and JSON, tables, status lines and error text."""
import io
import json

from rich.console import Console

from relate.errors import CypherSyntaxError, TransactionError
from relate.shell.error_text import format_error
from relate.shell.formatting import format_value, to_json
from relate.shell.output import CsvWriter, JsonWriter, PlainWriter, TableWriter, plain_table, spend_text, summary_line
from relate.shell.statements import Piece
from relate.temporal import Date, DateTime
from relate.values import Duration, Node, Path, Relationship, Vector


def test_scalars_print_as_cypher_literals():
    assert [format_value(v) for v in (None, True, 3, 1.5, float("nan"), float("-inf"))] == [
        "null", "true", "3", "1.5", "NaN", "-Infinity"]
    assert format_value('say "hi"\n\\') == r'"say \"hi\"\n\\"'
    assert format_value([1, "a", None, {"k": [2.0]}]) == '[1, "a", null, {k: [2.0]}]'
    assert format_value({"odd key": 1}) == "{`odd key`: 1}"


def test_graph_values():
    alice = Node(1, ["Person", "Admin"], {"name": "Alice"})
    bob = Node(2, ["Person"], {})
    knows = Relationship(7, "KNOWS", 1, 2, {"since": 2020})
    assert format_value(alice) == '(:Person:Admin {name: "Alice"})'
    assert format_value(knows) == "[:KNOWS {since: 2020}]"
    assert format_value(Path([alice, bob], [knows])) == '(:Person:Admin {name: "Alice"})-[:KNOWS {since: 2020}]->(:Person)'
    assert format_value(Path([bob, alice], [knows])) == '(:Person)<-[:KNOWS {since: 2020}]-(:Person:Admin {name: "Alice"})'


def test_vectors_are_abbreviated_in_tables_but_not_in_csv():
    vector = Vector([0.1, 0.2, 0.3, 0.4, 0.5], "FLOAT32")
    assert format_value(vector) == "vector([0.1, 0.2, 0.3, ...], 5, FLOAT32)"
    assert format_value(vector, abbreviate=False) == "vector([0.1, 0.2, 0.3, 0.4, 0.5], 5, FLOAT32)"
    assert format_value(Node(1, ["Doc"], {"e": vector})) == "(:Doc {e: vector([0.1, 0.2, 0.3, ...], 5, FLOAT32)})"


def test_temporal_values_print_iso():
    assert format_value(Date(2026, 3, 1)) == "2026-03-01"
    assert format_value(Duration(months=14, days=3, seconds=3661)) == "P1Y2M3DT1H1M1S"
    assert format_value(DateTime.from_state(DateTime(2026, 3, 1, 9, 20).to_state())).startswith("2026-03-01T09:20")


def test_to_json():
    node = Node(1, ["A"], {"v": Vector([1, 2], "INTEGER8"), "d": Date(2026, 1, 2)})
    assert to_json([node, float("inf"), b"\x01\xff"]) == [
        {"id": 1, "labels": ["A"], "properties": {"v": [1, 2], "d": "2026-01-02"}}, "Infinity", "01ff"]


def test_summary_line_like_the_cookbook():
    assert summary_line(["n"], 1, "nodes created: 46, relationships created: 56") == \
        "1 row · nodes created: 46, relationships created: 56"
    assert summary_line([], 0, "indexes added: 3, constraints added: 3") == \
        "(no rows) · indexes added: 3, constraints added: 3"
    assert summary_line(["x"], 1234, "", 2.345) == "1,234 rows · 2.3 ms"


def test_the_summary_line_says_what_a_statement_spent_on_ai_calls():
    assert spend_text({"semanticCalls": 0, "llmCalls": 0, "apiCalls": 0}) == ""
    spend = spend_text({"semanticCalls": 1, "llmCalls": 2, "apiCalls": 1})
    assert spend == "1 semantic search, 2 model calls, 1 API call"
    assert summary_line(["m"], 3, "", 4.0, spend) == "3 rows · 1 semantic search, 2 model calls, 1 API call · 4.0 ms"


def test_plain_table_pads_columns():
    assert plain_table(["id", "text"], [['"n02"', '"hello"'], ['"n3"', '"a"']]) == (
        '| id    | text    |\n'
        '|-------|---------|\n'
        '| "n02" | "hello" |\n'
        '| "n3"  | "a"     |')


def test_writers():
    rows = [(1, "a,b"), (2, None)]
    out = io.StringIO()
    assert PlainWriter(out).write(["n", "s"], rows) == 2
    assert out.getvalue().splitlines()[2] == '| 1 | "a,b" |'
    out, err = io.StringIO(), io.StringIO()
    writer = CsvWriter(out, err)
    assert writer.write(["n", "s"], rows) == 2
    writer.status("2 rows")
    assert out.getvalue() == 'n,s\n1,"a,b"\n2,null\n' and err.getvalue() == "2 rows\n"
    out = io.StringIO()
    JsonWriter(out, io.StringIO()).write(["n", "s"], rows)
    assert [json.loads(line) for line in out.getvalue().splitlines()] == [{"n": 1, "s": "a,b"}, {"n": 2, "s": None}]


def test_rich_table_fits_the_terminal_width():
    out = io.StringIO()
    console = Console(file=out, width=60, force_terminal=False, color_system=None)
    long_text = "word " * 80
    assert TableWriter(console).write(["id", "text"], [(1, long_text), (2, "short")]) == 2
    lines = out.getvalue().splitlines()
    assert max(len(line) for line in lines) <= 60
    assert sum("word" in line for line in lines) > 5       # the long cell wrapped onto many lines


def test_rich_table_shows_only_the_first_rows_of_a_huge_result():
    out = io.StringIO()
    writer = TableWriter(Console(file=out, width=80, color_system=None), max_rows=3)
    assert writer.write(["i"], ((i,) for i in range(10))) == 10
    assert "(first 3 of 10 rows shown)" in out.getvalue() and "│ 3 │" not in out.getvalue()


def test_syntax_error_text_places_the_error_in_the_script():
    error = CypherSyntaxError("Invalid input 'RETRN' (line 2, column 3)\n  RETRN 1\n  ^", line=2, column=3,
                              excerpt="  RETRN 1\n  ^")
    text = format_error(error, piece=Piece("cypher", "...", 10, 5), source="load.cypher")
    assert text.splitlines() == ["Neo.ClientError.Statement.SyntaxError: Invalid input 'RETRN' (line 2, column 3)",
                                 "  at load.cypher:11:3", "    RETRN 1", "    ^"]
    first_line = CypherSyntaxError("bad", line=1, column=4, excerpt="X\n^")
    assert "at s.cypher:3:13" in format_error(first_line, piece=Piece("cypher", "...", 3, 10), source="s.cypher")


def test_other_errors():
    assert format_error(TransactionError("no transaction is open")) == \
        "Neo.ClientError.Transaction.InvalidTransactionState: no transaction is open"
    assert format_error(ValueError("boom")) == "error: ValueError: boom"
