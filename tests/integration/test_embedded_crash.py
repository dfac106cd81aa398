"""kill -9 through the whole engine: every acknowledged transaction is there after reopening, and no
transaction is there in part."""
import os
import random
import signal
import subprocess
import sys
import time

import relate

HELPER = os.path.join(os.path.dirname(__file__), "embedded_crash_writer.py")


def run_and_kill(path: str, seconds: float) -> list[int]:
    """Start the writer, SIGKILL it ``seconds`` after its first acknowledgement; the numbers it printed."""
    proc = subprocess.Popen([sys.executable, HELPER, path], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    first = proc.stdout.readline()
    time.sleep(seconds)
    proc.send_signal(signal.SIGKILL)
    out, err = proc.communicate()
    assert proc.returncode == -signal.SIGKILL, err.decode()
    lines = (first + out).decode().split("\n")
    return [int(line) for line in lines[:-1]]         # the last line may be cut by the kill


def check(path: str, acknowledged: set[int]) -> int:
    with relate.connect(path) as db:
        batches = {row["n"]: (row["nodes"], row["ks"]) for row in db.execute(
            "MATCH (b:Batch) RETURN b.n AS n, count(*) AS nodes, collect(b.k) AS ks")}
        links = {row["n"]: row["rels"] for row in db.execute(
            "MATCH (:Batch)-[r:NEXT]->(:Batch) RETURN r.n AS n, count(r) AS rels")}
        counter = db.execute("MATCH (c:Counter) RETURN c.n AS n").fetchall()
    assert len(counter) <= 1
    last = counter[0]["n"] if counter else 0
    missing = acknowledged - set(batches)
    assert not missing, f"acknowledged transactions lost: {sorted(missing)[:10]}"
    partial = {n: v for n, v in batches.items() if v[0] != 3 or sorted(v[1]) != [0, 1, 2] or links.get(n) != 2}
    assert not partial, f"partially applied transactions: {partial}"
    assert set(batches) == set(range(1, last + 1)), "the transactions present are not exactly 1..counter"
    return last


def test_sigkill_keeps_every_acknowledged_transaction_whole(tmp_path):
    path = str(tmp_path / "crash.rl")
    rng = random.Random(int.from_bytes(os.urandom(4), "little"))
    acknowledged: set[int] = set()
    last = 0
    for seconds in (0.4, rng.uniform(0.0, 0.5), rng.uniform(0.1, 0.7)):
        acknowledged.update(run_and_kill(path, seconds))
        last = check(path, acknowledged)
    assert last >= len(acknowledged) > 0
