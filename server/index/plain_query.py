"""Plain-text full-text queries: a user's words as OR'ed terms, never a syntax error.

Lucene's syntax gives meaning to ``AND``, ``"``, ``(``, ``*``, ``~``... so a raw user question such as
``kafka AND`` or an unbalanced quote is a malformed Lucene query. The plain mode reads the text as words
only (the index's analyzer splits them), which is what a search box and the retrieval lanes want.
"""
from __future__ import annotations

from relate.protocol.errors import ArgumentError

from .lucene_query import Bool, Leaf, parse_lucene

PLAIN, LUCENE = "plain", "lucene"
MODES = (PLAIN, LUCENE)

# Lucene's classic QueryParser.escape() set, plus the two-character operators' first characters.
_LUCENE_SPECIAL = set('\\+-!():^[]"{}~*?|&/')


def parse_query(text, mode: str = LUCENE) -> Bool | Leaf:
    """The query tree for ``text`` in ``mode`` ('plain' or 'lucene')."""
    mode = check_mode(mode)
    if not isinstance(text, str):
        raise ArgumentError(f"A full-text query must be a string, not {type(text).__name__}")
    if mode == LUCENE:
        return parse_lucene(text)
    # One unfielded term leaf: the analyzer splits it and its tokens are OR'ed over every field.
    return Leaf("term", None, text)


def check_mode(mode) -> str:
    value = str(mode).lower() if isinstance(mode, str) else mode
    if value not in MODES:
        raise ArgumentError(f"A full-text query mode is 'plain' or 'lucene', got {mode!r}")
    return value


def escape_lucene(text: str) -> str:
    """``text`` with every Lucene special character backslash-escaped (a literal in Lucene syntax);
    the words AND/OR/NOT are quoted so they stay terms."""
    out = "".join("\\" + c if c in _LUCENE_SPECIAL else c for c in text)
    words = out.split(" ")
    return " ".join('"' + w + '"' if w in ("AND", "OR", "NOT") else w for w in words)
