"""Error positions and GQL metadata in Neo4j 5's form, below the wire: the 0-based character offset an
error carries, the ``(line L, column C (offset: O))`` suffix on semantic errors, the Bolt FAILURE's
``_position`` and GQLSTATUS, and the error class of a malformed full-text query."""
from __future__ import annotations

import pytest

import relate
from relate.errors import (ArgumentError, ClientConfiguredTimeout, CypherSyntaxError, FulltextQuerySyntaxError,
                           ProcedureCallFailed, QueryTimeout, error_class_for, error_from_code)
from relate.protocol.bolt.handshake import BoltVersion
from relate.protocol.errors import offset_in
from relate.server.index.lucene_query import parse_lucene
from relate.server.net.bolt_output import failure_metadata, gql_status

BOLT_5_7, BOLT_5_0 = BoltVersion(5, 7), BoltVersion(5, 0)


@pytest.fixture()
def db():
    return relate.connect(":memory:")


def _raised(db, statement: str) -> CypherSyntaxError:
    with pytest.raises(CypherSyntaxError) as caught:
        db.execute(statement).fetchall()
    return caught.value


# ---------------------------------------------------------------- offsets
@pytest.mark.parametrize("text, line, column, offset", [
    ("RETURN m", 1, 8, 7), ("MATCH (n)\nRETURN m", 2, 8, 17), ("a\r\nbc\nd", 3, 1, 6), ("x", 1, 1, 0)])
def test_offset_counts_characters_from_zero(text, line, column, offset):
    assert offset_in(text, line, column) == offset


def test_a_syntax_error_takes_its_offset_from_its_message(db):
    error = _raised(db, "MATCH (n)\nRETURN n n")
    assert (error.line, error.column, error.offset) == (2, 10, 19)
    assert error.to_metadata()["offset"] == 19


def test_locate_adds_the_suffix_once_to_the_first_line():
    error = CypherSyntaxError("Variable `m` not defined\nmore", line=2, column=8)
    error.locate("MATCH (n)\nRETURN m")
    error.locate("MATCH (n)\nRETURN m")
    assert error.message == "Variable `m` not defined (line 2, column 8 (offset: 17))\nmore"
    assert error.offset == 17 and str(error).startswith(error.message)


def test_locate_leaves_an_error_without_a_position_alone():
    error = CypherSyntaxError("no position")
    error.locate("RETURN 1")
    assert (error.message, error.offset) == ("no position", None)
    assert "offset" not in error.to_metadata()


def test_the_native_driver_rebuilds_the_offset():
    rebuilt = error_from_code("Neo.ClientError.Statement.SyntaxError", "m", line=2, column=8, offset=17)
    assert (rebuilt.line, rebuilt.column, rebuilt.offset) == (2, 8, 17)


# ---------------------------------------------------------------- semantic errors' messages
def test_semantic_error_says_where(db):
    error = _raised(db, "MATCH (n) RETURN m")
    assert error.message == "Variable `m` not defined (line 1, column 18 (offset: 17))"
    assert (error.line, error.column, error.offset) == (1, 18, 17)


def test_semantic_error_on_a_later_line_says_where(db):
    error = _raised(db, "MATCH (n)\nWITH n\nRETURN n, m")
    assert error.message == "Variable `m` not defined (line 3, column 11 (offset: 27))"


def test_semantic_error_after_leading_blanks(db):
    error = _raised(db, "  MATCH (n) RETURN m")
    assert error.message == "Variable `m` not defined (line 1, column 20 (offset: 19))"


def test_semantic_error_of_a_statement_starting_on_a_later_line_keeps_line_and_column(db):
    error = _raised(db, "\n\nMATCH (n) RETURN m")
    assert (error.line, error.column) == (3, 18)
    assert error.message.startswith("Variable `m` not defined")


# ---------------------------------------------------------------- Bolt FAILURE metadata
def test_position_uses_the_errors_offset():
    meta = {"code": "Neo.ClientError.Statement.SyntaxError", "message": "x", "line": 3, "column": 11, "offset": 27}
    record = failure_metadata(meta, BOLT_5_7)["diagnostic_record"]
    assert record["_position"] == {"line": 3, "column": 11, "offset": 27}


