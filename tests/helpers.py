"""Small helpers shared by the tests: run a statement on the engine and take its rows."""
from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
ALL = 1 << 30


def rows(target, text: str, params: dict | None = None) -> list:
    """Every row of one statement, as tuples; ``target`` is an engine ``Database`` or a session."""
    session = target.session() if hasattr(target, "session") else target
    return session.run(text, params or {}).fetch(ALL)


def plan_operators(target, text: str) -> list[str]:
    """The operator names of ``EXPLAIN text`` from the root down its first children (a linear plan)."""
    session = target.session() if hasattr(target, "session") else target
    plan = session.run("EXPLAIN " + text).consume().plan
    operators = []
    while plan:
        operators.append(plan["operator"])
        plan = (plan.get("children") or [None])[0]
    return operators


def raises_code(connection, text: str, code: str, params: dict | None = None) -> None:
    """``text`` run on a driver ``connection`` raises a ClientError with Neo4j code ``code``."""
    import pytest

    from relate.errors import ClientError
    with pytest.raises(ClientError) as caught:
        connection.execute(text, params or {}).consume()
    assert caught.value.code == code, caught.value


def run(target, text: str, params: dict | None = None) -> None:
    """Run one statement to the end and drop its rows."""
    session = target.session() if hasattr(target, "session") else target
    session.run(text, params or {}).consume()


def tck_features() -> Path:
    """The openCypher TCK's ``features`` folder: ``RELATE_TCK_DIR``, else ``../shared/tck/features``.

    CI always has it, so a missing folder is an error (at collection), never a silent skip.
    """
    from tests.tck.runner import default_features_dir
    path = default_features_dir()
    if path is None or not path.is_dir():
        raise FileNotFoundError("openCypher TCK features not found: put them at ../shared/tck/features "
                                "beside the repository or set RELATE_TCK_DIR")
    return path


def cookbook_spec() -> Path:
    """The cookbook spec page (``../shared/spec/000_*.txt`` beside the repository); missing is an error."""
    found = sorted((REPO.parent / "shared" / "spec").glob("000_*.txt"))
    if not found:
        raise FileNotFoundError("the cookbook spec ../shared/spec/000_*.txt is not beside the repository")
    return found[0]


def with_rules_and_without(db, tx, text: str, params: dict) -> list:
    """The sorted first column of ``text`` on snapshot ``tx`` planned with the optimizer rules and without
    (or the error class each way): two entries that must be equal."""
    from relate.server.query.context import ExecContext
    from relate.server.query.parser import parse
    from relate.server.query.planner import plan_query
    got: list = []
    for optimize in (True, False):
        plan = plan_query(parse(text).body, tx, db.procedures, optimize_plans=optimize)
        try:
            got.append(sorted(row[0] for row in plan.root.rows(ExecContext(tx, params, db), {})))
        except Exception as exc:                    # the same error both ways
            got.append(type(exc).__name__)
    return got
