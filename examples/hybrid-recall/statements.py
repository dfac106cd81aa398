"""Every statement of the cookbook recipe "Hybrid recall: vector + full-text + RRF", verbatim, and the
question block (fixture.json "questions") whose parameters each one runs with."""
from __future__ import annotations

import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURE = os.path.join(HERE, "fixture.json")

# "Create the constraints and search indexes": 3 constraints + 3 indexes, run one by one.
SETUP = [
    """CREATE CONSTRAINT note_id IF NOT EXISTS FOR (n:Note) REQUIRE n.id IS UNIQUE""",
    """CREATE CONSTRAINT topic_name IF NOT EXISTS FOR (t:Topic) REQUIRE t.name IS UNIQUE""",
    """CREATE CONSTRAINT decided_ts IF NOT EXISTS
FOR ()-[d:DECIDED]-() REQUIRE d.ts IS :: INTEGER""",
    """CREATE VECTOR INDEX note_e IF NOT EXISTS
FOR (n:Note) ON (n.embedding) WITH [n.session, n.ts]
OPTIONS {indexConfig: {`vector.dimensions`: 384,
`vector.similarity_function`: 'cosine'}}""",
    """CREATE FULLTEXT INDEX note_t IF NOT EXISTS FOR (n:Note) ON EACH [n.text]""",
    """CREATE FULLTEXT INDEX dec_t IF NOT EXISTS FOR ()-[r:DECIDED]-() ON EACH [r.text]""",
]

# Load the notes: 40 notes, MERGEd topics, ABOUT edges (parameter $notes).
LOAD_NOTES = """UNWIND $notes AS r
CREATE (n:Note {id: r.id, text: r.text, session: r.session, ts: r.ts,
embedding: vector(r.e, 384, FLOAT32)})
WITH n, r
UNWIND r.topics AS name
MERGE (t:Topic {name: name})
CREATE (n)-[:ABOUT]->(t)"""

# Load the decisions: 9 DECIDED edges (parameter $decisions).
LOAD_DECISIONS = """UNWIND $decisions AS r
MATCH (n:Note {id: r.note}), (t:Topic {name: r.topic})
CREATE (n)-[:DECIDED {text: r.text, ts: r.ts}]->(t)"""

# The count after loading.
COUNT = """MATCH (n:Note)
RETURN count(n) AS notes, count(DISTINCT n.session) AS sessions,
COUNT { MATCH (:Topic) } AS topics,
COUNT { MATCH ()-[:ABOUT]->() } AS about,
COUNT { MATCH ()-[:DECIDED]->() } AS decided"""

# The vector list: the time filter inside the search.
VECTOR_LIST = """MATCH (n:Note)
SEARCH n IN (VECTOR INDEX note_e FOR $v
WHERE n.ts >= datetime($since).epochMillis LIMIT $k) SCORE AS vs
RETURN n.id AS id, n.session AS session, round(vs, 4) AS vector, n.text AS text
ORDER BY vs DESC, id"""

# The full-text list: fetch k * 3, filter by time, keep k.
FULLTEXT_LIST = """MATCH (n:Note)
SEARCH n IN (FULLTEXT INDEX note_t FOR $q LIMIT $k * 3) SCORE AS fs
WHERE n.ts >= datetime($since).epochMillis
RETURN n.id AS id, fs AS fulltext, n.text AS text
ORDER BY fs DESC, id LIMIT $k"""

