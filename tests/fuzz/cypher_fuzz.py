"""Cypher fuzzer: statements from a grammar-driven generator (``cypher_gen``: clauses, expressions,
every registered function, literals, nesting), some mutated (token edits, deep nesting, long chains)
or taken from the TCK's queries, each run with random parameters on a real in-memory engine. A case
is one statement with one set of parameters: a fresh statement (``--fresh``, the share of cases), or
one from a pool of statements that compiled earlier, run again with new parameters (parsing costs
~100x more than running, so the pool is what makes a million cases take minutes; the summary gives
both counts). The graph is rebuilt when writes have grown it. Every case must end in rows or a typed
RelateError within its deadline; a raw Python exception (untyped) or a case that does not end
(a hang: a watchdog reports it, cancels it, and ends the worker if cancelling fails) is a finding.

    python -m tests.fuzz.cypher_fuzz [--seconds S] [--cases N] [--workers W] [--fresh F] [--seed K] [--deadline D]
"""
from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import queue as _queue
import random
import sys
import threading
import time
import traceback
from collections import Counter

from relate.errors import QueryTimeout, RelateError
from relate.server.engine import Database
from tests.fuzz.cypher_gen import Generator, function_table, random_value

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
    "WITH point({latitude: 55.6, longitude: 12.5}) AS p RETURN point.distance(p, point({x: 1, y: 2})), p.crs",
    "MATCH (a:A) WHERE a.i IS :: INTEGER NOT NULL AND $p IS NOT :: LIST<STRING> RETURN a.i",
    "MATCH p = SHORTEST 1 (a:A)-[:R]->+(b) LET n = length(p) FILTER n > 0 RETURN n",
    "MATCH (a:A)-[r:R]->{1,2}(b) RETURN size(r), b.i",
    "UNWIND [1, 0] AS x CALL (x) { CREATE (:G {v: 1 / x}) } IN TRANSACTIONS OF 1 ROW ON ERROR CONTINUE "
    "REPORT STATUS AS s RETURN s.committed",
    "MATCH (n:A) WITH collect(n) AS ns CALL apoc.refactor.mergeNodes(ns[..1], {properties: 'combine'}) "
    "YIELD node RETURN node.i",
    "MATCH (a:A) ((x)-[r:R]->(y:B WHERE y.i > 0)){1,3} (b) RETURN size(r), [v IN x | v.i], b.i",
    "MATCH p = SHORTEST 2 GROUPS (a:A) (()-[:R]->())+ (b) RETURN length(p) ORDER BY length(p) DESC NULLS FIRST",
    "CYPHER 25 UNWIND ['A', 'B'] AS l MATCH (n:$(l))-[:$any(['R'])]->(m) MERGE (m)-[:$('S')]->(:$($p)) "
    "REMOVE n:$(l) RETURN l || 'x', trim(BOTH 'x' FROM toString(n.i)), l IS NFC NORMALIZED",
]
TOKENS = ["(", ")", "[", "]", "{", "}", ",", ".", ":", "|", "+", "-", "*", "/", "%", "^", "=", "<>", "<", ">",
          "=~", "..", "$p", "$l", "$m", "null", "true", "1", "-1", "0.5", "1e309", "9223372036854775807", "'s'",
          "\"\\u0000\"", "n", "a", "x", "AND", "OR", "NOT", "XOR", "IN", "IS NULL", "STARTS WITH", "CONTAINS",
          "MATCH", "RETURN", "WITH", "WHERE", "UNWIND", "AS", "CREATE", "MERGE", "SET", "DELETE", "DETACH",
          "CALL", "YIELD", "ORDER BY", "SKIP", "LIMIT", "DISTINCT", "count(*)", "collect(", "range(", "size(",
          "reduce(", "CASE", "WHEN", "THEN", "ELSE", "END", "->", "<-", "-[", "]-", "*1..", "EXISTS", "{}", "[]",
          "IS ::", "IS NOT TYPED", "LIST<", "{1,3}", "+", "SHORTEST 1", "ALL SHORTEST", "LET", "FILTER", "FINISH",
          "ON ERROR BREAK", "REPORT STATUS AS", "point({x: 1, y: 2})", "((", "){1,2}", "$(", "$any(", "||",
          "NULLS FIRST", "NULLS LAST", "trim(BOTH", "FROM", "NORMALIZED", "CYPHER 5", "SHORTEST 2"]
