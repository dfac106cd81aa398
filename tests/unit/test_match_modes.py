"""Cypher 25 match modes, on the Königsberg bridges of Neo4j's manual: DIFFERENT RELATIONSHIPS (the
default: no relationship twice in one match) and REPEATABLE ELEMENTS (walks, bounded quantifiers)."""
from __future__ import annotations

import pytest

import relate
from relate.errors import CypherSyntaxError

BRIDGES = """
CREATE (kneiphof:Location {name: "Kneiphof"}), (northBank:Location {name: "North Bank"}),
  (southBank:Location {name: "South Bank"}), (lomse:Location {name: "Lomse"}),
  (kneiphof)-[:BRIDGE {id: 1}]->(northBank), (kneiphof)-[:BRIDGE {id: 6}]->(southBank),
  (kneiphof)-[:BRIDGE {id: 7}]->(lomse), (northBank)-[:BRIDGE {id: 5}]->(kneiphof),
  (northBank)-[:BRIDGE {id: 2}]->(lomse), (southBank)-[:BRIDGE {id: 4}]->(kneiphof),
  (southBank)-[:BRIDGE {id: 3}]->(lomse)
"""
FROM_KNEIPHOF = "p = (:Location {name: 'Kneiphof'})-[:BRIDGE]-{7}()"


@pytest.fixture(scope="module")
def db():
    conn = relate.connect(":memory:")
    conn.execute(BRIDGES)
    yield conn
    conn.close()


def rows(db, statement):
    return [tuple(row) for row in db.execute(statement)]


def test_different_relationships_is_the_default(db):
    # seven bridges, each once: no walk of 7 crosses them all from Kneiphof (Euler's answer)
    assert rows(db, f"MATCH {FROM_KNEIPHOF} RETURN count(p)") == [(0,)]
    assert rows(db, f"MATCH DIFFERENT RELATIONSHIPS {FROM_KNEIPHOF} RETURN count(p)") == [(0,)]
    assert rows(db, "MATCH (a)-[r]-(b)-[s]-(c) WHERE r = s RETURN count(*)") == [(0,)]


def test_repeatable_elements_matches_walks(db):
    assert rows(db, f"MATCH REPEATABLE ELEMENTS {FROM_KNEIPHOF} RETURN count(p) AS pathCount") == [(10583,)]
    assert rows(db, "MATCH REPEATABLE ELEMENTS p = (start:Location {name: 'Kneiphof'})-[:BRIDGE]-{,9}(start) "
                    "WHERE all(bridge IN range(1, 7) WHERE bridge IN [r IN relationships(p) | r.id]) "
                    "RETURN [r IN relationships(p) | r.id] AS crossed ORDER BY length(p), crossed LIMIT 1") == [
        ([1, 1, 4, 3, 2, 5, 6, 3, 7],)]
    # a relationship pattern may meet the same relationship again (there and back over each bridge)
    assert rows(db, "MATCH REPEATABLE ELEMENTS (a)-[r]-(b)-[s]-(c) WHERE r = s RETURN count(*)") == [(14,)]
    # there and back from Lomse: one walk per bridge (each neighbour is one bridge away); none as trails
    there_and_back = "(a:Location {name: 'Lomse'}) ((x)-[b:BRIDGE]-(y)){2} (a) RETURN count(*)"
    assert rows(db, f"MATCH REPEATABLE ELEMENTS {there_and_back}") == [(3,)]
    assert rows(db, f"MATCH {there_and_back}") == [(0,)]


def test_repeatable_elements_needs_an_upper_bound_unless_a_selector_picks(db):
    with pytest.raises(CypherSyntaxError, match="infinite number of rows under match mode 'REPEATABLE ELEMENTS'"):
        rows(db, "MATCH REPEATABLE ELEMENTS p = (start:Location {name: 'Kneiphof'})-[:BRIDGE]-+(start) RETURN count(p)")
    assert rows(db, "MATCH REPEATABLE ELEMENTS p = SHORTEST 1 (:Location {name: 'Kneiphof'})-[:BRIDGE]-+"
                    "(:Location {name: 'Lomse'}) RETURN length(p)") == [(1,)]


def test_the_mode_words_stay_usable_as_names(db):
    assert rows(db, "WITH 1 AS repeatable, 2 AS elements, 3 AS different, 4 AS relationships "
                    "RETURN repeatable + elements + different + relationships") == [(10,)]
