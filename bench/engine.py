"""Engine benchmark (not a test): medians for the figures the engine issue asks for.

    python bench/engine.py [--quick] [--path DIR]

1. a cached, parameterized point lookup by a unique property (statements/s, embedded)
2. the first parse of the cookbook's RECALL statement (fresh process each time; parse and full prepare)
3. a 2-hop count over a 100k-node graph
4. a 100k-node UNWIND-batch load (nodes/s)
"""
from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import relate

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "examples", "hybrid-recall"))


def median_of(runs: int, fn) -> float:
    return statistics.median(fn() for _ in range(runs))


def point_lookup(db, nodes: int, statements: int, runs: int) -> float:
    db.execute("CREATE CONSTRAINT bench_note_id IF NOT EXISTS FOR (n:Note) REQUIRE n.id IS UNIQUE")
    db.execute("UNWIND range(0, $n - 1) AS i CREATE (:Note {id: i, text: 'note ' + toString(i)})", {"n": nodes})
    query = "MATCH (n:Note {id: $id}) RETURN n.text"
    db.execute(query, {"id": 0}).fetchall()              # plan once; every later run hits the cache
    ids = [random.randrange(nodes) for _ in range(statements)]

    def run() -> float:
        start = time.perf_counter()
        for i in ids:
            db.execute(query, {"id": i}).fetchall()
        return statements / (time.perf_counter() - start)
    return median_of(runs, run)


_FIRST_PARSE = r"""
import json, sys, time
sys.path.insert(0, sys.argv[1])
import statements as S
t0 = time.perf_counter()
from relate.server.query.parser import parse
t1 = time.perf_counter()
parse(S.RECALL)
t2 = time.perf_counter()
parse(S.RECALL)
t3 = time.perf_counter()
import relate
db = relate.connect(":memory:")
for q in S.SETUP:
    db.execute(q)
t4 = time.perf_counter()
db._session.db.prepare(S.RECALL)
t5 = time.perf_counter()
print(json.dumps({"import_ms": (t1 - t0) * 1e3, "first_parse_ms": (t2 - t1) * 1e3,
                  "second_parse_ms": (t3 - t2) * 1e3, "first_prepare_ms": (t5 - t4) * 1e3}))
db.close()
"""


def first_parse(runs: int) -> dict:
    examples = os.path.join(ROOT, "examples", "hybrid-recall")
    results = []
    for _ in range(runs):
        out = subprocess.run([sys.executable, "-c", _FIRST_PARSE, examples], capture_output=True, text=True,
                             check=True)
        results.append(json.loads(out.stdout.strip().splitlines()[-1]))
    return {k: statistics.median(r[k] for r in results) for k in results[0]}


def two_hop(db, nodes: int, degree: int, runs: int) -> tuple[float, int]:
    rng = random.Random(7)
    db.execute("UNWIND range(0, $n - 1) AS i CREATE (:Person {id: i})", {"n": nodes})
    db.execute("CREATE INDEX person_id IF NOT EXISTS FOR (p:Person) ON (p.id)")
    edges = [{"a": i, "b": rng.randrange(nodes)} for i in range(nodes) for _ in range(degree)]
    for start in range(0, len(edges), 20_000):
        db.execute("UNWIND $edges AS e MATCH (a:Person {id: e.a}), (b:Person {id: e.b}) CREATE (a)-[:KNOWS]->(b)",
                   {"edges": edges[start:start + 20_000]})
    query = "MATCH (a:Person)-[:KNOWS]->()-[:KNOWS]->(c) RETURN count(c) AS paths"
    count = db.execute(query).fetchone()[0]

    def run() -> float:
        start = time.perf_counter()
        db.execute(query).fetchall()
        return time.perf_counter() - start
    return median_of(runs, run), count


def batch_load(make_db, nodes: int, batch: int, runs: int) -> float:
    rows = [{"id": i, "name": f"person {i}", "score": i * 0.5} for i in range(nodes)]
    query = "UNWIND $rows AS r CREATE (:Person {id: r.id, name: r.name, score: r.score})"

    def run() -> float:
        db, cleanup = make_db()
        try:
            start = time.perf_counter()
            for i in range(0, nodes, batch):
                db.execute(query, {"rows": rows[i:i + batch]})
            return nodes / (time.perf_counter() - start)
        finally:
            db.close()
            cleanup()
    return median_of(runs, run)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer and smaller runs")
    parser.add_argument("--path", help="run the durable parts in this directory (default: a temporary one)")
    args = parser.parse_args()
    runs = 3 if args.quick else 5
    base = args.path or tempfile.mkdtemp(prefix="relate-bench-")
    counter = iter(range(1_000_000))

    def make_db():
        path = os.path.join(base, f"db{next(counter)}")
        return relate.connect(path), lambda: shutil.rmtree(path, ignore_errors=True)

    print(f"relate engine benchmark ({'quick' if args.quick else 'full'}; medians of {runs} runs)")
    db, cleanup = make_db()
    try:
        rate = point_lookup(db, 10_000, 2_000 if args.quick else 10_000, runs)
        print(f"1. cached point lookup by unique property: {rate:,.0f} statements/s (durable store, embedded)")
    finally:
        db.close()
        cleanup()
    parse = first_parse(runs)
    print(f"2. RECALL statement: first parse {parse['first_parse_ms']:.1f} ms (second {parse['second_parse_ms']:.1f} ms,"
          f" import {parse['import_ms']:.0f} ms), first full prepare (parse + analyze + plan) "
          f"{parse['first_prepare_ms']:.1f} ms")
    nodes = 100_000
    db, cleanup = make_db()
    try:
        seconds, paths = two_hop(db, nodes, 2, runs)
        print(f"3. 2-hop count over {nodes:,} nodes / {2 * nodes:,} relationships: {seconds * 1000:,.0f} ms "
              f"({paths:,} paths, {paths / seconds:,.0f} paths/s)")
    finally:
        db.close()
        cleanup()
    rate = batch_load(make_db, nodes, 10_000, 1 if args.quick else 3)
    print(f"4. UNWIND-batch load of {nodes:,} nodes (batches of 10,000, durable): {rate:,.0f} nodes/s")
    if not args.path:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
