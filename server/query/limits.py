"""Statement limits that hostile text cannot get around: bracket nesting (checked on the tokens
before parsing, with line and column), recursion headroom for flat chains (``1 + 1 + ...``,
``a OR b OR ...``, hundreds of clauses), and a typed error wherever recursion still runs out."""
from __future__ import annotations

import contextlib
import sys
import threading
from typing import Callable

from relate.protocol.errors import ClientError, CypherSyntaxError

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


# Values a statement builds: string concatenation (``reduce`` doubling a string) and list
# concatenation are refused past these sizes, long before they exhaust the server's memory.
# Database.open(max_string_chars=..., max_list_items=...) / relate-server --max-value-size set them.
MAX_STRING_CHARS = 64 * 2 ** 20
MAX_LIST_ITEMS = 16 * 2 ** 20


def set_value_limits(max_string_chars: int | None = None, max_list_items: int | None = None) -> None:
    global MAX_STRING_CHARS, MAX_LIST_ITEMS
    if max_string_chars:
        MAX_STRING_CHARS = max_string_chars
    if max_list_items:
        MAX_LIST_ITEMS = max_list_items


def value_too_large(what: str, size: int, limit: int) -> ClientError:
    return ClientError(f"The statement built a {what} of {size:,} {'characters' if what == 'string' else 'items'}, "
                       f"over the limit of {limit:,}", code="Neo.ClientError.Statement.ValueTooLarge",
                       detail="ValueTooLarge", phase="runtime")


def check_string(size: int) -> None:
    if size > MAX_STRING_CHARS:
        raise value_too_large("string", size, MAX_STRING_CHARS)


def check_list(size: int) -> None:
    if size > MAX_LIST_ITEMS:
        raise value_too_large("list", size, MAX_LIST_ITEMS)


# Parsing a long statement can take seconds: the token streams poll this thread's guard every
# PARSE_POLL_TOKENS tokens, so a deadline or a cancellation (client gone, RESET) stops it too.
PARSE_POLL_TOKENS = 1024
_parse_guard = threading.local()


@contextlib.contextmanager
def guarded_parse(check: Callable[[], None]):
    """Within this block, parsing on this thread calls ``check()`` (which raises to stop it)."""
    previous = getattr(_parse_guard, "check", None)
    _parse_guard.check = check
    try:
        yield
    finally:
        _parse_guard.check = previous


def poll_parse() -> None:
    check = getattr(_parse_guard, "check", None)
    if check is not None:
        check()


def check_statement_size(text: str, limit: int | None) -> None:
    """A typed error for statements over ``limit`` bytes (UTF-8), before anything parses them."""
    if not limit or len(text) * 4 <= limit:
        return
    size = len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))
    if size > limit:
        raise ClientError(f"The statement is {size:,} bytes long, over the limit of {limit:,} bytes",
                          code="Neo.ClientError.Request.Invalid", detail="StatementTooLarge",
                          phase="compile time")
