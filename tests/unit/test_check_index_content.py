"""``relate check`` compares every vector and full-text index's content with a rebuild from the store,
so index files that describe other data (same counts, wrong vectors or text) are found."""
from __future__ import annotations

import relate
from relate.server.dbcheck import _rebuild_differences, check_database
from relate.server.engine import Database


def _seed(path) -> None:
    with relate.connect(path) as conn:
        conn.execute("CREATE VECTOR INDEX v FOR (n:Doc) ON (n.e) OPTIONS {indexConfig: {`vector.dimensions`: 3}}")
        conn.execute("CREATE FULLTEXT INDEX t FOR (n:Doc) ON EACH [n.text]")
        conn.execute("UNWIND range(1, 20) AS i CREATE (:Doc {e: [i, 1.0, 0.5], text: 'note number ' + i})")
        conn.execute("CALL db.awaitIndexes()")


def test_a_clean_database_checks_clean(tmp_path):
    _seed(tmp_path / "db")
    assert check_database(str(tmp_path / "db")) == []


def test_an_index_holding_other_vectors_or_text_is_reported(tmp_path):
    _seed(tmp_path / "db")
    db = Database.open(str(tmp_path / "db"))
    try:
        manager = db.index_manager
        manager.await_indexes(60)
        assert _rebuild_differences(db.store, manager) == []
        vectors, texts = manager.get("v").impl, manager.get("t").impl
        key = next(iter(vectors.content()))
        vectors.upsert(key, [9.0, 9.0, 9.0], {})                  # same count, another vector
        texts.apply({key: texts.analyze({"text": "something else"})})
        problems = [p.message for p in _rebuild_differences(db.store, manager)]
    finally:
        db.close()
    assert len(problems) == 2
    assert any(m.startswith("index v differs from a rebuild for 1 entities") for m in problems)
    assert any(m.startswith("index t differs from a rebuild for 1 entities") for m in problems)
