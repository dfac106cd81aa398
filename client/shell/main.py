"""``relate``: open a database (a path, ``:memory:`` or ``relate://host:port``) and run Cypher,
interactively or from a script / stdin.

Exit codes: 0 success, 1 a statement failed, 2 usage or connection error, 130 interrupted.
"""
from __future__ import annotations

import argparse
import getpass
import os
import signal
import sys
from typing import IO, Iterable

import relate
from relate.errors import RelateError

from . import admin
from .error_text import format_error
from .output import FORMATS, make_writer
from .runner import QuitShell, ShellRunner
from .statements import Piece, StatementSplitter

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130
_REMOTE = ("relate://", "relate+s://", "relate+ssc://")


def _arguments() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="relate", description="Relate's Cypher shell. Statements end with ';'. "
        "Reads a script from -f or from stdin when stdin is not a terminal.")
    parser.add_argument("target", nargs="?", default=os.environ.get("RELATE_URI", ":memory:"),
                        help="database directory, :memory:, or relate://host:port (default: $RELATE_URI "
                             "or :memory:)")
    parser.add_argument("-u", "--user", default=os.environ.get("RELATE_USER"),
                        help="user name for a server (default: $RELATE_USER)")
    parser.add_argument("-p", "--password", help="password (default: $RELATE_PASSWORD, else asked for)")
    parser.add_argument("-f", "--file", help="run the statements of this script ('-' for stdin), then exit")
    parser.add_argument("--format", choices=FORMATS,
                        help="result format (default: table on a terminal, plain otherwise)")
    parser.add_argument("--continue", dest="keep_going", action="store_true",
                        help="in scripts, go on after a failed statement (the exit code is still 1)")
    parser.add_argument("-P", "--param", action="append", default=[], metavar="'NAME => EXPR'",
                        help="set a parameter before running anything (repeatable)")
    parser.add_argument("--timing", action="store_true", help="show each statement's wall time")
    parser.add_argument("--history", help="history file (default: $RELATE_HISTORY or ~/.relate_history)")
    parser.add_argument("--version", action="version", version=f"relate {relate.__version__}")
    return parser


def _auth(args, interactive_terminal: bool) -> tuple[str, str] | None:
    """Credentials for a server: -u/-p, else $RELATE_PASSWORD, else a password prompt on a terminal."""
    password = args.password if args.password is not None else os.environ.get("RELATE_PASSWORD")
    user = args.user
    if user is None and password is None:
        return None                          # a server started with --no-auth
    if password is None:
        if not interactive_terminal:
            raise UsageFailure("no password: pass -p, set RELATE_PASSWORD, or run on a terminal")
        password = getpass.getpass(f"password for {user}: ")
    return (user or "neo4j", password)


class UsageFailure(Exception):
    """Bad arguments or environment (exit code 2)."""


def open_connection(target: str, auth: tuple[str, str] | None):
    if target.startswith(_REMOTE):
        return relate.connect(target, auth=auth)
    return relate.connect(target)


def main(argv: list[str] | None = None) -> int:
    # Started with SIGINT ignored (a background job, setsid, some CI runners), Ctrl-C would do nothing.
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] in admin.SUBCOMMANDS:        # relate import|dump|load|check ...
        return admin.run(argv)
    args = _arguments().parse_args(argv)
    script = None
    try:
        if args.file is not None or not sys.stdin.isatty():
            script = _open_script(args.file)     # before connecting: a missing file is a usage error
        auth = _auth(args, sys.stdin.isatty()) if args.target.startswith(_REMOTE) else None
        connection = open_connection(args.target, auth)
    except UsageFailure as exc:
        print(f"relate: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except (RelateError, OSError, ValueError) as exc:
        print(f"relate: cannot open {args.target}: {format_error(exc) if isinstance(exc, RelateError) else exc}",
              file=sys.stderr)
        return EXIT_USAGE
    try:
        if script is not None:
            return run_script(connection, args, *script)
        return run_interactive(connection, args, auth)
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # The reader went away (`relate ... | head`): stop quietly, as command-line tools do.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
    finally:
        if script is not None and script[0] is not sys.stdin:
            script[0].close()
        try:
            connection.close()
        except (RelateError, OSError):
            pass        # leaving anyway; a lost connection has nothing left to close


def _open_script(path: str | None) -> tuple[IO[str], str]:
    """The script's lines and its name for error positions."""
    if path in (None, "-"):
        return sys.stdin, "<stdin>"
    try:
        return open(path, encoding="utf-8"), path
    except OSError as exc:
        raise UsageFailure(f"cannot read {path}: {exc.strerror}") from None


def _initial_params(runner: ShellRunner, assignments: list[str]) -> bool:
    return all(runner.run(Piece("command", f":param {text}", 0)) for text in assignments)


def run_script(connection, args, lines: Iterable[str], source: str) -> int:
    """Run every statement of the script; stop at the first failure unless --continue."""
    writer = make_writer(args.format or ("table" if sys.stdout.isatty() else "plain"))
    to_stderr = lambda text: print(text, file=sys.stderr)  # noqa: E731
    runner = ShellRunner(connection, writer, report_error=to_stderr, say=print, notify=to_stderr,
                         source=source, timing=args.timing)
    if not _initial_params(runner, args.param):
        return EXIT_FAILED
    failed = False
    splitter = StatementSplitter()
    try:
        for chunk in _chunks(lines, splitter):
            for piece in chunk:
                if not runner.run(piece):
                    failed = True
                    if not args.keep_going:
                        return EXIT_FAILED
    except QuitShell:
        pass
    if connection.in_transaction:
        print("relate: the script left a transaction open; it was rolled back", file=sys.stderr)
    return EXIT_FAILED if failed else EXIT_OK


def _chunks(lines: Iterable[str], splitter: StatementSplitter):
    """Pieces as each line completes them, then whatever the end of input completes."""
    for line in lines:
        pieces = splitter.feed(line)
        if pieces:
            yield pieces
    yield splitter.finish()


def run_interactive(connection, args, auth) -> int:
    from .repl import InteractiveShell     # prompt_toolkit loads only for interactive use
    remote = args.target.startswith(_REMOTE)
    shell = InteractiveShell(
        connection, reconnect=(lambda: open_connection(args.target, auth)) if remote else None,
        fmt=args.format or "table", history=args.history, timing=args.timing,
        banner=f"Connected to {args.target} (relate {relate.__version__}). "
               "End statements with ';'. :help for help, Ctrl-D to leave.")
    if not _initial_params(shell.runner, args.param):
        return EXIT_FAILED
    return shell.run()
