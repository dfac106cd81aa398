"""The openCypher TCK's expressions/temporal scenarios, run two ways, each held by a ratchet.

1. A small evaluator for the query shapes the temporal features use (RETURN/WITH projections,
   ``CREATE (:L {k: expr})`` then ``MATCH``), calling TEMPORAL_FUNCTIONS directly; stored values go
   through ``to_state``/``from_state`` as the storage codec would.
2. Projection-only scenarios through the real parser and expression compiler.
3. End to end through the shared TCK runner, once the engine (``relate.server.engine``) exists.
"""
from __future__ import annotations

import datetime as _dt
import re

from gherkin.parser import Parser
from gherkin.pickles.compiler import Compiler

from relate.temporal import TEMPORAL_TYPES
from relate.values import Duration
from relate.server.query.exec.functions import temporal as tf

from tests.helpers import tck_features
from tests.tck.tck_values import bag_matches, parse_value

FEATURES = tck_features() / "expressions" / "temporal"

# Ratchets: a drop below these fails the test; raise them when more pass.
HARNESS_PASSING = 958      # of 960; the two failures need years beyond 9999 (Temporal10 [9], [10])
COMPILED_PASSING = 933     # of 935 projection-only scenarios (same two failures)
ENGINE_PASSING = 958       # end to end through relate.connect(":memory:"), same two failures


# --------------------------------------------------------------------------------------------
# A tiny evaluator for the temporal features' queries
# --------------------------------------------------------------------------------------------
_TOKEN = re.compile(r"""\s*(?:
    (?P<string>'(?:[^'\\]|\\.)*')
  | (?P<number>\d+\.\d+(?:[eE][-+]?\d+)?|\d+)
  | (?P<name>[A-Za-z_][A-Za-z_0-9]*)
  | (?P<op><=|>=|<>|[=<>(){}\[\]:,.+\-*/])
)""", re.VERBOSE)


class _Ctx:
    def __init__(self):
        self.now = _dt.datetime.now(_dt.timezone.utc)


