"""Load speed at N notes (the bench/peers graph: notes with 384-d float32 embeddings, 50 topics, ABOUT and
DECIDED edges): ``relate import`` from Parquet/CSV files, ``LOAD CSV`` of the same files, and the
UNWIND-batch load bench/peers uses; optionally Kuzu COPY from the same files (``--kuzu-python`` =
a Python with kuzu 0.11.3 installed). Prints one line per method: nodes s, edges s, total s.

    .venv/bin/python bench/load.py --n 30000 [--kuzu-python /tmp/kuzu-venv/bin/python]
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "examples", "hybrid-recall"))

from bench.peers.systems.relate_db import RelateSystem  # noqa: E402
from bench.peers.workload import cached  # noqa: E402
import statements as S  # noqa: E402

CONSTRAINTS = S.SETUP[:3]


def write_files(wl, d: str) -> None:
    dims = wl.embeddings.shape[1]
    pq.write_table(pa.table({
        "id:ID(Note)": wl.ids, "text": wl.texts, "session": wl.sessions, "ts:long": pa.array(wl.ts, pa.int64()),
        "embedding:vector": pa.FixedSizeListArray.from_arrays(pa.array(wl.embeddings.reshape(-1), pa.float32()),
                                                              dims)}), os.path.join(d, "notes.parquet"),
                   use_dictionary=["id:ID(Note)", "text", "session"])    # no dictionary for float columns
    pacsv.write_csv(pa.table({"name:ID(Topic)": wl.topics}), os.path.join(d, "topics.csv"))
    pacsv.write_csv(pa.table({":START_ID(Note)": [wl.ids[i] for i, _ in wl.about],
                              ":END_ID(Topic)": [wl.topics[t] for _, t in wl.about]}), os.path.join(d, "about.csv"))
    pq.write_table(pa.table({":START_ID(Note)": [wl.ids[x[0]] for x in wl.decided],
                             ":END_ID(Topic)": [wl.topics[x[1]] for x in wl.decided],
                             "text": [x[2] for x in wl.decided], "ts:long": pa.array([x[3] for x in wl.decided])}),
                   os.path.join(d, "decided.parquet"))


def _import(d: str, target: str, schema: list[str]) -> float:
    from relate.server.importer.run import run_import
    t0 = time.perf_counter()
    run_import(target, [(["Note"], [os.path.join(d, "notes.parquet")]), (["Topic"], [os.path.join(d, "topics.csv")])],
               [(["ABOUT"], [os.path.join(d, "about.csv")]), (["DECIDED"], [os.path.join(d, "decided.parquet")])],
               max_bad=0, schema=schema)
    return time.perf_counter() - t0


def bench_import(d: str, work: str) -> dict:
    """Without the constraints; with them as ``--schema`` (built by the import); without them, then
    CREATE CONSTRAINT on the opened database (open + build + the checkpoint at close)."""
    target = os.path.join(work, "imported")
    bare = _import(d, target, [])
    shutil.rmtree(target)
    built = _import(d, target, CONSTRAINTS)
    shutil.rmtree(target)
    plain = _import(d, target, [])
    import relate
    t0 = time.perf_counter()
    with relate.connect(target) as c:
        for statement in CONSTRAINTS:
            c.execute(statement).consume()
    after = time.perf_counter() - t0
    shutil.rmtree(target)
    return {"files -> store": bare, "with --schema constraints": built, "then CREATE CONSTRAINT": plain + after}


LOAD_NOTES = """LOAD CSV WITH HEADERS FROM 'file:///notes.parquet' AS r
CALL { WITH r CREATE (:Note {id: r.`id:ID(Note)`, text: r.text, session: r.session, ts: r.`ts:long`,
embedding: vector(r.`embedding:vector`, 384, FLOAT32)}) } IN TRANSACTIONS OF 5000 ROWS"""
LOAD_TOPICS = "LOAD CSV WITH HEADERS FROM 'file:///topics.csv' AS r CREATE (:Topic {name: r.`name:ID(Topic)`})"
LOAD_ABOUT = """LOAD CSV WITH HEADERS FROM 'file:///about.csv' AS r
CALL { WITH r MATCH (n:Note {id: r.`:START_ID(Note)`}), (t:Topic {name: r.`:END_ID(Topic)`})
CREATE (n)-[:ABOUT]->(t) } IN TRANSACTIONS OF 5000 ROWS"""
LOAD_DECIDED = """LOAD CSV WITH HEADERS FROM 'file:///decided.parquet' AS r
CALL { WITH r MATCH (n:Note {id: r.`:START_ID(Note)`}), (t:Topic {name: r.`:END_ID(Topic)`})
CREATE (n)-[:DECIDED {text: r.text, ts: r.`ts:long`}]->(t) } IN TRANSACTIONS OF 5000 ROWS"""


def bench_load_csv(d: str, work: str) -> dict:
    import relate
    target = os.path.join(work, "loadcsv")
    with relate.connect(target, import_dir=d) as c:
        for statement in CONSTRAINTS:
            c.execute(statement).consume()
        t0 = time.perf_counter()
        c.execute(LOAD_NOTES).consume()
        c.execute(LOAD_TOPICS).consume()
        t1 = time.perf_counter()
        c.execute(LOAD_ABOUT).consume()
        c.execute(LOAD_DECIDED).consume()
        t2 = time.perf_counter()
    shutil.rmtree(target)
    return {"nodes": t1 - t0, "edges": t2 - t1, "total": t2 - t0}


def bench_unwind(wl, work: str) -> dict:
    system = RelateSystem()
    os.makedirs(os.path.join(work, "unwind"))     # RelateSystem.start opens relate-data inside it
    system.start(os.path.join(work, "unwind"))
    try:
        t0 = time.perf_counter()
        system.load_nodes(wl)
        t1 = time.perf_counter()
        system.load_edges(wl)
        t2 = time.perf_counter()
    finally:
        system.close()
    return {"nodes": t1 - t0, "edges": t2 - t1, "total": t2 - t0}


KUZU = r"""
import json, sys, time, kuzu
d, work = sys.argv[1], sys.argv[2]
db = kuzu.Database(work + "/kuzu-db"); c = kuzu.Connection(db)
c.execute("CREATE NODE TABLE Note(id STRING PRIMARY KEY, text STRING, session STRING, ts INT64, embedding FLOAT[384])")
c.execute("CREATE NODE TABLE Topic(name STRING PRIMARY KEY)")
c.execute("CREATE REL TABLE ABOUT(FROM Note TO Topic)")
c.execute("CREATE REL TABLE DECIDED(FROM Note TO Topic, text STRING, ts INT64)")
t0 = time.perf_counter()
c.execute(f"COPY Note FROM '{d}/notes.parquet'")
c.execute(f"COPY Topic FROM '{d}/topics.csv' (header=true)")
t1 = time.perf_counter()
c.execute(f"COPY ABOUT FROM '{d}/about.csv' (header=true)")
c.execute(f"COPY DECIDED FROM '{d}/decided.parquet'")
t2 = time.perf_counter()
print(json.dumps({"nodes": t1 - t0, "edges": t2 - t1, "total": t2 - t0}))
"""


def bench_kuzu(python: str, d: str, work: str) -> dict:
    out = subprocess.run([python, "-c", KUZU, d, work], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=30_000)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--kuzu-python")
    parser.add_argument("--skip", action="append", default=[], help="import | loadcsv | unwind")
    args = parser.parse_args()
    wl, _ = cached(args.n, args.seed, os.path.join(tempfile.gettempdir(), "relate-bench-workloads"))
    with tempfile.TemporaryDirectory(prefix="relate-load-") as work:
        d = os.path.join(work, "files")
        os.makedirs(d)
        write_files(wl, d)
        print(f"N = {args.n}: {len(wl.about)} ABOUT + {len(wl.decided)} DECIDED edges")
        results = {}
        if args.kuzu_python:
            results["kuzu COPY"] = bench_kuzu(args.kuzu_python, d, work)
        if "import" not in args.skip:
            results["relate import"] = bench_import(d, work)
        if "loadcsv" not in args.skip:
            results["LOAD CSV"] = bench_load_csv(d, work)
        if "unwind" not in args.skip:
            results["UNWIND batches"] = bench_unwind(wl, work)
        for name, times in results.items():
            print(f"{name:16s} " + "  ".join(f"{k} {v:.2f} s" for k, v in times.items()))


if __name__ == "__main__":
    main()
