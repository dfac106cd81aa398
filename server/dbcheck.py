"""``relate check DIR``: storage checks (storage/verify.py) plus the engine's: every constraint holds
on the data, and every vector / full-text index is ONLINE and holds exactly what a rebuild from the
store holds (each entity's vector, each entity's tokens). Works on a private copy; the directory itself
is never changed."""
from __future__ import annotations

import os

from relate.protocol.errors import ConstraintValidationFailed

from .storage.verify import Problem, verify


def check_database(directory: str) -> list[Problem]:
    """Every problem found; a directory too damaged to read is one problem, never an exception."""
    if os.path.isdir(directory) and not _holds_a_database(directory):
        return [Problem("open", f"{directory} holds no database (no snapshot, WAL segment or manifest)")]
    # WAL damage followed by valid commits and files missing per the checkpoint manifest
    # (storage/check.py) come first: opening such a directory is refused.
    from .storage.check import check_directory
    try:
        healthy, lines = check_directory(directory)
        ours = [] if healthy else [Problem("wal", line) for line in lines if line.startswith("MISSING")
                                   or (line.startswith("DAMAGED: ") and " at byte " in line)]
        return verify(directory, opened=_engine_checks) + ours
    except (OSError, RecursionError, ValueError) as exc:     # a segment that is a folder, a hostile manifest
        return [Problem("open", f"{directory} cannot be read as a database: {_reason(exc)}")]


def _holds_a_database(directory: str) -> bool:
    return any(name in ("snapshot.msgpack", "manifest.json") or name.startswith("wal-")
               for name in os.listdir(directory))


def _reason(exc: BaseException) -> str:
    if isinstance(exc, RecursionError):
        return "a file is nested too deeply to decode"
    return getattr(exc, "message", None) or str(exc) or type(exc).__name__


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
    try:
        db = Database(store, copy)
    except OSError as exc:          # e.g. a file where the search index folder should be
        return problems + [Problem("search-index", f"the search indexes cannot be opened: {exc}")]
    try:
        manager = db.index_manager
        if manager is not None:
            manager.await_indexes(3600)
            for row in manager.list():
                problems += _search_index_problems(store, row)
            problems += _rebuild_differences(store, manager)
    finally:
        db.close()
    return problems


def _rebuild_differences(store, manager) -> list[Problem]:
    """Each vector and full-text index's content (entity -> vector / tokens) against an in-memory
    rebuild from the store: saved index files that describe other data are found, not only wrong counts."""
    from .index.manager import IndexManager
    rebuilt = IndexManager(store, None)
    problems = []
    try:
        rebuilt.await_indexes(3600)
        for row in manager.list():
            name = row["name"]
            got, want = _content(manager, name), _content(rebuilt, name)
            if got is None or want is None or got == want:
                continue
            differ = sorted(k for k in got.keys() | want.keys() if got.get(k) != want.get(k))
            problems.append(Problem("search-index", f"index {name} differs from a rebuild for {len(differ)} "
                                                    f"entities (ids {differ[:5]}); drop and recreate it"))
    finally:
        rebuilt.close(save=False)
    return problems


def _content(manager, name: str) -> dict | None:
    """What index ``name`` holds (the index structure's ``content()``), None where it cannot say."""
    try:
        impl = manager.get(name).impl
    except Exception:       # noqa: BLE001 -- gone or failed: reported by _search_index_problems
        return None
    content = getattr(impl, "content", None)
    return content() if callable(content) else None


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

