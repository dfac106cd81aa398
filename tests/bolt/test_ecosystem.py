"""neo4j-graphrag and langchain-neo4j, unchanged, against a real relate-server over Bolt.

The embedder is a local class implementing each library's interface with fixed vectors, so every
score below is computed by hand: Neo4j's cosine score is (1 + cos) / 2, and the hybrid retrievers
divide each lane's scores by that lane's best score and keep each node's larger value.
"""
from __future__ import annotations

import pytest
from langchain_core.embeddings import Embeddings
from langchain_neo4j import Neo4jGraph, Neo4jVector
from langchain_neo4j.vectorstores.neo4j_vector import SearchType
from neo4j_graphrag.embeddings.base import Embedder
from neo4j_graphrag.indexes import create_fulltext_index, create_vector_index, upsert_vectors
from neo4j_graphrag.retrievers import HybridRetriever, VectorCypherRetriever, VectorRetriever
from neo4j_graphrag.types import EntityType

from .conftest import AUTH

VECTORS = {
    "apple pie": [1.0, 0.0, 0.0, 0.0],
    "banana bread": [0.0, 1.0, 0.0, 0.0],
    "cherry tart": [0.6, 0.8, 0.0, 0.0],
    # queries
    "apple": [1.0, 0.0, 0.0, 0.0],
    "banana": [1.0, 0.0, 0.0, 0.0],      # points at apple: the keyword lane must find banana
    "foo": [0.0, 0.0, 1.0, 0.0],         # langchain embeds "foo" once to learn the dimension
}
TEXTS = ["apple pie", "banana bread", "cherry tart"]
# Against the query [1, 0, 0, 0]: cos = 1, 0, 0.6 -> scores 1.0, 0.5, 0.8.
EXPECTED_VECTOR = [("apple pie", 1.0), ("cherry tart", 0.8), ("banana bread", 0.5)]


class FixedEmbedder(Embedder):
    """neo4j-graphrag's Embedder interface over the table above."""

    def embed_query(self, text: str) -> list[float]:
        return list(VECTORS[text])


