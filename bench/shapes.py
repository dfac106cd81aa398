"""Statement shapes of agent memory and GraphRAG scripts, timed embedded in memory: the newest memories,
substrings of their text, degrees and existence checks, counts per entity, a rare relationship between common labels.

    .venv/bin/python bench/shapes.py [--memories 100000] [--chunks 20000] [--reps 5]

Prints the median of ``--reps`` runs of each statement (after one unmeasured run) in milliseconds.
"""
from __future__ import annotations

import argparse
import random
import statistics
import time

import relate

SHAPES = [
    ("newest 10 memories, no index", "memories",
     "MATCH (m:Memory) RETURN m.text ORDER BY m.ts DESC LIMIT 10"),
    ("newest 10, WHERE ts IS NOT NULL, no index", "memories",
     "MATCH (m:Memory) WHERE m.ts IS NOT NULL RETURN m.text ORDER BY m.ts DESC LIMIT 10"),
    ("memories about a topic, counted (1% have one)", "memories",
     "MATCH (m:Memory)-[:ABOUT]->() RETURN count(*)"),
    ("text CONTAINS a number, no index", "memories",
     "MATCH (m:Memory) WHERE m.text CONTAINS '4242' RETURN m.ts"),
    ("newest 10, WHERE ts IS NOT NULL, index on ts", "memories_indexed",
     "MATCH (m:Memory) WHERE m.ts IS NOT NULL RETURN m.text ORDER BY m.ts DESC LIMIT 10"),
    ("text CONTAINS a number, text index", "memories_indexed",
     "MATCH (m:Memory) WHERE m.text CONTAINS '4242' RETURN m.ts"),
    ("text ENDS WITH a number, text index", "memories_indexed",
     "MATCH (m:Memory) WHERE m.text ENDS WITH ' 4242' RETURN m.ts"),
    ("chunks mentioning nothing", "chunks",
     "MATCH (c:Chunk) WHERE NOT (c)-[:MENTIONS]->() RETURN count(c)"),
    ("entities never mentioned, EXISTS", "chunks",
     "MATCH (e:Entity) WHERE NOT EXISTS { (e)<-[:MENTIONS]-() } RETURN count(e)"),
    ("mentions per entity, COUNT {}", "chunks",
     "MATCH (e:Entity) RETURN e.name, COUNT { (e)<-[:MENTIONS]-() } AS n ORDER BY n DESC LIMIT 10"),
    ("most mentioned entities, count(c)", "chunks",
     "MATCH (e:Entity)<-[:MENTIONS]-(c) RETURN e.name, count(c) AS n ORDER BY n DESC LIMIT 10"),
]


def memories(n: int, indexed: bool):
    db = relate.connect(":memory:")
    if indexed:
        db.execute("CREATE INDEX memory_ts FOR (m:Memory) ON (m.ts)")
        db.execute("CREATE TEXT INDEX memory_text FOR (m:Memory) ON (m.text)")
    db.execute("UNWIND range(1, $n) AS i CREATE (:Memory {ts: i, text: 'memory ' + i})", {"n": n})
    db.execute("MATCH (m:Memory) WHERE m.ts % 100 = 0 CREATE (m)-[:ABOUT]->(:Topic {name: 't' + m.ts})")
    return db


def chunks(n: int):
    db = relate.connect(":memory:")
    entities = max(1, n // 10)
    db.execute("CREATE INDEX chunk_id FOR (c:Chunk) ON (c.id)")
    db.execute("CREATE INDEX entity_name FOR (e:Entity) ON (e.name)")
    db.execute("UNWIND range(1, $n) AS i CREATE (:Chunk {id: i})", {"n": n})
    db.execute("UNWIND range(1, $k) AS i CREATE (:Entity {name: 'e' + i})", {"k": entities})
    rnd = random.Random(1)
    mentions = [{"c": rnd.randint(1, n), "e": f"e{rnd.randint(1, entities)}"} for _ in range(2 * n)]
    db.execute("UNWIND $rows AS r MATCH (c:Chunk {id: r.c}), (e:Entity {name: r.e}) CREATE (c)-[:MENTIONS]->(e)",
               {"rows": mentions})
    return db


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--memories", type=int, default=100_000)
    ap.add_argument("--chunks", type=int, default=20_000)
    ap.add_argument("--reps", type=int, default=5)
    args = ap.parse_args()
    graphs = {"memories": lambda: memories(args.memories, False),
              "memories_indexed": lambda: memories(args.memories, True),
              "chunks": lambda: chunks(args.chunks)}
    built: dict = {}
    print(f"memories {args.memories:,}, chunks {args.chunks:,} (2 mentions each), medians of {args.reps}, ms")
    for label, graph, text in SHAPES:
        if graph not in built:
            built.clear()                       # one graph in memory at a time
            built[graph] = graphs[graph]()
        db = built[graph]
        list(db.execute(text))
        times = []
        for _ in range(args.reps):
            started = time.perf_counter()
            list(db.execute(text))
            times.append((time.perf_counter() - started) * 1000)
        print(f"{statistics.median(times):10.2f}  {label}")


if __name__ == "__main__":
    main()
