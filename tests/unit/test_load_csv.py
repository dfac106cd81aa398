"""LOAD CSV: reading files from the import directory (CSV, gzip, Parquet, Arrow IPC), confinement,
malformed input and batching."""
from __future__ import annotations

import gzip
import os

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import relate
from relate.errors import ClientError
from relate.server.config import load_config

CODE = "Neo.ClientError.Statement.ExternalResourceFailed"


@pytest.fixture
def import_dir(tmp_path):
    d = tmp_path / "import"
    d.mkdir()
    (d / "people.csv").write_text('id,name,score\n1,alice,3.5\n2,"bob, jr",\n3,"multi\nline",7\n')
    return d


@pytest.fixture
def conn(import_dir):
    c = relate.connect(":memory:", import_dir=str(import_dir))
    yield c
    c.close()


def test_headers_give_maps_with_nulls_for_empty_fields(conn):
    rows = conn.execute("LOAD CSV WITH HEADERS FROM 'file:///people.csv' AS row "
                        "RETURN row, linenumber() AS line, file() AS f").values()
    assert rows == [[{"id": "1", "name": "alice", "score": "3.5"}, 2, "file:///people.csv"],
                    [{"id": "2", "name": "bob, jr", "score": None}, 3, "file:///people.csv"],
                    [{"id": "3", "name": "multi\nline", "score": "7"}, 4, "file:///people.csv"]]


def test_without_headers_gzip_and_field_terminator(conn, import_dir):
    with gzip.open(import_dir / "t.tsv.gz", "wt") as f:
        f.write("a\tb\n1\t2\n")
    rows = conn.execute("LOAD CSV FROM $url AS r FIELDTERMINATOR '\\t' RETURN r, linenumber() AS n",
                        url="file:///t.tsv.gz").values()
    assert rows == [[["a", "b"], 1], [["1", "2"], 2]]


def test_create_from_rows_and_in_transactions_batches(conn):
    conn.execute("LOAD CSV WITH HEADERS FROM 'file:///people.csv' AS row "
                 "CALL { WITH row CREATE (:P {id: toInteger(row.id), name: row.name}) } IN TRANSACTIONS OF 2 ROWS")
    assert conn.execute("MATCH (p:P) RETURN p.id ORDER BY p.id").values() == [[1], [2], [3]]
    assert conn.execute("RETURN linenumber() AS n, file() AS f").values() == [[None, None]]


@pytest.mark.parametrize("url, reason", [
    ("file:///../secret.csv", "'..' is not allowed"),
    ("file:///sub/../../secret.csv", "'..' is not allowed"),
    ("file:///link.csv", "leads outside the import directory"),
    ("file:///linkdir/secret.csv", "leads outside the import directory"),
    ("SECRET_ABSOLUTE", "no such file in the import directory"),
    ("http://127.0.0.1:1/x.csv", "only file:/// URLs"),
])
def test_paths_cannot_escape_the_import_directory(conn, import_dir, url, reason):
    secret = import_dir.parent / "secret.csv"
    secret.write_text("top,secret\n")
    os.symlink(secret, import_dir / "link.csv")
    os.symlink(import_dir.parent, import_dir / "linkdir")
    if url == "SECRET_ABSOLUTE":
        url = "file://" + str(secret)
    with pytest.raises(ClientError) as err:
        conn.execute("LOAD CSV FROM $url AS r RETURN r", url=url).values()
    assert err.value.code == CODE and reason in err.value.message


def test_absolute_path_inside_the_import_directory_is_accepted(conn, import_dir):
    url = "file://" + str(import_dir / "people.csv")
    assert conn.execute("LOAD CSV FROM $url AS r RETURN count(*)", url=url).values() == [[4]]


def test_file_urls_are_refused_without_an_import_directory():
    with relate.connect(":memory:") as c:
        with pytest.raises(ClientError) as err:
            c.execute("LOAD CSV FROM 'file:///people.csv' AS r RETURN r").values()
    assert err.value.code == CODE and "no import directory" in err.value.message


