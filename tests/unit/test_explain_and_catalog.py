"""EXPLAIN/PROFILE details and estimates, the printable plan, SHOW INDEXES/PROCEDURES/FUNCTIONS,
dbms.components() and db.schema.visualization(), and the shell's :schema."""
from __future__ import annotations

import io

import pytest
from rich.console import Console

import relate
from relate.shell.output import TableWriter
from relate.shell.runner import schema_text
from relate.summary import Plan


@pytest.fixture
def db():
    connection = relate.connect(":memory:")
    connection.execute("UNWIND range(1, 6) AS i CREATE (:Note {id: i, ts: i})")
    connection.execute("CREATE INDEX note_id FOR (n:Note) ON (n.id)")
    yield connection
    connection.close()


def _find(plan: dict, operator: str) -> dict:
    if plan["operator"] == operator:
        return plan
    for child in plan["children"]:
        found = _find(child, operator)
        if found:
            return found
    return {}


def test_index_seek_shows_its_value_and_top_its_keys(db):
    result = db.execute("EXPLAIN MATCH (n:Note {id: $id}) RETURN n", {"id": 3})
    assert _find(result.summary.plan, "NodeIndexSeek")["details"] == "n:Note(id) = $id"
    result = db.execute("EXPLAIN MATCH (n:Note) WHERE n.id IN [1, 2] RETURN n")
    assert _find(result.summary.plan, "NodeIndexSeek")["details"] == "n:Note(id) IN [1, 2]"
    result = db.execute("EXPLAIN MATCH (n:Note) RETURN n ORDER BY n.ts DESC, n.id SKIP 1 LIMIT 3")
    assert _find(result.summary.plan, "Top")["details"] == "n.ts DESC, n.id SKIP 1 LIMIT 3"
    result = db.execute("EXPLAIN MATCH (n:Note) RETURN n ORDER BY n.ts")
    assert _find(result.summary.plan, "Sort")["details"] == "n.ts"


@pytest.mark.parametrize("mode", ["EXPLAIN", "PROFILE"])
def test_label_scan_estimate_is_the_label_count(db, mode):
    result = db.execute(f"{mode} MATCH (n:Note) RETURN n.id")
    result.fetchall()
    scan = _find(result.summary.plan, "NodeByLabelScan")
    assert scan["estimated_rows"] == 6
    if mode == "PROFILE":
        assert scan["rows"] == 6


def test_plan_prints_as_an_operator_tree(db):
    result = db.execute("PROFILE MATCH (n:Note {id: 2}) RETURN n.ts")
    result.fetchall()
    plan = result.summary.plan
    assert isinstance(plan, Plan) and isinstance(plan, dict)
    lines = str(plan).splitlines()
    assert lines[0].startswith("+ ProduceResults  n.ts  (estimated rows: 1, rows: 1, ")
    assert any(line.lstrip().startswith("+ NodeIndexSeek  n:Note(id) = 2  (estimated rows: 1, rows: 1") for line in lines)


def test_show_indexes_has_neo4j_columns_and_reads_at_120_columns(db):
    db.execute("CREATE FULLTEXT INDEX note_text FOR (n:Note) ON EACH [n.text]")
    db.execute("CREATE VECTOR INDEX note_embedding FOR (n:Note) ON (n.embedding) "
               "OPTIONS {indexConfig: {`vector.dimensions`: 384}}")
    result = db.execute("SHOW INDEXES")
    columns = ["id", "name", "state", "populationPercent", "type", "entityType", "labelsOrTypes", "properties",
               "indexProvider", "owningConstraint", "lastRead", "readCount"]
    assert result.keys() == columns                         # Neo4j's defaults
    out = io.StringIO()
    TableWriter(Console(file=out, width=120, highlight=False)).write(result.columns, result)
    lines = out.getvalue().splitlines()
    assert max(len(line) for line in lines) <= 120
    # too wide for a table at 120 characters: one record at a time, a column per line, nothing cut
    # three indexes and the two token lookup indexes every database has
    assert [line for line in lines if "record" in line][:5] and len(lines) == 5 * (1 + len(columns)), out.getvalue()
    assert {line.split()[0] for line in lines if "record" not in line} == set(columns)
    assert any("note_embedding" in line and line.split()[0] == "name" for line in lines)
    narrow = io.StringIO()
    TableWriter(Console(file=narrow, width=120, highlight=False)).write(
        ["name", "state"], db.execute("SHOW INDEXES YIELD name, state"))
    assert len(narrow.getvalue().splitlines()) == 3 + 5 + 1   # a table when it fits: frame, header, rule, 5 rows, frame
    every = db.execute("SHOW INDEXES YIELD *").keys()
    assert {"id", "indexProvider", "owningConstraint", "readCount", "options", "createStatement"} <= set(every)


def test_procedures_and_functions_have_descriptions(db):
    procedures = {p["name"]: p["description"] for p in db.execute("SHOW PROCEDURES").data()}
    assert procedures["db.schema.visualization"].startswith("The schema as a graph")
    assert procedures["dbms.components"] and all(procedures.values())
    functions = {f["name"]: f["description"] for f in db.execute("SHOW FUNCTIONS").data()}
    assert functions["abs"] and functions["datetime.truncate"] and all(functions.values())


def test_schema_visualization_and_the_shell_schema_text(db):
    db.execute("CREATE CONSTRAINT topic_name FOR (t:Topic) REQUIRE t.name IS UNIQUE")
    db.execute("MATCH (n:Note {id: 1}) CREATE (n)-[:ABOUT]->(:Topic {name: 'auth'})")
    row = db.execute("CALL db.schema.visualization()").single()
    nodes = {node["name"]: node for node in row["nodes"]}
    assert set(nodes) == {"Note", "Topic"} and nodes["Note"].labels == {"Note"}
    assert nodes["Note"]["indexes"] == ["range (id)"] and nodes["Topic"]["constraints"] == ["unique (name)"]
    by_id = {node.id: node["name"] for node in row["nodes"]}
    assert [(by_id[r.start_id], r.type, by_id[r.end_id]) for r in row["relationships"]] == [("Note", "ABOUT", "Topic")]
    text = schema_text(row["nodes"], row["relationships"])
    assert "  :Note  indexes: range (id)" in text and "  (:Note)-[:ABOUT]->(:Topic)" in text


def test_explain_reports_the_statement_type_it_would_run_with(db):
    """EXPLAIN's query type is the explained statement's (Neo4j): w for a write returning nothing."""
    assert db.execute("EXPLAIN CREATE (:Z)").summary.query_type == "w"
    assert db.execute("EXPLAIN CREATE (z:Z) RETURN z").summary.query_type == "rw"
    assert db.execute("EXPLAIN MATCH (z:Z) RETURN z").summary.query_type == "r"
    assert db.execute("CREATE (:Z)").summary.query_type == "w"
