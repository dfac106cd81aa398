"""``relate import|dump|load|check`` run as real commands, and ``CALL db.backup`` under writes."""
from __future__ import annotations

import io
import tarfile
import threading

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

import relate

from relate.server.engine import Database
from relate.server.storage.wal import HEADER_SIZE

from .conftest import PASSWORD, run_shell, shell_env

NOTES = """id:ID(Note),:LABEL,text,n:int,tags:string[],e:float[]
n1,Doc,hello,1,a;b,0.1;0.2
n2,,world,x,,0.3;0.4
n3,,again,3,c,0.5;0.6
n1,,dup,4,,1;2
n4,,short
"""
LINKS = """:START_ID(Note),:END_ID(Note),:TYPE,w:float
n1,n3,LINKS,0.5
n1,zz,LINKS,1
"""


def _query(path, text, **params):
    with relate.connect(str(path)) as c:
        return c.execute(text, params).values()


def test_import_writes_nodes_relationships_and_a_bad_row_report(tmp_path):
    (tmp_path / "notes.csv").write_text(NOTES)
    (tmp_path / "links.csv").write_text(LINKS)
    (tmp_path / "schema.cypher").write_text(
        "CREATE CONSTRAINT note_id FOR (n:Note) REQUIRE n.id IS UNIQUE;\n"
        "CREATE VECTOR INDEX note_e FOR (n:Note) ON (n.e) OPTIONS {indexConfig: {`vector.dimensions`: 2}};\n")
    done = run_shell(tmp_path, "import", "db", "--nodes", "Note=notes.csv", "--relationships", "links.csv",
                     "--schema", "schema.cypher", "--report-file", "bad.txt")
    assert done.returncode == 0, done.stderr
    assert "imported 2 nodes, 1 relationships" in done.stdout and "4 bad rows" in done.stdout
    report = (tmp_path / "bad.txt").read_text().splitlines()
    assert sorted(r.split("\t")[0] for r in report) == ["links.csv:3", "notes.csv:3", "notes.csv:5", "notes.csv:6"]
    assert any("'x' is not a valid int" in r for r in report)
    assert any("duplicate id 'n1'" in r for r in report)
    assert any("no node with id 'zz'" in r for r in report)
    assert any("3 field(s), the header has 6" in r for r in report)
    db = tmp_path / "db"
    rows = _query(db, "MATCH (n:Note) RETURN labels(n), n.id, n.n, n.tags, n.e ORDER BY n.id")
    assert rows[0][:4] == [["Note", "Doc"], "n1", 1, ["a", "b"]] and rows[1][:4] == [["Note"], "n3", 3, ["c"]]
    assert np.allclose(rows[0][4].to_numpy(), [0.1, 0.2]) and rows[0][4].coordinate_type == "FLOAT32"
    assert _query(db, "MATCH (a)-[r:LINKS]->(b) RETURN a.id, r.w, b.id") == [["n1", 0.5, "n3"]]
    assert _query(db, "SHOW INDEXES YIELD name, state, size WHERE name = 'note_e'") == [["note_e", "ONLINE", 2]]
    assert _query(db, "MATCH (n:Note) SEARCH n IN (VECTOR INDEX note_e FOR [0.5, 0.6] LIMIT 1) RETURN n.id") \
        == [["n3"]]


def test_import_stops_past_max_bad_and_leaves_no_database(tmp_path):
    (tmp_path / "notes.csv").write_text(NOTES)
    done = run_shell(tmp_path, "import", "db", "--nodes", "Note=notes.csv", "--max-bad", "1")
    assert done.returncode == 1 and "more than 1 bad rows" in done.stderr
    assert not (tmp_path / "db").exists()


def test_import_parquet_vectors_stay_float32(tmp_path):
    vectors = np.random.default_rng(1).random((50, 8), dtype=np.float32)
    pq.write_table(pa.table({"id:ID": [f"v{i}" for i in range(50)],
                             "embedding:vector": pa.FixedSizeListArray.from_arrays(pa.array(vectors.ravel()), 8)}),
                   tmp_path / "v.parquet")
    done = run_shell(tmp_path, "import", "db", "--nodes", "V=v.parquet")
    assert done.returncode == 0, done.stderr
    rows = _query(tmp_path / "db", "MATCH (v:V) RETURN v.id, v.embedding ORDER BY v.id")
    got = {r[0]: r[1].to_numpy() for r in rows}
    assert len(got) == 50 and np.array_equal(got["v7"], vectors[7])


