"""kill -9 loop with an acknowledgement ledger.

Each cycle SIGKILLs a writer process at a random moment and reopens the database. Writers are forked
from a fork server that has imported the engine once (a cycle costs a fork, not an interpreter start).
- ledger cycles: explicit transactions (a chain of three :Batch nodes under a uniqueness constraint
  + a MERGE that moves the single :Counter), a checkpoint every 25 transactions (kills land during
  checkpoints); after reopening: every acknowledged transaction present and whole, none in part,
  exactly 1..counter, the constraint still listed and enforced. A new ledger database every
  ``--ledger-span`` cycles keeps each reopen bounded.
- search cycles (every ``--search-every``-th): creates, updates, deletes of notes covered by a vector
  index and two full-text indexes, a checkpoint every 40 statements and an index dropped and built
  again every 60 (kills land during checkpoints and index builds); after reopening every index holds
  every note, and every search equals the same search on freshly built indexes.
A reopen that reports storage damage after a plain kill is a failure too (torn tails must pass).

    python -m tests.fuzz.crash_loop [--cycles N] [--seconds S] [--search-every K] [--ledger-span L]
"""
from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import random
import sys
import tempfile
import time

CHAIN = ("CREATE (a:Batch {n: $n, k: 0, key: $n * 10})-[:NEXT {n: $n}]->(b:Batch {n: $n, k: 1, key: $n * 10 + 1})"
         "-[:NEXT {n: $n}]->(c:Batch {n: $n, k: 2, key: $n * 10 + 2})")
COUNTER = "MERGE (c:Counter) SET c.n = $n"
CONSTRAINT = "CREATE CONSTRAINT batch_key IF NOT EXISTS FOR (b:Batch) REQUIRE b.key IS UNIQUE"


def ledger_writer(path: str, acks) -> None:
    """Commit transaction after transaction, sending each number once it is acknowledged."""
    from relate.server.engine import Database
    db = Database.open(path)
    session = db.session()
    session.run(CONSTRAINT).consume()
    rows = session.run("MATCH (c:Counter) RETURN c.n").fetch(1)
    n = rows[0][0] if rows else 0
    while True:
        n += 1
        session.begin()
        session.run(CHAIN, {"n": n}).consume()
        session.run(COUNTER, {"n": n}).consume()
        session.commit()
        acks.send_bytes(b"%d" % n)
        if n % 25 == 0:
            db.checkpoint()


def search_writer(directory: str, seed: int, acks) -> None:
    from tests.integration import test_search_crash as search
    search.writer(directory, seed, ack=lambda step: acks.send_bytes(b"%d" % step), rebuild_every=60)


def kill_after_first_ack(context, target, args: tuple, seconds: float) -> list[int]:
    """Start ``target`` (forked), SIGKILL it ``seconds`` after its first acknowledgement; every
    acknowledgement it sent (a message cut by the kill is not one)."""
    receive, send = context.Pipe(duplex=False)
    process = context.Process(target=target, args=(*args, send), daemon=True)
    process.start()
    send.close()
    acks = []
    try:
        if not receive.poll(120):
            raise AssertionError(f"the writer sent nothing in 120 s (exit code {process.exitcode})")
        acks.append(int(receive.recv_bytes()))
        time.sleep(seconds)
    finally:
        process.kill()
        process.join()
    while True:
        try:
            acks.append(int(receive.recv_bytes()))
        except (EOFError, OSError, ValueError):
            break
    receive.close()
    assert process.exitcode == -9, f"the writer ended on its own (exit code {process.exitcode})"
    return acks


def check_ledger(path: str, acknowledged: set[int]) -> int:
    import relate
    from relate.errors import RelateError
    from tests.integration.test_embedded_crash import check
    last = check(path, acknowledged)
    with relate.connect(path) as db:
        names = [row["name"] for row in db.execute("SHOW CONSTRAINTS YIELD name RETURN name")]
        assert "batch_key" in names, f"the constraint is gone after the kill: {names}"
        rows = db.execute("MATCH (b:Batch) RETURN count(b) AS all, count(DISTINCT b.key) AS keys").fetchone()
        assert rows["all"] == rows["keys"], f"duplicate keys under the constraint: {rows}"
        if last:
            try:
                db.execute("CREATE (:Batch {key: 10})")
            except RelateError as exc:
                assert exc.code == "Neo.ClientError.Schema.ConstraintValidationFailed", exc.code
            else:
                raise AssertionError("the uniqueness constraint is not enforced after the kill")
    return last


def check_search(directory: str) -> int:
    from relate.server.engine import Database
    from tests.integration import test_search_crash as search
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
    parser.add_argument("--search-every", type=int, default=8, help="every K-th cycle is a search cycle")
    parser.add_argument("--ledger-span", type=int, default=40, help="ledger cycles per ledger database")
    parser.add_argument("--seed", type=int, default=int.from_bytes(os.urandom(4), "little"))
    args = parser.parse_args()
    context = mp.get_context("forkserver")
    context.set_forkserver_preload(["relate", "relate.server.engine", "tests.integration.test_search_crash"])
    rng = random.Random(args.seed)
    started = time.monotonic()
    cycles = search_cycles = ledger_cycles = verified = committed = notes = 0
    acknowledged: set[int] = set()
    last = 0
    with tempfile.TemporaryDirectory() as root:
        ledger_db = os.path.join(root, "ledger-0.rl")
        search_db = os.path.join(root, "search.rl")
        while cycles < args.cycles and time.monotonic() - started < args.seconds:
            cycles += 1
            if args.search_every and cycles % args.search_every == 0:
                kill_after_first_ack(context, search_writer, (search_db, rng.randrange(1 << 30)),
                                     rng.uniform(0.05, 1.5))
                notes = check_search(search_db)
                search_cycles += 1
            else:
                if ledger_cycles and ledger_cycles % args.ledger_span == 0:     # a fresh ledger database
                    verified += len(acknowledged)
                    committed += last
                    acknowledged, last = set(), 0
                    ledger_db = os.path.join(root, f"ledger-{ledger_cycles}.rl")
                acknowledged.update(kill_after_first_ack(context, ledger_writer, (ledger_db,), rng.uniform(0.0, 0.8)))
                last = check_ledger(ledger_db, acknowledged)
                ledger_cycles += 1
            if cycles % 20 == 0:
                print(f"  {cycles} cycles in {time.monotonic() - started:.0f} s", flush=True)
    verified += len(acknowledged)
    committed += last
    elapsed = time.monotonic() - started
    print(f"crash loop: {cycles} kill -9 cycles in {elapsed:.0f} s (seed {args.seed}): {ledger_cycles} ledger "
          f"cycles, {verified} acknowledged transactions all present and whole ({committed} committed in all, "
          f"none partial, the uniqueness constraint listed and enforced after every reopen); {search_cycles} "
          f"search cycles ({notes} notes at the end; kills during checkpoints and index builds), every search "
          "equal to freshly built indexes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
