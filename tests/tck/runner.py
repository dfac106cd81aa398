"""Runs openCypher TCK scenarios (Gherkin feature files) against a fresh embedded Relate database each."""
from __future__ import annotations

import os
import re
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

from gherkin.parser import Parser

import relate
from relate import errors

from .tck_values import bag_matches, matches, parse_value

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent


def default_features_dir() -> Path | None:
    """RELATE_TCK_DIR, else ../shared/tck/features beside the repository (None when absent)."""
    env = os.environ.get("RELATE_TCK_DIR")
    if env:
        return Path(env)
    for candidate in (REPO.parent / "shared" / "tck" / "features", REPO / "shared" / "tck" / "features"):
        if candidate.is_dir():
            return candidate
    return None


@dataclass
class Step:
    keyword: str
    text: str
    doc: str | None = None
    table: list[list[str]] | None = None


@dataclass
class Scenario:
    id: str                          # "clauses/match/Match1.feature:[1] title" (+ " #3" for outline rows)
    folder: str                      # "clauses/match"
    steps: list[Step]
    tags: list[str] = field(default_factory=list)


def _substitute(text: str, row: dict[str, str]) -> str:
    for key, value in row.items():
        text = text.replace(f"<{key}>", value)
    return text


def load_scenarios(features_dir: Path) -> Iterator[Scenario]:
    """Every scenario under ``features_dir``, outlines expanded, in file order."""
    parser = Parser()
    for path in sorted(features_dir.rglob("*.feature")):
        rel = path.relative_to(features_dir).as_posix()
        folder = os.path.dirname(rel)
        doc = parser.parse(path.read_text(encoding="utf-8"))
        feature = doc.get("feature")
        if not feature:
            continue
        background: list[dict] = []
        for child in feature["children"]:
            if "background" in child:
                background = child["background"]["steps"]
                continue
            sc = child.get("scenario")
            if not sc:
                continue
            steps_raw = background + sc["steps"]
            tags = [t["name"] for t in sc.get("tags", [])]
            examples = sc.get("examples") or []
            if not examples:
                yield Scenario(f"{rel}:{sc['name']}", folder, [_step(s, {}) for s in steps_raw], tags)
                continue
            n = 0
            for ex in examples:
                header = [c["value"] for c in ex["tableHeader"]["cells"]]
                for body in ex["tableBody"]:
                    n += 1
                    row = dict(zip(header, (c["value"] for c in body["cells"])))
                    yield Scenario(f"{rel}:{sc['name']} #{n}", folder,
                                   [_step(s, row) for s in steps_raw], tags + [t["name"] for t in ex.get("tags", [])])


def _step(raw: dict, row: dict[str, str]) -> Step:
    doc = raw.get("docString")
    table = raw.get("dataTable")
    return Step(
        keyword=raw["keyword"].strip(),
        text=_substitute(raw["text"], row),
        doc=_substitute(doc["content"], row) if doc else None,
        table=[[_substitute(c["value"], row) for c in r["cells"]] for r in table["rows"]] if table else None,
    )


# ----------------------------------------------------------------------------------------------
class ScenarioFailed(AssertionError):
    """The scenario ran but an expectation did not hold."""


_TCK_ERROR_TYPES: dict[str, tuple[type, ...]] = {
    "SyntaxError": (errors.CypherSyntaxError, errors.CypherSemanticError),
    "SemanticError": (errors.CypherSemanticError, errors.CypherSyntaxError),
    "TypeError": (errors.CypherTypeError,),
    "ArgumentError": (errors.ArgumentError,),
    "ArithmeticError": (errors.CypherArithmeticError,),
    "ParameterMissing": (errors.ParameterMissing,),
    "EntityNotFound": (errors.EntityNotFound,),
    "ConstraintValidationFailed": (errors.ConstraintValidationFailed,),
    "ConstraintVerificationFailed": (errors.ConstraintValidationFailed,),
    "ProcedureError": (errors.ProcedureNotFound, errors.ProcedureCallFailed),
    "Error": (errors.RelateError,),
}

_PROC_RE = re.compile(r"there exists a procedure ([\w.]+)\((.*?)\)\s*::\s*\((.*?)\)\s*:?\s*$")


def _signature(text: str) -> list[tuple[str, str]]:
    out = []
    for part in filter(None, (p.strip() for p in text.split(","))):
        name, _, typ = part.partition("::")
        out.append((name.strip(), typ.strip()))
    return out