# Filter inside the search, not after it: four forms in one UNION ALL.
FILTER_FORMS = """MATCH (n:Note)
SEARCH n IN (VECTOR INDEX note_e FOR $v
WHERE n.session = $session AND n.ts >= datetime($since).epochMillis
LIMIT $k) SCORE AS s
WITH n ORDER BY s DESC, n.id
WITH collect(n.id) AS ids
RETURN 'vector: WHERE inside SEARCH' AS filter, ids
UNION ALL
MATCH (n:Note)
SEARCH n IN (VECTOR INDEX note_e FOR $v LIMIT $k) SCORE AS s
WHERE n.session = $session AND n.ts >= datetime($since).epochMillis
WITH n ORDER BY s DESC, n.id
WITH collect(n.id) AS ids
RETURN 'vector: WHERE after SEARCH' AS filter, ids
UNION ALL
MATCH (n:Note)
SEARCH n IN (FULLTEXT INDEX note_t FOR $q LIMIT $k) SCORE AS s
WHERE n.session = $session AND n.ts >= datetime($since).epochMillis
WITH n ORDER BY s DESC, n.id
WITH collect(n.id) AS ids
RETURN 'full-text: LIMIT $k, then WHERE' AS filter, ids
UNION ALL
MATCH (n:Note)
SEARCH n IN (FULLTEXT INDEX note_t FOR $q LIMIT $k * 3) SCORE AS s
WHERE n.session = $session AND n.ts >= datetime($since).epochMillis
WITH n ORDER BY s DESC, n.id LIMIT $k
WITH collect(n.id) AS ids
RETURN 'full-text: LIMIT $k * 3, WHERE, LIMIT $k' AS filter, ids"""

# CALL () { ... UNION ALL ... }: both lists and their fusion in one statement.
RRF = """CALL () {
MATCH (n:Note)
SEARCH n IN (VECTOR INDEX note_e FOR $v
WHERE n.ts >= datetime($since).epochMillis LIMIT $k) SCORE AS vs
WITH n ORDER BY vs DESC, n.id
WITH collect(n) AS ns
UNWIND range(0, size(ns) - 1) AS i
RETURN ns[i] AS n, 'vector' AS list, i + 1 AS rank
UNION ALL
MATCH (n:Note)
SEARCH n IN (FULLTEXT INDEX note_t FOR $q LIMIT $k * 3) SCORE AS fs
WHERE n.ts >= datetime($since).epochMillis
WITH n ORDER BY fs DESC, n.id LIMIT $k
WITH collect(n) AS ns
UNWIND range(0, size(ns) - 1) AS i
RETURN ns[i] AS n, 'fulltext' AS list, i + 1 AS rank
}
WITH n, sum(1.0 / (60 + rank)) AS rrf,
min(CASE list WHEN 'vector' THEN rank END) AS vector_rank,
min(CASE list WHEN 'fulltext' THEN rank END) AS fulltext_rank
ORDER BY rrf DESC, n.id LIMIT $k
RETURN n.id AS id, vector_rank, fulltext_rank, round(rrf, 4) AS rrf, n.text AS text"""

# Hop to the topic and its latest decision: the whole recall tool.
RECALL = """CALL () {
MATCH (n:Note)
SEARCH n IN (VECTOR INDEX note_e FOR $v
WHERE n.ts >= datetime($since).epochMillis LIMIT $k) SCORE AS vs
WITH n ORDER BY vs DESC, n.id
WITH collect(n) AS ns
UNWIND range(0, size(ns) - 1) AS i
RETURN ns[i] AS n, i + 1 AS rank
UNION ALL
MATCH (n:Note)
SEARCH n IN (FULLTEXT INDEX note_t FOR $q LIMIT $k * 3) SCORE AS fs
WHERE n.ts >= datetime($since).epochMillis
WITH n ORDER BY fs DESC, n.id LIMIT $k
WITH collect(n) AS ns
UNWIND range(0, size(ns) - 1) AS i
RETURN ns[i] AS n, i + 1 AS rank
}
WITH n, sum(1.0 / (60 + rank)) AS rrf
ORDER BY rrf DESC, n.id LIMIT $k
MATCH (n)-[:ABOUT]->(t:Topic)
OPTIONAL MATCH (t)<-[d:DECIDED]-()
WITH n, rrf, t, d ORDER BY d.ts DESC
WITH n, rrf, t, head(collect(d.text)) AS decided
RETURN n.id AS id, n.text AS text, t.name AS topic, decided, round(rrf, 4) AS rrf
ORDER BY rrf DESC, id, topic"""

