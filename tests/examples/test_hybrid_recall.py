"""The cookbook recipe "Hybrid recall: vector + full-text + RRF", end to end against an embedded database:
every statement with the recipe's parameters, every table exactly (ids, order, scores as printed)."""
from __future__ import annotations

import importlib.util
import os
from types import SimpleNamespace

import pytest

import relate

EXAMPLE = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "hybrid-recall")


def _module(name: str):
    """Import a module of the example folder (its name has a hyphen, so it is not a package)."""
    spec = importlib.util.spec_from_file_location(f"hybrid_recall_{name}", os.path.join(EXAMPLE, f"{name}.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


S = _module("statements")
X = _module("expected")
FIXTURE = S.load_fixture()


def _run_steps(conn, statements, params, errors) -> dict:
    """Run statements one by one, adding up their counters; a failing one is recorded, not raised, so
    the tables that do not depend on it can still be checked."""
    total: dict = {}
    for q in statements:
        try:
            counters = conn.execute(q, params).summary.counters
        except Exception as exc:  # noqa: BLE001 - reported by test_setup_counters / test_load_counters
            errors.append(f"{q.splitlines()[0]} ...: {type(exc).__name__}: {exc}")
            continue
        for k, v in counters.items():
            if v:
                total[k] = total.get(k, 0) + v
    return total


@pytest.fixture(scope="module")
def recipe(tmp_path_factory):
    """One database for the whole recipe: setup, then load, keeping each step's counters and errors."""
    conn = relate.connect(str(tmp_path_factory.mktemp("hybrid") / "notes.rl"))
    try:
        setup_errors, load_errors = [], []
        setup = _run_steps(conn, S.SETUP, {}, setup_errors)
        load = _run_steps(conn, [S.LOAD_NOTES, S.LOAD_DECISIONS], S.load_params(FIXTURE), load_errors)
        yield SimpleNamespace(db=conn, setup=setup, load=load, setup_errors=setup_errors,
                              load_errors=load_errors)
    finally:
        conn.close()


@pytest.fixture
def db(recipe):
    return recipe.db


def run(db, statement: str, block: str | None):
    result = db.execute(statement, S.question_params(FIXTURE, block))
    rows = [tuple(r) for r in result]
    return result.columns, rows


def close(got: float, want: float) -> bool:
    """Scores match to 1e-9: the statements round with round(x, 4) themselves, and the cookbook prints
    BM25 scores in full."""
    if got is None or want is None:
        return got is want
    return abs(got - want) <= 1e-9


def assert_rows(rows, want, float_cols: set[int]) -> None:
    """Exact row-by-row match; the columns in float_cols compare as scores."""
    assert [r[0] for r in rows] == [w[0] for w in want], f"ids/order: got {rows}"
    assert len(rows) == len(want)
    for got, exp in zip(rows, want):
        for i, (g, e) in enumerate(zip(got, exp)):
            if i in float_cols:
                assert close(g, e), f"column {i}: got {g!r}, want {e!r} in {got}"
            else:
                assert g == e, f"column {i}: got {g!r}, want {e!r} in {got}"


def iso(value) -> str:
    return value.isoformat() if hasattr(value, "isoformat") else str(value)


# -- setup and load ------------------------------------------------------------------------------------

def test_setup_counters(recipe):
    assert recipe.setup_errors == []
    assert recipe.setup == X.SETUP_COUNTERS   # indexes added: 3, constraints added: 3


def test_load_counters(recipe):
    # nodes created: 46, relationships created: 56, properties set: 224, labels added: 46
    assert recipe.load_errors == []
    assert recipe.load == X.LOAD_COUNTERS


def test_count_row(db):
    columns, rows = run(db, S.COUNT, None)
    assert columns == X.COUNT_COLUMNS
    assert rows == X.COUNT                          # 40 | 3 | 6 | 47 | 9


# -- the two lists ---------------------------------------------------------------------------------------

def test_vector_list(db):
    columns, rows = run(db, S.VECTOR_LIST, "oauth")
    assert columns == X.VECTOR_COLUMNS
    assert_rows(rows, X.VECTOR_LIST, {2})


def test_vector_list_since_march_9(db):
    # "Change since to 2026-03-09T00:00:00Z": the session-1 notes drop out, five notes remain.
    _, rows = run(db, S.VECTOR_LIST, "oauth_since_0309")
    assert [r[0] for r in rows] == X.VECTOR_LIST_SINCE_0309_IDS
    assert {r[1] for r in rows} == {"session-2", "session-3"}


def test_fulltext_list(db):
    columns, rows = run(db, S.FULLTEXT_LIST, "oauth")
    assert columns == X.FULLTEXT_COLUMNS
    assert_rows(rows, X.FULLTEXT_LIST, {1})


def test_filter_forms(db):
    columns, rows = run(db, S.FILTER_FORMS, "kafka_scope")
    assert columns == X.FILTER_COLUMNS
    assert rows == X.FILTER_FORMS


# -- fusion ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("block, want", [
    ("oauth", X.RRF_OAUTH),            # the explorer's fused table at k = 5
    ("revocation", X.RRF_REVOCATION),  # n16 first in the vector list, absent from full-text
    ("incident", X.RRF_INCIDENT),      # n26 first in full-text, absent from the vector list
])
def test_rrf(db, block, want):
    columns, rows = run(db, S.RRF, block)
    assert columns == X.RRF_COLUMNS
    assert_rows(rows, want, {3})