class ScenarioRun:
    """Executes one scenario's steps on a fresh in-memory database."""

    def __init__(self, scenario: Scenario, graphs_dir: Path | None):
        self.scenario = scenario
        self.graphs_dir = graphs_dir
        self.conn = relate.connect(":memory:")
        self.params: dict[str, Any] = {}
        self.result_columns: list[str] | None = None
        self.result_rows: list[tuple] | None = None
        self.error: BaseException | None = None
        self.before = None
        self.after = None

    def close(self) -> None:
        self.conn.close()

    # -- graph state, for side effects -----------------------------------------------------
    def _state(self):
        nodes, rels, labels, props = set(), set(), set(), set()
        for (n,) in self.conn.execute("MATCH (n) RETURN n"):
            nodes.add(n.id)
            labels.update(n.labels)
            for k, v in n.properties.items():
                props.add(("n", n.id, k, _freeze(v)))
        for (r,) in self.conn.execute("MATCH ()-[r]->() RETURN r"):
            rels.add(r.id)
            for k, v in r.properties.items():
                props.add(("r", r.id, k, _freeze(v)))
        return nodes, rels, labels, props

    # -- steps -------------------------------------------------------------------------------
    def run(self) -> None:
        for step in self.scenario.steps:
            self.step(step)

    def step(self, step: Step) -> None:
        text = step.text
        if text in ("an empty graph", "any graph"):
            return
        m = re.fullmatch(r"the ([\w-]+) graph", text)
        if m:
            script = (self.graphs_dir / m.group(1) / f"{m.group(1)}.cypher").read_text()
            self.conn.execute(script).consume()
            return
        if text.startswith("having executed"):
            self.conn.execute(step.doc).consume()
            return
        if text.startswith("parameters are"):
            for name, value in step.table:
                self.params[name] = parse_value(value)
            return
        m = _PROC_RE.match(text)
        if m:
            self._register_procedure(m.group(1), _signature(m.group(2)), _signature(m.group(3)), step.table)
            return
        if text.startswith("executing query"):
            self.before = self._state()
            self._execute(step.doc)
            if self.error is None:
                self.after = self._state()
            return
        if text.startswith("executing control query"):
            self._execute(step.doc)
            if self.error is not None:
                raise ScenarioFailed(f"control query failed: {self.error!r}")
            return
        if text.startswith("the result should be empty"):
            self._expect_no_error()
            if self.result_rows:
                raise ScenarioFailed(f"expected no rows, got {self.result_rows[:5]}")
            return
        if text.startswith("the result should be"):
            self._expect_no_error()
            self._compare_table(step.table, ordered="in order" in text,
                                unordered_lists="ignoring element order for lists" in text)
            return
        if text == "no side effects":
            self._expect_no_error()
            self._compare_side_effects({})
            return
        if text.startswith("the side effects should be"):
            self._expect_no_error()
            self._compare_side_effects({k: int(v) for k, v in step.table})
            return
        m = re.fullmatch(r"an? (\w+) should be raised at (compile time|runtime|any time): ?(.*)", text)
        if m:
            self._compare_error(m.group(1), m.group(2), m.group(3).strip())
            return
        raise ScenarioFailed(f"unsupported step: {step.keyword} {text}")

    def _execute(self, query: str) -> None:
        self.error = None
        self.result_rows = None
        try:
            result = self.conn.execute(query, self.params)
            self.result_columns = result.columns
            self.result_rows = [tuple(r) for r in result]
            result.consume()
        except errors.RelateError as exc:
            self.error = exc

    def _expect_no_error(self) -> None:
        if self.error is not None:
            raise ScenarioFailed(f"unexpected error {self.error!r}")

    def _compare_table(self, table: list[list[str]], *, ordered: bool, unordered_lists: bool) -> None:
        header, body = table[0], table[1:]
        if self.result_columns != header and sorted(self.result_columns or []) != sorted(header):
            raise ScenarioFailed(f"columns {self.result_columns} != expected {header}")
        index = [self.result_columns.index(h) for h in header]
        expected = [[parse_value(cell) for cell in row] for row in body]
        actual = [[row[i] for i in index] for row in self.result_rows]
        if ordered:
            ok = len(expected) == len(actual) and all(
                matches(e, a, unordered_lists=unordered_lists) for e, a in zip(expected, actual))
        else:
            ok = bag_matches(expected, actual, unordered_lists=unordered_lists)
        if not ok:
            raise ScenarioFailed(f"rows differ:\n expected {body}\n actual   {actual[:20]}")

    def _compare_side_effects(self, expected: dict[str, int]) -> None:
        if self.before is None or self.after is None:
            return
        (n0, r0, l0, p0), (n1, r1, l1, p1) = self.before, self.after
        actual = {
            "+nodes": len(n1 - n0), "-nodes": len(n0 - n1),
            "+relationships": len(r1 - r0), "-relationships": len(r0 - r1),
            "+labels": len(l1 - l0), "-labels": len(l0 - l1),
            "+properties": len(p1 - p0), "-properties": len(p0 - p1),
        }
        want = {k: expected.get(k, 0) for k in actual}
        if actual != want:
            diff = {k: (want[k], actual[k]) for k in actual if actual[k] != want[k]}
            raise ScenarioFailed(f"side effects differ (expected, actual): {diff}")

    def _compare_error(self, kind: str, phase: str, detail: str) -> None:
        if self.error is None:
            raise ScenarioFailed(f"expected {kind} ({detail}), but the query succeeded")
        classes = _TCK_ERROR_TYPES.get(kind, (errors.RelateError,))
        if not isinstance(self.error, classes):
            raise ScenarioFailed(f"expected {kind} ({detail}), got {self.error!r}")
        if detail and detail != "*" and getattr(self.error, "detail", None) not in (detail, None):
            raise ScenarioFailed(f"expected detail {detail}, got {self.error.detail} ({self.error!r})")
        if detail and detail != "*" and getattr(self.error, "detail", None) is None:
            raise ScenarioFailed(f"expected detail {detail}, got an error without detail: {self.error!r}")

    def _register_procedure(self, name, inputs, outputs, table) -> None:
        header, body = (table[0], table[1:]) if table else ([], [])
        rows = [dict(zip(header, (parse_value(c) for c in row))) for row in body]
        in_names = [n for n, _ in inputs]
        out_names = [n for n, _ in outputs]

        def procedure(ctx, *args):
            for row in rows:
                if all(matches(row[n], a) if row[n] is not None else a is None for n, a in zip(in_names, args)):
                    yield {n: row[n] for n in out_names}

        database = self.conn._owner
        database.procedures.register(name, [(n, t, _MISSING) for n, t in inputs], outputs, procedure)


