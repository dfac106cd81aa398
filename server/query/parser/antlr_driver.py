"""Runs the generated ANTLR parser: SLL prediction with bail-out first, full LL with errors after."""
from __future__ import annotations

import threading

from antlr4 import CommonTokenStream, InputStream
from antlr4.atn.PredictionMode import PredictionMode
from antlr4.error.ErrorStrategy import BailErrorStrategy
from antlr4.error.Errors import ParseCancellationException

from relate.grammar._generated.CypherLexer import CypherLexer
from relate.grammar._generated.CypherParser import CypherParser

from ..limits import PARSE_POLL_TOKENS, check_nesting, poll_parse
from .fast_lexer import PrefilledTokenStream, tokenize
from .syntax_errors import ExpectationTrackingStrategy, LexerErrorListener, ParserErrorListener


# The generated lexer and parser share DFA caches, which the Python runtime updates without
# locking. Parsing is CPU-bound under the GIL anyway, so one lock costs sessions nothing.
_ANTLR_LOCK = threading.RLock()


class _GuardedTokenStream(CommonTokenStream):
    """ANTLR's token stream, polling the parse guard (deadline, cancellation) as tokens are consumed."""

    def consume(self):
        super().consume()
        if not self.index % PARSE_POLL_TOKENS:
            poll_parse()


def lex(text: str) -> CommonTokenStream:
    """A filled token stream for ``text``; raises CypherSyntaxError on characters no token starts with."""
    lexer = CypherLexer(InputStream(text))
    lexer.removeErrorListeners()
    lexer.addErrorListener(LexerErrorListener(text))
    tokens = _GuardedTokenStream(lexer)
    with _ANTLR_LOCK:
        tokens.fill()
    return tokens


def parse_tree(text: str) -> CypherParser.StatementEOFContext:
    """The ``statementEOF`` parse tree of one statement."""
    fast_tokens = tokenize(text)
    # Bracket nesting is bounded before the (recursive) parser sees the text.
    check_nesting(lex(text).tokens if fast_tokens is None else fast_tokens, text)
    with _ANTLR_LOCK:
        return _parse_tree(text, fast_tokens)


def _parse_tree(text: str, fast_tokens) -> CypherParser.StatementEOFContext:
    parser = CypherParser(lex(text) if fast_tokens is None else PrefilledTokenStream(fast_tokens))
    parser.removeErrorListeners()
    # SLL is much faster and right for nearly every query; a failure may be SLL's own weakness,
    # so only the LL pass decides that the input is wrong.
    parser._interp.predictionMode = PredictionMode.SLL
    parser._errHandler = BailErrorStrategy()
    try:
        return parser.statementEOF()
    except ParseCancellationException:
        pass
    # The LL pass lexes with ANTLR itself, so errors read exactly as the grammar defines them.
    parser.setTokenStream(lex(text))
    parser._interp.predictionMode = PredictionMode.LL
    strategy = ExpectationTrackingStrategy()
    parser._errHandler = strategy
    parser.addErrorListener(ParserErrorListener(text, strategy))
    return parser.statementEOF()
