"""db.entity.resolve: exact, trigram, embedding, create; in the caller's transaction; one entity under races."""
import threading

import pytest

import relate
from relate.errors import ArgumentError
from relate.server.engine import Database
from tests.server.conftest import AUTH, ServerProcess

CONSTRAINT = "CREATE CONSTRAINT entity_identity FOR (e:Entity) REQUIRE (e.normalized, e.workspace, e.type) IS UNIQUE"
RESOLVE = ("CALL db.entity.resolve($m, $o) YIELD mention, entity, created, stage, similarity "
           "RETURN mention, entity.name AS name, created, stage, similarity")


@pytest.fixture
def db():
    db = Database.open(None)
    db.session().run(CONSTRAINT).consume()
    yield db
    db.close()


def resolve(db, mentions, **options):
    return db.session().run(RESOLVE, {"m": mentions, "o": {"workspace": "w", **options}}).fetch(100)


def count(db, query="MATCH (e:Entity) RETURN count(e)"):
    return db.session().run(query).fetch(1)[0][0]


def test_stages_exact_trigram_embedding_then_create(db):
    first = resolve(db, [{"name": "Apache Kafka", "type": "Product"}, {"name": "PostgreSQL Database", "type": "Product"}])
    assert [(r[2], r[3]) for r in first] == [(True, "created"), (True, "created")]
    exact = resolve(db, [{"name": "  apache KAFKA. ", "type": "Product"}])
    assert exact[0][1:4] == ("Apache Kafka", False, "exact")
    typo = resolve(db, [{"name": "Apache Kafak", "type": "Product"}])
    assert typo[0][1:4] == ("Apache Kafka", False, "trigram") and typo[0][4] >= 0.6
    # a trigram threshold of 1.0 leaves only the embedding stage to find it
    other_type = resolve(db, [{"name": "Apache Kafka", "type": "Person"}])
    assert other_type[0][2:4] == (True, "created")           # identity includes the type
    other_ws = db.session().run(RESOLVE, {"m": ["Apache Kafka"], "o": {"workspace": "v"}}).fetch(10)
    assert other_ws[0][2] is True                              # ... and the workspace


def test_embedding_stage_matches_a_name_sharing_no_trigram_threshold(db):
    resolve(db, [{"name": "graph database engine", "type": "Concept"}], embedder="hash-384")
    # trigram similarity 0.69 (below 0.8), cosine of the hash-384 vectors 0.75 (above 0.7)
    rows = resolve(db, [{"name": "engines for graph databases", "type": "Concept"}], trigramThreshold=0.8,
                   embedder="hash-384", embeddingThreshold=0.7)
    assert rows[0][1:4] == ("graph database engine", False, "embedding")
    assert rows[0][4] == pytest.approx(0.746, abs=1e-3)
    strict = resolve(db, [{"name": "engines for graph databases", "type": "Concept"}], trigramThreshold=0.8,
                     embedder="hash-384", embeddingThreshold=0.8)
    assert strict[0][2:4] == (True, "created")


def test_embedding_stage_uses_the_entities_vector_index_by_default(db):
    """A vector index over Entity.embedding that declares its embedder: entities created by resolution
    get their vectors, and later mentions resolve by meaning without naming index or embedder."""
    db.session().run("CREATE VECTOR INDEX entity_vectors FOR (e:Entity) ON e.embedding "
                     "OPTIONS {indexConfig: {`vector.dimensions`: 384, `vector.embedder`: 'hash-384'}}").consume()
    created = resolve(db, [{"name": "graph database engine", "type": "Concept"}])
    assert created[0][2:4] == (True, "created")
    assert count(db, "MATCH (e:Entity) RETURN size(e.embedding)") == 384
    db.session().run("CALL db.awaitIndexes(60)").consume()
    rows = resolve(db, [{"name": "engines for graph databases", "type": "Concept"}], trigramThreshold=0.8,
                   embeddingThreshold=0.7)
    assert rows[0][1:4] == ("graph database engine", False, "embedding")
    assert rows[0][4] == pytest.approx(0.746, abs=1e-3)
    # without such an index there is no embedding stage: the same mention is a new entity
    db.session().run("DROP INDEX entity_vectors").consume()
    again = resolve(db, [{"name": "engines for graph databases", "type": "Concept"}], trigramThreshold=0.8,
                    embeddingThreshold=0.7)
    assert again[0][2:4] == (True, "created")


def test_same_statement_mentions_resolve_to_one_entity(db):
    rows = resolve(db, ["Cloudflare", "cloudflare", "Cloudflare!", "Cloudflaree"])
    assert [r[3] for r in rows] == ["created", "exact", "exact", "trigram"]
    assert count(db) == 1


def test_resolution_joins_the_callers_transaction(db):
    session = db.session()
    session.begin()
    session.run(RESOLVE, {"m": ["Temporal"], "o": {"workspace": "w"}}).fetch(10)
    session.rollback()
    assert count(db) == 0                                       # a rolled-back ingest leaves no entity
    with pytest.raises(ArgumentError):
        db.session().run(RESOLVE, {"m": ["x"], "o": {}}).fetch(10)


