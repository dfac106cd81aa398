"""Embedded end to end through relate.connect(path): the cookbook's setup and load on a small fixture,
transactions, and the errors users meet."""
import importlib.util
import pathlib

import pytest

import relate
from relate.embedders import hash384
from relate.errors import (ArgumentError, ConstraintValidationFailed, CypherSyntaxError, CypherTypeError,
                           ParameterMissing)

# The cookbook's own statements (examples/hybrid-recall/statements.py), loaded by path.
_SPEC = importlib.util.spec_from_file_location(
    "hybrid_recall_statements", pathlib.Path(__file__).parents[2] / "examples" / "hybrid-recall" / "statements.py")
_STATEMENTS = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(_STATEMENTS)
SETUP, LOAD_NOTES, LOAD_DECISIONS, COUNT = (_STATEMENTS.SETUP, _STATEMENTS.LOAD_NOTES, _STATEMENTS.LOAD_DECISIONS,
                                            _STATEMENTS.COUNT)

TEXTS = [("n01", "Customer login goes through Auth0.", "session-1", ["auth"]),
         ("n02", "Refresh tokens rotate on every use.", "session-1", ["auth", "platform"]),
         ("n03", "Kafka topics are per tenant.", "session-2", ["kafka"]),
         ("n04", "Move login to Okta.", "session-2", ["auth"])]
NOTES = [{"id": i, "text": t, "session": s, "ts": 1772442000000 + k * 60_000, "topics": topics, "e": hash384(t)}
         for k, (i, t, s, topics) in enumerate(TEXTS)]
DECISIONS = [{"note": "n04", "topic": "auth", "text": "move to Okta", "ts": 1773000000000},
             {"note": "n03", "topic": "kafka", "text": "one topic per tenant", "ts": 1772500000000}]


def total(counters_list):
    out = relate.Counters()
    for counters in counters_list:
        for key, value in counters.items():
            out.add(key, value)
    return out


@pytest.fixture
def db(tmp_path):
    with relate.connect(str(tmp_path / "notes.rl")) as connection:
        yield connection


def load(db):
    setup = total(db.execute(q).summary.counters for q in SETUP)
    loaded = total([db.execute(LOAD_NOTES, {"notes": NOTES}).summary.counters,
                    db.execute(LOAD_DECISIONS, {"decisions": DECISIONS}).summary.counters])
    return setup, loaded


def test_cookbook_setup_load_and_count(db, tmp_path):
    setup, loaded = load(db)
    assert str(setup) == "indexes added: 3, constraints added: 3"
    # properties: 4 notes x 5 + 3 topics x 1 + 2 decisions x 2; relationships: 5 ABOUT + 2 DECIDED
    assert str(loaded) == "nodes created: 7, relationships created: 7, properties set: 27, labels added: 7"
    row = db.execute(COUNT).fetchone()
    assert tuple(row) == (4, 2, 3, 5, 2) and row["about"] == 5
    assert total([db.execute(q).summary.counters for q in SETUP]) == {}     # IF NOT EXISTS: nothing new


def test_data_and_schema_survive_reopening(tmp_path):
    path = str(tmp_path / "reopen.rl")
    with relate.connect(path) as db:
        load(db)
    with relate.connect(path) as db:
        assert tuple(db.execute(COUNT).fetchone()) == (4, 2, 3, 5, 2)
        with pytest.raises(ConstraintValidationFailed):
            db.execute("CREATE (:Note {id: 'n01'})")
        names = {r["name"] for r in db.execute("SHOW INDEXES YIELD name")}
        assert {"note_e", "note_t", "dec_t", "note_id", "topic_name"} <= names


def test_transactions_commit_and_roll_back(db):
    with db.transaction() as tx:
        tx.execute("CREATE (:T {v: 1})")
    with pytest.raises(RuntimeError):
        with db.transaction() as tx:
            tx.execute("CREATE (:T {v: 2})")
            raise RuntimeError("abort")
    tx = db.begin()
    tx.execute("CREATE (:T {v: 3})")
    tx.rollback()
    assert [r[0] for r in db.execute("MATCH (t:T) RETURN t.v")] == [1]


def test_a_failing_statement_leaves_no_trace(db):
    load(db)
    with pytest.raises(ConstraintValidationFailed):
        db.execute("UNWIND ['x1', 'x2', 'n01'] AS id CREATE (:Note {id: id})")
    with db.transaction() as tx:
        tx.execute("CREATE (:Note {id: 'ok'})")
        with pytest.raises(ConstraintValidationFailed):
            tx.execute("CREATE (:Note {id: 'y1'})-[:ABOUT]->(:Topic {name: 'auth'})")
    assert db.execute("MATCH (n:Note) RETURN count(n)").fetchone()[0] == 5
    assert db.execute("MATCH (t:Topic) RETURN count(t)").fetchone()[0] == 3
    with pytest.raises(ConstraintValidationFailed):
        db.execute("MATCH (n:Note {id: 'n04'}), (t:Topic {name: 'kafka'}) CREATE (n)-[:DECIDED {ts: 'soon'}]->(t)")
    assert db.execute("MATCH ()-[d:DECIDED]->() RETURN count(d)").fetchone()[0] == 2


def test_wrong_length_vector_fails_the_whole_statement(db):
    load(db)
    bad = [dict(NOTES[0], id="x1"), dict(NOTES[0], id="x2", e=NOTES[0]["e"][:383])]
    with pytest.raises(ArgumentError) as info:
        db.execute(LOAD_NOTES, {"notes": bad})
    assert "384" in str(info.value)
    assert db.execute("MATCH (n:Note) WHERE n.id STARTS WITH 'x' RETURN count(n)").fetchone()[0] == 0


def test_syntax_error_names_line_column_and_shows_a_caret(db):
    with pytest.raises(CypherSyntaxError) as info:
        db.execute("MATCH (n:Note)\nRETURN n.id +")
    error = info.value
    assert (error.line, error.column) == (2, 14)
    assert error.excerpt.splitlines() == ["RETURN n.id +", " " * 13 + "^"]
    assert error.code == "Neo.ClientError.Statement.SyntaxError"


def test_unknown_variable(db):
    with pytest.raises(CypherSyntaxError) as info:
        db.execute("MATCH (n:Note) RETURN m.id")
    assert info.value.detail == "UndefinedVariable" and "`m`" in str(info.value)


def test_wrong_argument_type(db):
    with pytest.raises(CypherTypeError) as info:
        db.execute("RETURN toUpper($x) AS up", {"x": 5}).fetchall()
    assert info.value.code == "Neo.ClientError.Statement.TypeError"


def test_missing_parameter(db):
    with pytest.raises(ParameterMissing) as info:
        db.execute("MATCH (n:Note {id: $id}) RETURN n")
    assert info.value.code == "Neo.ClientError.Statement.ParameterMissing"


def test_rows_stream_and_index_by_name(db):
    load(db)
    result = db.execute("MATCH (n:Note) RETURN n.id AS id, n ORDER BY id")
    first = result.fetchone()
    assert first["id"] == "n01" and first.n["session"] == "session-1" and first.n.labels == {"Note"}
    assert [r.id for r in result] == ["n02", "n03", "n04"]
