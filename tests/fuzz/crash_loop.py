"""kill -9 loop with an acknowledgement ledger, reusing the integration crash writers.

Each cycle SIGKILLs a writer at a random moment and reopens the database:
- ledger cycles (tests/integration/embedded_crash_writer.py: explicit transactions of CREATE + MERGE +
  SET): every acknowledged transaction present and whole, none in part, exactly 1..counter;
- search cycles (tests/integration/test_search_crash.py: creates, updates, deletes of notes covered by
  a vector index and two full-text indexes, checkpoints every 40 statements, so kills land during
  checkpoints and index population too): every search on the reopened database equals the same search
  on freshly rebuilt indexes, every index holds every note.
A reopen that reports storage damage after a plain kill is a failure too (torn tails must pass).

    python -m tests.fuzz.crash_loop [--cycles N] [--seconds S] [--search-every K]
"""
from __future__ import annotations

import argparse
import os
import random
import signal
import subprocess
import sys
import tempfile
import time

from relate.server.engine import Database
from tests.integration import test_search_crash as search
from tests.integration.test_embedded_crash import check, run_and_kill


def search_cycle(directory: str, rng: random.Random) -> int:
    proc = subprocess.Popen([sys.executable, search.__file__, directory, str(rng.randrange(1 << 30))],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    line = b""
    while not line.startswith(b"ack"):
        line = proc.stdout.readline()
        if not line:
            raise AssertionError(proc.stderr.read().decode()[-3000:])
    time.sleep(rng.uniform(0.05, 1.5))
    proc.send_signal(signal.SIGKILL)
    proc.communicate()
    db = Database.open(directory)
    try:
        session = db.session()
        session.run("CALL db.awaitIndexes(120)").consume()
        reopened = search.search_results(session)
        notes = session.run("MATCH (n:Note) RETURN count(n)").fetch(1)[0][0]
        sizes = {r["name"]: r["size"] for r in db.index_manager.list()}
        assert sizes == {"note_e": notes, "note_t": notes, "note_w": notes}, sizes
        copy = Database.open(None)
        try:
            other = copy.session()
            rows = session.run("MATCH (n:Note) RETURN n.i, n.text, n.e, n.g").fetch(10 ** 7)
            for statement in search.INDEXES:
                other.run(statement).consume()
            other.run("UNWIND $rows AS r CREATE (:Note {i: r[0], text: r[1], e: r[2], g: r[3]})",
                      {"rows": [list(r) for r in rows]}).consume()
            other.run("CALL db.awaitIndexes(120)").consume()
            assert search.search_results(other) == reopened, "a search differs from a freshly built index"
        finally:
            copy.close()
        session.close()
        return notes
    finally:
        db.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cycles", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=600)
    parser.add_argument("--search-every", type=int, default=5, help="every K-th cycle is a search cycle")
    parser.add_argument("--seed", type=int, default=int.from_bytes(os.urandom(4), "little"))
    args = parser.parse_args()
    rng = random.Random(args.seed)
    started = time.monotonic()
    cycles = search_cycles = 0
    acknowledged: set[int] = set()
    last = notes = 0
    with tempfile.TemporaryDirectory() as root:
        ledger_db = os.path.join(root, "ledger.rl")
        search_db = os.path.join(root, "search.rl")
        while cycles < args.cycles and time.monotonic() - started < args.seconds:
            cycles += 1
            if args.search_every and cycles % args.search_every == 0:
                notes = search_cycle(search_db, rng)
                search_cycles += 1
            else:
                acknowledged.update(run_and_kill(ledger_db, rng.uniform(0.0, 0.8)))
                last = check(ledger_db, acknowledged)
    elapsed = time.monotonic() - started
    print(f"crash loop: {cycles} kill -9 cycles in {elapsed:.0f} s (seed {args.seed}): "
          f"{cycles - search_cycles} ledger cycles, {len(acknowledged)} acknowledged transactions all present "
          f"and whole ({last} committed in all, none partial); {search_cycles} search cycles, {notes} notes, "
          "searches equal to freshly built indexes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
