"""Splitting shell input into statements and commands."""
from relate.shell.statements import Piece, StatementSplitter, split_statements


def texts(script: str) -> list[str]:
    return [piece.text for piece in split_statements(script)]


def test_several_statements_on_one_line():
    assert texts("RETURN 1; RETURN 2;RETURN 3;") == ["RETURN 1", "RETURN 2", "RETURN 3"]


def test_semicolons_inside_strings_names_and_comments_do_not_split():
    script = """RETURN 'a;b', "c;\\";d" AS `x;y`; // one; more
    RETURN /* ; */ 2 ;"""
    assert texts(script) == ["""RETURN 'a;b', "c;\\";d" AS `x;y`""", "RETURN /* ; */ 2"]


def test_escaped_quote_and_doubled_backtick():
    assert texts(r"RETURN 'it\'s;' AS `a``;b`; RETURN 2;") == [r"RETURN 'it\'s;' AS `a``;b`", "RETURN 2"]


def test_empty_statements_and_comment_only_input_are_dropped():
    assert texts(";;  ; // nothing here;\n/* nor; here */ ;") == []


def test_last_statement_without_semicolon_counts_at_end_of_input():
    assert texts("RETURN 1;\nMATCH (n)\nRETURN n") == ["RETURN 1", "MATCH (n)\nRETURN n"]


def test_commands_run_to_end_of_line_and_only_at_statement_start():
    pieces = split_statements(":param x => 'a;b'\nMATCH (n:Label) RETURN n;\n  :begin\n")
    assert [(p.kind, p.text) for p in pieces] == [
        ("command", ":param x => 'a;b'"), ("cypher", "MATCH (n:Label) RETURN n"), ("command", ":begin")]


def test_piece_positions():
    pieces = split_statements("RETURN 1; RETRN 2;\n  MATCH (n)\nRETURN n;")
    assert [(p.line, p.column) for p in pieces] == [(1, 1), (1, 11), (2, 3)]


def test_incremental_feeding_keeps_state_across_lines():
    splitter = StatementSplitter()
    assert splitter.feed("MATCH (n)\n") == [] and splitter.pending
    assert splitter.feed("WHERE n.s = 'open;\n") == [] and splitter.pending
    assert splitter.feed("still open' /* and;\n") == [] and splitter.pending
    done = splitter.feed("; */ RETURN n; RETURN 2\n")
    assert done == [Piece("cypher", "MATCH (n)\nWHERE n.s = 'open;\nstill open' /* and;\n; */ RETURN n", 1, 1)]
    assert splitter.pending
    assert splitter.feed(";\n") == [Piece("cypher", "RETURN 2", 4, 16)]
    assert not splitter.pending


def test_text_split_at_awkward_places():
    # A chunk boundary inside '//', '/*', '*/' or right after a backslash changes nothing.
    script = "RETURN 1 // c;\nAS x; RETURN 'a\\';b' /* x; */ AS y;"
    expected = texts(script)
    for cut in range(1, len(script)):
        splitter = StatementSplitter()
        pieces = splitter.feed(script[:cut]) + splitter.feed(script[cut:]) + splitter.finish()
        assert [p.text for p in pieces] == expected, cut


def test_reset_forgets_pending_input():
    splitter = StatementSplitter()
    splitter.feed("MATCH (n) RETURN 'unfinished\n")
    splitter.reset()
    assert not splitter.pending
    assert splitter.feed("RETURN 1;") == [Piece("cypher", "RETURN 1", 1, 1)]
