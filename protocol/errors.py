"""One error hierarchy for Relate, shared by embedded and network modes (``relate.errors`` re-exports it).

Every error carries a Neo4j-style status code (``Neo.ClientError.Statement.SyntaxError``), a message,
and optionally a TCK-style ``detail`` name (``UndefinedVariable``) plus the source position.
Protocol violations (bad bytes or messages) are a separate class, ``ProtocolViolation``, at the end.
"""
from __future__ import annotations

import re
from typing import Any, Iterator

__all__ = [
    "RelateError", "ClientError", "TransientError", "DatabaseError",
    "CypherSyntaxError", "CypherSemanticError", "CypherTypeError", "CypherArithmeticError", "ArgumentError",
    "ParameterMissing", "EntityNotFound", "ConstraintValidationFailed", "SchemaError",
    "EquivalentSchemaRuleAlreadyExists", "IndexNotFound", "ConstraintNotFound",
    "ProcedureNotFound", "ProcedureCallFailed", "AuthenticationError", "ProtocolError",
    "TransactionError", "QueryTimeout", "ClientConfiguredTimeout", "Terminated", "ServiceUnavailable",
    "DeadlockDetected",
    "ConfigurationError", "ResultConsumedError", "ResultNotSingleError", "ReadOnlyDatabaseError",
    "AccessModeError", "FulltextQuerySyntaxError", "error_class_for", "error_from_code",
    "offset_in", "position_suffix",
]

# Neo4j's position suffix on an error message's first line: `` (line 1, column 18 (offset: 17))``.
_POSITION = re.compile(r" \(line (\d+), column (\d+) \(offset: (\d+)\)\)")


def offset_in(text: str, line: int, column: int) -> int:
    """The 0-based character offset in ``text`` of a 1-based (line, column); lines end at a newline."""
    offset = 0
    for _ in range(line - 1):
        newline = text.find("\n", offset)
        if newline < 0:
            break
        offset = newline + 1
    return offset + max(column, 1) - 1


def position_suffix(line: int, column: int, offset: int) -> str:
    """Neo4j's position suffix for an error message: `` (line L, column C (offset: O))``."""
    return f" (line {line}, column {column} (offset: {offset}))"


class RelateError(Exception):
    """Base of every Relate error; ``code`` is the Neo4j-style status code."""

    code = "Neo.DatabaseError.General.UnknownError"
    retryable = False

    def __init__(self, message: str, *, code: str | None = None, detail: str | None = None,
                 line: int | None = None, column: int | None = None, excerpt: str | None = None,
                 phase: str | None = None, offset: int | None = None):
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code
        self.detail = detail            # TCK detail name, e.g. "UndefinedVariable"
        self.line = line                # 1-based
        self.column = column            # 1-based
        self.excerpt = excerpt          # offending line plus a caret line
        self.phase = phase              # "compile time" or "runtime"
        if offset is None and line is not None:
            # A message that already ends its first line in Neo4j's suffix (syntax errors) names it.
            found = _POSITION.search(message.partition("\n")[0])
            if found and (int(found[1]), int(found[2])) == (line, column):
                offset = int(found[3])
        self.offset = offset            # 0-based character offset in the statement (Neo4j's "offset")

    def __str__(self) -> str:
        text = self.message
        if self.excerpt and self.excerpt not in text:
            text = f"{text}\n{self.excerpt}"
        return text

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.code}: {self.message!r})"

    def locate(self, text: str) -> None:
        """Place the error in ``text``, the statement it was raised for: its 0-based character
        ``offset`` from ``line`` and ``column``, and Neo4j's suffix ``(line L, column C (offset: O))``
        at the end of the message's first line (once). Without a line it stays as it is."""
        if self.line is None:
            return
        column = self.column or 1
        if self.offset is None:
            self.offset = offset_in(text, self.line, column)
        head, newline, rest = self.message.partition("\n")
        if _POSITION.search(head) is None:
            self.message = f"{head}{position_suffix(self.line, column, self.offset)}{newline}{rest}"
            self.args = (self.message,)

    def to_metadata(self) -> dict[str, Any]:
        """The error as a plain dict (what the wire protocol sends in FAILURE)."""
        meta = {"code": self.code, "message": self.message}
        for key in ("detail", "line", "column", "offset", "excerpt", "phase"):
            value = getattr(self, key)
            if value is not None:
                meta[key] = value
        return meta


class ClientError(RelateError):
    """The request was wrong; retrying it unchanged fails again."""
    code = "Neo.ClientError.General.Invalid"


class TransientError(RelateError):
    """A temporary condition; the same request may succeed when retried."""
    code = "Neo.TransientError.General.TransientError"
    retryable = True


class DatabaseError(RelateError):
    """The database failed (a bug or an I/O error), not the request."""
    code = "Neo.DatabaseError.General.UnknownError"


class CypherSyntaxError(ClientError):
    code = "Neo.ClientError.Statement.SyntaxError"


class CypherSemanticError(ClientError):
    code = "Neo.ClientError.Statement.SemanticError"


class CypherTypeError(ClientError):
    code = "Neo.ClientError.Statement.TypeError"


class CypherArithmeticError(ClientError):
    """Integer division or modulo by zero, or a result outside 64-bit integers ("long overflow")."""
    code = "Neo.ClientError.Statement.ArithmeticError"


class ArgumentError(ClientError):
    code = "Neo.ClientError.Statement.ArgumentError"


class ParameterMissing(ClientError):
    code = "Neo.ClientError.Statement.ParameterMissing"


