"""The interactive shell driven through a pseudo-terminal, the way a person types into it.

The screen is rendered by a terminal emulator, so assertions read what a person would see.
"""
import re
import signal
import sys
import time

import pytest

from .conftest import PASSWORD, shell_env
from .terminal import Terminal

PROMPTS = r"(?m)^relate[>#]"
ENTER, TAB, UP, CTRL_C, CTRL_D = "\r", "\t", "\x1b[A", "\x03", "\x04"


def start(tmp_path, *args, columns=100, env=None, **options):
    return Terminal([sys.executable, "-m", "relate.shell", *args], env=env or shell_env(tmp_path),
                    columns=columns, cwd=str(tmp_path), **options)


def enter(term: Terminal, line: str, *, continuing: bool = False) -> str:
    """Type ``line`` and Enter, then wait for the next prompt; returns the screen. Unless ``continuing``
    earlier input, first wait until the shell is idle at an empty prompt."""
    if not continuing:
        term.wait_for(r"(?:^|\n)relate[>#] *\Z")
    prompts = len(re.findall(PROMPTS, term.text))
    term.type(line + ENTER)
    return term.wait_for(PROMPTS, count=prompts + 1)


def after(screen: str, marker: str) -> str:
    """The screen below the last line containing ``marker``."""
    return screen[screen.rindex(marker):]


@pytest.fixture
def shell(tmp_path):
    term = start(tmp_path, ":memory:")
    term.wait_for(PROMPTS)
    yield term
    term.close()


def test_multi_line_statement_with_continuation_prompt(shell):
    shell.type("UNWIND range(1, 3) AS i" + ENTER)
    shell.wait_for(r"(?m)^ +> *$")                 # the continuation prompt, not a result
    screen = enter(shell, "RETURN i, 'row ' + i AS label;", continuing=True)
    assert "3 rows" in screen
    table = after(screen, "RETURN i, 'row ' + i AS label;")
    assert "│ i │ label   │" in table and '│ 3 │ "row 3" │' in table
    screen = enter(shell, "RETURN 1 AS a; RETURN 2 AS b;")      # two statements, one line
    assert "│ a │" in after(screen, "RETURN 1 AS a;") and "│ b │" in after(screen, "RETURN 1 AS a;")


def test_syntax_error_shows_the_caret_and_the_shell_goes_on(shell):
    screen = enter(shell, "MATCH (n) RETRUN n;")
    shown = after(screen, "MATCH (n) RETRUN n;")
    assert "Neo.ClientError.Statement.SyntaxError" in shown
    assert "  MATCH (n) RETRUN n\n" in shown and "\n            ^" in shown     # caret under RETRUN
    screen = enter(shell, "RETURN 'still here' AS alive;")
    assert '"still here"' in after(screen, "alive;")


def test_parameters(shell):
    assert "$k => 42" in enter(shell, ":param k => 40 + 2")
    enter(shell, ":param name => 'Ann'")
    screen = enter(shell, ":params")
    assert ":param k => 42" in screen and ':param name => "Ann"' in screen
    screen = enter(shell, "RETURN $k + 1 AS k1, $name AS n;")
    assert '│ 43 │ "Ann" │' in after(screen, "AS n;")


def test_begin_rollback_commit(shell):
    assert "relate# " in enter(shell, ":begin") + " "
    assert "nodes created: 1" in after(enter(shell, "CREATE (:T {n: 1});"), "CREATE (:T")
    enter(shell, ":rollback")
    screen = enter(shell, "MATCH (t:T) RETURN count(t) AS c;")
    assert "│ 0 │" in after(screen, "count(t) AS c;")
    enter(shell, ":begin")
    enter(shell, "CREATE (:T {n: 2});")
    enter(shell, ":commit")
    screen = enter(shell, "MATCH (t:T) RETURN t.n AS n;")
    assert "│ 2 │" in after(screen, "RETURN t.n AS n;")
    assert re.findall(PROMPTS, screen)[-1] == "relate>"


def test_completion_of_labels_from_the_database(shell):
    enter(shell, "CREATE (:Person {name: 'Ann'})-[:KNOWS]->(:Person {name: 'Bob'});")
    shell.type("MATCH (p:Pe" + TAB)
    shell.wait_for(r"MATCH \(p:Person")
    shell.type(")-[:K" + TAB)
    shell.wait_for(r"MATCH \(p:Person\)-\[:KNOWS")
    shell.type("]->(q) RETURN q.na" + TAB)
    shell.wait_for(r"RETURN q\.name")
    screen = enter(shell, " AS friend;", continuing=True)
    assert '"Bob"' in after(screen, "AS friend;")


def test_ctrl_c_drops_the_input_and_timing(shell):
    shell.type("RETURN 'abandoned' AS gone")
    shell.wait_for("abandoned")
    shell.type(CTRL_C)
    screen = enter(shell, "RETURN 2 AS two;")
    assert '"abandoned"' not in screen and "│ 2   │" in screen
    enter(shell, ":timing")
    assert re.search(r"1 row · [\d.,]+ ms", enter(shell, "RETURN 1;"))


