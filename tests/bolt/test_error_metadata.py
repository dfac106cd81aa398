"""Error metadata as the official neo4j driver sees it, matching Neo4j 5: the GQLSTATUS and its
description, the diagnostic record's ``_position`` (with a real 0-based character offset), the position
suffix on semantic errors' messages, and the code of a malformed full-text query."""
from __future__ import annotations

import pytest
from neo4j.exceptions import Neo4jError


def _failure(driver, statement: str, **params) -> Neo4jError:
    with pytest.raises(Neo4jError) as caught:
        driver.execute_query(statement, params)
    return caught.value


def _offset(text: str, line: int, column: int) -> int:
    """Neo4j's offset: characters from 0, lines ending at "\\n"."""
    return sum(len(each) + 1 for each in text.split("\n")[:line - 1]) + column - 1


# ---------------------------------------------------------------- _position and the message suffix
def test_syntax_error_position_has_the_character_offset(driver):
    error = _failure(driver, "MATCH (n RETURN n")
    assert error.code == "Neo.ClientError.Statement.SyntaxError" and error.gql_status == "42001"
    position = error.diagnostic_record["_position"]
    assert position == {"line": 1, "column": 10, "offset": 9}
    assert "(line 1, column 10 (offset: 9))" in error.message.splitlines()[0]


def test_syntax_error_on_a_later_line_counts_the_lines_before(driver):
    text = "MATCH (n)\nWHERE n.x = 1\nRETURN n n"
    error = _failure(driver, text)
    position = error.diagnostic_record["_position"]
    assert (position["line"], position["column"]) == (3, 10)
    assert position["offset"] == _offset(text, 3, 10) == 33
    assert text[position["offset"]] == "n"
    assert "(line 3, column 10 (offset: 33))" in error.message.splitlines()[0]


def test_semantic_error_message_carries_the_position_suffix(driver):
    error = _failure(driver, "MATCH (n) RETURN m")
    assert error.message.splitlines()[0] == "Variable `m` not defined (line 1, column 18 (offset: 17))"
    assert error.diagnostic_record["_position"] == {"line": 1, "column": 18, "offset": 17}


def test_semantic_error_on_a_later_line(driver):
    text = "MATCH (n)\nWITH n\nRETURN n, m"
    error = _failure(driver, text)
    offset = _offset(text, 3, 11)
    assert text[offset] == "m"
    assert error.message.splitlines()[0] == f"Variable `m` not defined (line 3, column 11 (offset: {offset}))"
    assert error.diagnostic_record["_position"] == {"line": 3, "column": 11, "offset": offset}


def test_semantic_error_after_leading_blanks_on_line_one(driver):
    text = "   MATCH (n) RETURN m"
    error = _failure(driver, text)
    assert error.diagnostic_record["_position"] == {"line": 1, "column": 21, "offset": 20}
    assert "(line 1, column 21 (offset: 20))" in error.message.splitlines()[0]


# ---------------------------------------------------------------- GQLSTATUS per Neo4j code
def test_division_by_zero_is_a_data_exception(driver):
    error = _failure(driver, "RETURN 1/0 AS x")
    assert error.code == "Neo.ClientError.Statement.ArithmeticError"
    assert error.gql_status == "22012"
    assert error.gql_status_description.startswith("error: data exception - division by zero")
    assert error.gql_classification.name == "CLIENT_ERROR"


def test_integer_overflow_is_a_numeric_value_out_of_range(driver):
    error = _failure(driver, "RETURN 9223372036854775807 + 1 AS x")
    assert error.code == "Neo.ClientError.Statement.ArithmeticError"
    assert error.gql_status == "22003"


def test_missing_parameter_is_an_invalid_parameter(driver):
    error = _failure(driver, "RETURN $missing AS x")
    assert error.code == "Neo.ClientError.Statement.ParameterMissing"
    assert error.gql_status == "42N51"
    assert error.gql_status_description.startswith(
        "error: syntax error or access rule violation - invalid parameter")


def test_unknown_procedure_is_no_such_procedure(driver):
    error = _failure(driver, "CALL no.such.proc()")
    assert error.code == "Neo.ClientError.Procedure.ProcedureNotFound"
    assert error.gql_status == "42N08"
    assert error.gql_status_description.startswith(
        "error: syntax error or access rule violation - no such procedure")


def test_other_statement_errors_keep_the_general_status(driver):
    error = _failure(driver, "RETURN 1 + $b AS x", b=True)
    assert error.code == "Neo.ClientError.Statement.TypeError"
    assert error.gql_status == "42N00"


# ---------------------------------------------------------------- full-text query syntax
def test_malformed_fulltext_query_fails_the_procedure_call(driver):
    driver.execute_query("CREATE FULLTEXT INDEX err_ft IF NOT EXISTS FOR (n:ErrDoc) ON EACH [n.text]")
    driver.execute_query("CALL db.awaitIndexes()")
    error = _failure(driver, "CALL db.index.fulltext.queryNodes('err_ft', 'foo (bar') YIELD node RETURN node")
    assert error.code == "Neo.ClientError.Procedure.ProcedureCallFailed"
    assert error.gql_status == "52N37"
    assert "Invalid full-text query: missing ')'" in error.message
    # a well-formed query still runs
    records, _, _ = driver.execute_query(
        "CALL db.index.fulltext.queryNodes('err_ft', 'foo AND (bar)') YIELD node RETURN node")
    assert records == []
