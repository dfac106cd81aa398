"""Errors as the shell prints them: the status code and message, where it happened, the caret excerpt."""
from __future__ import annotations

from relate.errors import RelateError

from .statements import Piece


def format_error(error: BaseException, *, piece: Piece | None = None, source: str | None = None) -> str:
    """``Neo.ClientError.Statement.SyntaxError: message``, then ``at file:line:col`` and the excerpt.

    ``piece`` places a statement-relative position inside the script ``source`` (a file name).
    """
    if not isinstance(error, RelateError):
        return f"error: {type(error).__name__}: {error}"
    message = error.message
    if error.excerpt and error.excerpt.strip() in message:
        # Syntax errors repeat the excerpt inside the message; print it once, under the position.
        message = message[:message.index(error.excerpt.strip())].rstrip()
    lines = [f"{error.code}: {message}"]
    if source and piece is not None:
        line, column = piece.line, piece.column
        if error.line is not None:
            # The engine counts from the statement's own start; the script counts from its top.
            column = error.column or 1
            if error.line == 1:
                column += piece.column - 1
            line = piece.line + error.line - 1
        lines.append(f"  at {source}:{line}:{column}")
    if error.excerpt:
        lines.extend("  " + row for row in error.excerpt.rstrip("\n").split("\n"))
    return "\n".join(lines)
