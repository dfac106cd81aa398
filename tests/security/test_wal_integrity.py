"""Damaged database files: a torn tail is discarded as before; damage followed by valid commits, a
CRC-valid record that is not msgpack and files missing per the checkpoint manifest are refused with a
typed error until `relate check` / --recover-truncate; files are private; a full disk on close is typed."""
import os
import stat
import subprocess
import sys

import pytest

import relate
from relate.server.storage.check import check_directory
from relate.server.storage.integrity import StorageDamaged
from relate.server.storage.wal import _HEADER, _LENGTH, _checksum, list_segments


WRITER = """
import os, sys
import relate
path, n, checkpoint_first = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
conn = relate.connect(path)
for i in range(checkpoint_first):
    conn.execute("CREATE (:Old {i: $i})", {"i": i})
if checkpoint_first:
    conn.close()
    conn = relate.connect(path)
for i in range(n):
    conn.execute("CREATE (:N {i: $i})", {"i": i})
os._exit(0)          # as a crash would: no checkpoint, the commits live in the WAL only
"""


def make_db(path, n=30, checkpoint_first=0):
    subprocess.run([sys.executable, "-c", WRITER, str(path), str(n), str(checkpoint_first)], check=True,
                   timeout=120)


def record_offsets(path):
    data = open(path, "rb").read()
    offsets, offset = [], 0
    while offset < len(data):
        offsets.append(offset)
        offset += 8 + int.from_bytes(data[offset:offset + 4], "little")
    return offsets


def last_segment(path):
    return [p for _, p in list_segments(str(path)) if os.path.getsize(p)][-1]


def count(path, **options):
    with relate.connect(str(path), **options) as conn:
        return conn.execute("MATCH (n:N) RETURN count(n)").fetchall()[0][0]


def test_a_bit_flip_in_the_middle_is_refused_then_recovered_explicitly(tmp_path):
    make_db(tmp_path)
    wal = last_segment(tmp_path)
    offsets = record_offsets(wal)
    data = bytearray(open(wal, "rb").read())
    data[offsets[10] + 12] ^= 0x04
    open(wal, "wb").write(bytes(data))
    with pytest.raises(StorageDamaged) as caught:
        relate.connect(str(tmp_path))
    message = str(caught.value)
    assert f"at byte {offsets[10]}" in message and "19 valid commit(s)" in message
    assert caught.value.code == "Neo.DatabaseError.General.StorageDamageDetected"
    assert open(wal, "rb").read() == bytes(data)          # nothing changed
    healthy, lines = check_directory(str(tmp_path))
    assert not healthy and any("19 valid commit(s)" in line for line in lines)
    cli = subprocess.run([sys.executable, "-m", "relate.shell", "check", str(tmp_path)], capture_output=True,
                         text=True)
    assert cli.returncode == 1 and "DAMAGED" in cli.stdout
    assert count(tmp_path, recover_truncate=True) == 10
    assert check_directory(str(tmp_path))[0]
    assert count(tmp_path) == 10


def test_a_torn_tail_is_still_discarded_silently(tmp_path):
    make_db(tmp_path)
    wal = last_segment(tmp_path)
    offsets = record_offsets(wal)
    with open(wal, "r+b") as f:
        f.truncate(offsets[-1] + 11)
    healthy, lines = check_directory(str(tmp_path))
    assert healthy and any("torn tail" in line for line in lines)
    assert count(tmp_path) == 29


def test_a_crc_valid_record_that_is_not_msgpack_is_typed(tmp_path):
    make_db(tmp_path)
    wal = last_segment(tmp_path)
    payload = b"\xc1\xc1\xc1 not msgpack"
    length = _LENGTH.pack(len(payload))
    with open(wal, "ab") as f:
        f.write(_HEADER.pack(len(payload), _checksum(length, payload)) + payload)
    with pytest.raises(StorageDamaged, match="does not decode"):
        relate.connect(str(tmp_path))
    assert count(tmp_path, recover_truncate=True) == 30


def test_missing_wal_and_snapshot_are_detected_through_the_manifest(tmp_path):
    make_db(tmp_path / "a", n=5, checkpoint_first=5)
    for _, path in list_segments(str(tmp_path / "a")):
        os.unlink(path)
    with pytest.raises(StorageDamaged, match="missing WAL segment"):
        relate.connect(str(tmp_path / "a"))
    make_db(tmp_path / "b", n=5, checkpoint_first=5)
    os.unlink(tmp_path / "b" / "snapshot.msgpack")
    with pytest.raises(StorageDamaged, match="missing snapshot.msgpack"):
        relate.connect(str(tmp_path / "b"))
    assert not check_directory(str(tmp_path / "b"))[0]
    assert count(tmp_path / "b", recover_truncate=True) == 5


def test_database_files_are_private(tmp_path):
    db = tmp_path / "db"
    with relate.connect(str(db)) as conn:
        conn.execute("CREATE (:N)")
    assert stat.S_IMODE(os.stat(db).st_mode) == 0o700
    for name in os.listdir(db):
        path = db / name
        if path.is_file():
            assert stat.S_IMODE(os.stat(path).st_mode) & 0o077 == 0, name


FULL_DISK = """
import os, resource, signal, sys
import relate
from relate.errors import DatabaseError
conn = relate.connect(sys.argv[1])
conn.execute("UNWIND range(1, 3000) AS i CREATE (:N {i: i, text: 'x' + toString(i)})")
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
resource.setrlimit(resource.RLIMIT_FSIZE, (20_000, 20_000))     # files may not grow past 20 kB
try:
    conn.close()
except DatabaseError as exc:
    print("typed", type(exc).__name__, exc.code)
"""


def test_a_full_disk_on_close_is_a_typed_error_and_leaves_no_temp_file(tmp_path):
    result = subprocess.run([sys.executable, "-c", FULL_DISK, str(tmp_path / "db")], capture_output=True,
                            text=True, timeout=120)
    assert "typed DatabaseError Neo.DatabaseError.General.StorageWriteFailed" in result.stdout, result.stderr
    assert "Traceback" not in result.stderr
    assert not os.path.exists(tmp_path / "db" / "snapshot.msgpack.tmp")
    assert count(tmp_path / "db") == 3000
