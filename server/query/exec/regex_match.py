"""Regular expressions for ``=~``: the ``regex`` module, which matches with the GIL released and
stops at a time limit, so a catastrophic pattern (``'a'*27+'!' =~ '(a+)+$'``) can neither freeze the
server nor outlive the statement's deadline."""
from __future__ import annotations

import time
from typing import Any

import regex

from relate.protocol.errors import ArgumentError, QueryTimeout

# Longest one match may take (seconds), also when no query timeout is set; tests may lower it.
MATCH_TIME_LIMIT_S = 2.0


def _java_regex(pattern: str) -> str:
    """Java regex syntax that Python spells differently: ``\\Q...\\E`` quoting."""
    return regex.sub(r"\\Q(.*?)(\\E|$)", lambda m: regex.escape(m.group(1)), pattern, flags=regex.S)


def compile_regex(pattern: str) -> Any:
    """The compiled pattern; ArgumentError (InvalidArgumentValue) when it is not a valid regex."""
    try:
        return regex.compile(_java_regex(pattern), flags=regex.VERSION0)
    except (regex.error, ValueError, OverflowError, RecursionError) as exc:
        raise ArgumentError(f"Invalid Regex: {exc}", detail="InvalidArgumentValue", phase="runtime") from None


def full_match(pattern: Any, text: str, ctx=None) -> bool:
    """Whether ``pattern`` matches all of ``text``, within the time the statement has left."""
    limit = MATCH_TIME_LIMIT_S
    deadline = getattr(ctx, "deadline", None)
    if deadline is not None:
        limit = max(0.0, min(limit, deadline - time.monotonic()))
    try:
        return pattern.fullmatch(text, timeout=limit, concurrent=True) is not None
    except TimeoutError:
        raise QueryTimeout(f"The regular expression match ran past its time limit of {limit:.3g} s",
                           phase="runtime") from None
