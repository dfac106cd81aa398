"""The acceptance fixture of relevance joins (docs/relevance.md): people, organizations, meetings,
email threads, documents, concepts (pinned by the queries) and memories, for two users (alice in
context acme, bob in context globex). ``load(run)`` builds it through any ``run(query, **params)``."""
from __future__ import annotations

ALICE = {"user": "alice", "context": "acme"}
BOB = {"user": "bob", "context": "globex"}

SCHEMA = [
    # label declarations: scope (what a session may read) and the memory lifecycle
    "CREATE LABEL Memory OPTIONS {lifecycle: {active: ['ACTIVE'], never: ['CONTRADICTED']}, "
    "scope: {userId: 'user', contextId: 'context'}}",
    "CREATE LABEL DiceMemory OPTIONS {parents: ['Memory']}",
    "CREATE LABEL ZepMemory OPTIONS {parents: ['Memory']}",
    "CREATE LABEL RelevantEmailThread OPTIONS {scope: {userId: 'user', contextId: 'context'}}",
    "CREATE LABEL Document OPTIONS {scope: {contextId: 'context'}}",
    # search indexes; the vector ones embed text on the server with hash-384
    "CREATE VECTOR INDEX thread_e FOR (t:RelevantEmailThread) ON (t.embedding) WITH [t.userId, t.contextId] "
    "OPTIONS {indexConfig: {`vector.dimensions`: 384, `vector.embedder`: 'hash-384'}}",
    "CREATE FULLTEXT INDEX thread_t FOR (t:RelevantEmailThread) ON EACH [t.subject, t.summary]",
    "CREATE VECTOR INDEX doc_e FOR (d:Document) ON (d.embedding) WITH [d.contextId] "
    "OPTIONS {indexConfig: {`vector.dimensions`: 384, `vector.embedder`: 'hash-384'}}",
    "CREATE FULLTEXT INDEX doc_t FOR (d:Document) ON EACH [d.title, d.text]",
    "CREATE VECTOR INDEX memory_e FOR (m:Memory) ON (m.embedding) WITH [m.userId, m.contextId] "
    "OPTIONS {indexConfig: {`vector.dimensions`: 384, `vector.embedder`: 'hash-384'}}",
    "CREATE FULLTEXT INDEX memory_t FOR (m:Memory) ON EACH [m.text]",
    # relevance joins
    "CREATE RELEVANCE JOIN person_threads FOR (p:Person)-[:RELEVANT_TO]->(t:RelevantEmailThread) ON p.name "
    "OPTIONS {indexes: ['thread_e', 'thread_t'], k: 3, "
    "description: 'threads that read as being about the person; never: corresponded with'}",
    "CREATE RELEVANCE JOIN org_threads FOR (o:Organization)-[:RELEVANT_TO]->(t:RelevantEmailThread) ON o.name "
    "OPTIONS {indexes: ['thread_e', 'thread_t'], k: 3}",
    "CREATE RELEVANCE JOIN meeting_threads FOR (m:Meeting)-[:RELEVANT_TO]->(t:RelevantEmailThread) ON m.subject "
    "OPTIONS {indexes: ['thread_e', 'thread_t'], k: 3}",
    "CREATE RELEVANCE JOIN thread_docs FOR (t:RelevantEmailThread)-[:RELEVANT_TO]->(d:Document) ON t.subject "
    "OPTIONS {indexes: ['doc_e', 'doc_t'], k: 2}",
    "CREATE RELEVANCE JOIN concept_docs FOR (c:Concept)-[:RELEVANT_TO]->(d:Document) ON c.value "
    "OPTIONS {indexes: ['doc_e', 'doc_t'], k: 3, description: 'documents about the concept'}",
    "CREATE RELEVANCE JOIN concept_docs_keyword FOR (c:Concept)-[:RELEVANT_TO]->(d:Document) ON c.value "
    "OPTIONS {indexes: ['doc_t'], via: 'keyword', k: 5, description: 'documents that mention the concept'}",
    "CREATE RELEVANCE JOIN concept_docs_agentic FOR (c:Concept)-[:RELEVANT_TO]->(d:Document) ON c.value "
    "OPTIONS {indexes: ['doc_e', 'doc_t'], via: 'agentic-rag', k: 3, description: 'documents judged to bear on a brief'}",
    "CREATE RELEVANCE JOIN concept_docs_strict FOR (c:Concept)-[:RELEVANT_TO]->(d:Document) ON c.value "
    "OPTIONS {indexes: ['doc_e', 'doc_t'], via: 'strict', kind: 'fused', k: 3, minScore: 0.7}",
    "CREATE RELEVANCE JOIN concept_docs_cached FOR (c:Concept)-[:RELEVANT_TO]->(d:Document) ON c.value "
    "OPTIONS {indexes: ['doc_e', 'doc_t'], via: 'cached', kind: 'fused', k: 3, cacheTtl: 60}",
    "CREATE RELEVANCE JOIN concept_dice FOR (c:Concept)-[:RELEVANT_TO]->(m:DiceMemory) ON c.value "
    "OPTIONS {indexes: ['memory_e', 'memory_t'], k: 5}",
    "CREATE RELEVANCE JOIN concept_zep FOR (c:Concept)-[:RELEVANT_TO]->(m:ZepMemory) ON c.value "
    "OPTIONS {indexes: ['memory_t'], k: 5}",
    "CREATE RELEVANCE JOIN person_memories FOR (p:Person)-[:REMEMBERED_IN]->(m:Memory) ON p.id "
    "OPTIONS {kind: 'participant', identityField: 'entityIds', k: 10}",
]

