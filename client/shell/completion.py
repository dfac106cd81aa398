"""Tab completion: Cypher keywords, shell commands, ``$parameters``, and what the database knows, fetched
by ``SchemaNames``: labels, relationship types and property keys (refreshed after writes), functions and
procedures (from ``SHOW FUNCTIONS`` / ``SHOW PROCEDURES``, once per connection)."""
from __future__ import annotations

import re
from typing import Callable, Iterable

from prompt_toolkit.completion import Completer, Completion
from prompt_toolkit.document import Document

from relate.errors import RelateError

from .commands import COMMANDS

KEYWORDS = (
    "MATCH", "OPTIONAL MATCH", "WHERE", "RETURN", "WITH", "UNWIND", "CREATE", "MERGE", "DELETE",
    "DETACH DELETE", "SET", "REMOVE", "ORDER BY", "SKIP", "OFFSET", "LIMIT", "DISTINCT", "AS", "AND", "OR",
    "NOT", "XOR", "IN", "IS NULL", "IS NOT NULL", "STARTS WITH", "ENDS WITH", "CONTAINS", "CASE", "WHEN",
    "THEN", "ELSE", "END", "CALL", "YIELD", "UNION", "UNION ALL", "EXISTS", "COUNT", "FOREACH",
    "ON CREATE SET", "ON MATCH SET", "ASC", "DESC", "SEARCH", "SCORE AS", "VECTOR INDEX",
    "FULLTEXT INDEX", "CREATE INDEX", "CREATE VECTOR INDEX", "CREATE FULLTEXT INDEX", "CREATE CONSTRAINT",
    "DROP INDEX", "DROP CONSTRAINT", "SHOW INDEXES", "SHOW CONSTRAINTS", "SHOW PROCEDURES",
    "SHOW FUNCTIONS", "SHOW USERS", "CREATE USER", "ALTER USER", "DROP USER", "IF NOT EXISTS",
    "IF EXISTS", "FOR", "ON", "ON EACH", "REQUIRE", "IS UNIQUE", "OPTIONS", "EXPLAIN", "PROFILE",
    "USING", "TRUE", "FALSE", "NULL", "IN TRANSACTIONS", "RRF", "WRRF", "ON ERROR CONTINUE", "ON ERROR BREAK",
    "REPORT STATUS AS", "SHOW DATABASES", "LET", "FILTER", "FINISH", "SHORTEST", "ALL SHORTEST", "IS ::",
)
# Each name list, tried in order: the procedure first, a scan as the fallback for servers without it.
_NAME_QUERIES = {
    "labels": ("CALL db.labels() YIELD label RETURN label",
               "MATCH (n) UNWIND labels(n) AS name RETURN DISTINCT name LIMIT 1000"),
    "rel_types": ("CALL db.relationshipTypes() YIELD relationshipType RETURN relationshipType",
                  "MATCH ()-[r]->() RETURN DISTINCT type(r) LIMIT 1000"),
    "property_keys": ("CALL db.propertyKeys() YIELD propertyKey RETURN propertyKey",
                      "MATCH (n) UNWIND keys(n) AS name RETURN DISTINCT name LIMIT 1000"),
}
# Functions and procedures do not change with writes: fetched once per connection.
_ROUTINE_QUERIES = {"functions": "SHOW FUNCTIONS YIELD name RETURN name",
                    "procedures": "SHOW PROCEDURES YIELD name RETURN name"}
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*\Z")
_PLAIN_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_OPENERS = {")": "(", "]": "[", "}": "{"}


class SchemaNames:
    """Labels, relationship types and property keys of the database, refreshed after writes."""

    def __init__(self) -> None:
        self.labels: list[str] = []
        self.rel_types: list[str] = []
        self.property_keys: list[str] = []
        self.functions: list[str] = []
        self.procedures: list[str] = []
        self.routines_fetched = False
        self.stale = True
        self._query_choice: dict[str, int] = {}     # which query of _NAME_QUERIES worked last

    def refresh(self, connection) -> None:
        """Fetch the names; failures keep the names we had (completion must never break the shell)."""
        if not self.routines_fetched:
            self.refresh_routines(connection)
        for attribute, queries in _NAME_QUERIES.items():
            first = self._query_choice.get(attribute, 0)
            for index in range(first, len(queries)):
                try:
                    names = [row[0] for row in connection.execute(queries[index])]
                except (RelateError, OSError):
                    continue
                setattr(self, attribute, sorted(n for n in names if isinstance(n, str)))
                self._query_choice[attribute] = index
                break
        self.stale = False

    def refresh_routines(self, connection) -> None:
        """Fetch the function and procedure names (a server without SHOW FUNCTIONS leaves them empty)."""
        for attribute, query in _ROUTINE_QUERIES.items():
            try:
                names = [row[0] for row in connection.execute(query)]
            except (RelateError, OSError):
                continue
            setattr(self, attribute, sorted(n for n in names if isinstance(n, str)))
        self.routines_fetched = True


