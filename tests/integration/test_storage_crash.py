"""kill -9 durability: every acknowledged transaction survives, no transaction is half there."""
import os
import random
import signal
import subprocess
import sys
import time
from collections import Counter

from relate.server.storage import GraphStore

HELPER = os.path.join(os.path.dirname(__file__), "storage_crash_writer.py")
PER_TX = 6


def run_and_kill(directory: str, seconds: float, checkpoint_every: int, wait_first: bool = True
                 ) -> list[int]:
    """Run the writer, SIGKILL it ``seconds`` after its first commit (or after start when
    ``wait_first`` is false), and return the tx numbers it acknowledged."""
    proc = subprocess.Popen([sys.executable, HELPER, directory, str(PER_TX), str(checkpoint_every)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    first = proc.stdout.readline() if wait_first else b""
    time.sleep(seconds)
    proc.send_signal(signal.SIGKILL)
    out, err = proc.communicate()
    assert proc.returncode == -signal.SIGKILL, err.decode()
    # A line is acknowledged only if complete (the kill may cut the last one).
    lines = (first + out).decode().split("\n")
    return [int(line) for line in lines[:-1]]


def check_store(directory: str, acknowledged: set[int]) -> int:
    store = GraphStore.open(directory)
    try:
        with store.begin_read() as rd:
            per_tx = Counter(rd.node_prop(n, "tx") for n in rd.nodes_by_label("Tx"))
            counters = list(rd.nodes_by_label("Counter"))
            assert len(counters) <= 1
            count = rd.node_prop(counters[0], "count") if counters else 0
            rels = Counter(rd.rel_prop(r, "tx") for r in rd.rels_by_type("NEXT"))
            assert rd.count_nodes("Tx") == sum(per_tx.values())
        missing = acknowledged - set(per_tx)
        assert not missing, f"acknowledged transactions lost: {sorted(missing)[:10]}"
        partial = {tx: c for tx, c in per_tx.items() if c != PER_TX or rels[tx] != PER_TX - 1}
        assert not partial, f"partially applied transactions: {partial}"
        assert set(per_tx) == set(range(1, count + 1)), "transactions present are not a prefix"
        return count
    finally:
        store.close()


def test_sigkill_never_loses_or_splits_transactions(tmp_path):
    directory = str(tmp_path / "db")
    rng = random.Random(int.from_bytes(os.urandom(4), "little"))
    acknowledged: set[int] = set()
    # Short and long runs; a small checkpoint interval makes kills land inside checkpoints too.
    plans = [(0.3, 1_000_000, True), (rng.uniform(0.0, 0.6), 5, False), (rng.uniform(0.1, 0.8), 3, True),
             (rng.uniform(0.1, 0.8), 10, True), (rng.uniform(0.2, 0.9), 2, True),
             (rng.uniform(0.0, 0.3), 1, True)]
    total = 0
    for seconds, checkpoint_every, wait_first in plans:
        acknowledged.update(run_and_kill(directory, seconds, checkpoint_every, wait_first))
        total = check_store(directory, acknowledged)
    assert total >= len(acknowledged) > 0