def test_position_on_line_one_without_an_offset_is_column_minus_one():
    meta = {"code": "Neo.ClientError.Statement.SyntaxError", "message": "x", "line": 1, "column": 18}
    assert failure_metadata(meta, BOLT_5_7)["diagnostic_record"]["_position"] == \
        {"line": 1, "column": 18, "offset": 17}


def test_position_on_a_later_line_without_an_offset_leaves_it_out():
    meta = {"code": "Neo.ClientError.Statement.SyntaxError", "message": "x", "line": 2, "column": 4}
    assert failure_metadata(meta, BOLT_5_7)["diagnostic_record"]["_position"] == {"line": 2, "column": 4}


def test_no_position_without_a_line_and_none_before_bolt_5_7():
    meta = {"code": "Neo.ClientError.Statement.SyntaxError", "message": "x"}
    assert "_position" not in failure_metadata(meta, BOLT_5_7)["diagnostic_record"]
    assert failure_metadata({**meta, "line": 1, "column": 2}, BOLT_5_0) == {
        "code": "Neo.ClientError.Statement.SyntaxError", "message": "x"}


@pytest.mark.parametrize("code, message, status", [
    ("Neo.ClientError.Statement.ArithmeticError", "/ by zero", "22012"),
    ("Neo.ClientError.Statement.ArithmeticError", "long overflow", "22003"),
    ("Neo.ClientError.Statement.ArithmeticError", "something else", "22000"),
    ("Neo.ClientError.Statement.ParameterMissing", "Expected parameter(s): missing", "42N51"),
    ("Neo.ClientError.Procedure.ProcedureNotFound", "There is no procedure", "42N08"),
    ("Neo.ClientError.Procedure.ProcedureCallFailed", "Invalid full-text query", "52N37"),
    ("Neo.ClientError.Statement.SyntaxError", "Invalid input", "42001"),
    ("Neo.ClientError.Schema.ConstraintValidationFailed", "already exists", "22N81"),
    ("Neo.ClientError.Statement.TypeError", "Type mismatch", "42N00"),
    ("Neo.ClientError.Security.Forbidden", "no", "42NFF"),
    ("Neo.ClientError.Transaction.TransactionTimedOut", "late", "25N00"),
    ("Neo.ClientError.Schema.IndexNotFound", "none", "22N00"),
    ("Neo.TransientError.Transaction.DeadlockDetected", "dl", "50N00"),
    ("Neo.DatabaseError.General.UnknownError", "boom", "50N42"),
])
def test_gql_status_per_neo4j_code(code, message, status):
    assert gql_status(code, message)[0] == status
    failure = failure_metadata({"code": code, "message": message}, BOLT_5_7)
    assert failure["gql_status"] == status
    assert failure["description"].startswith(gql_status(code, message)[1])


# ---------------------------------------------------------------- error classes
@pytest.mark.parametrize("query", ["foo (bar", "kafka AND", '"unterminated', "kafka)", "+"])
def test_malformed_fulltext_query_is_a_procedure_call_failure(query):
    with pytest.raises(FulltextQuerySyntaxError, match="Invalid full-text query") as caught:
        parse_lucene(query)
    assert caught.value.code == "Neo.ClientError.Procedure.ProcedureCallFailed"
    assert isinstance(caught.value, (ProcedureCallFailed, ArgumentError))


@pytest.mark.parametrize("query", ["[a TO b]", "/regex/"])
def test_unsupported_fulltext_syntax_stays_an_argument_error(query):
    with pytest.raises(ArgumentError, match="not supported") as caught:
        parse_lucene(query)
    assert caught.value.code == "Neo.ClientError.Statement.ArgumentError"


def test_error_classes_by_code_keep_their_owners():
    assert error_class_for("Neo.ClientError.Procedure.ProcedureCallFailed") is ProcedureCallFailed
    assert error_class_for("Neo.ClientError.Statement.ArgumentError") is ArgumentError
    timeout = error_class_for("Neo.ClientError.Transaction.TransactionTimedOutClientConfiguration")
    assert timeout is ClientConfiguredTimeout and issubclass(timeout, QueryTimeout)