PEOPLE = [("p-ada", "Ada Lovelace"), ("p-grace", "Grace Hopper"), ("p-ada-2", "Ada Lovelace")]
ORGS = [("o-acme", "Acme Corp"), ("o-globex", "Globex")]
MEETINGS = [("m-1", "Analytical Engine design review")]

# (id, subject, summary, userId, contextId)
THREADS = [
    ("t-1", "Ada Lovelace notes on the Analytical Engine", "Ada sent her translation notes and the Bernoulli "
     "program", "alice", "acme"),
    ("t-6", "Ada Lovelace", "Ada Lovelace, a note", "alice", "acme"),
    ("t-2", "Lunch order for Friday", "Pizza or sushi for the team lunch", "alice", "acme"),
    ("t-3", "Acme Corp renewal pricing", "Acme asks for a discount before the renewal", "alice", "acme"),
    ("t-4", "Grace Hopper compiler talk", "Slides about the first compiler and COBOL", "alice", "acme"),
    ("t-5", "Analytical Engine design review agenda", "Agenda for the design review of the engine", "alice",
     "acme"),
    ("t-9", "Ada Lovelace biography draft", "Bob's draft biography of Ada Lovelace", "bob", "globex"),
    ("t-10", "Ada Lovelace in another context", "Alice's thread about Ada Lovelace in globex", "alice",
     "globex"),
]

# (id, title, text, contextId)
DOCUMENTS = [
    ("d-1", "State lotteries", "How state lotteries fund schools and the odds of a jackpot", "acme"),
    ("d-2", "Invoice", "Invoice INV-2024-0042 billed for the consulting engagement, net 30", "acme"),
    ("d-3", "Consulting engagement summary", "What the consulting engagement delivered and what was billed",
     "acme"),
    ("d-4", "Acme renewal memo", "The Acme renewal is at risk: budget cuts and a competitor pitch", "acme"),
    ("d-5", "Acme company profile", "Acme Corp makes anvils and rockets", "acme"),
    ("d-6", "Gardening", "Tomatoes grow well in pots on a sunny balcony", "acme"),
    ("d-9", "Globex lotteries study", "Lotteries studied by the Globex research team", "globex"),
]

# (id, label, text, status, userId, contextId, entityIds, source, confidence)
MEMORIES = [
    ("mem-1", "DiceMemory", "Alice drinks her coffee black every morning", "ACTIVE", "alice", "acme", [],
     "dice", 0.9),
    ("mem-2", "DiceMemory", "Alice switched to decaf coffee", "CONTRADICTED", "alice", "acme", [], "dice", 0.4),
    ("mem-3", "DiceMemory", "The coffee machine on floor three is broken", None, "alice", "acme", [], "dice",
     0.5),
    ("mem-4", "DiceMemory", "Ada Lovelace prefers email over calls", "ACTIVE", "alice", "acme", ["p-ada"],
     "dice", 0.8),
    ("mem-5", "DiceMemory", "Ada Lovelace used to work from the London office", "SUPERSEDED", "alice", "acme",
     ["p-ada"], "dice", 0.6),
    ("mem-6", "ZepMemory", "The team coffee budget was approved", "ACTIVE", "alice", "acme", [], "zep", 0.7),
    ("mem-9", "DiceMemory", "Bob likes coffee with oat milk", "ACTIVE", "bob", "globex", ["p-ada"], "dice", 0.9),
]


