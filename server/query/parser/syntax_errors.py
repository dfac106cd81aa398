"""Syntax errors in Neo4j's style: message, 1-based line and column, and a caret excerpt."""
from __future__ import annotations

from antlr4.error.ErrorListener import ErrorListener
from antlr4.error.ErrorStrategy import DefaultErrorStrategy
from antlr4.Token import Token
from antlr4.tree.Tree import TerminalNode

from relate.protocol.errors import CypherSyntaxError, offset_in, position_suffix
from relate.grammar._generated.CypherParser import CypherParser

# Token types that name a class of input rather than one spelling.
_TOKEN_CLASS_NAMES = {
    CypherParser.IDENTIFIER: "an identifier",
    CypherParser.ESCAPED_IDENTIFIER: "an identifier",
    CypherParser.PARAMETER: "a parameter",
    CypherParser.INTEGER: "an integer value",
    CypherParser.FLOAT: "a float value",
    CypherParser.STRING: "a string value",
    Token.EOF: "<EOF>",
}
# (the lexer numbers keywords alphabetically, ACTIVE first and YIELD last)
_KEYWORD_TYPES = frozenset(range(CypherParser.ACTIVE, CypherParser.YIELD + 1))
# The tokens an expression can start with (besides keywords); listed as "an expression".
_EXPRESSION_START = frozenset({
    CypherParser.LPAREN, CypherParser.PLUS, CypherParser.MINUS, CypherParser.LBRACK, CypherParser.LBRACE,
    CypherParser.FLOAT, CypherParser.INTEGER, CypherParser.STRING, CypherParser.PARAMETER,
    CypherParser.IDENTIFIER})


EXCERPT_HALF_WIDTH = 80      # characters of a long line shown each side of the error
MAX_HEAD = 500               # longest error headline (an offending token may be huge)


def excerpt_for(text: str, line: int, column: int) -> str:
    """The source line ``line`` and a caret line pointing at ``column`` (both 1-based)."""
    lines = text.split("\n")            # ANTLR counts lines by "\n" alone
    source = lines[line - 1].rstrip("\r") if 0 < line <= len(lines) else ""
    if len(source) > 2 * EXCERPT_HALF_WIDTH:
        # A hostile one-line statement must not make the reply as large as itself (twice over).
        start = max(0, column - 1 - EXCERPT_HALF_WIDTH)
        window = source[start:column - 1 + EXCERPT_HALF_WIDTH]
        prefix = "..." if start else ""
        suffix = "..." if start + len(window) < len(source) else ""
        source, column = prefix + window + suffix, column - start + len(prefix)
    # Copy tabs into the caret line so the caret stays under the column in any tab width.
    pad = "".join("\t" if ch == "\t" else " " for ch in source[:column - 1])
    pad += " " * max(0, column - 1 - len(source))
    return f"{source}\n{pad}^"


def make_syntax_error(text: str, line: int, column: int, head: str,
                      detail: str = "UnexpectedSyntax") -> CypherSyntaxError:
    """A CypherSyntaxError whose message is ``head (line L, column C (offset: O))`` plus the excerpt."""
    excerpt = excerpt_for(text, line, column)
    if len(head) > MAX_HEAD:
        head = head[:MAX_HEAD - 3] + "..."
    message = f"{head}{position_suffix(line, column, offset_in(text, line, column))}\n{excerpt}"
    error = CypherSyntaxError(message, detail=detail, line=line, column=column, excerpt=excerpt,
                              phase="compile time")
    error.__suppress_context__ = True     # raised inside ANTLR's own handlers; their trace is noise
    return error


def describe_expected(token_types) -> str:
    """Neo4j-style list of what the parser would have accepted: ``'A', 'B' or an identifier``."""
    types = set(token_types)
    names = []
    if types >= _EXPRESSION_START:
        types -= _EXPRESSION_START
        names.append("an expression")
    if CypherParser.IDENTIFIER in types or names:
        types -= _KEYWORD_TYPES      # every keyword is also a name there; do not list 100 of them
        types.discard(CypherParser.ESCAPED_IDENTIFIER)
    for token_type in sorted(types):
        if token_type in _TOKEN_CLASS_NAMES:
            names.append(_TOKEN_CLASS_NAMES[token_type])
        elif 0 < token_type < len(CypherParser.literalNames) and CypherParser.literalNames[token_type] != "<INVALID>":
            names.append(CypherParser.literalNames[token_type])
    names = sorted(set(names), key=lambda name: (name[0] != "'", name))
    if not names:
        return ""
    if len(names) == 1:
        return names[0]
    return ", ".join(names[:-1]) + " or " + names[-1]


class LexerErrorListener(ErrorListener):
    """Raises on the first character no token can start with."""

    def __init__(self, text: str):
        self.text = text

    def syntaxError(self, recognizer, offendingSymbol, line, column, msg, e):
        start = recognizer._tokenStartCharIndex
        char = self.text[start] if start < len(self.text) else ""
        if char in "'\"":
            head = ("Failed to parse string literal. The query must contain an even number of "
                    "non-escaped quotes.")
            raise make_syntax_error(self.text, line, column + 1, head)
        if char == "`":
            raise make_syntax_error(self.text, line, column + 1,
                                    "Failed to parse an identifier: unterminated backtick quote.")
        detail = "InvalidUnicodeCharacter" if char and ord(char) > 127 else "UnexpectedSyntax"
        raise make_syntax_error(self.text, line, column + 1, f"Invalid input '{char}'", detail)


