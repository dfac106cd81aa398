"""Crash-test helper: commit Cypher transactions through relate.connect forever, printing each one
once it is acknowledged.

usage: python embedded_crash_writer.py PATH
Transaction n runs two statements in one explicit transaction: a chain of three :Batch nodes
{n, k} joined by :NEXT {n}, then a MERGE that moves the single :Counter to n. The parent SIGKILLs
this process at a random moment.
"""
import sys

import relate

CHAIN = """CREATE (a:Batch {n: $n, k: 0})-[:NEXT {n: $n}]->(b:Batch {n: $n, k: 1})-[:NEXT {n: $n}]->(c:Batch {n: $n, k: 2})"""
COUNTER = "MERGE (c:Counter) SET c.n = $n"


def main() -> None:
    with relate.connect(sys.argv[1]) as db:
        row = db.execute("MATCH (c:Counter) RETURN c.n AS n").fetchone()
        n = row["n"] if row else 0
        while True:
            n += 1
            with db.transaction() as tx:
                tx.execute(CHAIN, {"n": n})
                tx.execute(COUNTER, {"n": n})
            sys.stdout.write(f"{n}\n")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