def test_malformed_row_names_the_line_and_leaves_nothing_written(conn, import_dir):
    (import_dir / "bad.csv").write_text("id,name\n1,a\n2,b\n3,c,extra\n4,d\n")
    with pytest.raises(ClientError) as err:
        conn.execute("LOAD CSV WITH HEADERS FROM 'file:///bad.csv' AS row CREATE (:B {id: row.id})")
    assert err.value.code == CODE and "line 4" in err.value.message and "header has 2" in err.value.message
    assert conn.execute("MATCH (b:B) RETURN count(b)").values() == [[0]]


def test_unterminated_quote_and_non_utf8_are_typed_errors(conn, import_dir):
    (import_dir / "quote.csv").write_text('a,b\n1,"open\n')
    (import_dir / "latin.csv").write_bytes(b"a\n\xe9t\xe9\n")
    for url in ("file:///quote.csv", "file:///latin.csv"):
        with pytest.raises(ClientError) as err:
            conn.execute("LOAD CSV FROM $url AS r RETURN r", url=url).values()
        assert err.value.code == CODE and "line" in err.value.message


def test_parquet_and_arrow_ipc_keep_column_types(conn, import_dir):
    table = pa.table({"id": [1, 2], "name": ["a", None], "embedding": [[0.5, 1.0], [1.5, 2.0]]})
    pq.write_table(table, import_dir / "notes.parquet")
    with pa.ipc.new_file(str(import_dir / "notes.arrow"), table.schema) as writer:
        writer.write_table(table)
    for url in ("file:///notes.parquet", "file:///notes.arrow"):
        rows = conn.execute("LOAD CSV WITH HEADERS FROM $url AS row RETURN row, linenumber() AS n",
                            url=url).values()
        assert rows == [[{"id": 1, "name": "a", "embedding": [0.5, 1.0]}, 1],
                        [{"id": 2, "name": None, "embedding": [1.5, 2.0]}, 2]]


def test_server_flag_sets_the_import_directory(tmp_path):
    assert load_config(["--import-dir", str(tmp_path)], environ={}).import_dir == str(tmp_path)


def test_a_malformed_row_rolls_back_only_its_own_batch(conn, import_dir):
    (import_dir / "b.csv").write_text("id\n1\n2\n3\n4,x\n5\n")
    with pytest.raises(ClientError) as err:
        conn.execute("LOAD CSV WITH HEADERS FROM 'file:///b.csv' AS r "
                     "CALL { WITH r CREATE (:B {id: r.id}) } IN TRANSACTIONS OF 2 ROWS")
    assert "line 5" in err.value.message
    # rows 1-2 were committed as the first batch; row 3 was in the failing batch: no trace of it
    assert conn.execute("MATCH (b:B) RETURN b.id ORDER BY b.id").values() == [["1"], ["2"]]


def test_hostile_records_terminators_and_names_are_typed_errors(conn, import_dir):
    # A line of 40 M commas is a few kilobytes of gzip and would be a list of 40 M fields (gigabytes).
    (import_dir / "commas.csv.gz").write_bytes(gzip.compress(b"a\n" + b"," * (40 << 20) + b"\n"))
    with pytest.raises(ClientError) as bomb:
        conn.execute("LOAD CSV FROM 'file:///commas.csv.gz' AS r RETURN count(r)").values()
    assert bomb.value.code == CODE and "line 2" in bomb.value.message and "longer than" in bomb.value.message
    (import_dir / "wide.csv").write_bytes(b"a,b\n" + b"x" * (15 << 20) + b",y\n")      # a long field still loads
    assert conn.execute("LOAD CSV FROM 'file:///wide.csv' AS r RETURN size(r[0])").values() == [[1], [15 << 20]]
    for terminator in ('"', "\\n", "\\r"):
        with pytest.raises(ClientError) as bad:
            conn.execute(f"LOAD CSV FROM 'file:///people.csv' AS r FIELDTERMINATOR '{terminator}' RETURN r").values()
        assert bad.value.code == CODE and "FIELDTERMINATOR" in bad.value.message
    with pytest.raises(ClientError) as long_name:
        conn.execute("LOAD CSV FROM $u AS r RETURN r", u="file:///" + "a" * 5000 + ".csv").values()
    assert long_name.value.code == CODE
