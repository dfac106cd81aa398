"""A grammar-driven Cypher generator for the fuzzer: plain ``random.Random``, no Hypothesis, fast
enough for a million cases. It builds statements clause by clause (reading, updating, projecting,
subqueries, UNION) with expressions of bounded depth over the variables in scope: literals,
parameters, properties, operators, list/map literals, comprehensions, CASE, quantifiers, reduce,
subscripts and slices, EXISTS/COUNT subqueries and calls of every registered function (names and
arities from the function registry, one argument too few or too many now and then).
"""
from __future__ import annotations

import random
from typing import Callable

LABELS = ["A", "B", "C", "T"]
TYPES = ["R", "S"]
KEYS = ["i", "s", "l", "f", "w", "v", "n"]
PARAMS = ["$p", "$l", "$m"]
# Functions that would reach outside the process (an embedding model) or read files.
SKIPPED_FUNCTIONS = {"ai.text.embed", "genai.vector.encode", "file", "linenumber"}
STRINGS = ["''", "'a'", "'x'", "'kafka lag'", "'(a+)+$'", "'\\u00fc'", "'2020-01-01'", "'12:00'", "'P1D'",
           "'\\\\'", "'\\''", "'1.5'", "'true'", "'a,b'"]
NUMBERS = ["0", "1", "-1", "2", "3", "10", "0.5", "-2.5", "1e3", "9223372036854775807", "-9223372036854775808",
           "0x1F", "0o17", "1.0e-5", "0.0", "-0.0"]
COMPARE = ["=", "<>", "<", ">", "<=", ">="]
ARITH = ["+", "-", "*", "/", "%", "^"]
BOOL = ["AND", "OR", "XOR"]
STRING_OPS = ["STARTS WITH", "ENDS WITH", "CONTAINS", "=~"]
AGGREGATES = ["count", "sum", "avg", "min", "max", "collect", "stDev", "stDevP", "percentileCont", "percentileDisc"]


def function_table() -> list[tuple[str, int, int | None, bool]]:
    """(name, min args, max args or None, aggregating) for every function users can call."""
    from relate.server.query.exec.functions import catalog
    return [(f.name, f.min_args, f.max_args, f.aggregating) for f in catalog() if f.name not in SKIPPED_FUNCTIONS]