def test_tables_fit_the_terminal_width(tmp_path):
    term = start(tmp_path, ":memory:", columns=60)
    try:
        term.wait_for(PROMPTS)
        screen = enter(term, "RETURN 1 AS id, reduce(s = '', i IN range(1, 40) | s + 'word ') AS text;")
        table = after(screen, "AS text;").splitlines()[1:-1]
        assert max(len(line) for line in table) <= 60
        assert sum("word" in line for line in table) >= 3        # the long string wrapped
    finally:
        term.close()


def test_ctrl_d_leaves_and_history_persists(tmp_path):
    term = start(tmp_path, ":memory:")
    term.wait_for(PROMPTS)
    enter(term, "RETURN 'remember me' AS r;")
    term.type(CTRL_D)
    assert term.wait_exit() == 0
    assert "RETURN 'remember me' AS r;" in (tmp_path / "history").read_text()
    again = start(tmp_path, ":memory:")
    try:
        again.wait_for(PROMPTS)
        again.type(UP)
        again.wait_for("relate> RETURN 'remember me' AS r;")
        again.type(ENTER)
        again.wait_for('"remember me"')
    finally:
        again.close()


def test_quit_command(shell):
    shell.type(":quit" + ENTER)
    assert shell.wait_exit() == 0


def test_ctrl_c_stops_a_running_statement(shell):
    # About 10^10 rows to filter: it only ends when Ctrl-C stops it.
    shell.type("UNWIND range(1, 100000) AS a UNWIND range(1, 100000) AS b WITH a WHERE a < 0 "
               "RETURN count(a) AS c;" + ENTER)
    shell.wait_for(r"AS c;")
    time.sleep(1.0)                    # let it get going
    shell.type(CTRL_C)
    shell.wait_for("Neo.ClientError.Transaction.Terminated", timeout=30)
    assert '"ok"' in enter(shell, "RETURN 'ok' AS after;")


def _ignore_sigint():
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@pytest.mark.parametrize("delay", [0.3, 0.6, 1.0])
def test_ctrl_c_soon_after_enter_with_sigint_inherited_as_ignored(tmp_path, delay):
    # A background job or setsid hands the shell SIGINT ignored; the terminal answers no cursor-position
    # requests. Ctrl-C still stops the statement, however soon after Enter it comes.
    term = start(tmp_path, ":memory:", answer_cpr=False, preexec_fn=_ignore_sigint)
    try:
        term.wait_for(PROMPTS)
        term.type("UNWIND range(1, 100000) AS a UNWIND range(1, 100000) AS b WITH a WHERE a < 0 "
                  "RETURN count(a) AS c;" + ENTER)
        time.sleep(delay)
        term.type(CTRL_C)
        term.wait_for("Neo.ClientError.Transaction.Terminated", timeout=30)
        assert '"ok"' in enter(term, "RETURN 'ok' AS after;")
        term.type(CTRL_D)
        assert term.wait_exit() == 0
    finally:
        term.close()


def test_remote_shell_against_a_real_server(tmp_path, server):
    term = start(tmp_path, server.url, "-u", "neo4j", env=shell_env(tmp_path))
    try:
        term.wait_for("password for neo4j:")
        term.type(PASSWORD + ENTER)
        term.wait_for(PROMPTS)
        term.type("UNWIND ['a', 'b'] AS x" + ENTER)
        term.wait_for(r"(?m)^ +> *$")
        screen = enter(term, "CREATE (n:Item {name: x}) RETURN n.name AS name;", continuing=True)
        assert '│ "b"  │' in screen and "2 rows · nodes created: 2" in screen
        screen = enter(term, "RETURN nope;")
        assert "Neo.ClientError.Statement" in after(screen, "RETURN nope;")
        enter(term, ":begin")
        enter(term, "MATCH (n:Item) DETACH DELETE n;")
        enter(term, ":rollback")
        term.type("MATCH (n:It" + TAB)
        term.wait_for(r"MATCH \(n:Item")
        screen = enter(term, ") RETURN count(n) AS items;", continuing=True)
        assert "│ 2     │" in after(screen, "AS items;")
        # Ctrl-C on a remote statement drops the connection (the server stops the query) and reconnects.
        term.type("UNWIND range(1, 100000) AS a UNWIND range(1, 100000) AS b WITH a WHERE a < 0 "
                  "RETURN count(a) AS c;" + ENTER)
        term.wait_for("AS c;")
        time.sleep(1.0)
        term.type(CTRL_C)
        term.wait_for("interrupted: the connection was reset")
        assert '"back"' in enter(term, "RETURN 'back' AS again;")
        term.type(CTRL_D)
        assert term.wait_exit() == 0
    finally:
        term.close()
