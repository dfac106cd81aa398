"""relate.connect(): URL schemes it does not serve are refused, pathlib paths work, read-only mode,
missing parents and unwritable directories give typed errors, auth= on an embedded path is refused."""
from __future__ import annotations

import asyncio
import os
import pathlib
import subprocess
import sys
import tempfile

import pytest

import relate
import relate.aio

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("url", ["bolt://localhost:7687", "neo4j://localhost", "neo4j+s://h", "http://h:7474",
                                 "https://h", "file:///tmp/x", "xyz://anything"])
def test_unserved_schemes_are_refused_without_creating_anything(url, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    bolt = url.split("://")[0] in ("bolt", "neo4j", "neo4j+s")     # served to Neo4j drivers instead
    with pytest.raises(relate.ConfigurationError, match="neo4j driver" if bolt else "unsupported URL scheme"):
        relate.connect(url, auth=("neo4j", "pw"))
    with pytest.raises(relate.ConfigurationError):
        asyncio.run(relate.aio.connect(url))
    assert list(tmp_path.iterdir()) == []


def test_shell_refuses_an_unserved_scheme_with_exit_2(tmp_path):
    done = subprocess.run([sys.executable, "-m", "relate.shell", "http://127.0.0.1:7474"], input="RETURN 1;",
                          capture_output=True, text=True, cwd=tmp_path, timeout=60)
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1 and "unsupported URL scheme http://" in done.stderr
    assert list(tmp_path.iterdir()) == []


def test_pathlib_path_and_missing_parents(tmp_path):
    with relate.connect(tmp_path / "db") as db:
        db.execute("CREATE (:P {v: 1})")
    with pytest.raises(relate.ConfigurationError, match="does not exist"):
        relate.connect(tmp_path / "no" / "such" / "db")
    assert not (tmp_path / "no").exists()
    with relate.connect(tmp_path / "no" / "such" / "db", create_parents=True) as db:
        assert db.execute("RETURN 1 AS one").fetchone().one == 1


def test_auth_on_an_embedded_path_is_refused(tmp_path):
    with pytest.raises(relate.ConfigurationError, match="auth="):
        relate.connect(tmp_path / "db", auth=("neo4j", "pw"))
    with pytest.raises(relate.ConfigurationError, match="auth="):
        relate.connect(":memory:", auth=("neo4j", "pw"))


def _tree(root: pathlib.Path):
    return sorted((str(p.relative_to(root)), p.stat().st_size, p.stat().st_mtime_ns) for p in root.rglob("*"))


def test_read_only_reads_everything_writes_nothing(tmp_path):
    path = tmp_path / "db"
    with relate.connect(path) as db:
        db.execute("CREATE INDEX p_v FOR (n:P) ON (n.v)")
        db.execute("CREATE FULLTEXT INDEX p_t FOR (n:P) ON EACH [n.t]")
        db.execute("UNWIND range(1, 5) AS i CREATE (:P {v: i, t: 'word ' + i})")
    before = _tree(path)
    first = relate.connect(path, read_only=True)
    second = relate.connect(path, read_only=True)            # readers share the directory
    try:
        assert first.execute("MATCH (n:P {v: 3}) RETURN n.v AS v").fetchone().v == 3
        rows = second.execute("CALL db.index.fulltext.queryNodes('p_t', 'word') YIELD node RETURN count(*) AS c")
        assert rows.fetchone().c == 5
        with pytest.raises(relate.ReadOnlyDatabaseError) as info:
            first.execute("CREATE (:P {v: 99})")
        assert info.value.code == "Neo.ClientError.General.ForbiddenOnReadOnlyDatabase"
        with pytest.raises(relate.DatabaseError, match="already open"):
            relate.connect(path)                              # no writer while readers hold it
    finally:
        first.close()
        second.close()
    assert _tree(path) == before
    with relate.connect(path) as db:                          # the writer opens once readers are gone
        assert db.execute("MATCH (n:P) RETURN count(n) AS c").fetchone().c == 5
    with pytest.raises(relate.ConfigurationError, match="never creates"):
        relate.connect(tmp_path / "missing", read_only=True)


_UNWRITABLE = """
import os, sys, relate
base = sys.argv[1]
try:
    relate.connect(os.path.join(base, "ro", "fresh"))
except relate.RelateError as exc:
    print("fresh", type(exc).__name__, exc.code)
try:
    relate.connect(os.path.join(base, "ro", "db"))
except relate.RelateError as exc:
    print("existing", type(exc).__name__, exc.code)
with relate.connect(os.path.join(base, "ro", "db"), read_only=True) as db:
    print("read", db.execute("MATCH (n) RETURN count(n) AS c").fetchone().c)
"""


def test_unwritable_directory_is_a_typed_error_and_read_only_still_opens():
    base = pathlib.Path(tempfile.mkdtemp(prefix="relate-ro-"))
    try:
        os.chmod(base, 0o755)
        with relate.connect(base / "ro" / "db", create_parents=True) as db:
            db.execute("CREATE (:X)")
        for path in (base / "ro" / "db", base / "ro"):
            for child in path.iterdir() if path.name == "db" else ():
                os.chmod(child, 0o444)
            os.chmod(path, 0o555)
        # Root ignores permission bits: run the check without the capabilities that let it.
        drop = ["setpriv", "--bounding-set", "-dac_override,-dac_read_search", "--"] if os.geteuid() == 0 else []
        done = subprocess.run([*drop, sys.executable, "-c", _UNWRITABLE, str(base)], capture_output=True,
                              text=True, timeout=60, cwd=ROOT)
        assert done.returncode == 0, done.stderr
        lines = done.stdout.splitlines()
        assert lines[0].startswith("fresh DatabaseError") and "Traceback" not in done.stderr
        assert lines[1].startswith("existing DatabaseError")
        assert lines[2] == "read 1"
    finally:
        for path in [base, *base.rglob("*")]:
            os.chmod(path, 0o755)
        subprocess.run(["rm", "-rf", str(base)], check=True)


def test_read_only_replays_an_unclosed_wal_without_touching_it(tmp_path):
    path = tmp_path / "db"
    crash = ("import os, sys, relate\n"
             "db = relate.connect(sys.argv[1])\n"
             "db.execute('UNWIND range(1, 3) AS i CREATE (:Crashed {i: i})')\n"
             "os._exit(0)                      # no close: no checkpoint, the WAL holds the commit\n")
    subprocess.run([sys.executable, "-c", crash, str(path)], check=True, timeout=60, cwd=ROOT)
    before = _tree(path)
    with relate.connect(path, read_only=True) as db:
        assert db.execute("MATCH (n:Crashed) RETURN count(n) AS c").single().c == 3
    assert _tree(path) == before
    with relate.connect(path) as db:                          # the writer recovers it as before
        assert db.execute("MATCH (n:Crashed) RETURN count(n) AS c").single().c == 3