class FixedEmbeddings(Embeddings):
    """langchain's Embeddings interface over the same table."""

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [list(VECTORS[t]) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return list(VECTORS[text])


@pytest.fixture(scope="module")
def recipes(server):
    """:Recipe nodes with a vector and a full-text index, loaded the graphrag way, plus a :Source each."""
    from neo4j import GraphDatabase
    with GraphDatabase.driver(f"bolt://{server.bolt_address}", auth=AUTH) as driver:
        create_vector_index(driver, "recipe_vectors", label="Recipe", embedding_property="embedding",
                            dimensions=4, similarity_fn="cosine")
        create_fulltext_index(driver, "recipe_text", label="Recipe", node_properties=["text"])
        ids = []
        for i, text in enumerate(TEXTS):
            records, _, _ = driver.execute_query(
                "CREATE (r:Recipe {text: $t})-[:FROM]->(:Source {name: $s}) RETURN elementId(r) AS id",
                t=text, s=f"book {i + 1}")
            ids.append(records[0]["id"])
        upsert_vectors(driver, ids=ids, embedding_property="embedding",
                       embeddings=[VECTORS[t] for t in TEXTS], entity_type=EntityType.NODE)
        driver.execute_query("CALL db.awaitIndexes()")
        yield driver


def test_graphrag_indexes_and_upsert(recipes):
    records, _, _ = recipes.execute_query(
        "SHOW INDEXES YIELD name, type, labelsOrTypes, properties WHERE name STARTS WITH 'recipe_' "
        "RETURN name, type, labelsOrTypes, properties ORDER BY name")
    assert [tuple(r.values()) for r in records] == [("recipe_text", "FULLTEXT", ["Recipe"], ["text"]),
                                                     ("recipe_vectors", "VECTOR", ["Recipe"], ["embedding"])]
    stored, _, _ = recipes.execute_query("MATCH (r:Recipe) RETURN r.text AS t, r.embedding AS e ORDER BY t")
    # Stored as FLOAT32, as Neo4j's setNodeVectorProperty does: 0.6 comes back as 0.6000000238...
    assert {r["t"]: r["e"] for r in stored} == {t: pytest.approx(VECTORS[t], rel=1e-7) for t in TEXTS}
    assert stored[1]["e"][0] != 0.6


def test_graphrag_vector_retriever(recipes):
    result = VectorRetriever(recipes, "recipe_vectors", FixedEmbedder(), return_properties=["text"]).search(
        query_text="apple", top_k=3)
    got = [(eval(item.content)["text"], item.metadata["score"]) for item in result.items]  # noqa: S307
    assert [t for t, _ in got] == [t for t, _ in EXPECTED_VECTOR]
    assert [s for _, s in got] == pytest.approx([s for _, s in EXPECTED_VECTOR], abs=1e-6)


def test_graphrag_hybrid_retriever(recipes):
    # vector lane: apple 1.0, cherry 0.8, banana 0.5 (each / 1.0); keyword lane: only banana matches
    # "banana" -> 1.0 after dividing by its own best. Max per node: apple 1.0, banana 1.0, cherry 0.8.
    result = HybridRetriever(recipes, "recipe_vectors", "recipe_text", FixedEmbedder(),
                             return_properties=["text"]).search(query_text="banana", top_k=3)
    got = {eval(item.content)["text"]: item.metadata["score"] for item in result.items}  # noqa: S307
    assert got == pytest.approx({"apple pie": 1.0, "banana bread": 1.0, "cherry tart": 0.8}, abs=1e-6)


def test_graphrag_vector_cypher_retriever_follows_the_graph(recipes):
    retriever = VectorCypherRetriever(
        recipes, "recipe_vectors",
        "MATCH (node)-[:FROM]->(s:Source) RETURN node.text AS text, s.name AS source, score",
        FixedEmbedder())
    records = retriever.get_search_results(query_text="apple", top_k=2).records
    assert [(r["text"], r["source"]) for r in records] == [("apple pie", "book 1"), ("cherry tart", "book 3")]
    assert [r["score"] for r in records] == pytest.approx([1.0, 0.8], abs=1e-6)


def _store(server, **kwargs):
    return dict(url=f"bolt://{server.bolt_address}", username=AUTH[0], password=AUTH[1], **kwargs)


def test_langchain_vector_store_from_texts_and_similarity_search(server):
    store = Neo4jVector.from_texts(TEXTS, FixedEmbeddings(), index_name="lc_vectors", node_label="Chunk",
                                   metadatas=[{"n": i} for i in range(3)], **_store(server))
    hits = store.similarity_search_with_score("apple", k=3)
    assert [(d.page_content, d.metadata["n"]) for d, _ in hits] == [("apple pie", 0), ("cherry tart", 2),
                                                                    ("banana bread", 1)]
    assert [s for _, s in hits] == pytest.approx([1.0, 0.8, 0.5], abs=1e-6)
    again = Neo4jVector.from_existing_index(FixedEmbeddings(), index_name="lc_vectors", **_store(server))
    assert [d.page_content for d in again.similarity_search("apple", k=1)] == ["apple pie"]
    store._driver.close()
    again._driver.close()


def test_langchain_hybrid_search(server):
    store = Neo4jVector.from_texts(TEXTS, FixedEmbeddings(), index_name="lc_hybrid", node_label="HybridChunk",
                                   keyword_index_name="lc_keywords", search_type=SearchType.HYBRID,
                                   **_store(server))
    hits = store.similarity_search_with_score("banana", k=3)
    assert {d.page_content: s for d, s in hits} == pytest.approx(
        {"apple pie": 1.0, "banana bread": 1.0, "cherry tart": 0.8}, abs=1e-6)
    store._driver.close()


def test_langchain_graph_schema_refresh_and_query(server):
    graph = Neo4jGraph(**_store(server), refresh_schema=False)
    graph.query("CREATE (:Person {name: 'Ann', age: 41})-[:KNOWS {since: 2019}]->(:Person {name: 'Bob', age: 37})"
                "-[:LIVES_IN]->(:City {name: 'Oslo'})")
    graph.refresh_schema()
    schema = graph.get_structured_schema
    props = {label: sorted((p["property"], p["type"]) for p in ps) for label, ps in schema["node_props"].items()}
    assert props["Person"] == [("age", "INTEGER"), ("name", "STRING")]
    assert props["City"] == [("name", "STRING")]
    assert {k: sorted((p["property"], p["type"]) for p in v) for k, v in schema["rel_props"].items()} == {
        "KNOWS": [("since", "INTEGER")]}
    rels = sorted((r["start"], r["type"], r["end"]) for r in schema["relationships"]
                  if r["start"] in ("Person", "City"))
    assert rels == [("Person", "KNOWS", "Person"), ("Person", "LIVES_IN", "City")]
    assert "Person {age: INTEGER, name: STRING}" in graph.get_schema
    assert graph.query("MATCH (p:Person)-[:LIVES_IN]->(c) RETURN p.name AS who, c.name AS city") == [
        {"who": "Bob", "city": "Oslo"}]
    graph.close()


def test_langchain_add_graph_documents(server):
    from langchain_core.documents import Document
    from langchain_neo4j.graphs.graph_document import GraphDocument, Node, Relationship
    graph = Neo4jGraph(**_store(server), refresh_schema=False)
    ada, babbage = Node(id="Ada", type="Scientist"), Node(id="Babbage", type="Scientist", properties={"born": 1791})
    engine = Node(id="Analytical Engine", type="Machine")
    doc = GraphDocument(nodes=[ada, babbage, engine],
                        relationships=[Relationship(source=ada, target=engine, type="PROGRAMMED"),
                                       Relationship(source=babbage, target=engine, type="DESIGNED",
                                                    properties={"year": 1837})],
                        source=Document(page_content="Ada and Babbage"))
    graph.add_graph_documents([doc, doc])            # twice: merged, not duplicated
    rows = graph.query("MATCH (s:Scientist)-[r]->(m:Machine) RETURN s.id AS s, type(r) AS t, r.year AS y, "
                       "s.born AS born, m.id AS m ORDER BY s")
    assert rows == [{"s": "Ada", "t": "PROGRAMMED", "y": None, "born": None, "m": "Analytical Engine"},
                    {"s": "Babbage", "t": "DESIGNED", "y": 1837, "born": 1791, "m": "Analytical Engine"}]
    graph.close()


def test_langchain_add_graph_documents_with_a_base_entity_label(server):
    from langchain_core.documents import Document
    from langchain_neo4j.graphs.graph_document import GraphDocument, Node, Relationship
    graph = Neo4jGraph(**_store(server), refresh_schema=False)
    lovelace, note = Node(id="Lovelace", type="Writer"), Node(id="Note G", type="Text")
    doc = GraphDocument(nodes=[lovelace, note], relationships=[Relationship(source=lovelace, target=note,
                                                                            type="WROTE")],
                        source=Document(page_content="Note G", metadata={"id": "doc-1"}))
    graph.add_graph_documents([doc], baseEntityLabel=True, include_source=True)   # SET n:$(row.type)
    rows = graph.query("MATCH (d:Document)-[:MENTIONS]->(w:__Entity__:Writer)-[:WROTE]->(t:__Entity__:Text) "
                       "RETURN d.text AS text, w.id AS writer, t.id AS work")
    assert rows == [{"text": "Note G", "writer": "Lovelace", "work": "Note G"}]
    graph.close()


def test_graphrag_kg_writer_writes_a_knowledge_graph(server):
    """The KG writer of graphrag's SimpleKGPipeline: upserts in batches, then clears its temporary ids with
    CALL { ... } IN TRANSACTIONS ... ON ERROR CONTINUE."""
    import asyncio

    from neo4j import GraphDatabase
    from neo4j_graphrag.components.kg_writer import Neo4jWriter
    from neo4j_graphrag.components.types import Neo4jGraph as KnowledgeGraph
    from neo4j_graphrag.components.types import Neo4jNode, Neo4jRelationship
    graph = KnowledgeGraph(
        nodes=[Neo4jNode(id="p1", label="Author", properties={"name": "Ada"},
                         embedding_properties={"name_embedding": [1.0, 0.0, 0.5]}),
               Neo4jNode(id="b1", label="Book", properties={"title": "Notes"})],
        relationships=[Neo4jRelationship(start_node_id="p1", end_node_id="b1", type="WROTE",
                                         properties={"year": 1843})])
    with GraphDatabase.driver(f"bolt://{server.bolt_address}", auth=AUTH) as driver:
        result = asyncio.run(Neo4jWriter(driver, batch_size=1).run(graph))
        assert result.status == "SUCCESS", result.metadata
        records, _, _ = driver.execute_query(
            "MATCH (a:Author:__KGBuilder__)-[r:WROTE]->(b:Book:__KGBuilder__) "
            "RETURN a.name AS name, a.name_embedding AS e, r.year AS year, b.title AS title, "
            "a.__tmp_internal_id AS tmp_a, b.__tmp_internal_id AS tmp_b")
    assert [r.data() for r in records] == [{"name": "Ada", "e": [1.0, 0.0, 0.5], "year": 1843, "title": "Notes",
                                            "tmp_a": None, "tmp_b": None}]


def test_graphrag_exact_match_resolver_merges_duplicate_entities(server):
    """graphrag's entity resolution step merges entities of one label and name with
    apoc.refactor.mergeNodes (properties kept from the first, relationships moved and folded)."""
    import asyncio

    from neo4j import GraphDatabase
    from neo4j_graphrag.components.resolver import SinglePropertyExactMatchResolver
    with GraphDatabase.driver(f"bolt://{server.bolt_address}", auth=AUTH) as driver:
        driver.execute_query(
            "CREATE (a:Town:__Entity__ {name: 'Oslo', founded: 1040})-[:IN {since: 1}]->(n:Realm:__Entity__ "
            "{name: 'Norway'}), (b:Town:__Entity__ {name: 'Oslo', population: 700000})-[:IN {since: 2}]->(n), "
            "(:Town:__Entity__ {name: 'Bergen'})")
        resolver = SinglePropertyExactMatchResolver(driver, filter_query="WHERE entity:Town OR entity:Realm")
        stats = asyncio.run(resolver.run())
        assert stats.number_of_nodes_to_resolve == 4 and stats.number_of_created_nodes == 3
        records, _, _ = driver.execute_query(
            "MATCH (c:Town) OPTIONAL MATCH (c)-[r:IN]->(n) RETURN c.name AS name, c.founded AS founded, "
            "c.population AS population, count(r) AS links ORDER BY name")
    assert [r.data() for r in records] == [
        {"name": "Bergen", "founded": None, "population": None, "links": 0},
        {"name": "Oslo", "founded": 1040, "population": 700000, "links": 1}]


def test_enhanced_schema_of_graphrag_and_langchain(server):
    """get_schema(is_enhanced=True) / Neo4jGraph(enhanced_schema=True): apoc.meta.graph, apoc.any.property
    and per-property statistics (ranges, options) for a Text2Cypher prompt."""
    from neo4j import GraphDatabase
    from neo4j_graphrag.schema import get_schema
    with GraphDatabase.driver(f"bolt://{server.bolt_address}", auth=AUTH) as driver:
        driver.execute_query("CREATE (:Planet {name: 'Mars', moons: 2})-[:ORBITS {au: 1.52}]->(:Star {name: 'Sun'}), "
                             "(:Planet {name: 'Venus', moons: 0})")
        schema = get_schema(driver, is_enhanced=True)
    assert "- **Planet**" in schema and "`moons`: INTEGER Min: 0, Max: 2" in schema
    assert "`name`: STRING Available options: ['Mars', 'Venus']" in schema
    assert "`au`: FLOAT Min: 1.52, Max: 1.52" in schema and "(:Planet)-[:ORBITS]->(:Star)" in schema
    graph = Neo4jGraph(**_store(server), enhanced_schema=True)
    assert "`moons`: INTEGER Min: 0, Max: 2" in graph.get_schema
    graph.close()


def test_chat_message_histories_of_langchain_and_graphrag(server):
    """Agent memory as the libraries keep it: a session node, a NEXT chain and a LAST_MESSAGE pointer."""
    from langchain_core.messages import AIMessage, HumanMessage
    from langchain_neo4j import Neo4jChatMessageHistory
    from neo4j import GraphDatabase
    from neo4j_graphrag.message_history import Neo4jMessageHistory
    from neo4j_graphrag.types import LLMMessage
    history = Neo4jChatMessageHistory(session_id="chat-1", **_store(server))
    history.add_messages([HumanMessage(content="hi"), AIMessage(content="hello")])
    history.add_message(HumanMessage(content="what did I say?"))
    assert [(m.type, m.content) for m in history.messages] == [("human", "hi"), ("ai", "hello"),
                                                              ("human", "what did I say?")]
    history.clear()
    assert history.messages == []
    with GraphDatabase.driver(f"bolt://{server.bolt_address}", auth=AUTH) as driver:
        memory = Neo4jMessageHistory(session_id="rag-1", driver=driver, window=3)
        for role, content in (("user", "a"), ("assistant", "b"), ("user", "c"), ("assistant", "d")):
            memory.add_message(LLMMessage(role=role, content=content))
        assert [m["content"] for m in memory.messages] == ["b", "c", "d"]     # the last three, in order


def test_graphrag_simple_kg_pipeline_builds_a_resolved_knowledge_graph(server):
    """graphrag's SimpleKGPipeline end to end: split, embed chunks, extract (an LLM behind graphrag's
    interface answering fixed JSON), write the lexical and entity graph, resolve duplicate entities."""
    import asyncio
    import json

    from neo4j import GraphDatabase
    from neo4j_graphrag.experimental.pipeline.kg_builder import SimpleKGPipeline
    from neo4j_graphrag.llm import LLMInterface, LLMResponse

    extracted = {"nodes": [{"id": "0", "label": "Inventor", "properties": {"name": "Ada Lovelace"}},
                           {"id": "1", "label": "Device", "properties": {"name": "Analytical Engine"}}],
                 "relationships": [{"type": "PROGRAMMED", "start_node_id": "0", "end_node_id": "1",
                                    "properties": {}}]}

    class FixedLLM(LLMInterface):
        def __init__(self):
            super().__init__(model_name="fixed")

        def invoke(self, input, message_history=None, system_instruction=None, **kwargs):
            return LLMResponse(content=json.dumps(extracted))

        async def ainvoke(self, input, message_history=None, system_instruction=None, **kwargs):
            return self.invoke(input)

    class LengthEmbedder(Embedder):
        def embed_query(self, text: str) -> list[float]:
            return [float(len(text)), 1.0, 0.5]

    with GraphDatabase.driver(f"bolt://{server.bolt_address}", auth=AUTH) as driver:
        pipeline = SimpleKGPipeline(
            llm=FixedLLM(), driver=driver, embedder=LengthEmbedder(), from_file=False,
            text_splitter=None, schema={"node_types": ["Inventor", "Device"], "relationship_types": ["PROGRAMMED"],
                                        "patterns": [("Inventor", "PROGRAMMED", "Device")]})
        result = asyncio.run(pipeline.run_async(text="Ada Lovelace programmed the Analytical Engine."))
        assert result.result["resolver"]["number_of_nodes_to_resolve"] >= 2     # with other tests' entities
        records, _, _ = driver.execute_query(
            "MATCH (c:Chunk)-[:FROM_DOCUMENT]->(:Document) MATCH (i:Inventor)-[:FROM_CHUNK]->(c) "
            "MATCH (i)-[:PROGRAMMED]->(d:Device) RETURN i.name AS inventor, d.name AS device, size(c.embedding) AS dims")
    assert [r.data() for r in records] == [{"inventor": "Ada Lovelace", "device": "Analytical Engine", "dims": 3}]