class ExpectationTrackingStrategy(DefaultErrorStrategy):
    """The default strategy, also noting every token the parser could have taken at the current
    token, including those of optional parts and loops it skipped: ``MATCH (n) FOO`` fails at the
    end of the statement, yet WHERE, RETURN, ',' ... were as welcome as ';' there."""

    def __init__(self):
        super().__init__()
        self.token_index = -1
        self.expected: set[int] = set()

    def sync(self, recognizer):
        index = recognizer.getCurrentToken().tokenIndex
        if index != self.token_index:
            self.token_index = index
            self.expected = set()
        atn = recognizer._interp.atn
        self.expected.update(_interval_types(atn.nextTokens(atn.states[recognizer.state])))
        super().sync(recognizer)


class ParserErrorListener(ErrorListener):
    """Raises on the first syntax error the full-LL pass reports (no recovery)."""

    def __init__(self, text: str, strategy: ExpectationTrackingStrategy):
        self.text = text
        self.strategy = strategy

    def syntaxError(self, recognizer, offendingSymbol, line, column, msg, e):
        expected = set(_interval_types(recognizer.getExpectedTokens()))
        if offendingSymbol is not None and offendingSymbol.tokenIndex == self.strategy.token_index:
            expected |= self.strategy.expected
        expected.discard(Token.EPSILON)
        token_type = offendingSymbol.type if offendingSymbol is not None else Token.EOF
        if token_type == CypherParser.UNTERMINATED_COMMENT:
            raise make_syntax_error(self.text, line, column + 1, "Failed to parse comment. A comment "
                                    "starting on `/*` must have a closing `*/`.")
        text = "" if token_type == Token.EOF else offendingSymbol.text
        detail = "UnexpectedSyntax"
        if token_type == CypherParser.BAD_NUMBER and (
                CypherParser.INTEGER in expected or CypherParser.FLOAT in expected):
            detail = "InvalidNumberLiteral"
        elif token_type == CypherParser.DASH:
            detail = "InvalidUnicodeCharacter"
        elif _inside(recognizer._ctx, CypherParser.RelationshipDetailContext):
            detail = "InvalidRelationshipPattern"
        legacy = _legacy_constraint(recognizer, offendingSymbol)
        if legacy is not None:
            raise make_syntax_error(self.text, legacy[0].line, legacy[0].column + 1, legacy[1])
        wanted = describe_expected(expected)
        head = f"Invalid input '{text}': expected {wanted}" if wanted else f"Invalid input '{text}'"
        raise make_syntax_error(self.text, line, column + 1, head, detail)


# Neo4j 5 removed the 4.x constraint forms (a syntax error there, as here); the message names the 5.x one.
LEGACY_CONSTRAINT = ("Invalid input '{keyword}': CREATE CONSTRAINT ... ON ... ASSERT ... is the Neo4j 4.x syntax, "
                     "removed in Neo4j 5; write CREATE CONSTRAINT [name] [IF NOT EXISTS] FOR (n:Label) REQUIRE "
                     "n.property IS UNIQUE (or IS NODE KEY, IS NOT NULL, IS :: <type>)")
LEGACY_DROP_CONSTRAINT = ("Invalid input '(': DROP CONSTRAINT ON ... ASSERT ... is the Neo4j 4.x syntax, removed "
                          "in Neo4j 5; drop a constraint by its name: DROP CONSTRAINT name [IF EXISTS] (SHOW "
                          "CONSTRAINTS lists the names)")


def legacy_constraint_keyword(ctx):
    """The ON or ASSERT keyword token of a CreateConstraintContext (the 4.x form), or None. A constraint
    named ON or ASSERT is a name inside symbolicName, not one of these children."""
    for child in getattr(ctx, "children", None) or ():
        if isinstance(child, TerminalNode) and child.symbol.type in (CypherParser.ON, CypherParser.ASSERT):
            return child.symbol
    return None


def _legacy_constraint(recognizer, offending):
    """(token, message) when a syntax error falls in a 4.x constraint statement: CREATE CONSTRAINT ON ...
    ASSERT with a clause 5.x does not have (ASSERT exists(n.p)), or DROP CONSTRAINT ON (...)."""
    ctx = recognizer._ctx
    while ctx is not None:
        if type(ctx) is CypherParser.CreateConstraintContext:
            token = legacy_constraint_keyword(ctx)
            return None if token is None else (token, LEGACY_CONSTRAINT.format(keyword=token.text))
        ctx = ctx.parentCtx
    if offending is None or offending.type != CypherParser.LPAREN:
        return None
    # DROP CONSTRAINT ON (: the rule took ON as the constraint's name and ended; the '(' is what fails
    stream, index, before = recognizer.getTokenStream(), offending.tokenIndex - 1, []
    while index >= 0 and len(before) < 3:
        token = stream.get(index)
        if token.channel == Token.DEFAULT_CHANNEL:
            before.append(token.type)
        index -= 1
    if before == [CypherParser.ON, CypherParser.CONSTRAINT, CypherParser.DROP]:
        return offending, LEGACY_DROP_CONSTRAINT
    return None


def _inside(ctx, context_class) -> bool:
    while ctx is not None:
        if type(ctx) is context_class:
            return True
        ctx = ctx.parentCtx
    return False


def _interval_types(interval_set) -> list[int]:
    types = []
    for interval in interval_set.intervals or ():
        types.extend(interval)
    return types
