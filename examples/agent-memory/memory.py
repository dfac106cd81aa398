"""Agent memory as a relevance source (spec 001 6.8): the assistant's own memories stored in the graph
(DiceMemory), a markdown memory directory and an MCP memory server's memory.jsonl (files producers),
asked through one edge, curated by one lifecycle and scoped to the acting user.

    python examples/agent-memory/memory.py                      # as alice, in context acme
    python examples/agent-memory/memory.py --user bob --context globex
    python examples/agent-memory/memory.py --concept tea
"""
from __future__ import annotations

import argparse
import os
import sys

import relate

WORLD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "world")

SCHEMA = [
    # Memory is the shared parent; each memory system is a child with the same contract and lifecycle
    "CREATE LABEL Memory OPTIONS {lifecycle: {active: ['ACTIVE'], never: ['CONTRADICTED']}, "
    "scope: {userId: 'user', contextId: 'context'}}",
    "CREATE LABEL DiceMemory OPTIONS {parents: ['Memory']}",
    "CREATE LABEL MarkdownMemory OPTIONS {parents: ['Memory']}",
    "CREATE LABEL McpMemory OPTIONS {parents: ['Memory']}",
    "CREATE VECTOR INDEX memory_e FOR (m:DiceMemory) ON (m.embedding) WITH [m.userId, m.contextId] "
    "OPTIONS {indexConfig: {`vector.dimensions`: 384, `vector.embedder`: 'hash-384'}}",
    "CREATE FULLTEXT INDEX memory_t FOR (m:DiceMemory) ON EACH [m.text]",
    # the three modes over the assistant's own memory ...
    "CREATE RELEVANCE JOIN memoryVector FOR (c:Concept)-[:RELEVANT_TO]->(m:DiceMemory) ON c.value "
    "OPTIONS {indexes: ['memory_e', 'memory_t'], k: 5, description: 'what the assistant remembers about X'}",
    "CREATE RELEVANCE JOIN memoryKeyword FOR (c:Concept)-[:RELEVANT_TO]->(m:DiceMemory) ON c.value "
    "OPTIONS {indexes: ['memory_t'], via: 'keyword', k: 5, description: 'memories that mention X'}",
    "CREATE RELEVANCE JOIN memoryAbout FOR (p:Person)-[:REMEMBERED_IN]->(m:Memory) ON p.id "
    "OPTIONS {kind: 'participant', identityField: 'entityIds', k: 5}",
    # ... and two systems outside the graph, each user's own directory under the import directory
    "CREATE RELEVANCE JOIN markdownMemory FOR (c:Concept)-[:RELEVANT_TO]->(m:MarkdownMemory) ON c.value "
    "OPTIONS {kind: 'files', path: 'memory/{user}', glob: '**/*.md', k: 3}",
    "CREATE RELEVANCE JOIN mcpMemory FOR (c:Concept)-[:RELEVANT_TO]->(m:McpMemory) ON c.value "
    "OPTIONS {kind: 'files', path: 'memory/{user}/memory.jsonl', unit: 'line', require: {type: 'entity'}, "
    "recordKey: 'name', k: 3}",
]

# (id, text, status, user, context, entityIds, confidence)
MEMORIES = [
    ("m1", "Alice drinks her coffee black every morning", "ACTIVE", "alice", "acme", [], 0.9),
    ("m2", "Alice switched to decaf coffee", "CONTRADICTED", "alice", "acme", [], 0.3),
    ("m3", "Ada Lovelace prefers email over calls", "ACTIVE", "alice", "acme", ["p-ada"], 0.8),
    ("m4", "Ada Lovelace used to work from the London office", "SUPERSEDED", "alice", "acme", ["p-ada"], 0.7),
    ("m5", "Bob likes his coffee with oat milk", "ACTIVE", "bob", "globex", [], 0.9),
]

QUESTIONS = [
    ("Every memory system, about the concept (the fused lane, one search per system)",
     "MATCH (:Concept {value: $concept})-[r:RELEVANT_TO]->(m:Memory) "
     "RETURN [l IN labels(m) WHERE l <> 'Memory'][0] AS system, m.text AS text, r.mode AS mode, "
     "round(r.score, 3) AS score ORDER BY r.rank, system"),
    ("The assistant's own memory only",
     "MATCH (:Concept {value: $concept})-[r:RELEVANT_TO]->(m:DiceMemory) "
     "RETURN m.text AS text, m.confidence AS confidence, round(r.score, 3) AS score ORDER BY r.rank"),
    ("Memories that MENTION 'decaf' (a contradicted memory never answers: an honest empty)",
     "MATCH (:Concept {value: 'decaf'})-[r:RELEVANT_TO {via: 'keyword'}]->(m:DiceMemory) RETURN m.text AS text"),
    ("By fact, not by name: memories whose resolved mentions include Ada (current and retired)",
     "MATCH (p:Person {name: 'Ada Lovelace'})-[:REMEMBERED_IN]->(m:Memory) "
     "WHERE m.status IN ['ACTIVE', 'SUPERSEDED'] RETURN m.text AS text, m.status AS status ORDER BY text"),
]


def load(conn) -> None:
    """The schema, Ada, and every user's stored memories (each session reads only its own)."""
    for statement in SCHEMA:
        conn.execute(statement).consume()
    conn.execute("CREATE (:Person {id: 'p-ada', name: 'Ada Lovelace'})").consume()
    for mid, text, status, user, context, entities, confidence in MEMORIES:
        conn.execute("CREATE (:DiceMemory:Memory {id: $id, text: $text, status: $status, userId: $user, "
                     "contextId: $context, entityIds: $entities, confidence: $confidence, source: 'dice', "
                     "embedding: ai.text.embed($text)})",
                     {"id": mid, "text": text, "status": status, "user": user, "context": context,
                      "entities": entities, "confidence": confidence}).consume()
    conn.execute("CALL db.awaitIndexes(60)").consume()


def ask(path: str, user: str, context: str, concept: str) -> list[tuple[str, list[dict], dict]]:
    """Load into a database at ``path`` (':memory:' for a throwaway one) and answer every question as
    ``user`` in ``context``: [(title, rows, costs)]."""
    with relate.connect(path, import_dir=WORLD) as admin:
        load(admin)
    out = []
    with relate.connect(path, import_dir=WORLD, scope={"user": user, "context": context}) as conn:
        for title, statement in QUESTIONS:
            result = conn.execute(statement, {"concept": concept})
            rows = [row.as_dict() for row in result]
            out.append((title, rows, dict(result.consume().costs)))
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("database", nargs="?", help="a database directory (default: a temporary one)")
    ap.add_argument("--user", default="alice")
    ap.add_argument("--context", default="acme")
    ap.add_argument("--concept", default="coffee")
    args = ap.parse_args(argv)
    import tempfile
    with tempfile.TemporaryDirectory() as scratch:
        path = args.database or os.path.join(scratch, "memory.rl")
        for title, rows, costs in ask(path, args.user, args.context, args.concept):
            print(f"\n{title}")
            for row in rows:
                print("  " + " | ".join(f"{k}: {str(v).replace(chr(10), ' / ')}" for k, v in row.items()))
            if not rows:
                print("  (no rows)")
            spent = ", ".join(f"{k} {v}" for k, v in costs.items() if v) or "nothing"
            print(f"  spent: {spent}")


if __name__ == "__main__":
    sys.exit(main())
