"""A small graph of documents, chunks, entities and facts with provenance (the retrieval data model)."""
from relate.server.engine import Database

SETUP = [
    "CREATE VECTOR INDEX chunk_embedding FOR (c:Chunk) ON (c.embedding) "
    "OPTIONS {indexConfig: {`vector.dimensions`: 384, `vector.embedder`: 'hash-384'}}",
    "CREATE FULLTEXT INDEX chunk_text FOR (c:Chunk) ON EACH [c.text]",
    "CREATE CONSTRAINT entity_identity FOR (e:Entity) REQUIRE (e.normalized, e.workspace, e.type) IS UNIQUE",
]

DOCUMENTS = [
    ("d1", ["React is a library for building user interfaces out of components."]),
    ("d2", ["JSX lets you write markup inside JavaScript files.", "Babel compiles that markup away."]),
    ("d3", ["Meta open-sourced the framework in 2013."]),
    ("d4", ["Engineers at Meta maintain the codebase."]),
    ("d5", ["The parent company Meta funds the core team."]),
    ("d6", ["Kafka topics are created per tenant."]),
]
ENTITIES = [("React", "Library"), ("JSX", "Syntax"), ("Meta", "Company"), ("Kafka", "Product")]
FACTS = [("React", "USES", "uses", "JSX", ["d2"]), ("React", "CREATED_BY", "was created by", "Meta", ["d3", "d4", "d5"])]


def load(db: Database, workspace: str = "w", setup: bool = True) -> None:
    s = db.session()
    run_statements(lambda query, params=None: s.run(query, params).consume(), workspace, setup)
    db.index_manager.await_indexes(30)


def run_statements(run, workspace: str = "w", setup: bool = True) -> None:
    """Create the indexes (unless ``setup`` is false) and the graph through ``run(query, params)``."""
    for statement in SETUP if setup else ():
        run(statement)
    rows = [{"id": d, "chunks": [{"id": f"{d}#{i}", "text": t, "position": i} for i, t in enumerate(texts)]}
            for d, texts in DOCUMENTS]
    run("UNWIND $docs AS d CREATE (doc:Document {id: d.id, workspace: $ws}) "
        "WITH doc, d UNWIND d.chunks AS c "
        "CREATE (doc)-[:HAS_CHUNK]->(:Chunk {id: c.id, text: c.text, position: c.position, workspace: $ws, "
        "embedding: ai.text.embed(c.text, {model: 'hash-384'})})", {"docs": rows, "ws": workspace})
    run("UNWIND $es AS e CALL db.entity.resolve([{name: e[0], type: e[1]}], {workspace: $ws}) "
        "YIELD entity RETURN count(*)", {"es": [list(e) for e in ENTITIES], "ws": workspace})
    for a, rel, pred, b, sources in FACTS:
        run(f"MATCH (a:Entity {{name: $a, workspace: $ws}}), (b:Entity {{name: $b, workspace: $ws}}) "
            f"CREATE (a)-[:{rel} {{predicate: $p, sources: $src}}]->(b)",
            {"a": a, "b": b, "p": pred, "src": sources, "ws": workspace})


def open_loaded() -> Database:
    db = Database.open(None)
    load(db)
    return db
