"""Spec 001 6.8: the ``files`` relevance producer over text files below the import directory (markdown
memory, an MCP memory server's memory.jsonl): units and records, the memory contract on query-time nodes,
one semanticCalls per distinct key, confinement (``..``, symbolic links, no import directory), a corpus
that follows its files, stored targets by key, and typed errors for bad options."""
from __future__ import annotations

import json
import os
import time

import pytest

import relate
from relate.errors import ClientError

MEMORY_MD = """# Preferences

Ada prefers tea in the morning.
She dislikes coffee after noon.

# Projects

Ada is writing the analytical engine notes.
"""
MCP_LINES = [{"type": "entity", "name": "Ada", "entityType": "person", "observations": ["likes tea", "wrote programs"]},
             {"type": "relation", "from": "Ada", "to": "Grace", "relationType": "knows about coffee"},
             {"type": "entity", "name": "Grace", "entityType": "person", "observations": ["likes coffee"]}]


@pytest.fixture
def world(tmp_path):
    root = tmp_path / "import"
    (root / "memory" / "daily").mkdir(parents=True)
    (root / "memory" / "MEMORY.md").write_text(MEMORY_MD)
    (root / "memory" / "daily" / "2026-12-01.md").write_text("Met Grace about the compiler. Coffee was involved.\n")
    (root / "memory" / "memory.jsonl").write_text("\n".join(json.dumps(line) for line in MCP_LINES) + "\n")
    secret = tmp_path / "secret.md"
    secret.write_text("coffee secret outside the import directory\n")
    os.symlink(secret, root / "memory" / "leak.md")
    conn = relate.connect(":memory:", import_dir=str(root))
    for statement in (
            "CREATE LABEL Memory OPTIONS {lifecycle: {active: ['ACTIVE'], never: ['CONTRADICTED']}}",
            "CREATE LABEL MarkdownMemory OPTIONS {parents: ['Memory']}",
            "CREATE LABEL McpMemory OPTIONS {parents: ['Memory']}",
            "CREATE RELEVANCE JOIN md FOR (c:Concept)-[:RELEVANT_TO]->(m:MarkdownMemory) ON c.value "
            "OPTIONS {kind: 'files', path: 'memory', glob: '**/*.md', k: 5}",
            "CREATE RELEVANCE JOIN mcp FOR (c:Concept)-[:RELEVANT_TO]->(m:McpMemory) ON c.value "
            "OPTIONS {kind: 'files', path: 'memory/memory.jsonl', unit: 'line', require: {type: 'entity'}, "
            "recordKey: 'name', k: 5}"):
        conn.execute(statement).consume()
    yield conn, root
    conn.close()


def test_markdown_paragraphs_answer_as_query_time_memories(world):
    conn, _ = world
    result = conn.execute("MATCH (:Concept {value: 'coffee'})-[r:RELEVANT_TO]->(m:MarkdownMemory) "
                          "RETURN m.id AS id, m.text AS text, m.path AS path, m.line AS line, m.status AS status, "
                          "m.source AS source, labels(m) AS labels, r.score AS score, r.mode AS mode, "
                          "r.matchedTerms AS terms, r.rank AS rank ORDER BY r.rank")
    rows = [r.as_dict() for r in result]
    assert [r["id"] for r in rows] == ["memory/daily/2026-12-01.md#1", "memory/MEMORY.md#3"]
    assert rows[1]["text"] == "Ada prefers tea in the morning.\nShe dislikes coffee after noon."
    assert rows[1]["line"] == 3 and rows[1]["path"] == "memory/MEMORY.md"
    # the memory contract: a status (the label's active one: files have no lifecycle), a source
    assert {r["status"] for r in rows} == {"ACTIVE"} and {r["source"] for r in rows} == {"files"}
    assert all(set(r["labels"]) == {"MarkdownMemory", "Memory"} for r in rows)
    assert all(r["mode"] == "keyword" and r["terms"] == ["coffee"] and 0 < r["score"] < 1 for r in rows)
    assert rows[0]["score"] >= rows[1]["score"]
    assert not any("secret" in (r["text"] or "") for r in rows)      # the symbolic link out is never read
    assert result.consume().costs == {"semanticCalls": 1, "llmCalls": 0, "apiCalls": 0}


def test_mcp_memory_lines_keep_entities_only_and_key_them_by_name(world):
    conn, _ = world
    result = conn.execute("MATCH (:Concept {value: 'coffee'})-[r:RELEVANT_TO]->(m:McpMemory) "
                          "RETURN m.id AS id, m.name AS name, m.observations AS obs, m.entityType AS type, "
                          "m.line AS line ORDER BY r.rank")
    rows = [r.as_dict() for r in result]
    # the relation line mentions coffee too: require {type: 'entity'} leaves it out
    assert rows == [{"id": "Grace", "name": "Grace", "obs": ["likes coffee"], "type": "person", "line": 3}]


