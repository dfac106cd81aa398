"""A regular-expression tokenizer for ASCII statements, several times faster than the generated
ANTLR lexer and token-for-token identical to it (tests/unit/test_parser.py compares the two).

It declines (returns None) on anything unusual - non-ASCII text, a character no token starts with,
an unterminated string - and the ANTLR lexer then handles the text and reports its errors.
"""
from __future__ import annotations

import re

from antlr4 import CommonTokenStream
from antlr4.error.Errors import IllegalStateException
from antlr4.Token import CommonToken, Token

from relate.grammar._generated.CypherLexer import CypherLexer as L
from relate.server.query.limits import PARSE_POLL_TOKENS, poll_parse

KEYWORDS = {name: L.symbolicNames.index(name) for name in L.symbolicNames[L.ALL:L.YIELD + 1]}
KEYWORDS["SKIP"] = KEYWORDS.pop("SKIP_")

# One alternative per token class; a group name says which. Numbers are split further below.
_TOKEN = re.compile(r"""
    (?P<space>[ \t\n\r\x0b\x0c\x1c-\x1f]+)
  | (?P<line_comment>//[^\r\n]*)
  | (?P<block_comment>/\*.*?\*/)
  | (?P<open_comment>/\*.*)
  | (?P<number>\.?[0-9])
  | (?P<name>[a-z_][a-z0-9_]*)
  | (?P<string>'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")
  | (?P<escaped>`(?:[^`]|``)*`)
  | (?P<parameter>\$(?:[a-z_][a-z0-9_]*|`(?:[^`]|``)*`|[0-9]+))
  | (?P<symbol>\.\.|::|\+=|=~|<>|!=|<=|>=|\$\(|\|\||[.,;:(){}\[\]=<>+\-*/%^|&!])
""", re.VERBOSE | re.IGNORECASE | re.DOTALL)

_DIGITS = r"[0-9](?:_?[0-9])*"
_FLOAT = re.compile(rf"{_DIGITS}\.{_DIGITS}(?:e[+-]?{_DIGITS})?|\.{_DIGITS}(?:e[+-]?{_DIGITS})?|{_DIGITS}e[+-]?{_DIGITS}",
                    re.IGNORECASE)
_INTEGER = re.compile(r"0x(?:_?[0-9a-f])+|0o(?:_?[0-7])+|0[0-7]*|[1-9](?:_?[0-9])*", re.IGNORECASE)
_BAD_NUMBER = re.compile(r"[0-9][0-9a-z_]*", re.IGNORECASE)

_SYMBOLS = {"..": L.DOTDOT, "::": L.COLONCOLON, "+=": L.PLUS_EQ, "=~": L.REGEX_MATCH, "<>": L.NEQ,
            "!=": L.NEQ, "<=": L.LE, ">=": L.GE, ".": L.DOT, ",": L.COMMA, ";": L.SEMI, ":": L.COLON,
            "(": L.LPAREN, ")": L.RPAREN, "{": L.LBRACE, "}": L.RBRACE, "[": L.LBRACK, "]": L.RBRACK,
            "=": L.EQ, "<": L.LT, ">": L.GT, "+": L.PLUS, "-": L.MINUS, "*": L.STAR, "/": L.SLASH,
            "%": L.PERCENT, "^": L.CARET, "||": L.CONCAT, "|": L.PIPE, "&": L.AMP, "!": L.BANG, "$(": L.DYNAMIC_LABEL}


def _number(text: str, pos: int):
    """(token type, end) of the longest number-like token at ``pos``; ties go to the earlier rule."""
    best_type, best_end = None, pos
    for token_type, pattern in ((L.FLOAT, _FLOAT), (L.INTEGER, _INTEGER), (L.BAD_NUMBER, _BAD_NUMBER)):
        match = pattern.match(text, pos)
        if match is not None and match.end() > best_end:
            best_type, best_end = token_type, match.end()
    return best_type, best_end


def tokenize(text: str) -> list[CommonToken] | None:
    """The default-channel tokens of ``text`` ending with EOF, or None to let ANTLR lex it."""
    if not text.isascii():
        return None
    tokens = []
    pos, end, line, line_start = 0, len(text), 1, 0
    match_at = _TOKEN.match
    while pos < end:
        match = match_at(text, pos)
        if match is None:
            return None
        kind = match.lastgroup
        stop = match.end()
        if kind == "number":
            token_type, stop = _number(text, pos)
        elif kind == "name":
            token_type = KEYWORDS.get(match.group().upper(), L.IDENTIFIER)
        elif kind == "symbol":
            token_type = _SYMBOLS[match.group()]
        elif kind == "string":
            token_type = L.STRING
        elif kind == "parameter":
            token_type = L.PARAMETER
        elif kind == "escaped":
            token_type = L.ESCAPED_IDENTIFIER
        elif kind == "open_comment":
            token_type = L.UNTERMINATED_COMMENT
        else:
            token_type = None            # whitespace and comments are skipped
        if token_type is not None:
            token = CommonToken(type=token_type, start=pos, stop=stop - 1)
            token.text = text[pos:stop]
            token.line = line
            token.column = pos - line_start
            token.tokenIndex = len(tokens)
            tokens.append(token)
        newlines = text.count("\n", pos, stop)
        if newlines:
            line += newlines
            line_start = text.rindex("\n", pos, stop) + 1
        pos = stop
    eof = CommonToken(type=Token.EOF, start=end, stop=end - 1)
    eof.text = "<EOF>"
    eof.line = line
    eof.column = end - line_start
    eof.tokenIndex = len(tokens)
    tokens.append(eof)
    return tokens


class PrefilledTokenStream(CommonTokenStream):
    """A token stream over already lexed default-channel tokens. With no hidden tokens to skip,
    look-ahead is plain indexing; the parser calls LT/LA tens of thousands of times per query."""

    def __init__(self, tokens: list[CommonToken]):
        super().__init__(None)
        self.tokens = tokens
        self.fetchedEOF = True
        self.index = 0
        self._eof_index = len(tokens) - 1

    def lazyInit(self):
        pass

    def seek(self, index: int):
        self.index = min(index, self._eof_index)

    def LT(self, k: int):
        if k > 0:
            i = self.index + k - 1
            return self.tokens[i if i < self._eof_index else self._eof_index]
        if k == 0:
            return None
        i = self.index + k
        return self.tokens[i] if i >= 0 else None

    def LA(self, k: int) -> int:
        if k <= 0:
            token = self.LT(k)
            return Token.INVALID_TYPE if token is None else token.type
        i = self.index + k - 1
        return self.tokens[i if i < self._eof_index else self._eof_index].type

    def consume(self):
        if self.index >= self._eof_index:
            raise IllegalStateException("cannot consume EOF")
        self.index += 1
        if not self.index % PARSE_POLL_TOKENS:
            poll_parse()
