"""Neo4j's named full-text analyzers beyond the default: english (possessives, stop words, Porter stems),
classic, stop and unicode_whitespace, on both engines."""
from __future__ import annotations

import pytest

import relate
from relate.server.index.analyzers import get_analyzer


def test_english_analyzer_drops_possessives_and_stop_words_and_stems():
    english = get_analyzer("english")
    assert english.tokens("The dog's connections were running LATE") == ["dog", "connect", "were", "run", "late"]
    assert [pos for pos, _ in english.analyze("the cat is here")] == [1, 3]     # positions keep the gaps
    assert get_analyzer("stop").tokens("Route 66 is the road") == ["route", "road"]
    assert get_analyzer("unicode_whitespace").tokens("A\u2003b-C") == ["A", "b-C"]
    assert get_analyzer("classic").tokens("The X1 model") == ["x1", "model"]


@pytest.mark.parametrize("engine", ["whoosh", "tantivy"])
def test_english_full_text_index_matches_word_forms(engine):
    db = relate.connect(":memory:")
    db.execute("CREATE (:Movie {title: 'The Matrix', description: $d}), (:Movie {title: 'Other', "
               "description: 'A connected runner'})", {"d": "The dog's connections were running late"}).consume()
    db.execute("CREATE FULLTEXT INDEX plots FOR (n:Movie) ON EACH [n.title, n.description] OPTIONS {indexConfig: "
               f"{{`fulltext.analyzer`: 'english', `fulltext.engine`: '{engine}'}}}}").consume()
    db.execute("CALL db.awaitIndexes(60)").consume()
    hits = db.execute("CALL db.index.fulltext.queryNodes('plots', 'connection run dog') YIELD node, score "
                      "RETURN node.title AS title ORDER BY score DESC").fetchall()
    assert [h["title"] for h in hits] == ["The Matrix", "Other"]
    assert db.execute("CALL db.index.fulltext.queryNodes('plots', 'the') YIELD node RETURN node").fetchall() == []
    analyzers = {r[0] for r in db.execute("CALL db.index.fulltext.listAvailableAnalyzers() YIELD analyzer "
                                          "RETURN analyzer")}
    assert {"english", "standard-no-stop-words", "classic", "stop", "unicode_whitespace"} <= analyzers
