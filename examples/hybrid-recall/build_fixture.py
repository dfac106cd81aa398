"""Writes fixture.json: the cookbook's 40 notes, 6 topics, 9 decisions and question blocks, embedded
with hash-384. Records whose last field is True are authored: the cookbook does not show them (README.md)."""
from __future__ import annotations

import json
import os
from datetime import datetime, timedelta, timezone

from relate.embedders import hash384, round6

HERE = os.path.dirname(os.path.abspath(__file__))

# Session starts and note spacing. Fixed by the cookbook: n02 09:15, n03 09:30, n04 09:45 (2026-03-02),
# n15 09:20 and n25 14:00 (2026-03-09), n27 09:20 (2026-03-16); "session 2 from 10:00 on holds nine
# notes" puts n16 before 10:00 and n17 after it.
SESSIONS = {
    "session-1": (datetime(2026, 3, 2, 9, 0, tzinfo=timezone.utc), 15, "n01"),
    "session-2": (datetime(2026, 3, 9, 9, 20, tzinfo=timezone.utc), 28, "n15"),
    "session-3": (datetime(2026, 3, 16, 9, 0, tzinfo=timezone.utc), 20, "n26"),
}

# id -> (session, topics, text, authored)
NOTES = [
    ("n01", "session-1", ["platform"], "Relay kickoff: ticket intake, the agent console and billing all live in one monorepo.", False),
    ("n02", "session-1", ["auth"], "Customer login goes through Auth0; refresh tokens live in HttpOnly cookies.", False),
    ("n03", "session-1", ["auth", "kafka"], "OAuth callbacks are published to Kafka so the audit service sees every login.", False),
    ("n04", "session-1", ["kafka"], "Each tenant gets its own Kafka topic for ticket events.", False),
    ("n05", "session-1", ["platform"], "Ticket intake starts with email and a web form; chat comes later.", True),
    ("n06", "session-1", ["console"], "Agent console: React front end, one GraphQL gateway in front of every service.", True),
    ("n07", "session-1", ["kafka", "observability"], "Kafka consumer lag on the ticket-events group is the first alert to build.", False),
    ("n08", "session-1", ["billing"], "Stripe handles card payments for per-seat monthly billing.", True),
    ("n09", "session-1", ["platform"], "Tickets and customers live in Postgres; attachments sit in S3.", True),
    ("n10", "session-1", ["billing", "kafka"], "Billing consumes usage straight from Kafka, not Postgres.", True),
    ("n11", "session-1", ["console"], "Agent presence and typing indicators for the console live in Redis.", True),
    ("n12", "session-1", ["observability"], "Grafana is the one place for logs, metrics and traces.", True),
    ("n13", "session-1", ["kafka"], "Kafka starts on three brokers in a single zone.", True),
    ("n14", "session-1", ["platform"], "Wrap-up: intake, console and billing each have one owner now.", True),
    ("n15", "session-2", ["auth"], "Migrate customer login from Auth0 to Okta before the April renewal.", False),
    ("n16", "session-2", ["auth"], "Token revocation now propagates in under a second via the Redis session store.", False),
    ("n17", "session-2", ["kafka"], "Per-tenant topics already push Kafka over its staging partition limit.", True),
    ("n18", "session-2", ["kafka"], "Consolidate ticket events into shared Kafka topics keyed by tenant id.", False),
    ("n19", "session-2", ["kafka"], "Kafka clients now key messages by tenant id, exactly as planned.", True),
    ("n20", "session-2", ["billing"], "A background worker renders invoice PDFs for every account.", True),
    ("n21", "session-2", ["console"], "Cache the console ticket lists in Redis instead of querying Postgres.", True),
    ("n22", "session-2", ["billing"], "Duplicate Stripe webhooks are ignored by event id.", True),
    ("n23", "session-2", ["kafka", "observability"], "Kafka lag dashboard added to Grafana with a five minute alert.", False),
    ("n24", "session-2", ["console"], "Keyboard shortcuts in the reply box are the top agent request.", True),
    ("n25", "session-2", ["auth"], "Refresh tokens rotate on every use once Okta is live.", False),
    ("n26", "session-3", ["kafka", "observability"], "Incident KAFKA-142: a broker disk filled overnight because retention on the audit stream was unbounded; retention is now capped and a disk alert pages the on-call engineer.", False),
    ("n27", "session-3", ["kafka"], "Retention on shared Kafka topics is three days.", False),
    ("n28", "session-3", ["kafka"], "Each broker now gets a 2 TB disk, up from 500 GB.", True),
    ("n29", "session-3", ["console"], "Console search now matches ticket subjects and customer emails.", True),
    ("n30", "session-3", ["billing", "kafka"], "Invoices are now built nightly from the Kafka usage events.", True),
    ("n31", "session-3", ["auth"], "Customer login moved to Okta this morning. The Auth0 tenant stays read-only.", True),
    ("n32", "session-3", ["kafka"], "Kafka status: consumer lag is back under one second after the rebalance fix.", False),
    ("n33", "session-3", ["observability"], "Alert on broker disk usage, not just consumer lag.", True),
    ("n34", "session-3", ["console"], "The console sidebar now merges duplicate tickets in one click.", True),
    ("n35", "session-3", ["auth"], "By noon Auth0 traffic is down to zero; the account closes next month.", True),
    ("n36", "session-3", ["auth", "console"], "The console login page now hands off to Okta, MFA on.", True),
    ("n37", "session-3", ["billing"], "Billing sends finance a monthly seat count for each tenant.", True),
    ("n38", "session-3", ["platform"], "Staging now mirrors production data nightly, with customer emails masked.", True),
    ("n39", "session-3", ["console"], "Each team gets its own set of canned replies in the console.", True),
    ("n40", "session-3", ["platform"], "Wrap-up: shared topics and nightly invoices are set for next week.", True),
]

