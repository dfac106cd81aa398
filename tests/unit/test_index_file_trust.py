"""Saved search-index files are reused only for the history they were made from: files found stale at
open are deleted before the rebuild, and a recover_truncate open that dropped commits or files
rebuilds every index, so a store whose commit ts comes back to the files' ts never loads them."""
from __future__ import annotations

import os
import subprocess
import sys

from relate.server.engine import Database
from relate.server.storage.snapshot import SNAPSHOT_NAME
from relate.server.storage.wal import HEADER_SIZE, _HEADER, list_segments

# A writer that ends as a crash would (os._exit: no checkpoint, no index save). Steps, in order:
# "i" create the indexes, "n<k>" create node k, "s" store checkpoint, "x" save the index files.
CHILD = """
import os, sys
from relate.server.engine import Database
db = Database.open(sys.argv[1])
session = db.session()
for step in sys.argv[2].split(","):
    if step == "i":
        session.run("CREATE VECTOR INDEX ve FOR (n:Doc) ON (n.e) "
                    "OPTIONS {indexConfig: {`vector.dimensions`: 2}}").consume()
        session.run("CREATE FULLTEXT INDEX ft FOR (n:Doc) ON EACH [n.text]").consume()
    elif step == "s":
        db.store.checkpoint()
    elif step == "x":
        db.index_manager.checkpoint()
    else:
        k = int(step[1:])
        session.run("CREATE (:Doc {k: $k, e: [1.0, $k / 10.0], text: 'w' + toString($k)})", {"k": k}).consume()
os._exit(0)
"""


def run_child(directory, steps):
    subprocess.run([sys.executable, "-c", CHILD, directory, steps], check=True, timeout=60)


def index_contents(db):
    """(vector index ids, full-text ids per word) as the indexes hold them, and as the store says."""
    im = db.index_manager
    assert im.await_indexes(30)
    with db.store.begin_read() as tx:
        nodes = {nid: tx.node_prop(nid, "k") for nid in tx.nodes_by_label("Doc")}
    held = ({i for i, _ in im.search("ve", [1.0, 0.0], 100)},
            {f"w{k}": {i for i, _ in im.search("ft", f"w{k}", 100)} for k in range(10)})
    truth = (set(nodes), {f"w{k}": {nid for nid, v in nodes.items() if v == k} for k in range(10)})
    return held, truth


def corrupt_record(directory, position):
    """Flip a byte inside the payload of the ``position``-th record of the last WAL segment."""
    path = list_segments(directory)[-1][1]
    data = bytearray(open(path, "rb").read())
    offset = 0
    for _ in range(position):
        offset += HEADER_SIZE + _HEADER.unpack_from(data, offset)[0]
    data[offset + HEADER_SIZE + 2] ^= 0xFF
    open(path, "wb").write(bytes(data))


def test_stale_files_are_deleted_when_found(tmp_path):
    directory = str(tmp_path / "db")
    run_child(directory, "i,n0,x,n1")           # the files cover n0; the store has n1 too
    db = Database.open(directory)
    held, truth = index_contents(db)
    assert held == truth
    assert not any(db.index_manager.get(n).loaded_from_files for n in ("ve", "ft"))
    search = os.path.join(directory, "search")
    assert not [d for d in os.listdir(search) if os.path.exists(os.path.join(search, d, "meta.json"))]
    db.index_manager.close(save=False)
    db.store.close()


def test_a_truncated_history_never_reuses_index_files(tmp_path):
    directory = str(tmp_path / "db")
    run_child(directory, "i,n0,s,n1,n2,x,n3")    # WAL after the checkpoint: n1, n2, n3; files cover n2
    corrupt_record(directory, 1)                 # n2 damaged, n3 after it: dropped by recover_truncate
    db = Database.open(directory, recover_truncate=True)
    held, truth = index_contents(db)
    assert held == truth
    db.index_manager.close(save=False)         # as a crash: nothing saved
    db.store._wal.close()
    db.store._unlock_directory()
    run_child(directory, "n5")                   # takes n2's commit ts again, with other data
    db = Database.open(directory)
    held, truth = index_contents(db)
    assert held == truth
    db.close()


def test_a_lost_snapshot_never_reuses_index_files(tmp_path):
    directory = str(tmp_path / "db")
    run_child(directory, "n0,n1,s,i,n2,x")       # files cover n2, as the WAL's last commit does
    os.remove(os.path.join(directory, SNAPSHOT_NAME))
    db = Database.open(directory, recover_truncate=True)   # only n2 is left
    assert not any(db.index_manager.get(n).loaded_from_files for n in ("ve", "ft"))
    held, truth = index_contents(db)
    assert held == truth and len(truth[0]) == 1       # n2 only: n0 and n1 were in the snapshot
    db.close()


def test_a_save_after_drop_does_not_bring_the_folder_back(tmp_path):
    """A checkpoint that listed the index before a concurrent DROP must not write its files again."""
    from relate.server.index import IndexManager
    from relate.server.storage import GraphStore
    store = GraphStore.open(str(tmp_path / "db"))
    im = IndexManager(store, str(tmp_path / "idx"))
    im.create_vector_index("v", "node", "N", "e", options={"indexConfig": {"vector.dimensions": 2}})
    with store.begin_write() as tx:
        tx.create_node(["N"], {"e": [1.0, 2.0]})
    assert im.await_indexes(10)
    index = im.get("v")
    im.drop("v")
    index.save()                    # as the checkpoint's loop would, after the drop committed
    assert list((tmp_path / "idx").iterdir()) == []
    im.close()
    store.close()


def test_files_reach_the_disk_before_meta_json(tmp_path, monkeypatch):
    """meta.json is the commit point of a save: every file it vouches for is fsynced before it appears."""
    from relate.server.index import IndexManager, managed
    from relate.server.storage import GraphStore
    store = GraphStore.open(str(tmp_path / "db"))
    im = IndexManager(store, str(tmp_path / "idx"), default_fulltext_engine="whoosh")
    im.create_vector_index("v", "node", "N", "e", options={"indexConfig": {"vector.dimensions": 2}})
    im.create_fulltext_index("t", "node", ["N"], ["text"])
    with store.begin_write() as tx:
        tx.create_node(["N"], {"e": [1.0, 2.0], "text": "hello"})
    assert im.await_indexes(10)
    events = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(fd):
        events.append(("fsync", os.readlink(f"/proc/self/fd/{fd}")))
        return real_fsync(fd)

    def replace(src, dst):
        events.append(("replace", str(dst)))
        return real_replace(src, dst)
    monkeypatch.setattr(managed.os, "fsync", fsync)
    monkeypatch.setattr(managed.os, "replace", replace)
    im.checkpoint()
    monkeypatch.undo()
    for folder in (tmp_path / "idx").iterdir():
        meta = [i for i, e in enumerate(events) if e == ("replace", str(folder / "meta.json"))]
        assert len(meta) == 1
        synced = {path for kind, path in events[:meta[0]] if kind == "fsync"}
        data = [str(p) for p in folder.rglob("*") if p.is_file() and p.name != "meta.json"]
        assert data and set(data) <= synced
    im.close()
    store.close()
