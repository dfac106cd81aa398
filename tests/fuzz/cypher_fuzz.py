"""Cypher fuzzer: statements mutated from a seed corpus (the TCK's queries plus hostile shapes) and
generated from a small grammar, with random parameters, run on a real in-memory engine. Every case
must end in rows or a typed RelateError within its deadline; anything else (a raw Python exception,
RecursionError, a hang) is a finding.

    python -m tests.fuzz.cypher_fuzz [--seconds S] [--cases N] [--seed K] [--deadline D]
"""
from __future__ import annotations

import argparse
import os
import random
import sys
import time
import traceback

from relate.errors import QueryTimeout, RelateError
from relate.server.engine import Database

SETUP = ["CREATE (:A {i: 1, s: 'x', l: [1, 2], f: 1.5})-[:R {w: 2}]->(:B {i: 2, s: 'y'})",
         "CREATE (:A {i: 3, s: 'z'})-[:R {w: 5}]->(:A {i: 4})",
         "CREATE FULLTEXT INDEX ft IF NOT EXISTS FOR (n:A) ON EACH [n.s]"]
SEEDS = [
    "MATCH (a:A)-[r:R]->(b) RETURN a.i, r.w, b.s ORDER BY a.i",
    "UNWIND range(1, 10) AS x WITH x WHERE x % 2 = 0 RETURN collect(x), sum(x), avg(x)",
    "MATCH (n) OPTIONAL MATCH (n)-[r]->(m) RETURN n, count(m)",
    "WITH [1, 2, 3] AS l RETURN [x IN l WHERE x > 1 | x * 2], reduce(s = 0, x IN l | s + x)",
    "RETURN duration.between(date('2020-01-01'), date()), datetime({year: 2020, month: 2})",
    "MERGE (c:C {k: $p}) ON CREATE SET c.n = 1 ON MATCH SET c.n = c.n + 1 RETURN c.n",
    "MATCH p = (a)-[*1..3]->(b) RETURN length(p), nodes(p)[0].i",
    "RETURN $p =~ '(a+)+$', toUpper($p), substring($p, 1, 2), split($p, 'a')",
    "CALL db.index.fulltext.queryNodes('ft', $p) YIELD node, score RETURN node.i, score",
    "MATCH (a:A) WHERE a.i IN $l AND a.s STARTS WITH 'x' RETURN a { .i, .s }",
    "CREATE (n:T {v: $p}) SET n += {w: 1} REMOVE n.v DELETE n",
    "RETURN CASE WHEN $p IS NULL THEN 1 ELSE size(toString($p)) END",
    "MATCH (n:A) WITH n ORDER BY n.i DESC SKIP 1 LIMIT 2 RETURN n.i UNION RETURN 7 AS `n.i`",
    "RETURN count { MATCH (a)-->(b) }, exists { MATCH (:A)-->(:B) }",
    "FOREACH (x IN range(1, 3) | CREATE (:F {x: x}))",
]
TOKENS = ["(", ")", "[", "]", "{", "}", ",", ".", ":", "|", "+", "-", "*", "/", "%", "^", "=", "<>", "<", ">",
          "=~", "..", "$p", "$l", "$m", "null", "true", "1", "-1", "0.5", "1e309", "9223372036854775807", "'s'",
          "\"\\u0000\"", "n", "a", "x", "AND", "OR", "NOT", "XOR", "IN", "IS NULL", "STARTS WITH", "CONTAINS",
          "MATCH", "RETURN", "WITH", "WHERE", "UNWIND", "AS", "CREATE", "MERGE", "SET", "DELETE", "DETACH",
          "CALL", "YIELD", "ORDER BY", "SKIP", "LIMIT", "DISTINCT", "count(*)", "collect(", "range(", "size(",
          "reduce(", "CASE", "WHEN", "THEN", "ELSE", "END", "->", "<-", "-[", "]-", "*1..", "EXISTS", "{}", "[]"]
FUNCTIONS = ["min", "max", "count", "sum", "avg", "collect", "stdev", "percentileCont", "toUpper", "substring",
             "split", "replace", "left", "right", "abs", "sqrt", "log", "range", "size", "head", "last", "tail",
             "keys", "labels", "type", "nodes", "relationships", "toInteger", "toFloat", "toString", "date",
             "datetime", "localtime", "time", "duration", "duration.between", "date.truncate", "point",
             "vector.similarity.cosine", "coalesce", "exists", "id", "elementId", "properties", "randomUUID"]


def random_value(rng: random.Random, depth: int = 0):
    kind = rng.randrange(12 if depth < 3 else 8)
    if kind == 0:
        return None
    if kind == 1:
        return rng.choice([True, False])
    if kind == 2:
        return rng.choice([0, -1, 1, 2 ** 63 - 1, -2 ** 63, rng.randint(-1000, 1000)])
    if kind == 3:
        return rng.choice([0.0, -0.0, 1.5, float("inf"), float("-inf"), float("nan"), 1e308])
    if kind in (4, 5, 6):
        return rng.choice(["", "a", "aaaa!", "x" * rng.randint(0, 300), "\u0000", "ü\U0001F600", "(a+)+$",
                           "kafka lag", "'", "\\", "*", "a" * 30 + "!"])
    if kind == 7:
        return bytes(rng.randrange(256) for _ in range(rng.randint(0, 8)))
    if kind in (8, 9):
        return [random_value(rng, depth + 1) for _ in range(rng.randint(0, 4))]
    return {rng.choice(["a", "b", "i", "s", ""]): random_value(rng, depth + 1) for _ in range(rng.randint(0, 3))}


