"""Statements that find entities by a property with no index on it (not a test): each timed with the
optimizer rule that lets the scan compare the property itself (``prefilter_scans``) and without it, in
one process on one in-memory graph, medians of alternating runs. With ``--indexed``: the same graph with
property indexes on A.id, B.name and R.k, and statements timed with the rule that seeks through them
(``utilize_index``, which ``order_from_index`` builds on) and without it (then the best plan is the
prefiltered scan), and count() from the store's counts against a walk of the same rows. With
``--lookups``: statements that seek an unindexed key once per input row (UNWIND ... MERGE / MATCH), with
the statement's transient hash index (storage/value_lookup.py) and with a label scan per row.

    python bench/unindexed.py [--n 20000] [--runs 5] [--indexed | --lookups]

The graph: N (:A {id})-[:R {k}]->(:B {id}) chains. Statements: 100 lookups by id (UNWIND + MATCH), a
single lookup by an unlabelled pattern node, a relationship by its property, a two-label pattern whose
filtered end should anchor, a range and a STARTS WITH, and an UNWIND MERGE of N/4 rows into an empty label.
"""
from __future__ import annotations

import argparse
import statistics
import time

import relate
from relate.server.query.exec.operators import base
from relate.server.query.planner import rules

STATEMENTS = [
    ("100 MATCH by id (UNWIND)", "UNWIND range(1, 100) AS i MATCH (n:A {id: i}) RETURN count(n)"),
    ("MATCH by id, no label", "MATCH (n {id: 5}) RETURN count(n)"),
    ("relationship by property", "MATCH ()-[r:R {k: 5}]->() RETURN count(r)"),
    ("(a:A)-[:R]->(b:B {id})", "MATCH (a:A)-[:R]->(b:B {id: 5}) RETURN count(a)"),
    ("range: id > N - 10", "MATCH (n:A) WHERE n.id > $n - 10 RETURN count(n)"),
    ("STARTS WITH on a string", "MATCH (n:B) WHERE n.name STARTS WITH 'b199' RETURN count(n)"),
]
INDEXED_STATEMENTS = [
    ("relationship by property", "MATCH ()-[r:R {k: 5}]->() RETURN count(r)"),
    ("(a:A)-[r:R {k}]->(b:B)", "MATCH (a:A)-[r:R {k: 5}]->(b:B) RETURN count(a)"),
    ("relationship range", "MATCH ()-[r:R]->() WHERE r.k > $n - 10 RETURN count(r)"),
    ("relationship IN", "MATCH (a)-[r:R]->(b) WHERE r.k IN [5, 50, 500] RETURN count(r)"),
    ("STARTS WITH on a string", "MATCH (n:B) WHERE n.name STARTS WITH 'b199' RETURN count(n)"),
    ("two-sided range", "MATCH (n:A) WHERE n.id >= $n / 2 AND n.id < $n / 2 + 10 RETURN count(n)"),
    ("ORDER BY DESC LIMIT 10", "MATCH (n:A) WHERE n.id > $n / 5 RETURN n.id ORDER BY n.id DESC LIMIT 10"),
]
# count() from the store's counts against the same statement read row by row (sum(1) walks the scan)
COUNTS = [("count of a label", "MATCH (n:A) RETURN {agg}"), ("count of a type", "MATCH ()-[r:R]->() RETURN {agg}")]
INDEXES = ["CREATE INDEX FOR (n:A) ON (n.id)", "CREATE INDEX FOR (n:B) ON (n.name)",
           "CREATE INDEX FOR ()-[r:R]-() ON (r.k)"]
# per-row seeks on an unindexed key: $rows holds N/4 ids of existing A nodes, $new N/4 fresh ids
LOOKUP_STATEMENTS = [
    ("UNWIND MATCH by id", "UNWIND $rows AS i MATCH (n:A {id: i}) RETURN count(n)"),
    ("UNWIND MERGE, all exist", "UNWIND $rows AS i MERGE (n:A {id: i}) RETURN count(n)"),
    ("UNWIND MERGE into empty label", "UNWIND $rows AS i MERGE (n:M {id: i}) RETURN count(n)"),
    ("edge load: MATCH a, b CREATE", "UNWIND $rows AS i MATCH (a:A {id: i}), (b:B {id: i + 1}) "
                                     "CREATE (a)-[:L]->(b) RETURN count(*)"),
]
WITH_RULE = rules.RULES
WITHOUT_RULE = tuple(rule for rule in rules.RULES if rule is not rules.prefilter_scans)


