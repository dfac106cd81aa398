"""The shell run non-interactively: ``-f script`` and piped stdin, output formats, exit codes.

Most tests call the shell's ``main()`` in-process (fast); a few run it as a real process with a pipe.
"""
import io
import json
import sys
from types import SimpleNamespace

import pytest

from relate.shell.main import main

from .conftest import run_shell as run_process


@pytest.fixture
def run_shell(monkeypatch, capsys):
    """``run_shell(tmp_path, *args, stdin=...)`` -> (returncode, stdout, stderr), like subprocess.run."""
    def run(tmp_path, *args, stdin=""):
        monkeypatch.chdir(tmp_path)
        for name in ("RELATE_PASSWORD", "RELATE_USER", "RELATE_URI"):
            monkeypatch.delenv(name, raising=False)
        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
        capsys.readouterr()
        try:
            code = main(list(args))
        except SystemExit as exit_:       # argparse usage errors
            code = exit_.code
        out, err = capsys.readouterr()
        return SimpleNamespace(returncode=code, stdout=out, stderr=err)
    return run

SCRIPT = """// people and who they know
UNWIND ['Ann', 'Bob', 'Cy'] AS name CREATE (:Person {name: name});
MATCH (a:Person {name: 'Ann'}), (b:Person {name: 'Bob'})
CREATE (a)-[:KNOWS {since: 2020}]->(b);
:param who => 'A' + 'nn'
MATCH (p:Person {name: $who})-[k:KNOWS]->(q)
RETURN p.name AS name, k.since AS since, q;
"""


def test_script_file_prints_cookbook_tables(tmp_path, run_shell):
    (tmp_path / "people.cypher").write_text(SCRIPT)
    done = run_shell(tmp_path, ":memory:", "-f", "people.cypher")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "(no rows) · nodes created: 3, properties set: 3, labels added: 3",
        "(no rows) · relationships created: 1, properties set: 1",
        "| name  | since | q                       |",
        "|-------|-------|-------------------------|",
        '| "Ann" | 2020  | (:Person {name: "Bob"}) |',
        "1 row",
    ]
    assert done.stderr == ""


def test_piped_stdin_without_a_prompt(tmp_path):
    done = run_process(tmp_path, ":memory:", stdin="RETURN 1 AS one; RETURN 'a;b' AS s;\n")
    assert done.returncode == 0
    assert done.stdout == '| one |\n|-----|\n| 1   |\n1 row\n| s     |\n|-------|\n| "a;b" |\n1 row\n'
    assert "relate>" not in done.stdout


def test_a_failing_statement_stops_the_script_with_exit_1(tmp_path):
    (tmp_path / "bad.cypher").write_text("RETURN 1 AS ok;\n\nMATCH (n)\nRETRN n;\nRETURN 'never' AS late;\n")
    done = run_process(tmp_path, ":memory:", "-f", "bad.cypher")
    assert done.returncode == 1
    assert "late" not in done.stdout and "1 row" in done.stdout
    error = done.stderr.splitlines()
    assert error[0].startswith("Neo.ClientError.Statement.SyntaxError: Invalid input 'RETRN'")
    assert error[1] == "  at bad.cypher:4:1"
    assert error[2:] == ["  RETRN n", "  ^"]


def test_continue_runs_the_rest_but_still_fails(tmp_path, run_shell):
    done = run_shell(tmp_path, ":memory:", "--continue", stdin="RETURN 1/0 AS x;\nRETURN 'later' AS y;\n")
    assert done.returncode == 1
    assert '"later"' in done.stdout
    assert "Neo.ClientError" in done.stderr and "at <stdin>:1:1" in done.stderr


def test_csv_and_json_formats_keep_stdout_machine_readable(tmp_path, run_shell):
    query = "UNWIND [1, 2] AS i RETURN i, 'x,' + i AS s, [i, null] AS l;"
    csv_run = run_shell(tmp_path, ":memory:", "--format", "csv", stdin=query)
    assert csv_run.returncode == 0
    assert csv_run.stdout == 'i,s,l\n1,"x,1","[1, null]"\n2,"x,2","[2, null]"\n'
    assert csv_run.stderr == "2 rows\n"
    json_run = run_shell(tmp_path, ":memory:", "--format", "json", stdin=query)
    assert [json.loads(line) for line in json_run.stdout.splitlines()] == [
        {"i": 1, "s": "x,1", "l": [1, None]}, {"i": 2, "s": "x,2", "l": [2, None]}]


def test_parameters_from_the_command_line(tmp_path, run_shell):
    done = run_shell(tmp_path, ":memory:", "-P", "k => 3", "-P", "{w: 'x'}", "--format", "csv",
                     stdin="RETURN $k * 2 AS k2, $w AS w;")
    assert done.returncode == 0 and done.stdout == "k2,w\n6,x\n"


