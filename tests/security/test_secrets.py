"""Secrets stay secret: password statements are redacted in logs and SHOW TRANSACTIONS and kept out
of shell history; short passwords are refused; the initial password can come from a file; risky
start-up options are warned about."""
import pytest

import relate
from relate.errors import ClientError
from relate.protocol.secrets import carries_password, redact
from relate.shell.private_history import PrivateFileHistory
from tests.security.conftest import AUTH


def test_redact_masks_every_string_of_a_password_statement():
    assert redact("CREATE USER bob SET PASSWORD 'hunter2-secret' CHANGE NOT REQUIRED") == \
        "CREATE USER bob SET PASSWORD '******' CHANGE NOT REQUIRED"
    assert "old-secret" not in redact("ALTER CURRENT USER SET PASSWORD FROM 'old-secret' TO \"new-secret\"")
    assert "x\\'y" not in redact("alter user a set plaintext password 'x\\'y-secret'")
    assert redact("RETURN 'not a secret'") == "RETURN 'not a secret'"
    assert carries_password("alter user a set password 'unterminated")
    assert "unterminated" not in redact("alter user a set password 'unterminated")


def test_shell_history_never_stores_password_statements(tmp_path):
    path = tmp_path / "history"
    history = PrivateFileHistory(str(path))
    history.append_string("MATCH (n) RETURN n")
    history.append_string("CREATE USER bob SET PASSWORD 'hunter2-secret'")
    assert "hunter2" not in path.read_text()
    assert "MATCH (n) RETURN n" in path.read_text()
    assert list(history.get_strings()) == ["MATCH (n) RETURN n"]


def test_slow_password_statements_are_logged_redacted(start_server, tmp_path):
    password_file = tmp_path / "initial-password"
    password_file.write_text(AUTH[1] + "\n")
    server = start_server("--slow-query-log", "0", "--init-password-file", str(password_file))
    with relate.connect(server.url, auth=AUTH) as conn:
        conn.execute("CREATE USER carol SET PASSWORD 'hunter2-secret' CHANGE NOT REQUIRED").consume()
        conn.execute("ALTER USER carol SET PASSWORD 'hunter3-secret'").consume()
        with pytest.raises(ClientError, match="at least 8 characters"):
            conn.execute("CREATE USER dave SET PASSWORD 'short'").consume()
    log = server.log()
    assert "slow query" in log and "CREATE USER carol" in log
    assert "hunter2" not in log and "hunter3" not in log
    assert AUTH[1] not in log


def test_risky_start_up_options_are_warned_about(start_server, tmp_path):
    server = start_server("--no-auth", "--data", str(tmp_path / "a"))
    assert "authentication is disabled" in server.log()
    server = start_server("--init-password", AUTH[1], "--data", str(tmp_path / "b"))
    assert "visible to every local user in the process list" in server.log()