def test_the_parent_label_reads_every_files_system_and_counts_one_search_per_distinct_key(world):
    conn, _ = world
    conn.execute("CREATE (:Concept {value: 'coffee'}), (:Concept {value: 'coffee'}), "
                 "(:Concept {value: 'tea'})").consume()
    result = conn.execute("MATCH (c:Concept)-[r:RELEVANT_TO]->(m:Memory) RETURN c.value AS concept, m.id AS id")
    rows = [r.as_dict() for r in result]
    assert {r["id"] for r in rows if r["concept"] == "tea"} >= {"Ada", "memory/MEMORY.md#3"}
    assert result.consume().costs["semanticCalls"] == 4      # two joins x two distinct keys
    plan = conn.execute("EXPLAIN MATCH (c:Concept)-[r:RELEVANT_TO]->(m:Memory) RETURN m.id").consume().plan
    assert plan["costs"]["semanticCalls"] == 4 and plan["costs"]["apiCalls"] == 0


def test_the_corpus_follows_its_files(world):
    conn, root = world
    query = "MATCH (:Concept {value: 'espresso'})-[:RELEVANT_TO]->(m:MarkdownMemory) RETURN m.text"
    assert conn.execute(query).fetchall() == []
    time.sleep(0.01)
    (root / "memory" / "daily" / "2026-12-02.md").write_text("Ordered an espresso for Ada.\n")
    assert [r[0] for r in conn.execute(query)] == ["Ordered an espresso for Ada."]


def test_a_record_maps_onto_a_stored_target_by_key(world):
    conn, _ = world
    conn.execute("CREATE (:McpMemory:Memory {id: 'Grace', status: 'ACTIVE', pinned: true})").consume()
    rows = conn.execute("MATCH (:Concept {value: 'coffee'})-[:RELEVANT_TO]->(m:McpMemory) "
                        "RETURN m.pinned AS pinned, elementId(m) STARTS WITH '-' AS virtual").fetchall()
    assert [tuple(r) for r in rows] == [(True, False)]


def test_cache_ttl_spares_the_second_search(world):
    conn, _ = world
    conn.execute("CREATE RELEVANCE JOIN cached FOR (c:Topic)-[:ABOUT]->(m:MarkdownMemory) ON c.name "
                 "OPTIONS {kind: 'files', path: 'memory', glob: '*.md', cacheTtl: 60}").consume()
    query = "MATCH (:Topic {name: 'tea'})-[:ABOUT]->(m:MarkdownMemory) RETURN m.id"
    first = conn.execute(query)
    assert [r[0] for r in first] == ["memory/MEMORY.md#3"] and first.consume().costs["semanticCalls"] == 1
    again = conn.execute(query)
    assert [r[0] for r in again] == ["memory/MEMORY.md#3"] and again.consume().costs["semanticCalls"] == 0


def test_without_an_import_directory_a_search_is_a_typed_error():
    conn = relate.connect(":memory:")
    conn.execute("CREATE RELEVANCE JOIN md FOR (c:Concept)-[:RELEVANT_TO]->(m:Note) ON c.value "
                 "OPTIONS {kind: 'files', path: 'notes'}").consume()
    with pytest.raises(ClientError) as err:
        conn.execute("MATCH (:Concept {value: 'x'})-[:RELEVANT_TO]->(m:Note) RETURN m").fetchall()
    assert err.value.code == "Neo.ClientError.Statement.ExternalResourceFailed"
    assert "import directory" in err.value.message


@pytest.mark.parametrize("options, message", [
    ("{kind: 'files'}", "needs OPTIONS {path"),
    ("{kind: 'files', path: '../etc'}", "'..' is not allowed"),
    ("{kind: 'files', path: 'm', glob: '../*'}", "relative pattern"),
    ("{kind: 'files', path: 'm', unit: 'sentence'}", "`unit` is one of"),
    ("{kind: 'files', path: 'm', require: 'entity'}", "`require` is a map"),
    ("{kind: 'files', path: 'm', url: 'http://x'}", "not files"),
    ("{indexes: ['i'], path: 'm'}", "files only"),
])
def test_bad_files_options_are_typed_errors(options, message):
    conn = relate.connect(":memory:")
    with pytest.raises(ClientError, match=message.replace("{", r"\{").replace("(", r"\(")):
        conn.execute(f"CREATE RELEVANCE JOIN bad FOR (c:Concept)-[:RELEVANT_TO]->(m:Note) ON c.value OPTIONS {options}"
                     ).consume()