def test_concurrent_embedded_ingests_create_one_entity(db):
    barrier = threading.Barrier(8)
    errors = []

    def ingest(i):
        try:
            barrier.wait()
            db.session().run("CALL db.entity.resolve($m, {workspace: 'w'}) YIELD entity "
                             "CREATE (:Chunk {id: $i})-[:MENTIONS]->(entity)",
                             {"m": [{"name": "Kubernetes", "type": "Product"}, "Helm"], "i": i}).consume()
        except Exception as e:       # noqa: BLE001 - reported below
            errors.append(e)
    threads = [threading.Thread(target=ingest, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert count(db) == 2
    assert count(db, "MATCH (:Chunk)-[:MENTIONS]->(e:Entity {name: 'Kubernetes'}) RETURN count(DISTINCT e)") == 1
    assert count(db, "MATCH (:Chunk)-[m:MENTIONS]->(:Entity) RETURN count(m)") == 16


def test_two_server_clients_ingesting_the_same_entity_end_with_one(tmp_path):
    server = ServerProcess(tmp_path)
    try:
        with relate.connect(server.url, auth=AUTH) as admin:
            admin.execute(CONSTRAINT).consume()
        barrier = threading.Barrier(2)
        errors = []

        def client(i):
            try:
                with relate.connect(server.url, auth=AUTH) as conn:
                    barrier.wait()
                    for n in range(5):
                        conn.execute_write(lambda tx: tx.execute(
                            "CALL db.entity.resolve($m, {workspace: 'w'}) YIELD entity "
                            "CREATE (:Chunk {id: $i})-[:MENTIONS]->(entity)",
                            {"m": [{"name": "Grafana Loki", "type": "Product"}], "i": f"{i}-{n}"}).consume())
            except Exception as e:       # noqa: BLE001
                errors.append(e)
        threads = [threading.Thread(target=client, args=(i,)) for i in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert errors == []
        with relate.connect(server.url, auth=AUTH) as conn:
            assert conn.execute("MATCH (e:Entity) RETURN count(e)").fetchone()[0] == 1
            assert conn.execute("MATCH (:Chunk)-[m:MENTIONS]->(:Entity) RETURN count(m)").fetchone()[0] == 10
    finally:
        server.stop()


def test_a_declared_trigram_index_serves_the_trigram_stage(db):
    db.session().run("CREATE TRIGRAM INDEX entity_names FOR (e:Entity) ON (e.normalized)").consume()
    resolve(db, [{"name": "Apache Kafka", "type": "Product"}])
    typo = resolve(db, [{"name": "Apache Kafak", "type": "Product"}])
    assert typo[0][1:4] == ("Apache Kafka", False, "trigram")
    assert db.index_manager.get("entity_names").read_count >= 1
    assert not db.name_indexes._indexes          # the implicit in-memory index was never built


def test_trigram_stage_catches_swapped_letters_and_plurals_not_different_names(db):
    resolve(db, ["Microsoft", "Onboarding", "API", "Meta", "Mario"])
    rows = resolve(db, ["Microsfot", "Onbaording", "APIs", "Metas"], create=False)
    assert [(r[1], r[3]) for r in rows] == [("Microsoft", "trigram"), ("Onboarding", "trigram"), ("API", "trigram"),
                                            ("Meta", "trigram")]
    assert all(0.3 <= r[4] < 0.6 for r in rows)            # the trigram similarity, below the threshold
    rows = resolve(db, ["Maria", "Metabase", "Microsfot"], create=False, typos=False)
    assert [r[3] for r in rows] == ["unresolved"] * 3


def test_trigram_stage_finds_the_workspaces_entity_among_many_similar_ones(db):
    db.session().run("UNWIND range(1, 60) AS i CREATE (:Entity {workspace: 'ws' + i, name: 'Apache Kafka Stream', "
                     "normalized: 'apache kafka stream'})").consume()
    resolve(db, ["Apache Kafka Streams"])
    assert resolve(db, ["Apache Kafka Stream"], create=False)[0][1:4] == ("Apache Kafka Streams", False, "trigram")


@pytest.mark.parametrize("options", [{"create": "no"}, {"typos": 1}, {"maxScan": -1}, {"label": 5}, {"label": ""}])
def test_bad_resolve_options_are_typed_errors(db, options):
    with pytest.raises(ArgumentError):
        resolve(db, ["x"], **options)
    assert count(db) == 0


def test_trigram_stage_catches_ies_and_sis_plurals_and_stray_punctuation(db):
    resolve(db, ["Company", "Policy", "Node.js", "Analysis"], workspace="plurals")
    rows = resolve(db, ["Companies", "Policies", "Nodejs", "Analyses"], workspace="plurals", create=False)
    assert [(r[1], r[3]) for r in rows] == [("Company", "trigram"), ("Policy", "trigram"), ("Node.js", "trigram"),
                                            ("Analysis", "trigram")]