class CypherCompleter(Completer):
    """Completes the word before the cursor according to what precedes it."""

    def __init__(self, schema: SchemaNames, parameters: Callable[[], Iterable[str]] = tuple):
        self.schema = schema
        self.parameters = parameters

    def get_completions(self, document: Document, complete_event) -> Iterable[Completion]:
        for text, display in self.suggest(document.text_before_cursor):
            yield Completion(text, start_position=-len(_current_word(document.text_before_cursor)),
                             display=display)

    def suggest(self, before: str) -> list[tuple[str, str]]:
        """(text to insert, what to display) pairs for the input ``before`` the cursor."""
        statement = before[before.rfind(";") + 1:].lstrip()
        word = _current_word(before, self.schema.functions + self.schema.procedures)
        ahead = before[:len(before) - len(word)]
        previous = ahead[-1:] if ahead else ""
        if statement.startswith(":") and " " not in statement:
            return _matching(COMMANDS, statement, lambda c: c)
        if previous == "$":
            return _matching(self.parameters(), word, _quote_name)
        context, quoted = _open_bracket(ahead)
        if quoted:
            return []                      # inside a string: nothing sensible to offer
        if (previous == ":" and context != "{") or (previous == "|" and context == "["):
            names = self.schema.rel_types if context == "[" else self.schema.labels
            return _matching(names, word, _quote_name)
        if previous == "." and ahead[-2:-1] not in ("", " ") and not ahead[-2:-1].isdigit():
            return _matching(self.schema.property_keys, word, _quote_name)
        if context == "{" and ahead.rstrip()[-1:] in ("{", ","):
            return _matching(self.schema.property_keys, word, _quote_name)
        if not word:
            return []
        if _CALL.search(ahead):
            return _matching(self.schema.procedures, word, lambda p: p + "(")
        keywords = _matching(KEYWORDS, word, lambda k: k.lower() if word.islower() else k)
        functions = _matching(self.schema.functions, word, lambda f: f + "(")
        return keywords + functions


_CALL = re.compile(r"\bCALL\s+\Z", re.IGNORECASE)


def _current_word(before: str, dotted: Iterable[str] = ()) -> str:
    match = _WORD.search(before)
    word = match.group() if match else ""
    # "n.na" completes the key "na", not "n.na"; dotted function names start with a letter run.
    if "." in word and not any(f.lower().startswith(word.lower()) for f in dotted if "." in f):
        word = word.rsplit(".", 1)[1]
    return word


def _matching(candidates: Iterable[str], word: str, render: Callable[[str], str]) -> list[tuple[str, str]]:
    prefix = word.lower()
    return [(render(c), c) for c in candidates if c.lower().startswith(prefix)]


def _quote_name(name: str) -> str:
    return name if _PLAIN_NAME.match(name) else "`" + name.replace("`", "``") + "`"


def _open_bracket(text: str) -> tuple[str, bool]:
    """The innermost bracket still open at the end of ``text`` ('(' / '[' / '{' / ''), skipping
    strings, and whether the text ends inside a string."""
    stack: list[str] = []
    quote = ""
    escaped = False
    for ch in text:
        if quote:
            if escaped:
                escaped = False
            elif ch == "\\" and quote != "`":
                escaped = True
            elif ch == quote:
                quote = ""
        elif ch in "'\"`":
            quote = ch
        elif ch in "([{":
            stack.append(ch)
        elif ch in _OPENERS and stack and stack[-1] == _OPENERS[ch]:
            stack.pop()
    return (stack[-1] if stack else ""), bool(quote)
