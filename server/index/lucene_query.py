"""Parser for Lucene's classic query syntax, as Neo4j's full-text procedures accept it.

Supported: bare terms (OR'ed by default), "quoted phrases" with ~slop, AND/OR/NOT, && || !, + and -,
(groups), field:term and field:(group), term* and te?m* wildcards, term~ and term~N fuzzy terms,
^boosts, and *:* (every document). Range queries and /regexes/ are rejected with a clear error.
The result is an unanalyzed tree; `relate.server.index.query_plan` analyzes it against an index.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from relate.protocol.errors import ArgumentError, FulltextQuerySyntaxError

MUST, SHOULD, MUST_NOT = "MUST", "SHOULD", "MUST_NOT"

_SPECIAL = set(' \t\n\r\u3000+-!():^[]"{}~*?\\/')
_TERM_START_EXCLUDED = set(' \t\n\r\u3000+-!():^[]"{}~*?\\/') - {"*", "?"}
_TERM_CHAR_EXCLUDED = _TERM_START_EXCLUDED - {"+", "-"}


@dataclass
class Leaf:
    """One query atom. kind: term, phrase, prefix, wildcard, fuzzy or all; text is unescaped."""
    kind: str
    field: str | None
    text: str
    boost: float = 1.0
    slop: int = 0                 # phrase slop
    edits: float | None = None    # fuzzy: the number after ~ (None = default 2)
    pattern: str = ""             # wildcard: the raw pattern with escapes resolved to a regex


@dataclass
class Bool:
    """A boolean combination: clauses are (occur, node) with occur MUST, SHOULD or MUST_NOT."""
    clauses: list = field(default_factory=list)
    boost: float = 1.0


@dataclass
class _Tok:
    kind: str       # AND OR NOT PLUS MINUS LPAREN RPAREN COLON CARET TILDE TERM QUOTED EOF
    text: str
    pos: int
    raw: str = ""


def parse_lucene(query: str) -> Bool | Leaf:
    """Parse ``query``. A malformed query raises FulltextQuerySyntaxError naming the position (Neo4j's
    code for it, ProcedureCallFailed: Lucene's ParseException fails the call); syntax Relate does not
    support (ranges, regular expressions) and a query that is not a string raise ArgumentError."""
    if not isinstance(query, str):
        raise ArgumentError(f"A full-text query must be a string, not {type(query).__name__}")
    return _Parser(query).parse()


def _syntax_error(query: str, pos: int, message: str, cls: type[ArgumentError] = FulltextQuerySyntaxError
                  ) -> ArgumentError:
    caret = " " * pos + "^"
    return cls(f"Invalid full-text query: {message} at position {pos + 1}\n\"{query}\"\n {caret}")


def _tokenize(query: str) -> list[_Tok]:
    toks: list[_Tok] = []
    i, n = 0, len(query)
    while i < n:
        c = query[i]
        if c in " \t\n\r\u3000":
            i += 1
        elif query.startswith("&&", i):
            toks.append(_Tok("AND", "&&", i)); i += 2
        elif query.startswith("||", i):
            toks.append(_Tok("OR", "||", i)); i += 2
        elif c in "+-!():^~":
            kind = {"+": "PLUS", "-": "MINUS", "!": "NOT", "(": "LPAREN", ")": "RPAREN",
                    ":": "COLON", "^": "CARET", "~": "TILDE"}[c]
            toks.append(_Tok(kind, c, i)); i += 1
        elif c == '"':
            start, i, text = i, i + 1, []
            while i < n and query[i] != '"':
                if query[i] == "\\" and i + 1 < n:
                    i += 1
                text.append(query[i]); i += 1
            if i >= n:
                raise _syntax_error(query, start, "unterminated quoted phrase")
            toks.append(_Tok("QUOTED", "".join(text), start)); i += 1
        elif c in "[]{}":
            raise _syntax_error(query, i, "range queries are not supported", ArgumentError)
        elif c == "/":
            raise _syntax_error(query, i, "regular-expression queries are not supported", ArgumentError)
        else:
            start, raw = i, []
            while i < n and (query[i] not in _TERM_CHAR_EXCLUDED or query[i] == "\\"):
                if query[i] == "\\":
                    if i + 1 >= n:
                        raise _syntax_error(query, i, "a backslash must escape a character")
                    raw.append(query[i:i + 2]); i += 2
                else:
                    raw.append(query[i]); i += 1
            raw_text = "".join(raw)
            kind = {"AND": "AND", "OR": "OR", "NOT": "NOT"}.get(raw_text, "TERM")
            toks.append(_Tok(kind, _unescape(raw_text), start, raw_text))
    toks.append(_Tok("EOF", "", n))
    return toks


def _unescape(raw: str) -> str:
    out, i = [], 0
    while i < len(raw):
        if raw[i] == "\\" and i + 1 < len(raw):
            i += 1
        out.append(raw[i]); i += 1
    return "".join(out)


class _Parser:
    def __init__(self, query: str):
        self.query = query
        self.toks = _tokenize(query)
        self.i = 0

    def peek(self, ahead: int = 0) -> _Tok:
        return self.toks[min(self.i + ahead, len(self.toks) - 1)]

    def take(self) -> _Tok:
        tok = self.toks[self.i]
        self.i += 1
        return tok

    def error(self, tok: _Tok, message: str) -> ArgumentError:
        return _syntax_error(self.query, tok.pos, message)

    def parse(self) -> Bool | Leaf:
        node = self.query_expr(field=None, top=True)
        if self.peek().kind != "EOF":
            raise self.error(self.peek(), f"unexpected {self.peek().text!r}")
        return node

    def query_expr(self, field: str | None, top: bool = False) -> Bool:
        """Clauses combined as Lucene's classic QueryParser.addClause does."""
        clauses: list[list] = []
        first = True
        while True:
            tok = self.peek()
            if tok.kind == "EOF" or (tok.kind == "RPAREN" and not top):
                break
            if tok.kind == "RPAREN":
                raise self.error(tok, "unbalanced ')'")
            conj = None
            if tok.kind in ("AND", "OR"):
                if first:
                    raise self.error(tok, f"{tok.text} needs a clause before it")
                conj = self.take().kind
            mod = None
            if self.peek().kind in ("PLUS", "MINUS", "NOT"):
                mod = {"PLUS": MUST, "MINUS": MUST_NOT, "NOT": MUST_NOT}[self.take().kind]
            node = self.clause(field)
            # AND makes the previous clause required (unless it is prohibited).
            if clauses and conj == "AND" and clauses[-1][0] != MUST_NOT:
                clauses[-1][0] = MUST
            occur = mod or (MUST if conj == "AND" else SHOULD)
            if node is not None:
                clauses.append([occur, node])
            first = False
        if first and top:
            raise _syntax_error(self.query, 0, "the query is empty")
        return Bool([tuple(c) for c in clauses])

    def clause(self, field: str | None):
        tok = self.peek()
        if tok.kind == "TERM" and self.peek(1).kind == "COLON":
            name = self.take().text
            self.take()
            if name == "*" and self.peek().kind == "TERM" and self.peek().raw == "*":
                self.take()
                return Leaf("all", None, "*", boost=self.boost())
            field = name
            tok = self.peek()
        if tok.kind == "LPAREN":
            self.take()
            inner = self.query_expr(field)
            if self.peek().kind != "RPAREN":
                raise self.error(self.peek(), "missing ')'")
            self.take()
            inner.boost = self.boost()
            return inner
        if tok.kind == "QUOTED":
            self.take()
            slop = 0
            if self.peek().kind == "TILDE":
                self.take()
                slop = int(self.number(optional=True, after=self.toks[self.i - 1]) or 0)
            return Leaf("phrase", field, tok.text, boost=self.boost(), slop=slop)
        if tok.kind == "TERM":
            self.take()
            return self.term(field, tok)
        if tok.kind in ("AND", "OR", "NOT"):
            raise self.error(tok, f"{tok.text} must sit between two clauses")
        if tok.kind == "EOF":
            raise self.error(tok, "the query ends where a term was expected")
        raise self.error(tok, f"unexpected {tok.text!r}")

    def term(self, field: str | None, tok: _Tok) -> Leaf:
        edits = None
        fuzzy = False
        if self.peek().kind == "TILDE":
            tilde = self.take()
            fuzzy = True
            edits = self.number(optional=True, after=tilde)
        boost = self.boost()
        if fuzzy:
            return Leaf("fuzzy", field, tok.text, boost=boost, edits=edits)
        wildcard = _wildcard_regex(tok.raw)
        if wildcard is None:
            return Leaf("term", field, tok.text, boost=boost)
        prefix = tok.raw[:-1]
        if tok.raw.endswith("*") and _wildcard_regex(prefix) is None and not prefix.endswith("\\"):
            return Leaf("prefix", field, _unescape(prefix), boost=boost)
        return Leaf("wildcard", field, tok.text, boost=boost, pattern=wildcard)

    def boost(self) -> float:
        if self.peek().kind != "CARET":
            return 1.0
        caret = self.take()
        value = self.number(optional=False, after=caret)
        if value < 0:
            raise self.error(self.peek(), "a boost cannot be negative")
        return value

    def number(self, optional: bool, after: _Tok) -> float | None:
        """A number written right after ``after`` (``~2``, ``^1.5``; no space between)."""
        tok = self.peek()
        if tok.kind == "TERM" and tok.pos == after.pos + 1:
            try:
                value = float(tok.text)
            except ValueError:
                value = None
            if value is not None:
                self.take()
                return value
        if optional:
            return None
        raise self.error(tok, "a number was expected")


def _wildcard_regex(raw: str) -> str | None:
    """A regex for a raw term holding unescaped * or ?, or None when it holds neither.

    Only regex metacharacters are escaped, so Python's re and tantivy's (Rust) regex read it alike.
    """
    if "*" not in raw and "?" not in raw:
        return None
    parts, wild, i = [], False, 0
    while i < len(raw):
        c = raw[i]
        if c == "\\" and i + 1 < len(raw):
            parts.append(escape_regex(raw[i + 1])); i += 2
            continue
        if c == "*":
            parts.append(".*"); wild = True
        elif c == "?":
            parts.append("."); wild = True
        else:
            parts.append(escape_regex(c))
        i += 1
    return "".join(parts) if wild else None


_REGEX_META = set("\\.+*?()|[]{}^$#&-~")


def escape_regex(text: str) -> str:
    """``text`` as a literal in both Python and Rust regex syntax."""
    return "".join("\\" + c if c in _REGEX_META else c for c in text)