class Generator:
    def __init__(self, rng: random.Random, functions: list[tuple[str, int, int | None, bool]] | None = None,
                 max_depth: int = 4):
        self.rng = rng
        table = functions if functions is not None else function_table()
        self.scalars = [f for f in table if not f[3]]
        self.max_depth = max_depth
        self._names = 0

    # -- small pieces ---------------------------------------------------------------------------

    def _fresh(self, prefix: str = "v") -> str:
        self._names += 1
        return f"{prefix}{self._names}"

    def literal(self) -> str:
        r = self.rng.random()
        if r < 0.35:
            return self.rng.choice(NUMBERS)
        if r < 0.65:
            return self.rng.choice(STRINGS)
        if r < 0.8:
            return self.rng.choice(["null", "true", "false"])
        if r < 0.9:
            return "[" + ", ".join(self.rng.choice(NUMBERS + STRINGS) for _ in range(self.rng.randint(0, 4))) + "]"
        return "{" + ", ".join(f"{self.rng.choice(KEYS)}: {self.rng.choice(NUMBERS + STRINGS)}"
                               for _ in range(self.rng.randint(0, 3))) + "}"

    def label(self) -> str:
        return self.rng.choice(LABELS)

    def node(self, var: str | None, props: bool = True, scope: list[str] | None = None) -> str:
        text = var or ""
        if self.rng.random() < 0.7:
            text += ":" + self.label()
            if self.rng.random() < 0.1:
                text += self.rng.choice(["|", "&"]) + self.label()
        if props and self.rng.random() < 0.25:
            text += " {" + f"{self.rng.choice(KEYS)}: {self.expr(scope or [], 1)}" + "}"
        return f"({text})"

    def rel(self, var: str | None, scope: list[str]) -> str:
        inner = var or ""
        if self.rng.random() < 0.8:
            inner += ":" + "|".join(self.rng.sample(TYPES, self.rng.randint(1, 2)))
        if self.rng.random() < 0.15:
            inner += self.rng.choice(["*", "*1..2", "*0..3", "*2", "*..2"])
        elif self.rng.random() < 0.15:
            inner += " {" + f"w: {self.expr(scope, 1)}" + "}"
        left, right = self.rng.choice([("-", "->"), ("<-", "-"), ("-", "-")])
        return f"{left}[{inner}]{right}"

    def pattern(self, scope: list[str], bind: list[str], hops: int | None = None) -> str:
        """A path pattern; the variables it introduces are appended to ``bind``."""
        hops = self.rng.choice([0, 1, 1, 2]) if hops is None else hops
        parts = []
        for i in range(hops + 1):
            var = self.rng.choice(scope) if scope and self.rng.random() < 0.3 else self._fresh("n")
            if var not in scope and var not in bind:
                bind.append(var)
            parts.append(self.node(var, scope=scope))
            if i < hops:
                rvar = self._fresh("r") if self.rng.random() < 0.5 else None
                if rvar:
                    bind.append(rvar)
                parts.append(self.rel(rvar, scope))
        text = "".join(parts)
        if self.rng.random() < 0.1:
            pvar = self._fresh("p")
            bind.append(pvar)
            text = f"{pvar} = {text}"
        return text

    # -- expressions ----------------------------------------------------------------------------

    def expr(self, scope: list[str], depth: int = 0) -> str:
        rng = self.rng
        if depth >= self.max_depth or rng.random() < 0.25 + 0.15 * depth:
            return self.atom(scope)
        kind = rng.randrange(20)
        sub = lambda: self.expr(scope, depth + 1)      # noqa: E731
        if kind < 3:
            return f"{sub()} {rng.choice(ARITH)} {sub()}"
        if kind < 5:
            return f"{sub()} {rng.choice(COMPARE)} {sub()}"
        if kind == 5:
            return f"({sub()} {rng.choice(BOOL)} {sub()})"
        if kind == 6:
            return f"NOT {sub()}"
        if kind < 9:
            return self.call(scope, depth)
        if kind == 9:
            return f"{sub()} {rng.choice(STRING_OPS)} {sub()}"
        if kind == 10:
            return f"{sub()} IS {rng.choice(['', 'NOT '])}NULL"
        if kind == 11:
            return f"{sub()} IN {sub()}"
        if kind == 12:
            return "[" + ", ".join(sub() for _ in range(rng.randint(0, 3))) + "]"
        if kind == 13:
            return "{" + ", ".join(f"{rng.choice(KEYS)}: {sub()}" for _ in range(rng.randint(0, 3))) + "}"
        if kind == 14:
            x = self._fresh("x")
            inner = scope + [x]
            where = f" WHERE {self.expr(inner, depth + 1)}" if rng.random() < 0.5 else ""
            proj = f" | {self.expr(inner, depth + 1)}" if rng.random() < 0.7 else ""
            return f"[{x} IN {sub()}{where}{proj}]"
        if kind == 15:
            whens = " ".join(f"WHEN {sub()} THEN {sub()}" for _ in range(rng.randint(1, 2)))
            head = f" {sub()}" if rng.random() < 0.3 else ""
            tail = f" ELSE {sub()}" if rng.random() < 0.6 else ""
            return f"CASE{head} {whens}{tail} END"
        if kind == 16:
            x = self._fresh("x")
            quant = rng.choice(["all", "any", "none", "single"])
            return f"{quant}({x} IN {sub()} WHERE {self.expr(scope + [x], depth + 1)})"
        if kind == 17:
            acc, x = self._fresh("acc"), self._fresh("x")
            return f"reduce({acc} = {sub()}, {x} IN {sub()} | {self.expr(scope + [acc, x], depth + 1)})"
        if kind == 18:
            if rng.random() < 0.5:
                return f"{sub()}[{sub()}]"
            lo = sub() if rng.random() < 0.7 else ""
            hi = sub() if rng.random() < 0.7 else ""
            return f"{sub()}[{lo}..{hi}]"
        bind: list[str] = []
        pat = self.pattern(scope, bind, 1)
        word = rng.choice(["EXISTS", "COUNT", "COLLECT"]) if rng.random() < 0.8 else "EXISTS"
        if word == "COLLECT":
            return f"COLLECT {{ MATCH {pat} RETURN {self.expr(scope + bind, depth + 2)} }}"
        return f"{word} {{ MATCH {pat} }}"

    def atom(self, scope: list[str]) -> str:
        r = self.rng.random()
        if scope and r < 0.45:
            var = self.rng.choice(scope)
            if self.rng.random() < 0.5:
                return f"{var}.{self.rng.choice(KEYS)}"
            return var
        if r < 0.6:
            return self.rng.choice(PARAMS)
        return self.literal()

    def call(self, scope: list[str], depth: int) -> str:
        name, low, high, _ = self.rng.choice(self.scalars)
        top = high if high is not None else low + 3
        count = self.rng.randint(low, max(low, min(top, low + 3)))
        if self.rng.random() < 0.05:
            count = max(0, count + self.rng.choice([-1, 1]))        # a wrong arity: a typed error
        args = ", ".join(self.expr(scope, depth + 1) for _ in range(count))
        return f"{name}({args})"

    def aggregate(self, scope: list[str]) -> str:
        name = self.rng.choice(AGGREGATES)
        if name == "count" and self.rng.random() < 0.3:
            return "count(*)"
        arg = self.expr(scope, 2)
        distinct = "DISTINCT " if self.rng.random() < 0.2 else ""
        if name.startswith("percentile"):
            return f"{name}({distinct}{arg}, {self.rng.choice(['0.5', '0', '1', '1.5', '$p'])})"
        return f"{name}({distinct}{arg})"

    # -- clauses --------------------------------------------------------------------------------

    def projection(self, scope: list[str], allow_aggregate: bool = True) -> tuple[str, list[str]]:
        items, names = [], []
        for _ in range(self.rng.randint(1, 3)):
            name = self._fresh("c")
            value = self.aggregate(scope) if allow_aggregate and self.rng.random() < 0.2 else self.expr(scope, 1)
            items.append(f"{value} AS {name}")
            names.append(name)
        if scope and self.rng.random() < 0.15:
            items.insert(0, "*")
            names = scope + names
        distinct = "DISTINCT " if self.rng.random() < 0.1 else ""
        text = distinct + ", ".join(items)
        if self.rng.random() < 0.25:
            text += f" ORDER BY {self.rng.choice(names)}{self.rng.choice(['', ' DESC', ' ASC'])}"
        if self.rng.random() < 0.15:
            text += f" SKIP {self.rng.choice(['0', '1', '$p', '-1', '2'])}"
        if self.rng.random() < 0.2:
            text += f" LIMIT {self.rng.choice(['0', '1', '3', '$p', '-1', '100'])}"
        return text, names

    def clause(self, scope: list[str]) -> tuple[str, list[str]]:
        """One non-final clause and the scope after it."""
        rng = self.rng
        kind = rng.randrange(14)
        if kind < 3:
            bind: list[str] = []
            pat = ", ".join(self.pattern(scope, bind) for _ in range(rng.randint(1, 2)))
            where = f" WHERE {self.expr(scope + bind, 1)}" if rng.random() < 0.5 else ""
            optional = "OPTIONAL " if rng.random() < 0.2 else ""
            return f"{optional}MATCH {pat}{where}", scope + bind
        if kind < 5:
            x = self._fresh("u")
            source = rng.choice(["$l", "range(1, 3)", "[1, 2, null]", self.expr(scope, 1)])
            return f"UNWIND {source} AS {x}", scope + [x]
        if kind < 7:
            text, names = self.projection(scope)
            where = f" WHERE {self.expr(names, 1)}" if rng.random() < 0.3 else ""
            return f"WITH {text}{where}", names
        if kind == 7:
            bind = []
            pat = self.pattern(scope, bind, rng.choice([0, 1]))
            return f"CREATE {pat}", scope + bind
        if kind == 8:
            bind = []
            pat = self.pattern(scope, bind, rng.choice([0, 0, 1]))
            text = f"MERGE {pat}"
            if bind and rng.random() < 0.4:
                text += f" ON CREATE SET {bind[0]}.{rng.choice(KEYS)} = {self.expr(scope + bind, 2)}"
            if bind and rng.random() < 0.3:
                text += f" ON MATCH SET {bind[0]}.{rng.choice(KEYS)} = {self.expr(scope + bind, 2)}"
            return text, scope + bind
        if kind == 9 and scope:
            var = rng.choice(scope)
            form = rng.randrange(4)
            if form == 0:
                return f"SET {var}.{rng.choice(KEYS)} = {self.expr(scope, 1)}", scope
            if form == 1:
                return f"SET {var} += {self.expr(scope, 2)}", scope
            if form == 2:
                return f"SET {var}:{self.label()}", scope
            return f"REMOVE {var}.{rng.choice(KEYS)}", scope
        if kind == 10 and scope:
            return f"{rng.choice(['', 'DETACH '])}DELETE {rng.choice(scope)}", scope
        if kind == 11:
            x = self._fresh("f")
            return (f"FOREACH ({x} IN {rng.choice(['$l', 'range(1, 2)', self.expr(scope, 2)])} | "
                    f"CREATE (:T {{v: {self.expr(scope + [x], 2)}}}))"), scope
        if kind == 12:
            inner_scope = [v for v in scope if rng.random() < 0.5]
            head = f"WITH {', '.join(inner_scope)} " if inner_scope else ""
            c = self._fresh("c")
            return f"CALL {{ {head}RETURN {self.expr(inner_scope, 1)} AS {c} }}", scope + [c]
        if rng.random() < 0.3:
            c = self._fresh("c")
            return (f"CALL db.index.fulltext.queryNodes('ft', {rng.choice(['$p', STRINGS[3], STRINGS[1]])}) "
                    f"YIELD node AS {c}"), scope + [c]
        return f"WITH {', '.join(scope) if scope else '1 AS one'}", scope if scope else ["one"]

    def query(self) -> str:
        self._names = 0
        scope: list[str] = []
        parts = []
        for _ in range(self.rng.choice([0, 1, 1, 2, 2, 3, 4])):
            text, scope = self.clause(scope)
            parts.append(text)
        if self.rng.random() < 0.85 or not parts:
            text, names = self.projection(scope)
            parts.append(f"RETURN {text}")
            if self.rng.random() < 0.05:
                union = "UNION ALL" if self.rng.random() < 0.5 else "UNION"
                aliased = ", ".join(f"{self.expr([], 1)} AS {n}" for n in names if n not in scope) or "1 AS one"
                parts.append(f"{union} RETURN {aliased}")
        statement = " ".join(parts)
        if self.rng.random() < 0.03:
            statement = self.rng.choice(["EXPLAIN ", "PROFILE "]) + statement
        return statement