def _populate(path):
    with relate.connect(str(path)) as c:
        c.execute("CREATE CONSTRAINT person_name FOR (p:Person) REQUIRE p.name IS UNIQUE")
        c.execute("CREATE INDEX person_age FOR (p:Person) ON (p.age)")
        c.execute("UNWIND range(1, 30) AS i CREATE (p:Person {name: 'p' + i, age: i, "
                  "v: vector([i, 1.0, 0.5], 3, FLOAT32), bio: 'likes graph ' + i})")
        c.execute("MATCH (a:Person), (b:Person) WHERE b.age = a.age + 1 CREATE (a)-[:NEXT {w: a.age}]->(b)")
        c.execute("CREATE VECTOR INDEX person_v FOR (p:Person) ON (p.v)")
        c.execute("CREATE FULLTEXT INDEX person_bio FOR (p:Person) ON EACH [p.bio]")
        c.execute("CREATE USER alice SET PASSWORD 'alice-secret' CHANGE NOT REQUIRED")
        c.execute("CALL db.awaitIndexes()")


SNAPSHOT_QUERIES = [
    "MATCH (p:Person) RETURN p.name, p.age, p.bio, p.v ORDER BY p.age",
    "MATCH (a)-[r:NEXT]->(b) RETURN a.name, r.w, b.name ORDER BY r.w",
    "SHOW CONSTRAINTS YIELD name, type, labelsOrTypes, properties",
    "SHOW INDEXES YIELD name, type, state, labelsOrTypes, properties, size RETURN * ORDER BY name",
    "SHOW USERS YIELD user",
    "MATCH (p:Person) SEARCH p IN (VECTOR INDEX person_v FOR [3.0, 1.0, 0.5] LIMIT 3) RETURN p.name",
    "CALL db.index.fulltext.queryNodes('person_bio', 'graph') YIELD node RETURN count(node)",
]


def _state(path):
    with relate.connect(str(path)) as c:
        return [[[str(v) if isinstance(v, relate.Vector) else v for v in row] for row in c.execute(q).values()]
                for q in SNAPSHOT_QUERIES]


def test_dump_then_load_round_trips_everything(tmp_path):
    _populate(tmp_path / "src")
    dumped = run_shell(tmp_path, "dump", "src", "--to", "src.dump")
    assert dumped.returncode == 0, dumped.stderr
    loaded = run_shell(tmp_path, "load", "src.dump", "copy")
    assert loaded.returncode == 0, loaded.stderr
    assert _state(tmp_path / "copy") == _state(tmp_path / "src")
    assert run_shell(tmp_path, "check", "copy").returncode == 0
    again = run_shell(tmp_path, "load", "src.dump", "copy")
    assert again.returncode == 1 and "not an empty directory" in again.stderr


