"""String similarity functions and the trigram name index (pg_trgm semantics)."""
import pytest

from relate.errors import CypherTypeError
from relate.server.engine import Database
from relate.server.index.trigram import TrigramIndex, trigram_similarity, trigrams


@pytest.fixture(scope="module")
def db():
    db = Database.open(None)
    yield db
    db.close()


def value(db, query, params=None):
    return db.session().run(query, params).fetch(1)[0][0]


def test_trigrams_follow_pg_trgm():
    # pg_trgm: show_trgm('cat') = {"  c"," ca","at ","cat"}
    assert trigrams("Cat") == {"  c", " ca", "cat", "at "}
    assert trigrams("a-b") == {"  a", " a ", "  b", " b "}      # punctuation separates words
    # similarity('word', 'two words') in PostgreSQL is 4/11 = 0.363636
    assert trigram_similarity("word", "two words") == pytest.approx(4 / 11)
    assert trigram_similarity("", "") == 0.0


def test_similarity_functions_in_cypher(db):
    assert value(db, "RETURN text.trigram.similarity('Kubernetes', 'kubernetes')") == 1.0
    assert value(db, "RETURN text.trigram.similarity('word', 'two words')") == pytest.approx(4 / 11)
    assert value(db, "RETURN text.levenshtein('kitten', 'sitting')") == 3
    assert value(db, "RETURN apoc.text.levenshteinDistance('kitten', 'sitting')") == 3
    assert value(db, "RETURN text.levenshteinSimilarity('kitten', 'sitting')") == pytest.approx(1 - 3 / 7)
    assert value(db, "RETURN text.jaroWinklerSimilarity('MARTHA', 'MARHTA')") == pytest.approx(0.9611, abs=1e-4)
    assert value(db, "RETURN apoc.text.jaroWinklerDistance('MARTHA', 'MARHTA')") == pytest.approx(0.0389, abs=1e-4)
    assert value(db, "RETURN text.trigram.similarity(null, 'a')") is None
    with pytest.raises(CypherTypeError):
        value(db, "RETURN text.levenshtein(1, 'a')")


def test_trigram_index_finds_nearest_names_and_follows_changes():
    index = TrigramIndex()
    index.build([(1, "Kubernetes"), (2, "Kafka"), (3, "Apache Kafka"), (4, "PostgreSQL"), (5, None)])
    hits = index.search("kafak", k=3, threshold=0.1)
    assert [key for key, _ in hits][:2] == [2, 3]
    assert hits[0][1] == pytest.approx(trigram_similarity("kafak", "Kafka"))
    assert index.search("kubernetis", k=1, threshold=0.3)[0][0] == 1
    index.apply({2: None, 6: "Kafka Streams"})
    assert [key for key, _ in index.search("kafka", k=5, threshold=0.3)] == [3, 6]
    assert index.search("zzzz", k=5, threshold=0.3) == []


def test_name_index_is_kept_in_sync_with_commits(db):
    session = db.session()
    session.run("CREATE (:Entity {name: 'Okta'}), (:Entity {name: 'Auth0'})").consume()
    names = db.name_indexes.get("Entity", "name")
    assert [names.text(k) for k, _ in names.search("okta", 5, 0.5)] == ["Okta"]
    session.run("MATCH (e:Entity {name: 'Okta'}) SET e.name = 'Okta Identity'").consume()
    session.run("CREATE (:Entity {name: 'Octa'})").consume()
    session.run("MATCH (e:Entity {name: 'Auth0'}) DELETE e").consume()
    assert [names.text(k) for k, _ in names.search("okta identity", 5, 0.3)] == ["Okta Identity"]
    assert names.search("auth0", 5, 0.3) == []
    assert [names.text(k) for k, _ in names.search("octa", 1, 0.3)] == ["Octa"]
