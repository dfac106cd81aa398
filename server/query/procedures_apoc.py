"""APOC procedures that run Cypher or describe the library: ``apoc.periodic.iterate`` /
``apoc.periodic.commit`` (batches that commit on their own), ``apoc.cypher.run`` / ``apoc.cypher.doIt``,
``apoc.meta.schema``, ``apoc.help``, ``apoc.util.sleep`` / ``apoc.util.validate`` and
``apoc.coll.split`` / ``apoc.coll.partition`` (rows of a list).

Inner statements run through ``run_inner``: prepared (and plan-cached) like any statement, executed on
the calling statement's transaction with their own parameters, counting into its summary and stopped by
its cancellation and timeout. A batch of apoc.periodic.* is a savepoint: a failing batch is rolled back
alone and reported; a passing one is checked (constraints, deletes) and, in an auto-commit statement,
committed on the spot (the engine's CALL { ... } IN TRANSACTIONS commit). In an explicit transaction
the passing batches stay pending until it commits.
"""
from __future__ import annotations

import time
from collections import Counter
from typing import Any

from relate.protocol.errors import ArgumentError, QueryTimeout, RelateError, Terminated

from ..inline import MustNotWait
from .context import ExecContext
from .exec.functions.apoc.coll import split_at
from .exec.functions.apoc.util import validation_error
from .exec.operators.transactions import BatchMark

MAX_SLEEP_MS = 3_600_000         # apoc.util.sleep waits at most an hour (and less when the statement times out)
SLEEP_SLICE_S = 0.05             # ... looking for cancellation this often
DEFAULT_BATCH_SIZE = 10_000      # APOC 5's batchSize default
RETRY_PAUSE_S = 0.1              # APOC sleeps 100 ms before retrying a failed batch
_SHARED = ("counters", "deleted_nodes", "deleted_rels", "pending_deletes", "touched_nodes", "touched_rels",
           "costs", "notifications", "visible")
_STAT_KEYS = (("nodesCreated", "nodes_created"), ("nodesDeleted", "nodes_deleted"),
              ("relationshipsCreated", "relationships_created"), ("relationshipsDeleted", "relationships_deleted"),
              ("propertiesSet", "properties_set"), ("labelsAdded", "labels_added"),
              ("labelsRemoved", "labels_removed"))

ITERATE_OUTPUTS = [("batches", "INTEGER?"), ("total", "INTEGER?"), ("timeTaken", "INTEGER?"),
                   ("committedOperations", "INTEGER?"), ("failedOperations", "INTEGER?"),
                   ("failedBatches", "INTEGER?"), ("retries", "INTEGER?"), ("errorMessages", "MAP?"),
                   ("batch", "MAP?"), ("operations", "MAP?"), ("wasTerminated", "BOOLEAN?"),
                   ("failedParams", "MAP?"), ("updateStatistics", "MAP?")]
COMMIT_OUTPUTS = [("updates", "INTEGER?"), ("executions", "INTEGER?"), ("runtime", "INTEGER?"),
                  ("batches", "INTEGER?"), ("failedBatches", "INTEGER?"), ("batchErrors", "MAP?"),
                  ("failedCommits", "INTEGER?"), ("commitErrors", "MAP?"), ("wasTerminated", "BOOLEAN?")]
HELP_OUTPUTS = [("type", "STRING?"), ("name", "STRING?"), ("text", "STRING?"), ("signature", "STRING?"),
                ("roles", "LIST? OF STRING?"), ("writes", "BOOLEAN?"), ("core", "BOOLEAN?"), ("isDeprecated", "BOOLEAN?")]