def test_transactions_in_scripts(tmp_path, run_shell):
    script = ":begin\nCREATE (:T);\n:rollback\n:begin\nCREATE (:T {n: 1});\n:commit\nMATCH (t:T) RETURN t.n AS n;\n"
    done = run_shell(tmp_path, ":memory:", "--format", "csv", stdin=script)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "n\n1\n"
    left_open = run_shell(tmp_path, ":memory:", stdin=":begin\nCREATE (:T);\n")
    assert left_open.returncode == 0 and "rolled back" in left_open.stderr


def test_commit_without_a_transaction_is_an_error(tmp_path, run_shell):
    done = run_shell(tmp_path, ":memory:", stdin=":commit\nRETURN 1;")
    assert done.returncode == 1 and "Neo.ClientError.Transaction" in done.stderr


def test_quit_stops_reading(tmp_path, run_shell):
    done = run_shell(tmp_path, ":memory:", "--format", "csv", stdin="RETURN 1 AS a;\n:quit\nRETURN 2 AS b;\n")
    assert done.returncode == 0 and done.stdout == "a\n1\n"


def test_an_embedded_database_directory_persists(tmp_path, run_shell):
    assert run_shell(tmp_path, "notes.rl", stdin="CREATE (:Note {id: 'n01'});").returncode == 0
    again = run_shell(tmp_path, "notes.rl", "--format", "csv", stdin="MATCH (n:Note) RETURN n.id AS id;")
    assert again.stdout == "id\nn01\n"


def test_usage_and_connection_errors_exit_2(tmp_path, run_shell):
    missing = run_shell(tmp_path, ":memory:", "-f", "nope.cypher")
    assert missing.returncode == 2 and "cannot read nope.cypher" in missing.stderr
    assert run_shell(tmp_path, ":memory:", "--format", "xml").returncode == 2
    unreachable = run_process(tmp_path, "relate://127.0.0.1:9", "-u", "neo4j", "-p", "x", stdin="RETURN 1;")
    assert unreachable.returncode == 2 and "cannot open relate://127.0.0.1:9" in unreachable.stderr
    no_password = run_shell(tmp_path, "relate://127.0.0.1:9", "-u", "neo4j", stdin="RETURN 1;")
    assert no_password.returncode == 2 and "no password" in no_password.stderr


def test_bad_command_is_reported(tmp_path, run_shell):
    done = run_shell(tmp_path, ":memory:", stdin=":param 1x\n")
    assert done.returncode == 1 and "usage: :param" in done.stderr


def test_scripts_against_a_real_server(tmp_path, server):
    from .conftest import PASSWORD, shell_env
    env = shell_env(tmp_path, RELATE_PASSWORD=PASSWORD)
    ok = run_process(tmp_path, server.url, "-u", "neo4j", "--format", "csv", env=env,
                     stdin="UNWIND range(1, 3) AS i CREATE (:N {i: i});\nMATCH (n:N) RETURN sum(n.i) AS total;")
    assert ok.returncode == 0, ok.stderr
    assert ok.stdout == "total\n6\n" and "nodes created: 3" in ok.stderr
    failed = run_process(tmp_path, server.url, "-u", "neo4j", env=env, stdin="RETURN 1;\nRETURN x;\nRETURN 2;")
    assert failed.returncode == 1 and "Neo.ClientError.Statement" in failed.stderr and "at <stdin>:2:" in failed.stderr
    refused = run_process(tmp_path, server.url, "-u", "neo4j", "-p", "wrong", env=env, stdin="RETURN 1;")
    assert refused.returncode == 2 and "Unauthorized" in refused.stderr


def test_explain_and_profile_print_the_plan(tmp_path, run_shell):
    done = run_shell(tmp_path, ":memory:", stdin="CREATE (:A {x: 1});\nPROFILE MATCH (a:A) WHERE a.x > 0 RETURN a.x;")
    assert done.returncode == 0
    plan = [line for line in done.stdout.splitlines() if line.lstrip().startswith("+ ")]
    assert plan[0].startswith("+ ProduceResults") and "rows: 1" in plan[0]
    assert any(line.startswith("    + Filter  a.x > 0") for line in plan)


def test_plain_output_streams_and_a_closed_pipe_exits_0(tmp_path):
    import subprocess
    # 300k rows into `head -3`: the shell must stop quietly with 0 (not 1, not a traceback).
    done = subprocess.run(
        ["bash", "-c", f"set -o pipefail; echo 'UNWIND range(1, 300000) AS i RETURN i;' | "
                       f"{sys.executable} -m relate.shell --format plain | head -3"],
        capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["| i    |", "|------|", "| 1    |"] and done.stderr == ""


def test_plain_table_beyond_the_width_sample_keeps_its_columns(run_shell, tmp_path):
    from relate.shell.output import WIDTH_SAMPLE
    result = run_shell(tmp_path, "--format", "plain", stdin=f"UNWIND range(1, {WIDTH_SAMPLE + 5}) AS i RETURN i;")
    lines = result.stdout.splitlines()
    assert lines[0] == "| i    |" and lines[2] == "| 1    |" and lines[-2] == f"| {WIDTH_SAMPLE + 5} |"
    assert lines[-1] == f"{WIDTH_SAMPLE + 5:,} rows"
