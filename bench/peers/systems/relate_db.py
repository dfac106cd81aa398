"""Relate, embedded (a database directory) or over the wire (relate-server on loopback), running the
cookbook's own statements (examples/hybrid-recall/statements.py)."""
from __future__ import annotations

import json
import os
import secrets
import signal
import subprocess
import sys
import time

from .. import ops as O
from ..workload import Workload
from .base import System, proc_status_kib, rows_in_batches

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
sys.path.insert(0, os.path.join(ROOT, "examples", "hybrid-recall"))
import statements as S  # noqa: E402  the cookbook's statements, verbatim

BATCH = 1000
LOAD_NOTE_NODES = """UNWIND $notes AS r
CREATE (n:Note {id: r.id, text: r.text, session: r.session, ts: r.ts,
embedding: vector(r.e, 384, FLOAT32)})"""
LOAD_TOPICS = "UNWIND $topics AS name CREATE (:Topic {name: name})"
LOAD_ABOUT = """UNWIND $rows AS r
MATCH (n:Note {id: r.note}), (t:Topic {name: r.topic})
CREATE (n)-[:ABOUT]->(t)"""
HNSW_DEFAULT_EF = "auto"                            # calibrated per index (vector.hnsw.ef_search)
from relate.server.index.vector import HNSW_MIN_SIZE  # noqa: E402  below it the index is exact
EF_LADDER = (32, 64, 128, 256, 512, 1024, 2048)     # cheapest first, the default among them
SET_EF = "CALL db.index.vector.setSearchOptions('note_e', {`vector.hnsw.ef_search`: $ef})"


class RelateSystem(System):
    role = "relate"

    def __init__(self, wire: bool = False):
        super().__init__()
        self.wire = wire
        self.name = "relate-wire" if wire else "relate"
        self.notes = ("relate-server on 127.0.0.1, the driver in this process; RSS is the server's"
                      if wire else "embedded, a database directory (WAL fsync on commit)")
        self.server = None
        self.db = None

    # ---- lifecycle -------------------------------------------------------------------------
    def start(self, workdir: str) -> None:
        import relate
        path = os.path.join(workdir, "relate-data")
        if not self.wire:
            self.db = relate.connect(path)
            return
        password = secrets.token_hex(8)
        ready = os.path.join(workdir, "ready.json")
        self.log = open(os.path.join(workdir, "server.log"), "wb")
        self.server = subprocess.Popen(
            [sys.executable, "-m", "relate.server", "--data", path, "--listen", "127.0.0.1:0",
             "--ready-file", ready, "--init-password", password, "--log-level", "warning"],
            cwd=ROOT, stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 60
        while not os.path.exists(ready):
            if self.server.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("relate-server did not start; see " + self.log.name)
            time.sleep(0.02)
        time.sleep(0.05)   # the ready file is written whole, but give its writer a moment to close it
        with open(ready) as f:
            port = json.load(f)["listen"].rsplit(":", 1)[1]
        self.db = relate.connect(f"relate://127.0.0.1:{port}", auth=("neo4j", password))

    def close(self) -> None:
        if self.db is not None:
            self.db.close()
        if self.server is not None:
            self.server.send_signal(signal.SIGTERM)
            try:
                self.server.wait(60)
            except subprocess.TimeoutExpired:
                self.server.kill()
                self.server.wait()

    def peak_rss_kib(self) -> int:
        if self.server is not None:
            return proc_status_kib(self.server.pid, "VmHWM")
        return super().peak_rss_kib()

    def run(self, query: str, params: dict | None = None) -> list:
        return [tuple(row) for row in self.db.execute(query, params or {})]

    # ---- load ------------------------------------------------------------------------------
    def load_nodes(self, wl: Workload) -> None:
        for statement in S.SETUP[:3]:          # constraints: unique Note.id and Topic.name, DECIDED.ts type
            self.run(statement)
        for batch in rows_in_batches(range(wl.n), BATCH):
            notes = [{"id": wl.ids[i], "text": wl.texts[i], "session": wl.sessions[i], "ts": int(wl.ts[i]),
                      "e": wl.embeddings[i].tolist()} for i in batch]
            self.run(LOAD_NOTE_NODES, {"notes": notes})
        self.run(LOAD_TOPICS, {"topics": wl.topics})

    def load_edges(self, wl: Workload) -> None:
        about = [{"note": wl.ids[i], "topic": wl.topics[t]} for i, t in wl.about]
        for batch in rows_in_batches(about, BATCH * 5):
            self.run(LOAD_ABOUT, {"rows": batch})
        decisions = [{"note": wl.ids[i], "topic": wl.topics[t], "text": text, "ts": ts}
                     for i, t, text, ts in wl.decided]
        for batch in rows_in_batches(decisions, BATCH * 5):
            self.run(S.LOAD_DECISIONS, {"decisions": batch})

    def build_indexes(self, wl: Workload) -> None:
        self.run(S.SETUP[3])                  # note_e: vector, 384 dims, cosine, WITH [n.session, n.ts]
        self.run(S.SETUP[4])                  # note_t: full-text over Note.text
        self.run("CALL db.awaitIndexes(3600)")
        self.hnsw = wl.n >= HNSW_MIN_SIZE

    def levels(self) -> list[dict]:
        if not getattr(self, "hnsw", False):
            return []                         # an exact index: no recall knob
        return [{"ef_search": HNSW_DEFAULT_EF}] + [{"ef_search": ef} for ef in EF_LADDER]

    def set_level(self, level: dict, wl: Workload) -> None:
        """Search-time ef of the live index (db.index.vector.setSearchOptions): no rebuild."""
        self.run(SET_EF, {"ef": level["ef_search"]})

    # ---- operations --------------------------------------------------------------------------
    def ops(self) -> dict:
        def vector(p):
            return [r[0] for r in self.run(S.VECTOR_LIST, {"v": p["v"].tolist(), "k": p["k"], "since": p["since"]})]

        def fulltext(p):
            return [r[0] for r in self.run(S.FULLTEXT_LIST, {"q": p["q"], "k": p["k"], "since": p["since"]})]

        def hybrid(p):
            rows = self.run(S.RECALL, {"q": p["q"], "v": p["v"].tolist(), "k": p["k"], "since": p["since"]})
            return [(r[0], r[2], r[3]) for r in rows]

        return {
            "return1": lambda p: self.run(O.RETURN_1)[0][0],
            "point_lookup": lambda p: self.run(O.POINT_LOOKUP, {"id": p["id"]})[0][0],
            "vector": vector, "vector_ts30": vector, "vector_ts1": vector,
            "fulltext": fulltext,
            "hybrid": hybrid,
            "two_hop_anchored": lambda p: self.run(O.TWO_HOP_ANCHORED, {"id": p["id"]})[0][0],
            "two_hop_global": lambda p: self.run(O.TWO_HOP_GLOBAL)[0][0],
        }