def register_apoc(registry) -> None:
    registry.register("apoc.periodic.iterate", [("cypherIterate", "STRING?"), ("cypherAction", "STRING?"),
                                                ("config", "MAP?", {})],
                      ITERATE_OUTPUTS, periodic_iterate, mode="WRITE",
                      description="Run the second statement for each row of the first, in batches that commit on "
                                  "their own (a failed batch is rolled back alone and reported).")
    registry.register("apoc.periodic.commit", [("statement", "STRING?"), ("params", "MAP?", {})],
                      COMMIT_OUTPUTS, periodic_commit, mode="WRITE",
                      description="Run a statement with a LIMIT again and again, each run committed, until it "
                                  "returns 0.")
    registry.register("apoc.cypher.run", [("statement", "STRING?"), ("params", "MAP?", {})],
                      [("value", "MAP?")], cypher_run,
                      description="Run a read-only Cypher statement given as text; each row as a map.")
    registry.register("apoc.cypher.doIt", [("statement", "STRING?"), ("params", "MAP?", {})],
                      [("value", "MAP?")], cypher_do_it, mode="WRITE",
                      description="Run a Cypher statement given as text, which may write; each row as a map.")
    registry.register("apoc.meta.schema", [("config", "MAP?", {})], [("value", "MAP?")], meta_schema,
                      description="The graph's schema as a map: per label and relationship type its count, "
                                  "properties (type, indexed, unique, existence) and relationships.")
    registry.register("apoc.help", [("proc", "STRING?")], HELP_OUTPUTS, apoc_help,
                      description="The APOC functions and procedures whose name or description contains a text.")
    registry.register("apoc.util.sleep", [("duration", "INTEGER?")], [], util_sleep,
                      description="Wait for a number of milliseconds (at most an hour; stops when the statement is "
                                  "cancelled or times out).")
    registry.register("apoc.util.validate", [("predicate", "BOOLEAN?"), ("message", "STRING?"),
                                             ("params", "LIST? OF ANY?", [])], [], util_validate,
                      description="Raise an error with the formatted message when the predicate is true.")
    registry.register("apoc.coll.split", [("coll", "LIST? OF ANY?"), ("value", "ANY?")], [("value", "LIST? OF ANY?")],
                      lambda ctx, coll, value: [{"value": part} for part in split_at(coll or [], value)],
                      description="The runs of a list between occurrences of a value, one row each.")
    registry.register("apoc.coll.partition", [("coll", "LIST? OF ANY?"), ("batchSize", "INTEGER?")],
                      [("value", "LIST? OF ANY?")], _partition_rows,
                      description="The list cut into sublists of a size, one row each.")


# -- inner statements --------------------------------------------------------------------------------

MAX_INNER_DEPTH = 16      # statements that run statements (apoc.cypher.run inside apoc.cypher.run ...)


class InnerContext(ExecContext):
    """An inner statement's context: the caller's transaction and clocks, its own parameters; with
    ``shared`` it also writes into the caller's write bookkeeping (what the caller's end checks), else
    into its own (a batch checked on its own). The caller's cancellation and deadline stop it too."""
    __slots__ = ("outer", "depth")

    def __init__(self, outer: ExecContext, params: dict, shared: bool):
        super().__init__(outer.tx, params, outer.db, deadline=outer.deadline, scope=outer.scope, budget=outer.budget)
        self.outer = outer
        self.depth = getattr(outer, "depth", 0) + 1
        self.principal = outer.principal
        for name in _SHARED if shared else ("counters", "costs", "notifications", "visible"):
            setattr(self, name, getattr(outer, name))

    def check_now(self) -> None:
        self.outer.check_now()
        super().check_now()