def mutate(rng: random.Random, text: str) -> str:
    """A random edit of ``text``: tokens replaced/inserted/deleted, spans repeated or nested."""
    parts = text.split(" ")
    for _ in range(rng.randint(1, 4)):
        op = rng.randrange(8)
        i = rng.randrange(len(parts)) if parts else 0
        if op == 0 and parts:
            parts[i] = rng.choice(TOKENS)
        elif op == 1:
            parts.insert(i, rng.choice(TOKENS))
        elif op == 2 and len(parts) > 1:
            del parts[i]
        elif op == 3 and parts:
            j = rng.randrange(i, len(parts)) + 1
            parts[i:i] = parts[i:j] * rng.randint(1, 3)
        elif op == 4:
            name = rng.choice(FUNCTIONS)
            args = ", ".join(rng.choice(["$p", "1", "'a'", "null", "[1]", "a", "{}"]) for _ in range(rng.randint(0, 3)))
            parts.insert(i, f"{name}({args})")
        elif op == 5:
            depth = rng.choice([1, 5, 50, 300])
            parts.insert(i, "(" * depth + "1" + ")" * depth)
        elif op == 6:
            parts.insert(i, " + ".join(["1"] * rng.choice([2, 50, 600])))
        elif op == 7 and parts:
            k = rng.randrange(len(parts[i]) + 1)
            parts[i] = parts[i][:k] + chr(rng.choice([0, 9, 39, 34, 96, 92, 0x2028, 0xFEFF, rng.randrange(32, 127)])) + parts[i][k:]
    return " ".join(parts)


def seeds(limit: int = 4000) -> list[str]:
    """The built-in seeds plus the TCK's queries (when ../shared/tck is there)."""
    corpus = list(SEEDS)
    try:
        from tests.tck.runner import default_features_dir, load_scenarios
        features = default_features_dir()
        if features is not None:
            for scenario in load_scenarios(features):
                corpus += [step.doc for step in scenario.steps if step.doc and "query" in step.text]
                if len(corpus) >= limit:
                    break
    except Exception:  # a seed source, not the thing under test
        pass
    return corpus


class Findings:
    def __init__(self):
        self.cases = self.rows = self.typed = self.timeouts = 0
        self.untyped: list[tuple[str, str]] = []

    def summary(self, seconds: float) -> str:
        return (f"cypher fuzz: {self.cases} cases in {seconds:.1f} s ({self.cases / max(seconds, 1e-9):.0f}/s): "
                f"{self.rows} with rows, {self.typed} typed errors ({self.timeouts} deadline), "
                f"{len(self.untyped)} untyped")


def run(seconds: float, cases: int | None, seed: int, deadline: float, out=sys.stdout) -> Findings:
    rng = random.Random(seed)
    corpus = seeds()
    db = Database.open(None)
    findings = Findings()
    try:
        session = db.session()
        for statement in SETUP:
            session.run(statement, {}).consume()
        stop = time.monotonic() + seconds
        while time.monotonic() < stop and (cases is None or findings.cases < cases):
            text = rng.choice(corpus)
            if rng.random() < 0.9:
                text = mutate(rng, text)
            params = {"p": random_value(rng), "l": random_value(rng), "m": random_value(rng)}
            findings.cases += 1
            try:
                result = session.run(text, params, timeout=deadline)
                result.fetch(1000)
                result.close()
                findings.rows += 1
            except QueryTimeout:
                findings.typed += 1
                findings.timeouts += 1
            except RelateError:
                findings.typed += 1
            except BaseException as exc:  # the finding this harness looks for
                if isinstance(exc, KeyboardInterrupt):
                    raise
                findings.untyped.append((text, "".join(traceback.format_exception_only(exc)).strip()))
                print(f"UNTYPED {type(exc).__name__}: {exc!s:.200}\n  statement: {text[:300]!r}", file=out)
            finally:
                if session.in_transaction:
                    session.rollback()
    finally:
        db.close()
    return findings


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=120)
    parser.add_argument("--cases", type=int)
    parser.add_argument("--seed", type=int, default=int.from_bytes(os.urandom(4), "little"))
    parser.add_argument("--deadline", type=float, default=2.0, help="per-case time limit (s)")
    args = parser.parse_args()
    started = time.monotonic()
    findings = run(args.seconds, args.cases, args.seed, args.deadline)
    print(findings.summary(time.monotonic() - started) + f" (seed {args.seed})")
    return 1 if findings.untyped else 0


if __name__ == "__main__":
    sys.exit(main())