# The same hop returned as paths, for the graph view.
PATHS = """CALL () {
MATCH (n:Note)
SEARCH n IN (VECTOR INDEX note_e FOR $v
WHERE n.ts >= datetime($since).epochMillis LIMIT $k) SCORE AS vs
WITH n ORDER BY vs DESC, n.id
WITH collect(n) AS ns
UNWIND range(0, size(ns) - 1) AS i
RETURN ns[i] AS n, i + 1 AS rank
UNION ALL
MATCH (n:Note)
SEARCH n IN (FULLTEXT INDEX note_t FOR $q LIMIT $k * 3) SCORE AS fs
WHERE n.ts >= datetime($since).epochMillis
WITH n ORDER BY fs DESC, n.id LIMIT $k
WITH collect(n) AS ns
UNWIND range(0, size(ns) - 1) AS i
RETURN ns[i] AS n, i + 1 AS rank
}
WITH n, sum(1.0 / (60 + rank)) AS rrf
ORDER BY rrf DESC, n.id LIMIT $k
MATCH (n)-[:ABOUT]->(t:Topic)<-[d:DECIDED]-(:Note)
WITH n, rrf, t, d ORDER BY d.ts DESC
WITH n, rrf, t, head(collect(d)) AS d
MATCH p = (n)-[:ABOUT]->(t)<-[d]-(m:Note)
RETURN n.id AS note, t.name AS topic, m.id AS decided_by, p AS path
ORDER BY rrf DESC, note, topic"""

# Search the decisions themselves: full-text over DECIDED.text.
DECISION_SEARCH = """MATCH ()-[r:DECIDED]->()
SEARCH r IN (FULLTEXT INDEX dec_t FOR $q LIMIT $k) SCORE AS s
RETURN startNode(r).id AS note, endNode(r).name AS topic, r.text AS decision,
date(datetime.fromEpochMillis(r.ts)) AS decided_on, s AS score
ORDER BY score DESC, decided_on, note"""

# An IN over a declared property inside the vector search.
IN_FORM = """MATCH (n:Note)
SEARCH n IN (VECTOR INDEX note_e FOR $v
WHERE n.session IN ['session-2', 'session-3'] LIMIT $k) SCORE AS s
RETURN n.id AS id"""

# The same scope as a range.
RANGE_FORM = """MATCH (n:Note)
SEARCH n IN (VECTOR INDEX note_e FOR $v
WHERE n.session >= 'session-2' AND n.session <= 'session-3'
LIMIT $k) SCORE AS s
RETURN n.id AS id, n.session AS session, round(s, 4) AS vector
ORDER BY s DESC, id"""

# The cookbook's note on ORDER BY ... LIMIT over a relationship property: both must return the newest
# decision (Relate once returned the oldest for the first form; that engine bug is not reproduced here).
LATEST_DECISION = """MATCH (:Note)-[d:DECIDED]->(:Topic) RETURN d.text ORDER BY d.ts DESC LIMIT 1"""
LATEST_DECISION_TWO_KEYS = """MATCH (:Note)-[d:DECIDED]->(:Topic) RETURN d.text ORDER BY d.ts DESC, d.text LIMIT 1"""

# (step name, statement, question block) in the order the cookbook runs them after setup and load.
STEPS = [
    ("vector list", VECTOR_LIST, "oauth"),
    ("vector list since 2026-03-09", VECTOR_LIST, "oauth_since_0309"),
    ("full-text list", FULLTEXT_LIST, "oauth"),
    ("filter forms", FILTER_FORMS, "kafka_scope"),
    ("fusion, oauth question", RRF, "oauth"),
    ("fusion, revocation question", RRF, "revocation"),
    ("fusion, incident question", RRF, "incident"),
    ("recall", RECALL, "oauth"),
    ("recall paths", PATHS, "oauth"),
    ("decision search", DECISION_SEARCH, "decisions"),
    ("IN form", IN_FORM, "oauth"),
    ("range form", RANGE_FORM, "oauth"),
    ("latest decision", LATEST_DECISION, None),
    ("latest decision, two sort keys", LATEST_DECISION_TWO_KEYS, None),
]


def load_fixture(path: str = FIXTURE) -> dict:
    with open(path) as f:
        return json.load(f)


def load_params(fixture: dict) -> dict:
    """Parameters of the two load statements."""
    return {"notes": fixture["notes"], "decisions": fixture["decisions"]}


def question_params(fixture: dict, block: str | None) -> dict:
    """A question block as statement parameters: q, v, k, since (and session where the block has one)."""
    if block is None:
        return {}
    return {k: v for k, v in fixture["questions"][block].items() if k != "authored"}
