"""The graph side of retrieval: the gazetteer's choice of entity, fan-out and sibling rules of the traversal."""
import pytest

from relate.server.engine import Database

DIAG = "CALL db.retrieve.diagnostics($q, $o) YIELD step, details RETURN step, details"


@pytest.fixture(scope="module")
def db():
    db = Database.open(None)
    s = db.session()
    s.run("CREATE VECTOR INDEX chunk_embedding FOR (c:Chunk) ON (c.embedding) "
          "OPTIONS {indexConfig: {`vector.dimensions`: 384, `vector.embedder`: 'hash-384'}}").consume()
    s.run("CREATE FULLTEXT INDEX chunk_text FOR (c:Chunk) ON EACH [c.text]").consume()
    s.run("CREATE (:Document {id: 'd'})-[:HAS_CHUNK]->(:Chunk {id: 'd#0', text: 'filler', "
          "embedding: ai.text.embed('filler', {model: 'hash-384'})})").consume()
    s.run("UNWIND $names AS n CREATE (:Entity {name: n, normalized: toLower(n)})",
          {"names": ["Kiqe", "Kiqe Jeoct", "Acme", "Paris", "Widget", "Ann Bell", "Bo Chen", "Cy Dunn", "Di Egan"]}).consume()
    s.run("MATCH (c:Entity {name: 'Acme'}), (p:Entity {name: 'Paris'}), (w:Entity {name: 'Widget'}) "
          "CREATE (c)-[:HQ {sources: ['d1']}]->(p), (c)-[:MAKES {sources: ['d2']}]->(w)").consume()
    s.run("MATCH (c:Entity {name: 'Acme'}) UNWIND $people AS person MATCH (p:Entity {name: person.name}) "
          "CREATE (p)-[:WORKS_AT {sources: person.src}]->(c)",
          {"people": [{"name": "Ann Bell", "src": ["d3"]}, {"name": "Bo Chen", "src": ["d4", "d5", "d6"]},
                      {"name": "Cy Dunn", "src": ["d7", "d8"]}, {"name": "Di Egan", "src": ["d9"]}]}).consume()
    db.index_manager.await_indexes(10)
    yield db
    db.close()


def steps(db, question, **options):
    return {r[0]: r[1] for r in db.session().run(DIAG, {"q": question, "o": options}).fetch(100)}


def test_gazetteer_prefers_the_longest_match_and_ignores_possessives(db):
    assert steps(db, "Where is Kiqe Jeoct's employer?")["entities"]["resolved"] == ["Kiqe Jeoct"]
    assert steps(db, "what does kiqe make")["entities"]["resolved"] == ["Kiqe"]


def test_fanout_keeps_the_best_corroborated_facts_per_relation(db):
    # Acme: HQ 1, MAKES 1, WORKS_AT (incoming) 4 -> 2 kept (Bo Chen: 3 sources, Cy Dunn: 2)
    assert steps(db, "Where is Acme headquartered?")["traversal"]["facts"] == 4
    assert steps(db, "Where is Acme headquartered?", maxFanout=0)["traversal"]["facts"] == 6


def test_traversal_does_not_walk_back_to_siblings_by_default(db):
    # Ann Bell -> Acme (hop 1) -> Paris, Widget (hop 2); not on to Acme's other employees
    s = steps(db, "Who is Ann Bell's employer?", maxFanout=0)
    assert s["traversal"]["facts"] == 3 and s["traversal"]["entities"] == 4
    s = steps(db, "Who is Ann Bell's employer?", maxFanout=0, siblings=True)
    assert s["traversal"]["facts"] == 6
