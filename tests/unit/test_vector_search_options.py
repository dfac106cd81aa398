"""db.index.vector.setSearchOptions: search-time settings of a live vector index, durable, no rebuild."""
import numpy as np
import pytest

from relate.errors import ArgumentError, IndexNotFound
from relate.server.engine import Database

DDL = ("CREATE VECTOR INDEX e FOR (n:D) ON (n.v) WITH [n.g] "
       "OPTIONS {indexConfig: {`vector.dimensions`: 4, `vector.similarity_function`: 'cosine'}}")


def _open(directory):
    db = Database.open(directory)
    session = db.session()

    def run(query, params=None):
        return session.run(query, params).fetch(1000)
    return db, run


def _fill(run):
    rng = np.random.default_rng(3)
    rows = [{"i": i, "v": rng.normal(size=4).tolist(), "g": i % 3} for i in range(200)]
    run("UNWIND $rows AS r CREATE (:D {i: r.i, v: r.v, g: r.g})", {"rows": rows})


def test_set_search_options_in_place_and_durable(tmp_path):
    db, run = _open(str(tmp_path))
    run(DDL)
    _fill(run)
    run("CALL db.awaitIndexes(30)")
    managed = db.index_manager.get("e")
    impl = managed.impl
    before = run("MATCH (n:D) SEARCH n IN (VECTOR INDEX e FOR [1.0, 0.0, 0.0, 0.0] LIMIT 5) SCORE AS s "
                 "RETURN n.i")
    rows = run("CALL db.index.vector.setSearchOptions('e', {`vector.hnsw.ef_search`: 64, efSearch: 64, "
               "`vector.exact.max_scope`: 0})")
    assert rows[0][0] == "e" and rows[0][1]["vector.hnsw.ef_search"] == 64
    assert db.index_manager.get("e") is managed and managed.impl is impl      # no rebuild
    assert impl.config.ef_search == 64 and impl.config.exact_max_scope == 0
    shown = run("SHOW INDEXES YIELD name, options, createStatement WHERE name = 'e' RETURN options, createStatement")
    assert shown[0][0]["indexConfig"]["vector.hnsw.ef_search"] == 64
    assert "`vector.hnsw.ef_search`: 64" in shown[0][1]
    after = run("MATCH (n:D) SEARCH n IN (VECTOR INDEX e FOR [1.0, 0.0, 0.0, 0.0] LIMIT 5) SCORE AS s "
                "RETURN n.i")
    assert after == before
    db.close()
    db, run = _open(str(tmp_path))            # durable, and the saved files are reused (no re-population)
    run("CALL db.awaitIndexes(30)")
    managed = db.index_manager.get("e")
    assert managed.loaded_from_files
    assert managed.impl.config.ef_search == 64 and managed.definition.config["vector.hnsw.ef_search"] == 64
    assert run("MATCH (n:D) SEARCH n IN (VECTOR INDEX e FOR [1.0, 0.0, 0.0, 0.0] LIMIT 5) SCORE AS s "
               "RETURN n.i") == before
    db.close()


def test_set_search_options_rolls_back_with_its_transaction():
    db = Database.open(None)
    session = db.session()
    session.run(DDL).consume()
    session.begin()
    session.run("CREATE (:D {i: 1})").consume()          # a writing transaction: the change joins it
    session.run("CALL db.index.vector.setSearchOptions('e', {`vector.hnsw.ef_search`: 32})").consume()
    session.rollback()
    assert db.index_manager.get("e").definition.config["vector.hnsw.ef_search"] == "auto"
    session.begin()
    session.run("CALL db.index.vector.setSearchOptions('e', {`vector.hnsw.ef_search`: 32})").consume()
    session.commit()
    assert db.index_manager.get("e").impl.config.ef_search == 32
    db.close()


@pytest.mark.parametrize("options, message", [
    ({"vector.hnsw.m": 8}, "not a search option"),
    ({"vector.similarity_function": "euclidean"}, "not a search option"),
    ({"bogus": 1}, "not a search option"),
    ({"vector.hnsw.ef_search": 0}, "positive integer"),
    ({"vector.hnsw.ef_search": 1.5}, "positive integer"),
    ({"vector.hnsw.ef_search": True}, "positive integer"),
    ({"vector.hnsw.ef_search": 100000}, "at most"),
    ({}, "non-empty map"),
])
def test_set_search_options_rejects_bad_input(options, message):
    db, run = _open(None)
    run(DDL)
    with pytest.raises(ArgumentError, match=message):
        run("CALL db.index.vector.setSearchOptions('e', $o)", {"o": options})
    assert db.index_manager.get("e").definition.config["vector.hnsw.ef_search"] == "auto"
    db.close()


def test_set_search_options_unknown_or_fulltext_index():
    db, run = _open(None)
    run("CREATE FULLTEXT INDEX t FOR (n:D) ON EACH [n.text]")
    with pytest.raises(IndexNotFound):
        run("CALL db.index.vector.setSearchOptions('nope', {`vector.hnsw.ef_search`: 64})")
    with pytest.raises(ArgumentError, match="full-text|fulltext"):
        run("CALL db.index.vector.setSearchOptions('t', {`vector.hnsw.ef_search`: 64})")
    db.close()
