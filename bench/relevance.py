"""Relevance join benchmark: 100 anchors x N targets, the join against the same work written by hand.

    python bench/relevance.py --n 20000 --runs 9

The join: ``MATCH (p:Person)-[r:RELEVANT_TO]->(d:Doc)`` (fused: vector + full-text arms, RRF, k 8).
The hand-written form: ``MATCH (p:Person) CALL (p) { MATCH (d:Doc) SEARCH d IN (COMBINE(VECTOR INDEX ...
FOR ai.text.embed(p.name) LIMIT 8, FULLTEXT INDEX ... FOR p.name LIMIT 8) USING RRF LIMIT 8) ... }``.
Both run embedded, in one process, on the same data (hash-384 embeddings); medians and p95 of the
whole statement, each run after one warm-up.
"""
from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from bench.search import make_notes  # noqa: E402
from relate.embedders import hash384_batch  # noqa: E402
from relate.server.engine import Database  # noqa: E402

JOIN = "MATCH (p:Person)-[r:RELEVANT_TO]->(d:Doc) RETURN p.name AS name, d.id AS id, r.score AS score"
BY_HAND = ("MATCH (p:Person) CALL (p) { MATCH (d:Doc) SEARCH d IN (COMBINE("
           "VECTOR INDEX doc_e FOR ai.text.embed(p.name) LIMIT 8, FULLTEXT INDEX doc_t FOR p.name LIMIT 8) "
           "USING RRF LIMIT 8) SCORE AS s RETURN d.id AS id, s } RETURN p.name AS name, id, s AS score")


def load(session, n: int, anchors: int, seed: int, hnsw_min_size: int = 1_000_000) -> None:
    texts = make_notes(n, seed)
    vectors = hash384_batch(texts)
    # exact (flat) search by default: an HNSW build over 100k rows alone takes minutes on 2 cores
    session.run("CREATE VECTOR INDEX doc_e FOR (d:Doc) ON (d.embedding) "
                "OPTIONS {indexConfig: {`vector.dimensions`: 384, `vector.embedder`: 'hash-384', "
                f"`vector.hnsw.min_size`: {hnsw_min_size}}}}}").consume()
    session.run("CREATE FULLTEXT INDEX doc_t FOR (d:Doc) ON EACH [d.text]").consume()
    for start in range(0, n, 5000):
        rows = [{"id": i, "text": texts[i], "e": vectors[i].tolist()} for i in range(start, min(n, start + 5000))]
        session.run("UNWIND $rows AS r CREATE (:Doc {id: r.id, text: r.text, embedding: r.e})", {"rows": rows}).consume()
    rng = random.Random(seed + 1)
    words = sorted({w for t in texts[:2000] for w in t.lower().strip(".").split() if len(w) > 3})
    names = [" ".join(rng.sample(words, 2)) for _ in range(anchors)]
    session.run("UNWIND $names AS name CREATE (:Person {name: name})", {"names": names}).consume()
    session.run("CREATE RELEVANCE JOIN person_docs FOR (p:Person)-[:RELEVANT_TO]->(d:Doc) ON p.name "
                "OPTIONS {indexes: ['doc_e', 'doc_t'], k: 8}").consume()
    session.run("CALL db.awaitIndexes(600)").consume()


def timed(session, query: str, runs: int) -> tuple[list[float], int, dict]:
    result = session.run(query)
    rows = len(result.fetch(10 ** 9))
    costs = dict(result.consume().costs)
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        result = session.run(query)
        result.fetch(10 ** 9)
        result.consume()
        times.append((time.perf_counter() - t0) * 1000)
    return times, rows, costs


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(0.95 * (len(ordered) - 1))))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=20_000, help="target documents")
    parser.add_argument("--anchors", type=int, default=100)
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--hnsw-min-size", type=int, default=1_000_000,
                        help="index size from which HNSW replaces exact search (default: exact)")
    args = parser.parse_args()
    db = Database.open(None)
    session = db.session()
    t0 = time.perf_counter()
    load(session, args.n, args.anchors, args.seed, args.hnsw_min_size)
    print(f"loaded {args.n} documents, {args.anchors} anchors in {time.perf_counter() - t0:.1f} s")
    results = {}
    for label, query in (("relevance join", JOIN), ("CALL (p) { SEARCH ... }", BY_HAND)):
        times, rows, costs = timed(session, query, args.runs)
        results[label] = times
        print(f"{label:26s} median {statistics.median(times):8.1f} ms  p95 {p95(times):8.1f} ms  rows {rows}"
              f"  costs {costs}")
    ratio = statistics.median(results["relevance join"]) / statistics.median(results["CALL (p) { SEARCH ... }"])
    print(f"join / by hand (median): {ratio:.2f}")
    db.close()


if __name__ == "__main__":
    main()