class _Expr:
    """Parses and evaluates one expression over ``env`` (a dict of variables)."""

    def __init__(self, text: str, pos: int = 0):
        self.text, self.pos = text, pos
        self.tokens = []
        for match in _TOKEN.finditer(text):
            kind = match.lastgroup
            self.tokens.append((kind, match.group(kind), match.start(kind), match.end(kind)))
        self.i = 0

    def peek(self, offset=0):
        j = self.i + offset
        return self.tokens[j] if j < len(self.tokens) else (None, None, len(self.text), len(self.text))

    def take(self, value=None):
        token = self.peek()
        if value is not None and token[1] != value and (token[1] or "").upper() != value:
            raise SyntaxError(f"expected {value} at {token}")
        self.i += 1
        return token

    def parse(self):
        return self.comparison()

    def comparison(self):
        left = self.additive()
        while self.peek()[1] in ("=", "<>", "<", ">", "<=", ">="):
            op = self.take()[1]
            right = self.additive()
            left = (lambda l, r, op: lambda env: _compare(op, l(env), r(env)))(left, right, op)
        return left

    def additive(self):
        left = self.multiplicative()
        while self.peek()[1] in ("+", "-"):
            op = self.take()[1]
            right = self.multiplicative()
            fn = tf.temporal_add if op == "+" else tf.temporal_subtract
            left = (lambda l, r, fn: lambda env: fn(l(env), r(env)))(left, right, fn)
        return left

    def multiplicative(self):
        left = self.unary()
        while self.peek()[1] in ("*", "/"):
            op = self.take()[1]
            right = self.unary()
            fn = tf.temporal_multiply if op == "*" else tf.temporal_divide
            left = (lambda l, r, fn: lambda env: fn(l(env), r(env)))(left, right, fn)
        return left

    def unary(self):
        if self.peek()[1] == "-":
            self.take()
            inner = self.unary()
            return lambda env: -inner(env)
        return self.postfix()

    def postfix(self):
        value = self.atom()
        while self.peek()[1] == "." and self.peek(1)[0] == "name":
            self.take()
            key = self.take()[1]
            value = (lambda v, k: lambda env: _property(v(env), k))(value, key)
        return value

    def atom(self):
        kind, text, _, _ = self.take()
        if kind == "string":
            literal = re.sub(r"\\(.)", r"\1", text[1:-1])
            return lambda env: literal
        if kind == "number":
            number = float(text) if "." in text or "e" in text.lower() else int(text)
            return lambda env: number
        if text == "{":
            items = []
            while self.peek()[1] != "}":
                key = self.take()[1]
                self.take(":")
                items.append((key, self.parse()))
                if self.peek()[1] == ",":
                    self.take()
            self.take("}")
            return lambda env: {k: v(env) for k, v in items}
        if text == "[":
            items = []
            while self.peek()[1] != "]":
                items.append(self.parse())
                if self.peek()[1] == ",":
                    self.take()
            self.take("]")
            return lambda env: [v(env) for v in items]
        if text == "(":
            inner = self.parse()
            self.take(")")
            return inner
        if kind == "name":
            lowered = text.lower()
            if lowered in ("null", "true", "false"):
                constant = {"null": None, "true": True, "false": False}[lowered]
                return lambda env: constant
            name = text
            # A dotted function name: a.b.c(...)
            j = 0
            while self.peek(j)[1] == "." and self.peek(j + 1)[0] == "name":
                j += 2
            if self.peek(j)[1] == "(":
                for _ in range(j // 2):
                    self.take(".")
                    name += "." + self.take()[1]
                self.take("(")
                args = []
                while self.peek()[1] != ")":
                    args.append(self.parse())
                    if self.peek()[1] == ",":
                        self.take()
                self.take(")")
                fn = tf.TEMPORAL_FUNCTIONS[name.lower()]
                return lambda env: fn(env["__ctx__"], *[a(env) for a in args])
            return lambda env: env[name]
        raise SyntaxError(f"unexpected {text!r}")


def _property(value, key):
    if isinstance(value, dict):
        return value.get(key)
    return tf.temporal_property(value, key)


def _compare(op, a, b):
    if op in ("=", "<>"):
        if isinstance(a, Duration) or isinstance(b, Duration):
            equal = a == b if a is not None and b is not None else None
        else:
            equal = tf.temporal_equals(a, b)
        return equal if equal is None or op == "=" else not equal
    result = tf.temporal_compare(a, b)
    if result is None:
        return None
    return {"<": result < 0, ">": result > 0, "<=": result <= 0, ">=": result >= 0}[op]


def _split_items(text: str) -> list[tuple[str, str]]:
    """``expr AS alias, expr`` -> [(expr, column)], splitting on top-level commas."""
    items, depth, start = [], 0, 0
    quoted = False
    for i, ch in enumerate(text + ","):
        if ch == "'" and (i == 0 or text[i - 1] != "\\"):
            quoted = not quoted
        if quoted:
            continue
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            part = text[start:i].strip()
            start = i + 1
            match = re.fullmatch(r"(.*?)\s+AS\s+(\w+)", part, re.DOTALL | re.IGNORECASE)
            items.append((match.group(1), match.group(2)) if match else (part, part))
    return items


def _store(value):
    """A property value after a storage round trip (what the codecs would give back)."""
    if isinstance(value, list):
        return [_store(v) for v in value]
    if isinstance(value, TEMPORAL_TYPES + (Duration,)):
        return type(value).from_state(value.to_state())
    return value


def run_query(query: str, graph: list[dict]) -> tuple[list[str], list[list]]:
    """Columns and rows of ``query`` over ``graph`` (a list of node property maps with labels)."""
    clauses = re.split(r"\n(?=\s*(?:WITH|RETURN|MATCH|CREATE)\b)", query.strip())
    ctx = _Ctx()
    rows = [{"__ctx__": ctx}]
    columns: list[str] = []
    for clause in clauses:
        clause = clause.strip()
        keyword, _, rest = clause.partition(" ")
        keyword = keyword.upper()
        if keyword == "CREATE":
            match = re.fullmatch(r"\((?::(\w+))?\s*(\{.*\})\)", rest.strip(), re.DOTALL)
            props = _Expr(match.group(2)).parse()
            for row in rows:
                graph.append({"labels": {match.group(1)} - {None},
                              "props": {k: _store(v) for k, v in props(row).items()}})
            rows, columns = [], []
        elif keyword == "MATCH":
            match = re.fullmatch(r"\((\w+)(?::(\w+))?\)", rest.strip())
            var, label = match.groups()
            rows = [{**row, var: node["props"]} for row in rows for node in graph
                    if label is None or label in node["labels"]]
        elif keyword in ("WITH", "RETURN"):
            items = [(_Expr(expr).parse(), column) for expr, column in _split_items(rest)]
            rows = [{"__ctx__": ctx, **{column: fn(row) for fn, column in items}} for row in rows]
            columns = [column for _, column in items]
        else:
            raise SyntaxError(f"unsupported clause {keyword}")
    return columns, [[row[c] for c in columns] for row in rows]


# --------------------------------------------------------------------------------------------
# Scenarios
# --------------------------------------------------------------------------------------------
def _pickles():
    for path in sorted(FEATURES.glob("*.feature")):
        document = Parser().parse(path.read_text(encoding="utf-8"))
        document["uri"] = str(path)
        for pickle in Compiler().compile(document):
            yield f"{path.stem}:{pickle['name']}", pickle["steps"]


def run_scenario(steps) -> None:
    """Runs one scenario's steps; raises AssertionError (or the evaluation's error) on failure."""
    graph: list[dict] = []
    result = None
    for step in steps:
        argument = step.get("argument", {})
        if "docString" in argument:
            result = run_query(argument["docString"]["content"], graph)
        elif "dataTable" in argument and step["text"].startswith("the result should be"):
            table = [[cell["value"] for cell in row["cells"]] for row in argument["dataTable"]["rows"]]
            columns, rows = result
            assert columns == table[0], f"columns {columns} != {table[0]}"
            expected = [[parse_value(cell) for cell in row] for row in table[1:]]
            assert bag_matches(expected, rows), f"rows {[[str(v) for v in r] for r in rows]} != {table[1:]}"
        elif step["text"] == "the result should be empty":
            assert result[1] == [], f"expected no rows, got {result[1]}"


def harness_outcomes() -> dict[str, str | None]:
    """Scenario name -> None when it passes, else the failure message."""
    outcomes = {}
    for index, (name, steps) in enumerate(_pickles()):
        try:
            run_scenario(steps)
            outcomes[f"{name} #{index}"] = None
        except Exception as exc:  # noqa: BLE001 - every failure counts, whatever its kind
            outcomes[f"{name} #{index}"] = f"{type(exc).__name__}: {exc}"
    return outcomes


def test_temporal_tck_through_functions():
    outcomes = harness_outcomes()
    passed = sum(1 for failure in outcomes.values() if failure is None)
    failures = [f"{name}: {failure}" for name, failure in outcomes.items() if failure is not None]
    print(f"\ntemporal TCK (function harness): {passed}/{len(outcomes)} pass")
    assert len(outcomes) == 960
    assert passed >= HARNESS_PASSING, "\n".join(failures[:20])


def _compiled_outcomes() -> tuple[int, int, list[str]]:
    """Projection-only scenarios (RETURN, WITH ... RETURN) through the real parser and expression
    compiler; returns (passed, run, failures)."""
    from relate.server.query.context import ExecContext
    from relate.server.query.exec.expressions import compile_expression
    from relate.server.query.parser import parse

    passed = run = 0
    failures = []
    for name, steps in _pickles():
        queries = [s["argument"]["docString"]["content"] for s in steps if "docString" in s.get("argument", {})]
        tables = [s["argument"]["dataTable"] for s in steps if "dataTable" in s.get("argument", {})]
        if len(queries) != 1 or not re.match(r"\s*(WITH|RETURN)\b", queries[0]) or len(tables) != 1:
            continue
        run += 1
        try:
            ctx = ExecContext(None, {}, None)
            row: dict = {}
            columns: list[str] = []
            for clause in parse(queries[0]).body.parts[0].clauses:
                items = clause.projection.items
                row = {item.alias or item.text: compile_expression(item.expr)(row, ctx) for item in items}
                columns = [item.alias or item.text for item in items]
            table = [[cell["value"] for cell in r["cells"]] for r in tables[0]["rows"]]
            assert columns == table[0], f"columns {columns} != {table[0]}"
            expected = [[parse_value(cell) for cell in r] for r in table[1:]]
            actual = [[row[c] for c in columns]]
            assert bag_matches(expected, actual), f"{[str(v) for v in actual[0]]} != {table[1:]}"
            passed += 1
        except Exception as exc:  # noqa: BLE001 - every failure counts, whatever its kind
            failures.append(f"{name}: {type(exc).__name__}: {exc}")
    return passed, run, failures


def test_temporal_tck_through_parser_and_expression_compiler():
    passed, run, failures = _compiled_outcomes()
    print(f"\ntemporal TCK (parser + expression compiler): {passed}/{run} projection scenarios pass")
    assert passed >= COMPILED_PASSING, "\n".join(failures[:20])


def test_temporal_tck_end_to_end():
    from tests.tck.runner import load_scenarios, run_scenario as run_engine_scenario
    scenarios = [s for s in load_scenarios(FEATURES.parent.parent) if s.folder == "expressions/temporal"]
    passed = 0
    failures = []
    for scenario in scenarios:
        outcome = run_engine_scenario(scenario, None)
        if outcome.status == "passed":
            passed += 1
        else:
            failures.append(f"{scenario.id}: {outcome.message}")
    print(f"\ntemporal TCK (engine): {passed}/{len(scenarios)} pass")
    assert passed >= ENGINE_PASSING, "\n".join(failures[:20])