def run_inner(ctx: ExecContext, text, params, *, name: str, writes: bool, shared: bool = True):
    """(columns, rows as tuples, the inner context) of the statement ``text`` run on ``ctx``'s transaction."""
    from .. import privileges
    if not isinstance(text, str) or not text.strip():
        raise ArgumentError(f"{name} needs a Cypher statement", detail="InvalidArgumentValue")
    if getattr(ctx, "depth", 0) >= MAX_INNER_DEPTH:
        raise ArgumentError(f"{name}: statements run from procedures nest more than {MAX_INNER_DEPTH} deep",
                            detail="InvalidArgumentValue")
    prepared = ctx.db.prepare(text, ctx.tx)
    if prepared.is_command or privileges.required_role(prepared) == "admin":
        raise ArgumentError(f"{name} runs queries; it cannot run schema or administration commands",
                            detail="InvalidArgumentValue")
    if prepared.statement.mode is not None:
        raise ArgumentError(f"{name} cannot run {prepared.statement.mode} statements", detail="InvalidArgumentValue")
    plan = prepared.plan
    if plan.batched:
        raise ArgumentError(f"{name} cannot run CALL {{ ... }} IN TRANSACTIONS", detail="InvalidArgumentValue")
    if plan.updating and not writes:
        raise ArgumentError(f"{name} runs read-only statements; use apoc.cypher.doIt to write",
                            detail="InvalidArgumentValue")
    if plan.updating and not hasattr(ctx.tx, "create_node"):
        raise ArgumentError(f"{name} needs a writing transaction", detail="InvalidArgumentValue")
    params = dict(params or {})
    missing = sorted(p for p in prepared.parameters if p not in params)
    if missing:
        from relate.protocol.errors import ParameterMissing
        raise ParameterMissing(f"Expected parameter(s): {', '.join(missing)}", detail="MissingParameter",
                               phase="runtime")
    inner = InnerContext(ctx, params, shared)
    rows = list(plan.root.rows(inner, {}))
    if inner.writes:
        ctx.writes = True
    return plan.columns, rows, inner


def _as_maps(columns, rows) -> list[dict]:
    return [{"value": dict(zip(columns, row))} for row in rows]


def cypher_run(ctx, statement, params=None):
    """apoc.cypher.run: a read-only statement's rows, each as a map."""
    columns, rows, _ = run_inner(ctx, statement, params, name="apoc.cypher.run", writes=False)
    return _as_maps(columns, rows)


def cypher_do_it(ctx, statement, params=None):
    """apoc.cypher.doIt: a statement's rows, each as a map; its writes are the calling statement's."""
    columns, rows, _ = run_inner(ctx, statement, params, name="apoc.cypher.doIt", writes=True)
    return _as_maps(columns, rows)


# -- batches ---------------------------------------------------------------------------------------

def _recoverable(exc: BaseException) -> bool:
    """A batch's own failure (reported, the batch rolled back), not the statement being stopped."""
    return isinstance(exc, RelateError) and not isinstance(exc, (Terminated, QueryTimeout, MustNotWait))


def _message(exc: BaseException) -> str:
    return getattr(exc, "message", None) or str(exc)


def _batch(ctx) -> BatchMark:
    """One batch's mark: a savepoint (in a writing transaction) and the counters to go back to."""
    return BatchMark(ctx, hasattr(ctx.tx, "savepoint") and hasattr(ctx.tx, "create_node"))


def _check(ctx, inner: InnerContext) -> None:
    """The commit checks of an inner statement's writes (deletes, constraints); raises when one fails."""
    from .schema import check_deletes, check_statement
    if inner.pending_deletes:
        check_deletes(inner)
    if inner.writes:
        ctx.writes = True
        catalog = ctx.db.catalog()
        if catalog.has_constraints:
            check_statement(inner, catalog)


def _commit(ctx) -> None:
    """A passing batch committed, when the statement commits in batches (auto-commit); else left pending."""
    if hasattr(ctx.tx, "check_detached"):
        ctx.tx.check_detached()          # before the commit: a failure there must leave the batch to roll back
    if ctx.commit_batch is not None:
        ctx.commit_batch()


def _run_batch(ctx, text, params, name: str, retries: int) -> tuple[list, int, BaseException | None]:
    """(rows, retries used, the error or None) of one batch, tried again up to ``retries`` times."""
    used = 0
    while True:
        batch = _batch(ctx)
        try:
            columns, rows, inner = run_inner(ctx, text, {**params, "_retry": used}, name=name, writes=True,
                                             shared=False)
            _check(ctx, inner)
            _commit(ctx)
            return rows, used, None
        except Exception as exc:
            if not _recoverable(exc):
                raise
            batch.rollback(ctx)
            if used >= retries:
                return [], used, exc
            used += 1
            ctx.check_now()
            time.sleep(RETRY_PAUSE_S)