# (note, topic, text, authored); DECIDED.ts is the deciding note's ts. The list order follows the note
# ids, which gives the cookbook's relationship ids r50 (n15) and r53 (n27) after the 47 ABOUT edges.
DECISIONS = [
    ("n02", "auth", "use Auth0 for customer login", False),
    ("n04", "kafka", "one Kafka topic per tenant", False),
    ("n08", "billing", "bill per agent seat monthly", True),
    ("n15", "auth", "migrate customer login to Okta", False),
    ("n18", "kafka", "shared Kafka topics keyed by tenant id", False),
    ("n21", "console", "cache ticket lists in Redis", True),
    ("n27", "kafka", "three-day retention on shared Kafka topics", False),
    ("n30", "billing", "nightly invoices from Kafka usage events", False),
    ("n33", "observability", "alert on broker disk usage", True),
]

SINCE = "2026-03-01T00:00:00Z"
# name -> parameters (v is added from q). "authored" marks question texts the cookbook does not print.
QUESTIONS = {
    "oauth": {"q": "what did we decide about oauth tokens", "k": 5, "since": SINCE},
    "oauth_since_0309": {"q": "what did we decide about oauth tokens", "k": 5, "since": "2026-03-09T00:00:00Z"},
    "kafka_scope": {"q": "kafka", "k": 3, "since": "2026-03-09T10:00:00Z", "session": "session-2"},
    "revocation": {"q": "how fast does revoking tokens propagate", "k": 5, "since": SINCE, "authored": True},
    "incident": {"q": "which kafka alert fired for 142", "k": 5, "since": SINCE, "authored": True},
    "decisions": {"q": "kafka tenant", "k": 5, "since": SINCE, "authored": True},
}


def epoch_ms(dt: datetime) -> int:
    return int(dt.timestamp()) * 1000


def note_ts() -> dict[str, int]:
    out = {}
    for nid, session, *_ in NOTES:
        start, step, first = SESSIONS[session]
        out[nid] = epoch_ms(start + timedelta(minutes=step * (int(nid[1:]) - int(first[1:]))))
    return out


def build() -> dict:
    ts = note_ts()
    notes = []
    for nid, session, topics, text, authored in NOTES:
        note = {"id": nid, "text": text, "session": session, "ts": ts[nid], "topics": topics}
        if authored:
            note["authored"] = True
        note["e"] = round6(hash384(text))
        notes.append(note)
    decisions = []
    for nid, topic, text, authored in DECISIONS:
        d = {"note": nid, "topic": topic, "text": text, "ts": ts[nid]}
        if authored:
            d["authored"] = True
        decisions.append(d)
    questions = {}
    for name, p in QUESTIONS.items():
        block = {k: v for k, v in p.items() if k != "authored"}
        block["v"] = round6(hash384(p["q"]))
        if p.get("authored"):
            block["authored"] = True
        questions[name] = block
    topics = list(dict.fromkeys(t for n in notes for t in n["topics"]))   # in MERGE order
    return {"topics": topics, "notes": notes, "decisions": decisions, "questions": questions}


def main() -> None:
    path = os.path.join(HERE, "fixture.json")
    data = build()
    # One record per line keeps the file diffable; every vector component stays a JSON float.
    lines = ["{", f' "topics": {json.dumps(data["topics"])},']
    for i, key in enumerate(("notes", "decisions")):
        rows = [json.dumps(r, separators=(",", ":")) for r in data[key]]
        lines.append(f' "{key}": [\n  ' + ",\n  ".join(rows) + "\n ],")
    rows = [f'  "{name}": {json.dumps(q, separators=(",", ":"))}' for name, q in data["questions"].items()]
    lines.append(' "questions": {\n' + ",\n".join(rows) + "\n }")
    lines.append("}")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