def random_value(rng: random.Random, depth: int = 0):
    """A random parameter value (every type the engine takes, edge values included)."""
    kind = rng.randrange(12 if depth < 3 else 8)
    if kind == 0:
        return None
    if kind == 1:
        return rng.random() < 0.5
    if kind == 2:
        return rng.choice([0, -1, 1, 2, 3, 2 ** 63 - 1, -2 ** 63, rng.randint(-1000, 1000)])
    if kind == 3:
        return rng.choice([0.0, -0.0, 1.5, float("inf"), float("-inf"), float("nan"), 1e308, rng.random()])
    if kind in (4, 5, 6):
        return rng.choice(["", "a", "aaaa!", "x" * rng.randint(0, 300), "\u0000", "\u00fc\U0001F600", "(a+)+$",
                           "kafka lag", "'", "\\", "*", "a" * 30 + "!", "2020-01-01", "P1D", "12:00"])
    if kind == 7:
        return bytes(rng.randrange(256) for _ in range(rng.randint(0, 8)))
    if kind in (8, 9):
        return [random_value(rng, depth + 1) for _ in range(rng.randint(0, 4))]
    return {rng.choice(["a", "b", "i", "s", ""]): random_value(rng, depth + 1) for _ in range(rng.randint(0, 3))}


def parameters(rng: random.Random, make: Callable[[random.Random], object] = random_value) -> dict:
    return {"p": make(rng), "l": make(rng), "m": make(rng)}