def _quoted(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def _action_text(action: str, columns: list[str], batch_mode: str) -> str:
    """The action with the iterate statement's columns bound as variables (APOC's prefix)."""
    if batch_mode == "BATCH":
        if "$_batch" in action:
            return action                               # it unwinds $_batch itself
        bound = ", ".join(f"_batch.{_quoted(c)} AS {_quoted(c)}" for c in columns)
        return f"UNWIND $_batch AS _batch WITH {bound} {action}" if bound else f"UNWIND $_batch AS _batch {action}"
    bound = ", ".join(f"${_quoted(c)} AS {_quoted(c)}" for c in columns)
    return f"WITH {bound} {action}" if bound else action


def _config(config) -> dict:
    config = dict(config or {})
    size = config.get("batchSize", DEFAULT_BATCH_SIZE)
    if type(size) is not int or size < 1:
        raise ArgumentError("apoc.periodic.iterate: batchSize must be a positive integer", detail="InvalidArgumentValue")
    retries = config.get("retries", 0)
    if type(retries) is not int or retries < 0:
        raise ArgumentError("apoc.periodic.iterate: retries must be an integer >= 0", detail="InvalidArgumentValue")
    mode = str(config.get("batchMode", "")).upper()
    if not mode:
        mode = "BATCH" if config.get("iterateList", True) is not False else "SINGLE"
    if mode not in ("BATCH", "SINGLE", "BATCH_SINGLE"):
        raise ArgumentError("apoc.periodic.iterate: batchMode must be BATCH, SINGLE or BATCH_SINGLE",
                            detail="InvalidArgumentValue")
    params = config.get("params") or {}
    if not isinstance(params, dict):
        raise ArgumentError("apoc.periodic.iterate: params must be a map", detail="InvalidArgumentValue")
    failed_params = config.get("failedParams", -1)
    return {"size": size, "retries": retries, "mode": mode, "params": params,
            "failed_params": failed_params if type(failed_params) is int else -1}


def _statistics(before: dict, after) -> dict:
    return {key: after.get(name, 0) - before.get(name, 0) for key, name in _STAT_KEYS}


def periodic_iterate(ctx, iterate, action, config=None):
    """apoc.periodic.iterate: the action per row of the iterate statement, in batches."""
    started = time.monotonic()
    options = _config(config)
    if not isinstance(action, str) or not action.strip():
        raise ArgumentError("apoc.periodic.iterate needs an action statement", detail="InvalidArgumentValue")
    counters_before = dict(ctx.counters)
    columns, items, _ = run_inner(ctx, iterate, options["params"], name="apoc.periodic.iterate", writes=True)
    size, mode = options["size"], options["mode"]
    batch_text = _action_text(action, columns, "BATCH" if mode in ("BATCH", "BATCH_SINGLE") else "SINGLE")
    batches = failed_batches = committed_ops = failed_ops = retries = 0
    errors: Counter = Counter()
    failed_params: dict[str, list] = {}
    for start in range(0, len(items), size):
        ctx.check_now()
        chunk = [dict(zip(columns, row)) for row in items[start:start + size]]
        batches += 1
        failure = None
        base = {**options["params"], "_count": start}
        if mode == "SINGLE":
            failure, used = _single_rows(ctx, batch_text, base, chunk), 0
        else:
            _, used, failure = _run_batch(ctx, batch_text, {**base, "_batch": chunk}, "apoc.periodic.iterate",
                                          options["retries"])
        retries += used
        if failure is None:
            committed_ops += len(chunk)
            continue
        failed_batches += 1
        failed_ops += len(chunk)
        errors[_message(failure)] += 1
        if options["failed_params"] >= 0:
            failed_params.setdefault(_message(failure), []).extend(chunk[:options["failed_params"]])
    elapsed = int(time.monotonic() - started)
    error_map = dict(errors)
    return [{"batches": batches, "total": len(items), "timeTaken": elapsed, "committedOperations": committed_ops,
             "failedOperations": failed_ops, "failedBatches": failed_batches, "retries": retries,
             "errorMessages": error_map,
             "batch": {"total": batches, "committed": batches - failed_batches, "failed": failed_batches,
                       "errors": error_map},
             "operations": {"total": len(items), "committed": committed_ops, "failed": failed_ops,
                            "errors": error_map},
             "wasTerminated": False, "failedParams": failed_params,
             "updateStatistics": _statistics(counters_before, ctx.counters)}]


def _single_rows(ctx, text, base: dict, chunk: list[dict]) -> BaseException | None:
    """batchMode SINGLE: the action once per row (its columns as parameters), the rows of one batch
    committed together; the first failing row fails (and rolls back) the batch."""
    batch = _batch(ctx)
    try:
        for row in chunk:
            _, _, inner = run_inner(ctx, text, {**base, **row}, name="apoc.periodic.iterate", writes=True,
                                    shared=False)
            _check(ctx, inner)
        _commit(ctx)
        return None
    except Exception as exc:
        if not _recoverable(exc):
            raise
        batch.rollback(ctx)
        return exc


def periodic_commit(ctx, statement, params=None):
    """apoc.periodic.commit: the statement (which must have a LIMIT) again and again, each run its own
    batch, until it returns 0 (its first column summed over its rows) or fails."""
    started = time.monotonic()
    if not isinstance(statement, str) or "limit" not in statement.lower():
        raise ArgumentError("the statement sent to apoc.periodic.commit must contain a `limit`",
                            detail="InvalidArgumentValue")
    params = dict(params or {})
    updates = executions = batches = failed_batches = 0
    errors: Counter = Counter()
    while True:
        ctx.check_now()
        executions += 1
        rows, _, failure = _run_batch(ctx, statement, params, "apoc.periodic.commit", 0)
        batches += 1
        if failure is not None:
            failed_batches += 1
            errors[_message(failure)] += 1
            break
        count = sum(row[0] for row in rows if row and type(row[0]) in (int, float))
        if not count:
            break
        updates += int(count)
    return [{"updates": updates, "executions": executions, "runtime": int(time.monotonic() - started),
             "batches": batches, "failedBatches": failed_batches, "batchErrors": dict(errors),
             "failedCommits": 0, "commitErrors": {}, "wasTerminated": False}]


# -- apoc.meta.schema ------------------------------------------------------------------------------

def _property_types(values: dict[str, Any], into: dict[str, str]) -> None:
    from .exec.functions.apoc.meta import cypher_type
    for key, value in values.items():
        kind = cypher_type(value)
        kind = {"LIST OF STRING": "LIST", "LIST OF INTEGER": "LIST", "LIST OF FLOAT": "LIST"}.get(kind, kind)
        into.setdefault(key, kind.replace("LIST OF ANY", "LIST"))


def meta_schema(ctx, config=None):
    """apoc.meta.schema: per label {type: 'node', count, labels, properties, relationships}, per
    relationship type {type: 'relationship', count, properties}; ``config.sample`` caps the entities
    read per label or type."""
    from .schema.catalog import Catalog
    from .schema.commands import show_constraints
    config = dict(config or {})
    sample = config.get("sample")
    sample = sample if type(sample) is int and sample > 0 else None
    tx = ctx.tx
    indexed = set(tx.property_indexes())
    unique, existence = set(), set()
    for constraint in show_constraints(Catalog.from_schema(tx.schema()), None):
        kind = constraint["type"]
        entity = "node" if constraint["entityType"] == "NODE" else "relationship"
        for prop in constraint["properties"] or []:
            target = (entity, constraint["labelsOrTypes"][0], prop)
            if "UNIQUE" in kind or "KEY" in kind:
                unique.add(target)
                indexed.add(target)
            if "EXIST" in kind or "KEY" in kind:
                existence.add(target)

    def describe(entity: str, label: str, types: dict[str, str]) -> dict:
        return {key: {"type": kind, "indexed": (entity, label, key) in indexed,
                      "unique": (entity, label, key) in unique, "existence": (entity, label, key) in existence,
                      "array": kind.startswith("LIST")}
                for key, kind in sorted(types.items())}

    value: dict = {}
    for label in sorted(tx.labels()):
        types: dict[str, str] = {}
        others: set = set()
        rels: dict[tuple, dict] = {}
        for n, nid in enumerate(tx.nodes_by_label(label)):
            if sample is not None and n >= sample:
                break
            ctx.check()
            _property_types(tx.node_props(nid), types)
            others.update(tx.node_labels(nid))
            for direction in ("out", "in"):
                for rid, other in tx.expand(nid, direction):
                    ctx.check()
                    entry = rels.setdefault((tx.rel_type(rid), direction),
                                            {"count": 0, "labels": set(), "types": {}})
                    entry["count"] += 1
                    entry["labels"].update(tx.node_labels(other))
                    _property_types(tx.rel_props(rid), entry["types"])
        value[label] = {"type": "node", "count": tx.count_nodes(label), "labels": sorted(others - {label}),
                        "properties": describe("node", label, types),
                        "relationships": {rel_type: {"direction": direction, "count": entry["count"],
                                                     "labels": sorted(entry["labels"]),
                                                     "properties": describe("relationship", rel_type, entry["types"])}
                                          for (rel_type, direction), entry in sorted(rels.items())}}
    for rel_type in sorted(tx.rel_types()):
        types = {}
        for n, rid in enumerate(tx.rels_by_type(rel_type)):
            if sample is not None and n >= sample:
                break
            ctx.check()
            _property_types(tx.rel_props(rid), types)
        key = rel_type if rel_type not in value else f"{rel_type} (relationship)"
        value[key] = {"type": "relationship", "count": tx.count_rels(rel_type),
                      "properties": describe("relationship", rel_type, types)}
    return [{"value": value}]


# -- apoc.help, apoc.util.* ------------------------------------------------------------------------

def _function_signature(info) -> str:
    import inspect

    from .exec import functions
    fn = functions.lookup(info.name)
    names: list[str] = []
    if fn is not None:
        try:
            names = [p.name for p in list(inspect.signature(fn).parameters.values())[1:]
                     if p.kind is not inspect.Parameter.VAR_POSITIONAL]
        except (TypeError, ValueError):
            names = []
    high = info.max_args if info.max_args is not None else max(info.min_args, len(names))
    while len(names) < high:
        names.append(f"arg{len(names) + 1}")
    args = [name if i < info.min_args else f"{name} = null" for i, name in enumerate(names[:high])]
    return f"{info.name}({', '.join(args)}) :: ANY?"


def apoc_help(ctx, text):
    """apoc.help: functions and procedures under apoc.* whose name or description contains ``text``."""
    from .exec import functions
    wanted = (text or "").lower()
    rows = []
    for proc in ctx.db.procedures.all():
        if proc.name.lower().startswith("apoc.") and (wanted in proc.name.lower() or wanted in proc.description.lower()):
            rows.append({"type": "procedure", "name": proc.name, "text": proc.description,
                         "signature": proc.signature(), "roles": None, "writes": proc.mode == "WRITE",
                         "core": True, "isDeprecated": False})
    for info in functions.catalog():
        if info.name.lower().startswith("apoc.") and (wanted in info.name.lower() or wanted in info.description.lower()):
            rows.append({"type": "function", "name": info.name, "text": info.description,
                         "signature": _function_signature(info), "roles": None, "writes": None, "core": True,
                         "isDeprecated": False})
    return sorted(rows, key=lambda r: (r["type"], r["name"].lower()))


def util_sleep(ctx, duration):
    """apoc.util.sleep: wait ``duration`` ms in short slices, each ending with a cancellation check."""
    if duration is None or duration <= 0:
        return []
    end = time.monotonic() + min(duration, MAX_SLEEP_MS) / 1000.0
    while True:
        ctx.check_now()
        left = end - time.monotonic()
        if left <= 0:
            return []
        time.sleep(min(SLEEP_SLICE_S, left))


def util_validate(ctx, predicate, message, params=None):
    """apoc.util.validate: raise the formatted message when the predicate holds."""
    if predicate is True:
        raise validation_error(message, params or [])
    return []


def _partition_rows(ctx, coll, size):
    from .exec.functions.apoc.coll import partition
    parts = partition(ctx, coll, size)
    return [{"value": part} for part in parts or []]