def timed(db, query: str, params: dict | None = None) -> float:
    # Plans are cached by statement text: each way gets its own text (and plan).
    query += " // with" if rules.RULES is WITH_RULE else " // without"
    started = time.perf_counter()
    db.execute(query, params or {}).consume()
    return time.perf_counter() - started


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=20_000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--indexed", action="store_true", help="index seeks against prefiltered scans")
    ap.add_argument("--lookups", action="store_true", help="transient hash lookups against a scan per row")
    args = ap.parse_args()
    if args.lookups:
        lookups(args)
        return
    base.LOOKUP_AFTER = 1 << 30          # the rules alone (no transient lookups on either side)
    global WITHOUT_RULE
    if args.indexed:
        WITHOUT_RULE = tuple(rule for rule in rules.RULES if rule is not rules.utilize_index)
    db = relate.connect(":memory:")
    db.execute("UNWIND range(1, $n) AS i CREATE (:A {id: i})-[:R {k: i}]->(:B {id: i, name: 'b' + toString(i)})",
               {"n": args.n}).consume()
    for statement in INDEXES if args.indexed else ():
        db.execute(statement).consume()
    print(f"N = {args.n}; medians of {args.runs} alternating runs, ms (without the rule -> with it)")
    for label, query in INDEXED_STATEMENTS if args.indexed else STATEMENTS:
        samples: dict[bool, list[float]] = {True: [], False: []}
        for run in range(args.runs):
            for on in ((True, False) if run % 2 else (False, True)):
                rules.RULES = WITH_RULE if on else WITHOUT_RULE
                samples[on].append(timed(db, query, {"n": args.n}))
        off, on = (statistics.median(samples[flag]) * 1000 for flag in (False, True))
        print(f"  {label:28} {off:9.1f} -> {on:8.1f}   {off / on:5.1f}x")
    for label, query in COUNTS if args.indexed else ():
        samples = {agg: [timed(db, query.format(agg=agg)) for _ in range(args.runs)] for agg in ("sum(1)", "count(*)")}
        walked, counted = (statistics.median(samples[agg]) * 1000 for agg in ("sum(1)", "count(*)"))
        print(f"  {label:28} {walked:9.1f} -> {counted:8.2f}   (a walk -> the store's count)")
    rows = [{"id": i} for i in range(args.n // 4)]
    for on in () if args.indexed else (False, True):
        rules.RULES = WITH_RULE if on else WITHOUT_RULE
        db.execute("MATCH (n:M) DELETE n").consume()
        seconds = timed(db, "UNWIND $rows AS r MERGE (n:M {id: r.id})", {"rows": rows})
        print(f"  UNWIND MERGE of {len(rows)} rows, {'with' if on else 'without'} the rule: {seconds:.2f} s")
    rules.RULES = WITH_RULE


def lookups(args) -> None:
    """Per-row seeks on an unindexed key with the statement's transient lookup and without (a label scan
    per row); each run on a fresh copy of the graph (the writes of one run do not reach the next)."""
    default = base.LOOKUP_AFTER
    rows = list(range(1, args.n // 4 + 1))
    print(f"N = {args.n}, {len(rows)} rows per statement; medians of {args.runs} alternating runs, ms "
          "(a scan per row -> the transient lookup)")
    for label, query in LOOKUP_STATEMENTS:
        samples: dict[bool, list[float]] = {True: [], False: []}
        for run in range(args.runs):
            for on in ((True, False) if run % 2 else (False, True)):
                db = relate.connect(":memory:")
                db.execute("UNWIND range(1, $n) AS i CREATE (:A {id: i})-[:R {k: i}]->(:B {id: i})",
                           {"n": args.n}).consume()
                base.LOOKUP_AFTER = default if on else 1 << 30
                started = time.perf_counter()
                db.execute(query, {"rows": rows}).consume()
                samples[on].append(time.perf_counter() - started)
                db.close()
        off, on = (statistics.median(samples[flag]) * 1000 for flag in (False, True))
        print(f"  {label:30} {off:9.1f} -> {on:8.1f}   {off / on:6.1f}x")
    base.LOOKUP_AFTER = default
    # Expand(Into) from the end with fewer relationships: MERGE (hub)-[:HAS]->(n) once per row, the hub
    # gaining a relationship a row (an index on A.id: only the expansion differs)
    swap_at = base.INTO_SWAP_AT
    samples = {True: [], False: []}
    for run in range(args.runs):
        for on in ((True, False) if run % 2 else (False, True)):
            db = relate.connect(":memory:")
            db.execute("CREATE INDEX FOR (n:A) ON (n.id)").consume()
            db.execute("CREATE (:Hub) WITH 1 AS one UNWIND range(1, $n) AS i CREATE (:A {id: i})",
                       {"n": args.n}).consume()
            base.INTO_SWAP_AT = swap_at if on else 1 << 30
            started = time.perf_counter()
            db.execute("MATCH (h:Hub) UNWIND $rows AS i MATCH (n:A {id: i}) MERGE (h)-[:HAS]->(n)",
                       {"rows": rows}).consume()
            samples[on].append(time.perf_counter() - started)
            db.close()
    base.INTO_SWAP_AT = swap_at
    off, on = (statistics.median(samples[flag]) * 1000 for flag in (False, True))
    print(f"  {'MERGE (hub)-[:HAS]->(n)':30} {off:9.1f} -> {on:8.1f}   {off / on:6.1f}x   "
          "(walking the hub -> the smaller end)")


if __name__ == "__main__":
    main()
