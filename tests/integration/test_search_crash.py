"""Crash test: SIGKILL a process writing through the engine; on reopen every search result equals the
one a freshly rebuilt index gives. Run as a script, this file is that writer."""
from __future__ import annotations

import random
import signal
import subprocess
import sys
import time

import pytest

from relate.server.engine import Database

INDEXES = [
    "CREATE VECTOR INDEX note_e IF NOT EXISTS FOR (n:Note) ON (n.e) WITH [n.g] "
    "OPTIONS {indexConfig: {`vector.dimensions`: 4, `vector.similarity_function`: 'cosine'}}",
    "CREATE FULLTEXT INDEX note_t IF NOT EXISTS FOR (n:Note) ON EACH [n.text] "
    "OPTIONS {indexConfig: {`fulltext.engine`: 'tantivy'}}",
    "CREATE FULLTEXT INDEX note_w IF NOT EXISTS FOR (n:Note) ON EACH [n.text] "
    "OPTIONS {indexConfig: {`fulltext.engine`: 'whoosh'}}",
]
WORDS = ["kafka", "tenant", "oauth", "tokens", "alert", "lag", "topic", "retention"]


def writer(directory: str, seed: int, ack=None, rebuild_every: int | None = None) -> None:
    """Create, update and delete notes forever, checkpointing now and then; print each statement's number
    (or pass it to ``ack``). ``rebuild_every``: drop an index and build it again every so many steps."""
    rng = random.Random(seed)
    db = Database.open(directory)
    session = db.session()
    for statement in INDEXES:
        session.run(statement).consume()
    step = 0
    while True:
        step += 1
        text = " ".join(rng.choices(WORDS, k=rng.randint(1, 8)))
        vector = [rng.uniform(-1, 1) for _ in range(4)]
        if step % 5 == 0:
            session.run("MATCH (n:Note) WITH n ORDER BY n.i LIMIT 1 DETACH DELETE n").consume()
        elif step % 3 == 0:
            session.run("MATCH (n:Note) WHERE n.i % 7 = $r SET n.text = $t, n.g = $g",
                        {"r": step % 7, "t": text, "g": step % 4}).consume()
        else:
            session.run("CREATE (:Note {i: $i, text: $t, e: $e, g: $g})",
                        {"i": step, "t": text, "e": vector, "g": step % 4}).consume()
        if step % 40 == 0:
            db.checkpoint()
        if rebuild_every and step % rebuild_every == 0:
            name = rng.choice(["note_e", "note_t", "note_w"])
            session.run(f"DROP INDEX {name}").consume()
            session.run(next(s for s in INDEXES if f" {name} " in s)).consume()
        if ack is not None:
            ack(step)
            continue
        sys.stdout.write(f"ack {step}\n")
        sys.stdout.flush()


def search_results(session) -> list:
    out = []
    for q in ([1.0, 0.0, 0.0, 0.0], [0.1, -0.5, 0.3, 0.9]):
        for where in ("", "WHERE n.g = 1", "WHERE n.g IN [0, 2]"):
            out.append(session.run(f"MATCH (n:Note) SEARCH n IN (VECTOR INDEX note_e FOR $q {where} LIMIT 10) "
                                   "SCORE AS s RETURN n.i, s ORDER BY s DESC, n.i", {"q": q}).fetch(100))
    for index in ("note_t", "note_w"):
        for query in ("kafka", "tenant tokens", '"kafka lag"', "alert -topic", "ret*"):
            out.append(session.run(f"MATCH (n:Note) SEARCH n IN (FULLTEXT INDEX {index} FOR $q LIMIT 1000) "
                                   "SCORE AS s RETURN n.i, s ORDER BY s DESC, n.i", {"q": query}).fetch(10_000))
    return out


@pytest.mark.parametrize("run_seconds", [0.8, 2.5])
def test_after_sigkill_searches_equal_a_fresh_rebuild(tmp_path, run_seconds):
    directory = str(tmp_path / "db")
    acknowledged = 0
    for attempt in range(2):              # kill, reopen (recover), write on, kill again
        proc = subprocess.Popen([sys.executable, __file__, directory, str(attempt)],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        first = b""
        while not first.startswith(b"ack"):         # the writer also logs on stdout
            line = proc.stdout.readline()
            assert line, proc.stderr.read().decode()[-3000:]
            first = line
        time.sleep(run_seconds * random.uniform(0.5, 1.5))
        proc.send_signal(signal.SIGKILL)
        out, _ = proc.communicate()
        lines = (first + out).decode().split("\n")[:-1]      # a cut last line is not acknowledged
        acknowledged = max([acknowledged] + [int(x.split()[1]) for x in lines if x.startswith("ack ")])
    assert acknowledged > 5

    db = Database.open(directory)
    session = db.session()
    session.run("CALL db.awaitIndexes(120)").consume()
    reopened = search_results(session)
    notes = session.run("MATCH (n:Note) RETURN count(n)").fetch(1)[0][0]
    sizes = {r["name"]: r["size"] for r in db.index_manager.list()}
    assert sizes == {"note_e": notes, "note_t": notes, "note_w": notes}
    for name in ("note_e", "note_t", "note_w"):
        session.run(f"DROP INDEX {name}").consume()
    for statement in INDEXES:
        session.run(statement).consume()
    session.run("CALL db.awaitIndexes(120)").consume()
    assert search_results(session) == reopened
    session.close()
    db.close()


if __name__ == "__main__":
    writer(sys.argv[1], int(sys.argv[2]))
