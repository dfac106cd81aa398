"""``relate check DIR``: storage checks (storage/verify.py) plus the engine's: every constraint holds
on the data, and every vector / full-text index is ONLINE and covers exactly the entities a rebuild
would index. Works on a private copy; the directory itself is never changed."""
from __future__ import annotations

from relate.protocol.errors import ConstraintValidationFailed

from .storage.verify import Problem, verify


def check_database(directory: str) -> list[Problem]:
    # WAL damage followed by valid commits and files missing per the checkpoint manifest
    # (storage/check.py) come first: opening such a directory is refused.
    from .storage.check import check_directory
    healthy, lines = check_directory(directory)
    ours = [] if healthy else [Problem("wal", line) for line in lines
                               if line.startswith("MISSING") or (line.startswith("DAMAGED: ") and " at byte " in line)]
    return verify(directory, opened=_engine_checks) + ours


def _engine_checks(store, copy: str) -> list[Problem]:
    from .engine import Database
    from .query.schema.catalog import Catalog
    from .query.schema.enforce import validate_existing
    problems = []
    with store.begin_read() as tx:
        for constraint in Catalog.from_schema(tx.schema()).constraints.values():
            try:
                validate_existing(tx, constraint)
            except ConstraintValidationFailed as exc:
                problems.append(Problem("constraint", exc.message))
    db = Database(store, copy)
    try:
        manager = db.index_manager
        if manager is not None:
            manager.await_indexes(3600)
            for row in manager.list():
                problems += _search_index_problems(store, row)
    finally:
        db.close()
    return problems


def _search_index_problems(store, row: dict) -> list[Problem]:
    name = row["name"]
    if row["state"] != "ONLINE":
        return [Problem("search-index", f"index {name} is {row['state']}: {row.get('failureMessage') or ''}")]
    if row["type"] != "VECTOR":
        return []
    label, prop = row["labelsOrTypes"][0], row["properties"][0]
    with store.begin_read() as tx:
        if row["entityType"] == "NODE":
            expected = sum(1 for nid in tx.nodes_by_label(label) if tx.node_prop(nid, prop) is not None)
        else:
            expected = sum(1 for rid in tx.rels_by_type(label) if tx.rel_prop(rid, prop) is not None)
    got = row["size"] + row.get("skippedDocuments", 0)
    if got != expected:
        return [Problem("search-index", f"vector index {name} holds {got} entities, a rebuild {expected}")]
    return []