def test_recall_hop(db):
    columns, rows = run(db, S.RECALL, "oauth")
    assert columns == X.RECALL_COLUMNS
    assert_rows(rows, X.RECALL, {4})


def test_recall_paths(db):
    columns, rows = run(db, S.PATHS, "oauth")
    assert columns == X.PATHS_COLUMNS
    assert [r[:3] for r in rows] == X.PATHS
    for note, topic, decided_by, path in rows:
        assert isinstance(path, relate.Path)
        assert [n["id"] if "id" in n.keys() else n["name"] for n in path.nodes] == [note, topic, decided_by]
        assert [r.type for r in path.relationships] == ["ABOUT", "DECIDED"]
        decided = path.relationships[1]
        assert decided["text"] == {"auth": X.OKTA, "kafka": X.RETENTION}[topic]


# -- decisions and scope forms ---------------------------------------------------------------------------

def test_decision_search(db):
    columns, rows = run(db, S.DECISION_SEARCH, "decisions")
    assert columns == X.DECISION_COLUMNS
    rows = [(n, t, d, iso(day), s) for n, t, d, day, s in rows]
    assert_rows(rows, X.DECISIONS, {4})


def test_in_form(db):
    columns, rows = run(db, S.IN_FORM, "oauth")
    assert columns == ["id"]
    assert [r[0] for r in rows] == X.IN_FORM


def test_range_form(db):
    columns, rows = run(db, S.RANGE_FORM, "oauth")
    assert columns == X.RANGE_COLUMNS
    assert_rows(rows, X.RANGE_FORM, {2})


# -- the recipe's notes on engine bugs: assert the correct behaviour, not the bug ------------------------

@pytest.mark.parametrize("statement", [S.LATEST_DECISION, S.LATEST_DECISION_TWO_KEYS],
                         ids=["one key", "two keys"])
def test_latest_decision_order_by_limit(db, statement):
    # The cookbook reports Relate once returned the oldest decision (use Auth0 for customer login) for the
    # single-key form; the correct answer is the newest of the nine edges.
    newest = max(FIXTURE["decisions"], key=lambda d: d["ts"])["text"]
    _, rows = run(db, statement, None)
    assert rows == [(newest,)]
    assert newest != X.OLDEST_DECISION


def test_datetime_from_epoch_millis(db):
    # datetime({epochMillis: ms}) once returned year 0000; both forms must give 2026-03-16 (n27's ts).
    _, rows = run(db, "RETURN date(datetime.fromEpochMillis(1773652800000)) AS a, "
                      "date(datetime({epochMillis: 1773652800000})) AS b", None)
    assert [iso(v) for v in rows[0]] == ["2026-03-16", "2026-03-16"]


# -- the fixture itself (no database) -------------------------------------------------------------------

def test_fixture_reproduces_every_table():
    """The plain-Python reference recomputes every table above from fixture.json."""
    assert _module("verify_fixture").main() == 0
