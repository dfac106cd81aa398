"""LOAD CSV through a real server: files come only from --import-dir; errors reach the driver typed."""
from __future__ import annotations

import pytest

import relate
from relate.errors import ClientError

from .conftest import AUTH


def test_load_csv_reads_the_import_directory_only(start_server, tmp_path):
    imports = tmp_path / "imports"
    imports.mkdir()
    (imports / "people.csv").write_text("name,age\nada,36\nbob,\n")
    (tmp_path / "outside.csv").write_text("secret\n")
    server = start_server("--import-dir", str(imports))
    with relate.connect(server.url, auth=AUTH) as conn:
        conn.execute("LOAD CSV WITH HEADERS FROM 'file:///people.csv' AS row "
                     "CREATE (:Person {name: row.name, age: toInteger(row.age), line: linenumber()})").consume()
        assert conn.execute("MATCH (p:Person) RETURN p.name, p.age, p.line ORDER BY p.line").values() == [
            ["ada", 36, 2], ["bob", None, 3]]
        for url in ("file:///../outside.csv", "file://" + str(tmp_path / "outside.csv")):
            with pytest.raises(ClientError) as err:
                conn.execute("LOAD CSV FROM $url AS r RETURN r", url=url).values()
            assert err.value.code == "Neo.ClientError.Statement.ExternalResourceFailed"
        assert conn.execute("RETURN 1 AS ok").values() == [[1]]     # the session is still usable


def test_a_running_load_csv_reports_its_progress_over_the_wire(start_server, tmp_path):
    """Connection.progress() (the shell's bar) asks the server through a second connection: the row
    of SHOW TRANSACTIONS whose connectionId is this connection's. Observed between the batches of a
    LOAD CSV that streams its rows, so the statement is certainly still running."""
    imports = tmp_path / "imports"
    imports.mkdir()
    (imports / "big.csv").write_text("id\n" + "".join(f"{i}\n" for i in range(600_000)))
    server = start_server("--import-dir", str(imports))
    with relate.connect(server.url, auth=AUTH) as conn:
        assert conn.progress() is None
        result = conn.execute("LOAD CSV WITH HEADERS FROM 'file:///big.csv' AS row RETURN row.id AS id")
        seen, total = [], 0
        while batch := result.fetchmany(100_000):
            total += len(batch)
            seen.append(conn.progress())
        assert total == 600_000
        running = [s for s in seen if s is not None]
        assert len(running) >= 3, "progress seen while the LOAD CSV ran"
        assert all(s["url"] == "file:///big.csv" and 0 < s["percent"] <= 100 for s in running)
        assert [s["line"] for s in running] == sorted(s["line"] for s in running)
        assert conn.progress() is None