def test_load_refuses_a_damaged_archive(tmp_path):
    _populate(tmp_path / "src")
    assert run_shell(tmp_path, "dump", "src", "--to", "src.dump").returncode == 0
    data = bytearray((tmp_path / "src.dump").read_bytes())
    (tmp_path / "cut.dump").write_bytes(bytes(data[:len(data) // 2]))
    done = run_shell(tmp_path, "load", "cut.dump", "copy")
    assert done.returncode == 1 and "cannot load" in done.stderr and not (tmp_path / "copy").exists()


def test_load_refuses_an_archive_whose_manifest_is_not_a_map(tmp_path):
    """A hostile dump with the right member names but a JSON list as backup.json: a clear refusal."""
    with tarfile.open(tmp_path / "odd.dump", "w:gz") as tar:
        for name, data in (("backup.json", b"[1, 2]"), ("snapshot.msgpack", b"x" * 20)):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    done = run_shell(tmp_path, "load", "odd.dump", "copy")
    assert done.returncode == 1 and "not a Relate dump" in done.stderr and not (tmp_path / "copy").exists()
    assert "Traceback" not in done.stderr and "AttributeError" not in done.stderr


def test_dump_of_a_running_server(tmp_path, server):
    env = shell_env(tmp_path, RELATE_USER="neo4j", RELATE_PASSWORD=PASSWORD)
    assert run_shell(tmp_path, server.url, stdin="UNWIND range(1, 20) AS i CREATE (:Item {i: i});\n",
                     env=env).returncode == 0
    dumped = run_shell(tmp_path, "dump", server.url, "--to", "live.dump", env=env)
    assert dumped.returncode == 0, dumped.stderr
    assert run_shell(tmp_path, "load", "live.dump", "copy").returncode == 0
    assert _query(tmp_path / "copy", "MATCH (i:Item) RETURN count(i), sum(i.i)") == [[20, 210]]


def test_backup_while_writes_run_is_a_consistent_snapshot(tmp_path):
    db = Database.open(str(tmp_path / "db"))
    try:
        db.session().run("CREATE (:Counter {n: 0})").consume()
        stop = threading.Event()
        errors, commits = [], [0]

        def write():
            session = db.session()
            try:
                while not stop.is_set():      # each transaction: one more Item, counter + 1
                    session.run("MATCH (k:Counter) SET k.n = k.n + 1 CREATE (:Item {i: k.n})").consume()
                    commits[0] += 1
            except Exception as exc:          # surfaced below
                errors.append(exc)

        thread = threading.Thread(target=write)
        thread.start()
        backups = []
        try:
            reader = db.session()
            while len(backups) < 3:
                if commits[0] > 20 * (len(backups) + 1):
                    target = str(tmp_path / f"backup{len(backups)}")
                    reader.run("CALL db.backup($d)", {"d": target}).consume()
                    backups.append(target)
        finally:
            stop.set()
            thread.join()
        assert not errors
    finally:
        db.close()
    counts = []
    for target in backups:
        counter, items, distinct = _query(target, "MATCH (k:Counter) OPTIONAL MATCH (i:Item) "
                                                  "RETURN k.n, count(i), count(DISTINCT i.i)")[0]
        assert counter == items == distinct
        counts.append(counter)
        assert run_shell(tmp_path, "check", target).returncode == 0
    assert counts == sorted(counts) and counts[0] > 0


def test_check_detects_a_corrupted_snapshot_and_wal(tmp_path):
    _populate(tmp_path / "db")
    assert run_shell(tmp_path, "check", "db").returncode == 0
    snapshot = tmp_path / "db" / "snapshot.msgpack"
    data = bytearray(snapshot.read_bytes())
    data[len(data) // 2] ^= 0xFF
    snapshot.write_bytes(bytes(data))
    done = run_shell(tmp_path, "check", "db")
    assert done.returncode == 1 and done.stdout.startswith("snapshot:")

    db = Database.open(str(tmp_path / "db2"))
    try:
        session = db.session()
        for i in range(3):          # three commits after the last checkpoint: damage the first one
            session.run("CREATE (:Late {i: $i})", {"i": i}).consume()
        wal = max((p for p in (tmp_path / "db2").iterdir() if p.name.startswith("wal-")),
                  key=lambda p: p.stat().st_size)
        raw = bytearray(wal.read_bytes())
        raw[HEADER_SIZE + 4] ^= 0xFF       # inside the first record's payload: valid records follow it
        wal.write_bytes(bytes(raw))
        done = run_shell(tmp_path, "check", "db2")
    finally:
        db.close()
    assert done.returncode == 1 and "wal:" in done.stdout


def test_import_of_hostile_files_gives_typed_errors_and_no_traceback(tmp_path):
    import gzip
    files = {
        "bigint.csv": b"id:ID,n:int\n1,99999999999999999999\n2,1_000\n3,7\n",
        "vectors.csv": b"id:ID,v:float[]\n11,nan;1\n12,inf;1\n13,1;2\n14,\n",
        "unclosed.csv": b'id:ID,name\n1,"abc\n2,b\n3,c\n',
        "noname.csv": b"id:ID,,name\n1,x,a\n",
        "twice.csv": b"id:ID,name,name\n1,a,b\n",
        "latin1.csv": b"id:ID,name\n21,caf\xe9\n22,ok\n",
        "cut.csv.gz": gzip.compress(b"id:ID\n" + b"".join(b"%d\n" % i for i in range(50_000)))[:4000],
    }
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    pq.write_table(pa.table({"id:ID": [[1], [2]]}), tmp_path / "listid.parquet")
    pq.write_table(pa.table({"id:ID": ["a", "b"]}), tmp_path / "nodes.parquet")
    pq.write_table(pa.table({":START_ID": ["a"], ":END_ID": ["b"], ":TYPE": [7]}), tmp_path / "inttype.parquet")

    def run(*args):
        done = run_shell(tmp_path, "import", "db", "--report-file", "bad.txt", *args)
        assert "Traceback" not in done.stderr, done.stderr
        return done

    kept = run("--nodes", "N=bigint.csv,vectors.csv,latin1.csv,listid.parquet,nodes.parquet",
               "--relationships", "inttype.parquet")
    assert kept.returncode == 0, kept.stderr
    report = (tmp_path / "bad.txt").read_text()
    assert "bigint.csv:2\t" in report and "bigint.csv:3\t" in report and "(64-bit)" in report
    assert "vectors.csv:2\t" in report and "vectors.csv:3\t" in report
    assert "latin1.csv:2\tthe row is not UTF-8 text" in report
    assert "the id [1] is not text or an integer" in report and "relationship type 7 is not text" in report
    assert _query(tmp_path / "db", "MATCH (n:N) RETURN count(n)") == [[6]]     # 3, 13, 14, 22, a, b
    assert _query(tmp_path / "db", "MATCH ()-[r]->() RETURN count(r)") == [[0]]
    for args, phrase in ((["--nodes", "unclosed.csv"], "unclosed.csv:2: a quoted value runs past"),
                         (["--nodes", "noname.csv"], "column 2 has no name"),
                         (["--nodes", "twice.csv"], "both write the property 'name'"),
                         (["--nodes", "cut.csv.gz"], "cut.csv.gz: cannot read it"),
                         (["--nodes", "twice.csv", "--delimiter", "ab"], "field delimiter must be one character"),
                         (["--nodes", "twice.csv", "--schema", "missing.cypher"], "cannot read the --schema file")):
        (tmp_path / "db").exists() and __import__("shutil").rmtree(tmp_path / "db")
        done = run(*args)
        assert done.returncode == 1 and phrase in done.stderr, (args, done.stderr)
        assert not (tmp_path / "db").exists()


def test_load_and_check_of_hostile_directories_and_archives(tmp_path):
    from relate.server.storage.bulk import SnapshotWriter
    _populate(tmp_path / "src")
    assert run_shell(tmp_path, "dump", "src", "--to", "src.dump").returncode == 0
    with tarfile.open(tmp_path / "src.dump") as tar:
        manifest = tar.extractfile("backup.json").read()
    crafted = tmp_path / "crafted"
    crafted.mkdir()
    writer = SnapshotWriter(str(crafted), {"next_node_id": 1, "next_rel_id": 1, "schema": {}, "indexes": []})
    writer.node(0, ["A"], {})
    writer.rel(0, "T", 0, 55, {})          # checksummed, but its end node does not exist
    writer.close()
    archives = {"dangling.dump": [("backup.json", manifest),
                                  ("snapshot.msgpack", (crafted / "snapshot.msgpack").read_bytes())],
                "deep.dump": [("backup.json", b"[" * 100_000 + b"]" * 100_000), ("snapshot.msgpack", b"x")]}
    for name, members in archives.items():
        with tarfile.open(tmp_path / name, "w:gz") as tar:
            for member, data in members:
                info = tarfile.TarInfo(member)
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
        done = run_shell(tmp_path, "load", name, "copy")
        assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
        assert not (tmp_path / "copy").exists(), name
    assert "missing node" in run_shell(tmp_path, "load", "dangling.dump", "copy").stderr
    (tmp_path / "empty").mkdir()
    segment_dir = tmp_path / "segdir"
    __import__("shutil").copytree(tmp_path / "src", segment_dir)
    (segment_dir / "wal-0000000099.log").mkdir()
    deep = tmp_path / "deep"
    __import__("shutil").copytree(tmp_path / "src", deep)
    (deep / "manifest.json").write_text("[" * 100_000)
    for directory, phrase in (("empty", "holds no database"), ("segdir", "Is a directory"), ("deep", "nested")):
        done = run_shell(tmp_path, "check", directory)
        assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
        assert phrase in done.stdout, done.stdout
