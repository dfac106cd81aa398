"""`make eval`: recall@10 and nDCG@10 of direct-only vs all-lanes retrieval on generated corpora.

Usage: python -m bench.retrieval.run [--sizes 1000,50000] [--questions 200] [--out PATH]
Each size is loaded into an in-memory database (hash-384 embeddings, tantivy full-text), then every
question runs through ``db.retrieve`` twice: ``{lanes: ['direct']}`` and all three lanes.
"""
from __future__ import annotations

import argparse
import math
import statistics
import sys
import time

from relate.server.engine import Database
from relate.server.retrieval.normalize import normalize_name

from .corpus import generate

SETUP = [
    "CREATE VECTOR INDEX chunk_embedding FOR (c:Chunk) ON (c.embedding) OPTIONS {indexConfig: "
    "{`vector.dimensions`: 384, `vector.embedder`: 'hash-384', `vector.hnsw.min_size`: 1000000}}",
    "CREATE FULLTEXT INDEX chunk_text FOR (c:Chunk) ON EACH [c.text]",
    "CREATE INDEX document_id FOR (d:Document) ON (d.id)",
    "CREATE CONSTRAINT entity_identity FOR (e:Entity) REQUIRE (e.normalized, e.workspace, e.type) IS UNIQUE",
]
RETRIEVE = "CALL db.retrieve($q, $o) YIELD node, rank RETURN node.id AS id, rank"
BATCH = 5_000


def load(db: Database, corpus) -> float:
    started = time.perf_counter()
    s = db.session()
    for statement in SETUP:
        s.run(statement).consume()
    for i in range(0, len(corpus.documents), BATCH):
        s.run("UNWIND $docs AS d CREATE (doc:Document {id: d.id, workspace: 'eval'})-[:HAS_CHUNK]->"
              "(:Chunk {id: d.id + '#0', text: d.text, position: 0, workspace: 'eval', "
              "embedding: ai.text.embed(d.text, {model: 'hash-384'})})",
              {"docs": corpus.documents[i:i + BATCH]}).consume()
    entities = [dict(e, normalized=normalize_name(e["name"])) for e in corpus.entities]
    s.run("UNWIND $es AS e CREATE (:Entity {workspace: 'eval', name: e.name, normalized: e.normalized, "
          "type: e.type})", {"es": entities}).consume()
    by_type: dict[str, list] = {}
    for f in corpus.facts:
        by_type.setdefault(f["type"], []).append({"a": normalize_name(f["from"]), "b": normalize_name(f["to"]),
                                                  "p": f["predicate"], "src": f["sources"]})
    for rel, rows in by_type.items():
        s.run(f"UNWIND $fs AS f MATCH (a:Entity {{normalized: f.a}}), (b:Entity {{normalized: f.b}}) "
              f"CREATE (a)-[:{rel} {{predicate: f.p, sources: f.src}}]->(b)", {"fs": rows}).consume()
    db.index_manager.await_indexes(600)
    return time.perf_counter() - started


def score(ranked_docs: list[str], relevant: set[str]) -> tuple[float, float]:
    top = ranked_docs[:10]
    hits = [d in relevant for d in top]
    recall = sum(hits) / len(relevant)
    dcg = sum(1 / math.log2(i + 2) for i, h in enumerate(hits) if h)
    ideal = sum(1 / math.log2(i + 2) for i in range(min(len(relevant), 10)))
    return recall, dcg / ideal


def evaluate(db: Database, corpus, options: dict) -> dict:
    s = db.session()
    out: dict[int, dict] = {}
    for q in corpus.questions:
        t0 = time.perf_counter()
        rows = s.run(RETRIEVE, {"q": q["text"], "o": dict(options, k=10)}).fetch(1000)
        ms = (time.perf_counter() - t0) * 1000
        docs = list(dict.fromkeys(cid.split("#")[0] for cid, rank in rows if rank <= 10))
        recall, ndcg = score(docs, set(q["relevant"]))
        bucket = out.setdefault(q["hops"], {"recall": [], "ndcg": [], "ms": []})
        bucket["recall"].append(recall)
        bucket["ndcg"].append(ndcg)
        bucket["ms"].append(ms)
    return out


def run_size(n: int, questions: int) -> list[str]:
    corpus = generate(n, questions)
    db = Database.open(None)
    try:
        load_s = load(db, corpus)
        modes = {"direct only": {"lanes": ["direct"]}, "all lanes": {}}
        results = {name: evaluate(db, corpus, opts) for name, opts in modes.items()}
    finally:
        db.close()
    lines = [f"N = {len(corpus.documents):,} documents ({len(corpus.entities):,} entities, {len(corpus.facts):,} "
             f"facts), {len(corpus.questions)} questions, load {load_s:.1f} s", "",
             "| questions | mode | recall@10 | nDCG@10 | median ms | p95 ms |", "|---|---|---|---|---|---|"]
    for hops in (1, 2):
        for name, result in results.items():
            b = result.get(hops)
            if not b:
                continue
            ms = sorted(b["ms"])
            lines.append(f"| {hops}-hop ({len(ms)}) | {name} | {statistics.mean(b['recall']):.3f} | "
                         f"{statistics.mean(b['ndcg']):.3f} | {statistics.median(ms):.1f} | "
                         f"{ms[int(len(ms) * 0.95)]:.1f} |")
    return lines


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,50000", help="comma-separated document counts")
    parser.add_argument("--questions", type=int, default=200)
    parser.add_argument("--out", default=None, help="also write the tables to this file")
    args = parser.parse_args(argv)
    report = []
    for size in (int(x) for x in args.sizes.split(",") if x):
        started = time.perf_counter()
        lines = run_size(size, args.questions)
        lines.append(f"\n(size {size:,}: {time.perf_counter() - started:.1f} s in all)\n")
        print("\n".join(lines), flush=True)
        report += lines
    if args.out:
        with open(args.out, "w") as fh:
            fh.write("\n".join(report) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