def test_hidden_folders_and_a_second_name_for_a_file_are_not_read_twice(world):
    conn, root = world
    (root / "memory" / ".git").mkdir()
    (root / "memory" / ".git" / "notes.md").write_text("coffee in a hidden folder\n")
    os.symlink(root / "memory" / "MEMORY.md", root / "memory" / "alias.md")
    os.symlink("..", root / "memory" / "daily" / "up")          # a loop back up the tree
    rows = conn.execute("MATCH (:Concept {value: 'coffee'})-[r:RELEVANT_TO]->(m:MarkdownMemory) "
                        "RETURN m.text AS text").fetchall()
    texts = [r[0] for r in rows]
    assert len(texts) == len(set(texts)) == 2 and not any("hidden" in t for t in texts)


def test_a_path_naming_the_scope_reads_each_users_own_directory(tmp_path):
    from relate.server.engine import Database
    for user, text in (("alice", "alice keeps her coffee black"), ("bob", "bob takes coffee with oat milk")):
        (tmp_path / "users" / user).mkdir(parents=True)
        (tmp_path / "users" / user / "MEMORY.md").write_text(text + "\n")
    db = Database.open(None, import_dir=str(tmp_path))

    def session(scope):
        s = db.session()
        s.scope = scope
        return relate.Connection(s)

    admin = session({})
    admin.execute("CREATE RELEVANCE JOIN mine FOR (c:Concept)-[:RELEVANT_TO]->(m:Note) ON c.value "
                  "OPTIONS {kind: 'files', path: 'users/{user}'}").consume()
    query = "MATCH (:Concept {value: 'coffee'})-[:RELEVANT_TO]->(m:Note) RETURN m.text"
    assert [r[0] for r in session({"user": "alice"}).execute(query)] == ["alice keeps her coffee black"]
    assert [r[0] for r in session({"user": "bob"}).execute(query)] == ["bob takes coffee with oat milk"]
    assert admin.execute(query).fetchall() == []                       # no user bound: nothing (fail closed)
    assert session({"user": "../users/bob"}).execute(query).fetchall() == []     # not one plain segment
    with pytest.raises(ClientError, match="not \\{tenant\\}"):
        admin.execute("CREATE RELEVANCE JOIN bad FOR (c:Concept)-[:RELEVANT_TO]->(m:Note) ON c.value "
                      "OPTIONS {kind: 'files', path: 'users/{tenant}'}").consume()


def test_hostile_lines_are_text_not_errors(world):
    conn, root = world
    deep = '{"type": "entity", "name": "deep", "x": ' + "[" * 100_000 + "]" * 100_000 + "}"
    nested = '{"type": "entity", "name": "nested", "x": ' + '{"a": ' * 500 + '"coffee"' + "}" * 500 + "}"
    (root / "memory" / "memory.jsonl").write_text(deep + "\n" + nested + "\n")
    rows = conn.execute("MATCH (:Concept {value: 'coffee'})-[:RELEVANT_TO]->(m:McpMemory) RETURN m.name").fetchall()
    assert [r[0] for r in rows] == ["nested"]        # the too-deep line is not a record: require leaves it out


def test_a_heading_is_the_section_of_its_paragraphs_not_a_memory_of_its_own(world):
    conn, _ = world
    rows = conn.execute("MATCH (:Concept {value: 'projects'})-[r:RELEVANT_TO]->(m:MarkdownMemory) "
                        "RETURN m.text AS text, m.section AS section, m.line AS line, r.snippet AS snippet").fetchall()
    assert [tuple(r) for r in rows] == [("Ada is writing the analytical engine notes.", "Projects", 8,
                                         "Ada is writing the analytical engine notes.")]


def test_names_a_files_join_makes_real_are_not_reported_unknown(world):
    conn, _ = world
    result = conn.execute("MATCH (:Concept {value: 'coffee'})-[r:RELEVANT_TO {ai: {materialize: true}}]->(m:Memory) "
                          "RETURN m.text, m.path, m.line, m.section, m.source, r.score")
    result.fetchall()
    notes = [n for n in result.consume().notifications if "Unknown" in n["code"]]
    assert notes == []
    result = conn.execute("MATCH (m:MarkdownMemory) RETURN m.txet")         # a misspelling is still one
    result.fetchall()
    assert any("txet" in n["description"] for n in result.consume().notifications)
