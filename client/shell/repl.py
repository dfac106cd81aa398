"""The interactive shell: a prompt_toolkit prompt (history, completion, multi-line editing) over a
ShellRunner. Enter runs the input once its statements are complete (ended by ``;``); until then it
starts a new line under a continuation prompt."""
from __future__ import annotations

import os
import threading
from typing import Callable

from prompt_toolkit import PromptSession
from prompt_toolkit.input.typeahead import get_typeahead, store_typeahead
from prompt_toolkit.key_binding import KeyBindings
from prompt_toolkit.keys import Keys
from prompt_toolkit.lexers import PygmentsLexer
from pygments.lexers import CypherLexer
from rich.console import Console
from rich.text import Text

from relate.errors import Terminated

from .completion import CypherCompleter, SchemaNames
from .error_text import format_error
from .output import make_writer
from .private_history import PrivateFileHistory, PrivateInMemoryHistory
from .runner import QuitShell, ShellRunner
from .statements import StatementSplitter, split_statements

PROMPT = "relate> "
PROMPT_IN_TRANSACTION = "relate# "
DEFAULT_HISTORY = "~/.relate_history"


def input_complete(text: str) -> bool:
    """True when ``text`` holds no unfinished statement, string or comment (Enter should run it)."""
    splitter = StatementSplitter()
    splitter.feed(text + "\n")
    return not splitter.pending


def _key_bindings() -> KeyBindings:
    bindings = KeyBindings()

    @bindings.add("enter")
    def _enter(event) -> None:
        buffer = event.current_buffer
        if buffer.complete_state is not None:
            buffer.complete_state = None         # Enter on the menu keeps the completion
        elif input_complete(buffer.text):
            buffer.validate_and_handle()
        else:
            buffer.insert_text("\n")

    @bindings.add("escape", "enter")
    def _newline(event) -> None:
        event.current_buffer.insert_text("\n")

    return bindings


def _continuation(width: int, line_number: int, soft_wrap: bool) -> str:
    """'> ' under the prompt for each new line of a statement; blanks where a long line wraps."""
    return " " * width if soft_wrap else " " * (width - 2) + "> "


def _history(path: str | None):
    path = os.path.expanduser(path or os.environ.get("RELATE_HISTORY") or DEFAULT_HISTORY)
    try:
        with open(path, "a", encoding="utf-8"):
            pass
        return PrivateFileHistory(path)
    except OSError:
        return PrivateInMemoryHistory()  # a read-only home must not stop the shell


class InteractiveShell:
    """Reads, runs and prints until :quit or Ctrl-D."""

    def __init__(self, connection, *, reconnect: Callable[[], object] | None = None, fmt: str = "table",
                 history: str | None = None, timing: bool = False, banner: str = ""):
        self.console = Console(highlight=False)
        self.errors = Console(stderr=True, highlight=False)
        self.schema = SchemaNames()
        self.runner = ShellRunner(
            connection, make_writer(fmt, console=self.console), report_error=self._error,
            say=lambda text: self.console.print(Text(text)),
            acknowledge=lambda text: self.console.print(Text(text, style="dim")),
            schema=self.schema, timing=timing, progress_console=self.console)
        self.reconnect = reconnect
        self.banner = banner
        # No cursor-position requests: a terminal that never answers them keeps the prompt in raw mode
        # for up to a second after Enter, and a Ctrl-C typed then would be read as a key and lost.
        os.environ.setdefault("PROMPT_TOOLKIT_NO_CPR", "1")
        self.prompt = PromptSession(
            history=_history(history), multiline=True, key_bindings=_key_bindings(),
            completer=CypherCompleter(self.schema, lambda: list(self.runner.params)),
            complete_while_typing=False, lexer=PygmentsLexer(CypherLexer),
            prompt_continuation=_continuation,
            enable_history_search=False)

    def _error(self, text: str) -> None:
        head, _, rest = text.partition("\n")
        self.errors.print(Text(head, style="bold red"))
        if rest:
            # The caret excerpt must not be re-wrapped, or the caret no longer points at the column.
            self.errors.print(Text(rest), soft_wrap=True)

    def run(self) -> int:
        if self.banner:
            self.console.print(Text(self.banner, style="dim"))
        while True:
            try:
                self.runner.refresh_schema()
                in_tx = self.runner.connection.in_transaction
                text = self.prompt.prompt(PROMPT_IN_TRANSACTION if in_tx else PROMPT)
            except KeyboardInterrupt:
                continue                        # Ctrl-C drops the input being typed
            except EOFError:
                break                           # Ctrl-D
            if _ctrl_c_typed_ahead(self.prompt.app.input):
                # Ctrl-C arrived while the prompt was closing (still raw mode): the statement is not run.
                self._error(format_error(Terminated("interrupted before it started; the statement was not run")))
                continue
            try:
                for piece in split_statements(text):
                    if not self._run_piece(piece):
                        break                   # later statements of the same input are skipped
            except QuitShell:
                break
            except KeyboardInterrupt:           # between two statements, or before the first began
                self._error(format_error(Terminated("interrupted; later statements of this input were not run")))
        return 0

    def _run_piece(self, piece) -> bool:
        # Connection has no cancel(); an embedded engine session has one, a network session does not.
        cancel = getattr(self.runner.connection._session, "cancel", None)
        if cancel is not None:
            return _run_cancellable(lambda: self.runner.run(piece), cancel)
        try:
            return self.runner.run(piece)
        except KeyboardInterrupt:
            # A remote statement cannot be stopped in the middle of a reply: drop the connection.
            self._error("interrupted: the connection was reset (an open transaction is lost)")
            if self.reconnect is not None:
                self._replace_connection()
            return False

    def _replace_connection(self) -> None:
        old = self.runner.connection
        try:
            # Close the session, not the Connection: that would first try a ROLLBACK on the stuck wire.
            old._session.close()
        except Exception:  # the old connection is being thrown away; its errors no longer matter
            pass
        try:
            self.runner.connection = self.reconnect()
        except Exception as exc:  # stay in the shell; the next statement reports the broken connection
            self._error(f"reconnect failed: {exc}")


def _ctrl_c_typed_ahead(prompt_input) -> bool:
    """True (and the key dropped) when a Ctrl-C was typed ahead after Enter; other keys stay queued."""
    keys = get_typeahead(prompt_input)
    if any(key.key == Keys.ControlC for key in keys):
        return True
    store_typeahead(prompt_input, keys)
    return False


def _run_cancellable(work: Callable[[], bool], cancel: Callable[[], None]) -> bool:
    """Run ``work`` in a thread so that Ctrl-C can ask the engine to stop it (it then fails Terminated)."""
    outcome: list = []
    failure: list[BaseException] = []
    finished = threading.Event()

    def target() -> None:
        try:
            outcome.append(work())
        except BaseException as exc:  # handed to the main thread (QuitShell, bugs)
            failure.append(exc)
        finally:
            finished.set()

    threading.Thread(target=target, name="relate-shell-statement", daemon=True).start()
    # Not Thread.join: a KeyboardInterrupt inside join() can leave the thread looking finished.
    while not finished.is_set():
        try:
            finished.wait(0.1)
        except KeyboardInterrupt:
            cancel()
    if failure:
        raise failure[0]
    return outcome[0]