def load(run) -> None:
    """Build the fixture with ``run(query, **params)`` (embedded or over the wire)."""
    for statement in SCHEMA:
        run(statement)
    for pid, name in PEOPLE:
        run("CREATE (:Person {id: $id, name: $name})", id=pid, name=name)
    for oid, name in ORGS:
        run("CREATE (:Organization {id: $id, name: $name})", id=oid, name=name)
    for mid, subject in MEETINGS:
        run("CREATE (:Meeting {id: $id, subject: $subject})", id=mid, subject=subject)
    run("CREATE (me:AssistantUser {name: 'alice'}) WITH me "
        "MATCH (p:Person) WHERE p.id IN ['p-ada', 'p-grace'] CREATE (me)-[:EMAILED {count: 3}]->(p)")
    for tid, subject, summary, user, context in THREADS:
        run("CREATE (:RelevantEmailThread {id: $id, subject: $s, summary: $m, userId: $u, contextId: $c, "
            "embedding: ai.text.embed($s + ' ' + $m)})", id=tid, s=subject, m=summary, u=user, c=context)
    for did, title, text, context in DOCUMENTS:
        run("CREATE (:Document {id: $id, title: $t, text: $x, contextId: $c, embedding: ai.text.embed($t + ' ' + $x)})",
            id=did, t=title, x=text, c=context)
    for mid, label, text, status, user, context, entities, source, confidence in MEMORIES:
        run(f"CREATE (m:{label} {{id: $id, text: $text, confidence: $conf, source: $src, userId: $u, "
            "contextId: $c, entityIds: $e, created: '2026-11-01', revised: '2026-11-02', "
            "embedding: ai.text.embed($text)}) SET m.status = $status",
            id=mid, text=text, conf=confidence, src=source, u=user, c=context, e=entities, status=status)
    run("CALL db.awaitIndexes(60)")


def spec_statements() -> list[str]:
    """Every Cypher statement of spec 001 with its ``--`` annotations as ``//`` comments; the three
    MATCH-only lines of §6.6 get a RETURN so they run as statements."""
    return [
        "MATCH (p:Person {name:'Ada Lovelace'})-[r:RELEVANT_TO]->(t:RelevantEmailThread)\n"
        "RETURN t.subject, r.score ORDER BY r.score DESC",
        "MATCH (me:AssistantUser)-[:EMAILED]->(p:Person)-[r:RELEVANT_TO]->(t:RelevantEmailThread)\n"
        "WHERE r.score > 0.7\nRETURN p.name, t.subject, r.score ORDER BY r.score DESC",
        "MATCH (c:Concept {value:'lotteries'})-[:RELEVANT_TO]->(d:Document)                     // semantic (default)\n"
        "RETURN d.id",
        "MATCH (c:Concept {value:'lotteries'})-[:RELEVANT_TO {via:'keyword'}]->(d:Document)     // lexical, exact tokens\n"
        "RETURN d.id",
        "MATCH (c:Concept {value:'Acme'})-[r:RELEVANT_TO {via:'agentic-rag',\n"
        "                                                 intent:'renewal risk'}]->(d:Document) // judged retrieval\n"
        "RETURN d.id, r.score, r.intent, r.snippet, r.mode, r.rank",
        "MATCH (:Concept {value:'coffee'})-[r:RELEVANT_TO]->(m:Memory)        // every memory system\n"
        "RETURN m.source, m.text, r.score, r.mode ORDER BY r.rank",
        "MATCH (:Concept {value:'coffee'})-[r:RELEVANT_TO]->(m:DiceMemory)    // the assistant's own\n"
        "RETURN m.text, m.confidence, r.score",
        "MATCH (p:Person {name:'Ada Lovelace'})-[:REMEMBERED_IN]->(m:Memory)  // by fact, not by name\n"
        "RETURN m.text",
    ]
