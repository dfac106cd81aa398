"""Statement limits that hostile text cannot get around: bracket nesting (checked on the tokens
before parsing, with line and column), recursion headroom for flat chains (``1 + 1 + ...``,
``a OR b OR ...``, hundreds of clauses), and a typed error wherever recursion still runs out."""
from __future__ import annotations

import sys

from relate.errors import ClientError, CypherSyntaxError

MAX_NESTING = 256                # brackets ( [ { open at once
RECURSION_LIMIT = 20_000         # Python frames: flat chains of ~5,000 terms compile and run
_OPEN = frozenset("([{")
_CLOSE = frozenset(")]}")


def ensure_recursion_headroom() -> None:
    """Raise the interpreter's recursion limit (never lower it). Python 3.12 keeps Python frames
    off the C stack, so the limit guards memory, not a crash."""
    if sys.getrecursionlimit() < RECURSION_LIMIT:
        sys.setrecursionlimit(RECURSION_LIMIT)


def check_nesting(tokens, text: str, limit: int = MAX_NESTING) -> None:
    """Raise a syntax error at the first bracket opened ``limit`` levels deep."""
    from .parser.syntax_errors import make_syntax_error
    depth = 0
    for token in tokens:
        symbol = token.text
        if symbol in _OPEN:
            depth += 1
            if depth > limit:
                raise make_syntax_error(text, token.line, token.column + 1,
                                        f"Expressions nest more than {limit} brackets deep", "NestingTooDeep")
        elif symbol in _CLOSE:
            depth -= 1


def too_complex(phase: str) -> ClientError:
    """What a RecursionError becomes: the statement is too deeply nested or too long a chain."""
    message = ("The statement is too complex: it nests or chains expressions or clauses beyond what "
               "the engine can " + ("compile" if phase == "compile time" else "evaluate"))
    if phase == "compile time":
        return CypherSyntaxError(message, detail="StatementTooComplex", phase=phase)
    return ClientError(message, code="Neo.ClientError.Statement.ExecutionFailed",
                       detail="StatementTooComplex", phase=phase)
