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