FUNCTIONS = ["min", "max", "count", "sum", "avg", "collect", "stdev", "percentileCont", "toUpper", "substring",
             "split", "replace", "left", "right", "abs", "sqrt", "log", "range", "size", "head", "last", "tail",
             "keys", "labels", "type", "nodes", "relationships", "toInteger", "toFloat", "toString", "date",
             "datetime", "localtime", "time", "duration", "duration.between", "date.truncate", "point",
             "vector.similarity.cosine", "coalesce", "exists", "id", "elementId", "properties", "randomUUID",
             "point.distance", "point.withinBBox", "apoc.any.property"]


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
        self.cases = self.rows = self.typed = self.timeouts = self.statements = self.hangs = 0
        self.codes: Counter = Counter()
        self.untyped: list[tuple[str, str]] = []

    def add(self, other: "Findings") -> None:
        for name in ("cases", "rows", "typed", "timeouts", "statements", "hangs"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.codes.update(other.codes)
        self.untyped += other.untyped

    def summary(self, seconds: float) -> str:
        return (f"cypher fuzz: {self.cases} cases ({self.statements} statements) in {seconds:.1f} s "
                f"({self.cases / max(seconds, 1e-9):.0f}/s): {self.rows} with rows, {self.typed} typed errors "
                f"({self.timeouts} deadline), {len(self.untyped)} untyped, {self.hangs} hangs")


class Fuzzer:
    """One engine (in memory, a small graph and a full-text index) and the case loop."""

    POOL = 600                 # compiled statements kept (below the plan cache's 1,000)
    CHECK_EVERY = 2000         # cases between looks at the graph's size
    MAX_NODES = 3000           # ... beyond which the graph is rebuilt (cases stay fast)
    SLOW_S = 0.05              # a pooled statement slower than this leaves the pool

    def __init__(self, seed: int, deadline: float, fresh: float = 0.02, out=sys.stdout):
        self.rng = random.Random(seed)
        self.deadline = deadline
        self.fresh = fresh
        self.out = out
        self.corpus = seeds()
        self.generator = Generator(random.Random(seed + 1), function_table())
        self.pool: list[str] = []
        self.findings = Findings()
        self.current: tuple[float, str] | None = None     # (started, statement) of the running case
        self.rebuilds = 0
        self._open()

    def _open(self) -> None:
        self.db = Database.open(None)
        self.session = self.db.session()
        for statement in SETUP:
            self.session.run(statement, {}).consume()

    def _check_size(self) -> None:
        """Writes grow the graph: past MAX_NODES, what the cases created goes (a delete, not a new
        database, so the plan cache and the pool stay warm) and the setup graph comes back."""
        result = self.session.run("MATCH (n) RETURN count(n)", {})
        (count,), = result.fetch(1)
        result.close()
        if count > self.MAX_NODES:
            self.session.run("MATCH (n) DETACH DELETE n", {}).consume()
            for statement in SETUP[:-1]:
                self.session.run(statement, {}).consume()
            self.rebuilds += 1

    def statement(self) -> str:
        rng = self.rng
        r = rng.random()
        if r < 0.8:
            return self.generator.query()
        if r < 0.93:
            return mutate(rng, self.generator.query())
        text = rng.choice(self.corpus)
        return mutate(rng, text) if rng.random() < 0.7 else text

    def one_statement(self) -> None:
        """One case: a fresh statement (kept in the pool when it compiles) or a pooled one."""
        findings = self.findings
        if findings.cases % self.CHECK_EVERY == 0 and findings.cases:
            self._check_size()
        if not self.pool or self.rng.random() < self.fresh:
            text = self.statement()
            findings.statements += 1
            started = time.perf_counter()
            # Slow statements (big products, deadlines) ran once; the pool keeps the quick ones.
            if self.case(text) and time.perf_counter() - started < self.SLOW_S:
                if len(self.pool) < self.POOL:
                    self.pool.append(text)
                else:
                    self.pool[self.rng.randrange(self.POOL)] = text
        else:
            i = self.rng.randrange(len(self.pool))
            started = time.perf_counter()
            self.case(self.pool[i])
            if time.perf_counter() - started > self.SLOW_S and i < len(self.pool):
                self.pool[i] = self.pool[-1]
                self.pool.pop()

    def case(self, text: str) -> bool:
        """Run one case; True when it compiled (so other parameters may give other outcomes)."""
        rng, findings, session = self.rng, self.findings, self.session
        params = {"p": random_value(rng), "l": random_value(rng), "m": random_value(rng)}
        findings.cases += 1
        self.current = (time.monotonic(), text)
        try:
            result = session.run(text, params, timeout=self.deadline)
            result.fetch(1000)
            result.close()
            findings.rows += 1
            return True
        except QueryTimeout:
            findings.typed += 1
            findings.timeouts += 1
            findings.codes["QueryTimeout"] += 1
            return True
        except RelateError as exc:
            findings.typed += 1
            findings.codes[exc.code] += 1
            return exc.phase != "compile time" and not exc.code.endswith(("SyntaxError", "SemanticError"))
        except BaseException as exc:  # the finding this harness looks for
            if isinstance(exc, KeyboardInterrupt):
                raise
            findings.untyped.append((text, "".join(traceback.format_exception_only(exc)).strip()))
            print(f"UNTYPED {type(exc).__name__}: {exc!s:.200}\n  statement: {text[:300]!r}\n  params: "
                  f"{params!r:.300}", file=self.out, flush=True)
            return False
        finally:
            self.current = None
            if session.in_transaction:
                session.rollback()

    def watchdog(self, hang_s: float) -> None:
        """A daemon thread: a case past ``hang_s`` is a hang (reported, then cancelled; if it still
        runs after another ``hang_s`` the worker ends with status 3 so the parent counts it)."""
        def watch() -> None:
            reported = None
            while True:
                time.sleep(min(1.0, hang_s / 4))
                current = self.current
                if current is None or time.monotonic() - current[0] < hang_s:
                    continue
                if reported is not current:
                    reported = current
                    self.findings.hangs += 1
                    print(f"HANG (> {hang_s:g} s): {current[1][:300]!r}", file=self.out, flush=True)
                    self.session.cancel()
                elif time.monotonic() - current[0] > 2 * hang_s:
                    print(f"HANG not cancellable, worker ends: {current[1][:300]!r}", file=self.out, flush=True)
                    os._exit(3)
        threading.Thread(target=watch, daemon=True, name="fuzz-watchdog").start()

    def close(self) -> None:
        self.db.close()


def run(seconds: float, cases: int | None, seed: int, deadline: float, out=sys.stdout,
        fresh: float = 0.25) -> Findings:
    """One process: cases until ``seconds`` pass or ``cases`` ran (the sample in ``make test``)."""
    fuzzer = Fuzzer(seed, deadline, fresh, out)
    try:
        stop = time.monotonic() + seconds
        while time.monotonic() < stop and (cases is None or fuzzer.findings.cases < cases):
            fuzzer.one_statement()
    finally:
        fuzzer.close()
    return fuzzer.findings


def _worker(index: int, seed: int, deadline: float, fresh: float, stop_at: float, quota: int | None,
            reports: "mp.Queue") -> None:
    fuzzer = Fuzzer(seed * 1000 + index, deadline, fresh)
    fuzzer.watchdog(max(10.0, 5 * deadline))
    last = time.monotonic()
    sent = Findings()
    while time.time() < stop_at and (quota is None or fuzzer.findings.cases < quota):
        fuzzer.one_statement()
        if time.monotonic() - last > 2:
            last = time.monotonic()
            reports.put(("progress", index, _delta(fuzzer.findings, sent)))
    reports.put(("done", index, _delta(fuzzer.findings, sent)))
    fuzzer.close()


def _delta(now: Findings, sent: Findings) -> Findings:
    """What ``now`` has that was not sent yet (``sent`` is advanced to ``now``)."""
    delta = Findings()
    for name in ("cases", "rows", "typed", "timeouts", "statements", "hangs"):
        setattr(delta, name, getattr(now, name) - getattr(sent, name))
        setattr(sent, name, getattr(now, name))
    delta.codes = now.codes - sent.codes
    sent.codes = Counter(now.codes)
    delta.untyped = now.untyped[len(sent.untyped):]
    sent.untyped = list(now.untyped)
    return delta


def volume(seconds: float, cases: int | None, workers: int, seed: int, deadline: float, fresh: float,
           out=sys.stdout, every: float = 30) -> Findings:
    """``workers`` processes, each with its own in-memory engine, until ``cases`` ran in all (or
    ``seconds`` passed); progress every ``every`` seconds."""
    context = mp.get_context("fork")
    reports = context.Queue()
    stop_at = time.time() + seconds
    quota = None if cases is None else -(-cases // workers)
    processes = {i: context.Process(target=_worker, args=(i, seed, deadline, fresh, stop_at, quota, reports))
                 for i in range(workers)}
    for process in processes.values():
        process.start()
    total, done = Findings(), set()
    started = last = time.monotonic()
    while len(done) < len(processes):
        try:
            kind, index, delta = reports.get(timeout=1)
            total.add(delta)
            if kind == "done":
                done.add(index)
        except _queue.Empty:
            pass
        for index, process in processes.items():
            if index not in done and not process.is_alive() and process.exitcode not in (0, None):
                done.add(index)                    # a worker that died: a hang it could not cancel, or worse
                total.hangs += process.exitcode == 3
                if process.exitcode != 3:
                    total.untyped.append(("<worker died>", f"exit code {process.exitcode}"))
                print(f"worker {index} ended with exit code {process.exitcode}", file=out, flush=True)
        if time.monotonic() - last >= every:
            last = time.monotonic()
            print("  " + total.summary(last - started), file=out, flush=True)
    for process in processes.values():
        process.join(5)
    return total


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=120)
    parser.add_argument("--cases", type=int)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--fresh", type=float, default=0.02, help="share of cases with a new statement")
    parser.add_argument("--seed", type=int, default=int.from_bytes(os.urandom(4), "little"))
    parser.add_argument("--deadline", type=float, default=2.0, help="per-case time limit (s)")
    args = parser.parse_args()
    started = time.monotonic()
    findings = volume(args.seconds, args.cases, args.workers, args.seed, args.deadline, args.fresh)
    print(findings.summary(time.monotonic() - started) + f" (seed {args.seed}, {args.workers} workers)")
    print("typed errors by code:", ", ".join(f"{code} {n}" for code, n in findings.codes.most_common()))
    for text, error in findings.untyped[:20]:
        print(f"UNTYPED {error}\n  statement: {text[:300]!r}")
    return 1 if findings.untyped or findings.hangs else 0


if __name__ == "__main__":
    sys.exit(main())
