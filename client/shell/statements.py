"""Split shell input into Cypher statements (ended by ``;``) and ``:commands`` (ended by a newline).

A ``;`` inside a string, a backtick name or a comment ends nothing. The splitter is incremental: feed it
lines as they arrive, and it keeps its scanning state, so a long statement is scanned only once.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

# In plain Cypher text, only these characters can change the scanner's state.
_SPECIAL = re.compile(r"""[;'"`]|//|/\*""")
_QUOTE_END = {"'": re.compile(r"\\.|'", re.S), '"': re.compile(r'\\.|"', re.S), "`": re.compile("`")}

_CODE, _QUOTED, _LINE_COMMENT, _BLOCK_COMMENT, _COMMAND = range(5)


@dataclass(frozen=True)
class Piece:
    """One unit of input: a Cypher statement (without its ``;``) or a ``:command`` line."""
    kind: Literal["cypher", "command"]
    text: str
    line: int          # 1-based line of the input where the piece starts
    column: int = 1    # 1-based column of its first character on that line


class StatementSplitter:
    """Incremental splitter: ``feed(text)`` returns the pieces completed so far, ``finish()`` the rest."""

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        """Forget pending input (Ctrl-C at a continuation prompt)."""
        self._buffer = ""
        self._pos = 0               # where scanning resumes
        self._mode = _CODE
        self._quote = ""
        self._start: int | None = None   # offset of the current piece's first significant character
        self._line = 1              # input line of buffer offset 0
        self._column = 1            # input column of buffer offset 0

    @property
    def pending(self) -> bool:
        """True while a statement, string or comment is open (show the continuation prompt)."""
        return self._start is not None or self._mode in (_QUOTED, _BLOCK_COMMENT)

    @property
    def pending_text(self) -> str:
        return self._buffer

    def feed(self, text: str) -> list[Piece]:
        self._buffer += text
        return self._scan(final=False)

    def finish(self) -> list[Piece]:
        """End of input: a last statement without ``;`` counts as complete."""
        pieces = self._scan(final=True)
        if self._start is not None:
            body = self._buffer[self._start:].strip()
            kind = "command" if self._mode == _COMMAND else "cypher"
            if body:
                pieces.append(self._piece(kind, body, self._start))
        self.reset()
        return pieces

    def _piece(self, kind, body: str, offset: int) -> Piece:
        line = self._line + self._buffer.count("\n", 0, offset)
        column = offset - self._buffer.rfind("\n", 0, offset)
        if line == self._line:
            column += self._column - 1      # the buffer's first line began mid-line
        return Piece(kind, body, line, column)

    def _emit(self, kind, end: int, resume: int, pieces: list[Piece]) -> None:
        assert self._start is not None
        body = self._buffer[self._start:end].strip()
        if body:
            pieces.append(self._piece(kind, body, self._start))
        # Drop the consumed text so the buffer only ever holds the open piece.
        newlines = self._buffer.count("\n", 0, resume)
        if newlines:
            self._column = resume - self._buffer.rfind("\n", 0, resume)
        else:
            self._column += resume
        self._line += newlines
        self._buffer = self._buffer[resume:]
        self._pos = 0
        self._start = None
        self._mode = _CODE

    def _scan(self, final: bool) -> list[Piece]:
        pieces: list[Piece] = []
        text_len = lambda: len(self._buffer)  # noqa: E731 - the buffer shrinks as pieces are emitted
        while self._pos < text_len():
            buf, pos = self._buffer, self._pos
            if self._mode == _COMMAND:
                end = buf.find("\n", pos)
                if end < 0:
                    self._pos = len(buf)
                    break
                self._emit("command", end, end + 1, pieces)
            elif self._mode == _QUOTED:
                pattern = _QUOTE_END[self._quote]
                while True:
                    match = pattern.search(buf, pos)
                    if match is None:
                        # Keep a trailing backslash unscanned: it escapes whatever comes next.
                        self._pos = len(buf) - 1 if buf.endswith("\\") and self._quote != "`" else len(buf)
                        return pieces
                    pos = match.end()
                    if match.group() == self._quote:
                        break
                self._pos, self._mode = pos, _CODE
            elif self._mode == _LINE_COMMENT:
                end = buf.find("\n", pos)
                self._pos, self._mode = (len(buf), _LINE_COMMENT) if end < 0 else (end + 1, _CODE)
            elif self._mode == _BLOCK_COMMENT:
                end = buf.find("*/", pos)
                if end < 0:
                    self._pos = max(pos, len(buf) - 1)   # a '*' at the very end may start the closer
                    break
                self._pos, self._mode = end + 2, _CODE
            elif not self._scan_code(pieces):
                break
        return pieces

    def _scan_code(self, pieces: list[Piece]) -> bool:
        """Advance through plain Cypher; False when more input is needed to go on."""
        buf, pos = self._buffer, self._pos
        if self._start is None:
            # Between pieces: skip blanks; a ':' first on the piece starts a shell command.
            while pos < len(buf) and buf[pos].isspace():
                pos += 1
            if pos == len(buf):
                self._pos = pos
                return False
            if buf[pos] == ":":
                self._start, self._pos, self._mode = pos, pos, _COMMAND
                return True
            if not buf.startswith(("//", "/*"), pos):
                self._start = pos
        match = _SPECIAL.search(buf, pos)
        if match is None:
            # A lone '/' at the end may become a comment opener once the next text arrives.
            self._pos = max(pos, len(buf) - 1 if buf.endswith("/") else len(buf))
            return False
        token = match.group()
        if token == ";":
            if self._start is None:
                self._pos = match.end()       # an empty statement: ';' alone
            else:
                self._emit("cypher", match.start(), match.end(), pieces)
        elif token == "//":
            self._pos, self._mode = match.end(), _LINE_COMMENT
        elif token == "/*":
            self._pos, self._mode = match.end(), _BLOCK_COMMENT
        else:
            self._pos, self._mode, self._quote = match.end(), _QUOTED, token
            if self._start is None:
                self._start = match.start()
        return True


def split_statements(text: str) -> list[Piece]:
    """Every piece of a whole script (the last statement may omit its ``;``)."""
    splitter = StatementSplitter()
    pieces = splitter.feed(text)
    return pieces + splitter.finish()