class EntityNotFound(ClientError):
    code = "Neo.ClientError.Statement.EntityNotFound"


class ConstraintValidationFailed(ClientError):
    code = "Neo.ClientError.Schema.ConstraintValidationFailed"


class SchemaError(ClientError):
    code = "Neo.ClientError.Schema.SchemaRuleFailed"


class EquivalentSchemaRuleAlreadyExists(SchemaError):
    code = "Neo.ClientError.Schema.EquivalentSchemaRuleAlreadyExists"


class IndexNotFound(SchemaError):
    code = "Neo.ClientError.Schema.IndexNotFound"


class ConstraintNotFound(SchemaError):
    code = "Neo.ClientError.Schema.ConstraintNotFound"


class ProcedureNotFound(ClientError):
    code = "Neo.ClientError.Procedure.ProcedureNotFound"


class ProcedureCallFailed(ClientError):
    code = "Neo.ClientError.Procedure.ProcedureCallFailed"


class FulltextQuerySyntaxError(ProcedureCallFailed, ArgumentError):
    """A full-text query string the Lucene syntax cannot parse: Neo4j fails the procedure call
    (``ProcedureCallFailed``, a Lucene ParseException); still an ArgumentError to Python callers.
    Its code is inherited, so ``error_class_for`` keeps ProcedureCallFailed for that code."""


class AuthenticationError(ClientError):
    code = "Neo.ClientError.Security.Unauthorized"


class ProtocolError(ClientError):
    code = "Neo.ClientError.Request.Invalid"


class TransactionError(ClientError):
    code = "Neo.ClientError.Transaction.InvalidTransactionState"


class QueryTimeout(ClientError):
    code = "Neo.ClientError.Transaction.TransactionTimedOut"


class ClientConfiguredTimeout(QueryTimeout):
    """A statement or transaction that ran past the timeout its client set (the driver's ``timeout``,
    Bolt's ``tx_timeout``), not the server's configured one."""
    code = "Neo.ClientError.Transaction.TransactionTimedOutClientConfiguration"


class InvalidBookmark(ClientError):
    """A bookmark this server did not give out (not of its form)."""
    code = "Neo.ClientError.Transaction.InvalidBookmark"


class BookmarkTimeout(TransientError):
    """A bookmark newer than anything this database has committed (another server's, or one given out
    before an older backup was restored), still not reached after waiting for it."""
    code = "Neo.TransientError.Transaction.BookmarkTimeout"


class Terminated(ClientError):
    code = "Neo.ClientError.Transaction.Terminated"


class ServiceUnavailable(TransientError):
    code = "Neo.TransientError.General.DatabaseUnavailable"


class DeadlockDetected(TransientError):
    code = "Neo.TransientError.Transaction.DeadlockDetected"


class ConfigurationError(ClientError):
    """A connection target or option that cannot be served (an unknown URL scheme, a bad path)."""
    code = "Neo.ClientError.General.InvalidArguments"


class ResultConsumedError(ClientError):
    """Rows read from a result that was already consumed, or whose connection was closed."""
    code = "Neo.ClientError.Statement.ResultConsumed"


class ResultNotSingleError(ClientError):
    """``Result.single()`` on a result without exactly one row."""
    code = "Neo.ClientError.Statement.ResultNotSingle"


class ReadOnlyDatabaseError(ClientError):
    """A write to a database opened with ``read_only=True``."""
    code = "Neo.ClientError.General.ForbiddenOnReadOnlyDatabase"


class AccessModeError(ClientError):
    """A write in a READ transaction (``execute_read``, Bolt's access mode READ): refused before it runs."""
    code = "Neo.ClientError.Statement.AccessMode"


def _all_subclasses(cls: type[RelateError]) -> Iterator[type[RelateError]]:
    for sub in cls.__subclasses__():
        yield sub
        yield from _all_subclasses(sub)


_BY_CODE: dict[str, type[RelateError]] = {}


def error_class_for(code: str) -> type[RelateError]:
    """The most specific error class registered for ``code``."""
    if not _BY_CODE:
        classes: list[type[RelateError]] = [RelateError, *_all_subclasses(RelateError)]
        for each in classes:
            if "code" in vars(each):        # a class that only inherits its code is not its owner
                _BY_CODE.setdefault(each.code, each)
    cls = _BY_CODE.get(code)
    if cls is not None:
        return cls
    if code.startswith("Neo.ClientError."):
        return ClientError
    if code.startswith("Neo.TransientError."):
        return TransientError
    return DatabaseError


def error_from_code(code: str, message: str, **meta: Any) -> RelateError:
    """Rebuild an error from its code and metadata (the driver's side of ``to_metadata``)."""
    allowed = {k: meta[k] for k in ("detail", "line", "column", "offset", "excerpt", "phase") if k in meta}
    return error_class_for(code)(message, code=code, **allowed)


# --------------------------------------------------------------------------------------------
# Protocol violations: plain values (a status code and a message), not RelateErrors. The server
# turns one into a FAILURE with this code; the driver rebuilds the matching RelateError from it.
# --------------------------------------------------------------------------------------------
PROTOCOL_ERROR_CODE = "Neo.ClientError.Request.Invalid"


class ProtocolViolation(Exception):
    """Bytes or messages that break the protocol (bad frame, bad message, wrong state)."""

    code = PROTOCOL_ERROR_CODE
    fatal = False        # True when the byte stream cannot be trusted any more: close the connection

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message

    def to_metadata(self) -> dict[str, Any]:
        return {"code": self.code, "message": self.message}
