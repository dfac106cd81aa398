"""The cookbook's result tables, as rows of plain values (scores as printed). verify_fixture.py checks the
fixture reproduces them; tests/examples/test_hybrid_recall.py checks the engine does."""
from __future__ import annotations

T = {  # the cookbook's note texts, by id
    "n01": "Relay kickoff: ticket intake, the agent console and billing all live in one monorepo.",
    "n02": "Customer login goes through Auth0; refresh tokens live in HttpOnly cookies.",
    "n03": "OAuth callbacks are published to Kafka so the audit service sees every login.",
    "n04": "Each tenant gets its own Kafka topic for ticket events.",
    "n07": "Kafka consumer lag on the ticket-events group is the first alert to build.",
    "n15": "Migrate customer login from Auth0 to Okta before the April renewal.",
    "n16": "Token revocation now propagates in under a second via the Redis session store.",
    "n18": "Consolidate ticket events into shared Kafka topics keyed by tenant id.",
    "n23": "Kafka lag dashboard added to Grafana with a five minute alert.",
    "n25": "Refresh tokens rotate on every use once Okta is live.",
    "n26": ("Incident KAFKA-142: a broker disk filled overnight because retention on the audit stream was "
            "unbounded; retention is now capped and a disk alert pages the on-call engineer."),
    "n27": "Retention on shared Kafka topics is three days.",
    "n32": "Kafka status: consumer lag is back under one second after the rebalance fix.",
}

# Sessions and ts the cookbook prints (hop output, decided_on dates, README facts).
SHOWN = {
    "n02": ("session-1", 1772442900000), "n03": ("session-1", 1772443800000),
    "n04": ("session-1", 1772444700000), "n15": ("session-2", 1773048000000),
    "n25": ("session-2", 1773064800000), "n27": ("session-3", 1773652800000),
    "n18": ("session-2", None), "n23": ("session-2", None), "n31": ("session-3", None),
    "n35": ("session-3", None),
}

SETUP_COUNTERS = {"indexes_added": 3, "constraints_added": 3}
LOAD_COUNTERS = {"nodes_created": 46, "relationships_created": 56, "properties_set": 224, "labels_added": 46}
COUNT = [(40, 3, 6, 47, 9)]
COUNT_COLUMNS = ["notes", "sessions", "topics", "about", "decided"]

VECTOR_COLUMNS = ["id", "session", "vector", "text"]
VECTOR_LIST = [
    ("n02", "session-1", 0.6252, T["n02"]),
    ("n25", "session-2", 0.5692, T["n25"]),
    ("n03", "session-1", 0.5585, T["n03"]),
    ("n15", "session-2", 0.5536, T["n15"]),
    ("n04", "session-1", 0.5435, T["n04"]),
]
# "Change since to 2026-03-09T00:00:00Z": the session-1 notes drop out, five notes of sessions 2 and 3
# remain (the cookbook names the same five in the IN and range forms).
VECTOR_LIST_SINCE_0309_IDS = ["n25", "n15", "n31", "n35", "n23"]

FULLTEXT_COLUMNS = ["id", "fulltext", "text"]
FULLTEXT_LIST = [
    ("n03", 1.4178942683735956, T["n03"]),
    ("n25", 1.335407782356475, T["n25"]),
    ("n02", 1.2865960449569087, T["n02"]),
]

FILTER_COLUMNS = ["filter", "ids"]
FILTER_FORMS = [
    ("vector: WHERE inside SEARCH", ["n18", "n19", "n23"]),
    ("vector: WHERE after SEARCH", ["n18"]),
    ("full-text: LIMIT $k, then WHERE", []),
    ("full-text: LIMIT $k * 3, WHERE, LIMIT $k", ["n17", "n18", "n19"]),
]

RRF_COLUMNS = ["id", "vector_rank", "fulltext_rank", "rrf", "text"]
# The explorer's fused table for the oauth question at k = 5 (ids with their ranks and fused score).
RRF_OAUTH = [
    ("n02", 1, 3, 0.0323, T["n02"]),
    ("n03", 3, 1, 0.0323, T["n03"]),
    ("n25", 2, 2, 0.0323, T["n25"]),
    ("n15", 4, None, 0.0156, T["n15"]),
    ("n04", 5, None, 0.0154, T["n04"]),
]
RRF_REVOCATION = [
    ("n25", 3, 1, 0.0323, T["n25"]),
    ("n02", 2, 2, 0.0323, T["n02"]),
    ("n16", 1, None, 0.0164, T["n16"]),
    ("n01", 4, None, 0.0156, T["n01"]),
    ("n32", 5, None, 0.0154, T["n32"]),
]
RRF_INCIDENT = [
    ("n23", 1, 2, 0.0325, T["n23"]),
    ("n04", 2, 4, 0.0318, T["n04"]),
    ("n07", 3, 3, 0.0317, T["n07"]),
    ("n26", None, 1, 0.0164, T["n26"]),
    ("n18", 4, None, 0.0156, T["n18"]),
]

OKTA = "migrate customer login to Okta"
RETENTION = "three-day retention on shared Kafka topics"
RECALL_COLUMNS = ["id", "text", "topic", "decided", "rrf"]
RECALL = [
    ("n02", T["n02"], "auth", OKTA, 0.0323),
    ("n03", T["n03"], "auth", OKTA, 0.0323),
    ("n03", T["n03"], "kafka", RETENTION, 0.0323),
    ("n25", T["n25"], "auth", OKTA, 0.0323),
    ("n15", T["n15"], "auth", OKTA, 0.0156),
    ("n04", T["n04"], "kafka", RETENTION, 0.0154),
]
PATHS_COLUMNS = ["note", "topic", "decided_by", "path"]
PATHS = [  # (note, topic, decided_by); each path is note -ABOUT-> topic <-DECIDED- decided_by
    ("n02", "auth", "n15"), ("n03", "auth", "n15"), ("n03", "kafka", "n27"),
    ("n25", "auth", "n15"), ("n15", "auth", "n15"), ("n04", "kafka", "n27"),
]

DECISION_COLUMNS = ["note", "topic", "decision", "decided_on", "score"]
DECISIONS = [
    ("n04", "kafka", "one Kafka topic per tenant", "2026-03-02", 1.0354512120083705),
    ("n18", "kafka", "shared Kafka topics keyed by tenant id", "2026-03-09", 0.8976179364575441),
    ("n30", "billing", "nightly invoices from Kafka usage events", "2026-03-16", 0.3514558522085262),
    ("n27", "kafka", RETENTION, "2026-03-16", 0.3280639672217632),
]
OLDEST_DECISION = "use Auth0 for customer login"

IN_FORM = ["n25", "n15", "n31", "n35", "n23"]
RANGE_COLUMNS = ["id", "session", "vector"]
RANGE_FORM = [
    ("n25", "session-2", 0.5692),
    ("n15", "session-2", 0.5536),
    ("n31", "session-3", 0.5386),
    ("n35", "session-3", 0.5383),
    ("n23", "session-2", 0.529),
]
