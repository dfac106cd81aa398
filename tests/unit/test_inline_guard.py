"""relate.server.inline: a statement running on the server's event loop refuses the steps that may wait
(a model call, a search index catching up on commits or populating) with MustNotWait, so the server
runs it on the session thread; a search of a ready index runs as usual."""
import pytest

from relate.server.inline import ON_LOOP, MustNotWait
from tests.helpers import rows, run

SEARCH = ("MATCH (n:Doc) SEARCH n IN (VECTOR INDEX doc_e FOR $v LIMIT 2) SCORE AS s "
          "RETURN n.name AS name ORDER BY s DESC")


@pytest.fixture
def db(db):
    run(db, "CREATE VECTOR INDEX doc_e FOR (n:Doc) ON (n.e) OPTIONS {indexConfig: "
            "{`vector.similarity_function`: 'cosine', `vector.embedder`: 'hash-384'}}")
    run(db, "UNWIND ['red apple', 'green pear', 'blue sky'] AS t CREATE (:Doc {name: t, e: ai.text.embed(t)})")
    run(db, "CALL db.awaitIndexes(30)")
    return db


def on_loop(fn):
    token = ON_LOOP.set(True)
    try:
        return fn()
    finally:
        ON_LOOP.reset(token)


def test_a_ready_index_is_searched_on_the_loop(db):
    vector = rows(db, "RETURN ai.text.embed('blue sky') AS v")[0][0]
    assert rows(db, SEARCH, {"v": vector}) == on_loop(lambda: rows(db, SEARCH, {"v": vector}))


def test_a_model_call_is_refused_on_the_loop(db):
    with pytest.raises(MustNotWait):
        on_loop(lambda: rows(db, SEARCH, {"v": "blue sky"}))
    assert rows(db, SEARCH, {"v": "blue sky"})[0] == ("blue sky",)      # off the loop: as usual


def test_an_index_a_writer_holds_is_refused_on_the_loop(db):
    index = db.index_manager.get("doc_e")
    vector = rows(db, "RETURN ai.text.embed('blue sky') AS v")[0][0]
    with index.rw.write():                   # the index worker applying a batch of commits
        with pytest.raises(MustNotWait):
            on_loop(lambda: rows(db, SEARCH, {"v": vector}))
    assert on_loop(lambda: rows(db, SEARCH, {"v": vector}))[0] == ("blue sky",)


def test_only_cheap_vector_searches_run_on_the_loop(db, monkeypatch):
    from relate.server.index import vector as vector_index
    run(db, "CREATE FULLTEXT INDEX doc_t FOR (n:Doc) ON EACH [n.name]")
    run(db, "CALL db.awaitIndexes(30)")
    text = "MATCH (n:Doc) SEARCH n IN (FULLTEXT INDEX doc_t FOR 'sky' LIMIT 2) SCORE AS s RETURN n.name AS name"
    with pytest.raises(MustNotWait):            # full-text scoring cannot bound its cost: session thread
        on_loop(lambda: rows(db, text))
    assert rows(db, text) == [("blue sky",)]
    vector = rows(db, "RETURN ai.text.embed('blue sky') AS v")[0][0]
    monkeypatch.setattr(vector_index, "LOOP_MAX_VALUES", 100)     # as if the index were large
    with pytest.raises(MustNotWait):
        on_loop(lambda: rows(db, SEARCH, {"v": vector}))
    assert rows(db, SEARCH, {"v": vector})[0] == ("blue sky",)


def test_a_statement_past_its_loop_budget_stops_at_its_next_check(db):
    """No watchdog thread: the statement's own checks stop it once INLINE_UNTIL has passed."""
    import time

    from relate.server.inline import INLINE_UNTIL, OverInlineBudget
    slow = "UNWIND range(1, 50000000) AS i WITH i WHERE i < 0 RETURN count(i) AS c"
    token = INLINE_UNTIL.set(time.monotonic() + 0.005)
    started = time.perf_counter()
    try:
        with pytest.raises(OverInlineBudget):
            on_loop(lambda: rows(db, slow))
    finally:
        INLINE_UNTIL.reset(token)
    assert time.perf_counter() - started < 1.0
    assert rows(db, "UNWIND range(1, 1000) AS i WITH i WHERE i < 0 RETURN count(i) AS c") == [(0,)]