class _Missing:
    pass


try:  # the registry's own sentinel for "no default", when it exports one
    from relate.server.query.procedures import MISSING as _MISSING  # type: ignore
except Exception:  # noqa: BLE001 - the registry may not exist yet
    _MISSING = _Missing()


def _freeze(value: Any) -> Any:
    if isinstance(value, list):
        return ("list", tuple(_freeze(v) for v in value))
    if isinstance(value, float):
        return ("f", value)
    if isinstance(value, bool):
        return ("b", value)
    if isinstance(value, int):
        return ("i", value)
    try:
        hash(value)
        return value
    except TypeError:
        return repr(value)


@dataclass
class Outcome:
    id: str
    folder: str
    status: str                      # passed | failed | error | excluded
    message: str = ""
    seconds: float = 0.0


def run_scenario(scenario: Scenario, graphs_dir: Path | None) -> Outcome:
    """Run one scenario and classify it: passed, failed (an expectation), or error (a crash)."""
    start = time.perf_counter()
    run = None
    try:
        run = ScenarioRun(scenario, graphs_dir)
        run.run()
        status, message = "passed", ""
    except ScenarioFailed as exc:
        status, message = "failed", str(exc)[:2000]
    except errors.RelateError as exc:
        status, message = "failed", f"setup failed: {exc!r}"[:2000]
    except Exception as exc:  # noqa: BLE001 - a crash is reported, not raised
        status, message = "error", "".join(traceback.format_exception(exc))[-2000:]
    finally:
        if run is not None:
            try:
                run.close()
            except Exception:  # noqa: BLE001
                pass
    return Outcome(scenario.id, scenario.folder, status, message, time.perf_counter() - start)


def load_list(path: Path) -> dict[str, str]:
    """Scenario ids from a list file (``id`` or ``id | reason`` per line, # comments)."""
    out: dict[str, str] = {}
    if not path.exists():
        return out
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        sid, _, reason = line.partition(" | ")
        out[sid.strip()] = reason.strip()
    return out
