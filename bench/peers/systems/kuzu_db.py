"""Kuzu 0.11, embedded, on disk: loaded with COPY from pyarrow tables; its vector and FTS extensions are
built into the wheel (LOAD works offline). Filtered vector search goes through PROJECT_GRAPH."""
from __future__ import annotations

import os

import numpy as np

from .. import ops as O
from ..workload import Workload
from .base import System

DEFAULT_EFS = 200
VECTOR = """CALL QUERY_VECTOR_INDEX('{graph}', 'note_e', $v, $k, efs := $efs)
RETURN node.id AS id, distance, node.text AS text ORDER BY distance, id"""
FULLTEXT = """CALL QUERY_FTS_INDEX('Note', 'note_t', $q, top := $k)
RETURN node.id AS id, score, node.text AS text ORDER BY score DESC, id"""
# One statement, as the cookbook's RECALL: Kuzu has no CALL {} subquery, no head(), wants ORDER BY in
# WITH followed by SKIP/LIMIT, and rejects sum() over positions derived from collect(): fuse with
# list_position instead.
HYBRID = """CALL QUERY_VECTOR_INDEX('Note', 'note_e', $v, $k, efs := $efs)
WITH node, distance WHERE node.ts >= $since
WITH node ORDER BY distance, node.id LIMIT $k
WITH collect(node.id) AS vs
CALL QUERY_FTS_INDEX('Note', 'note_t', $q, top := $k3)
WITH vs, node, score ORDER BY score DESC, node.id LIMIT $k3
WITH vs, node, score WHERE node.ts >= $since
WITH vs, node ORDER BY score DESC, node.id LIMIT $k
WITH vs, collect(node.id) AS fs
UNWIND list_distinct(vs + fs) AS nid
WITH nid, list_position(vs, nid) AS pv, list_position(fs, nid) AS pf
WITH nid, CASE WHEN pv > 0 THEN 1.0 / (60 + pv) ELSE 0.0 END
        + CASE WHEN pf > 0 THEN 1.0 / (60 + pf) ELSE 0.0 END AS rrf
ORDER BY rrf DESC, nid LIMIT $k
MATCH (n:Note {id: nid})-[:ABOUT]->(t:Topic)
OPTIONAL MATCH (t)<-[d:DECIDED]-(:Note)
WITH n, rrf, t, d ORDER BY d.ts DESC SKIP 0
WITH n, rrf, t, list_extract(collect(d.text), 1) AS decided
RETURN n.id AS id, t.name AS topic, decided, rrf
ORDER BY rrf DESC, id, topic"""


class KuzuSystem(System):
    name = "kuzu"
    notes = "Kuzu 0.11.3 embedded, on disk, COPY from pyarrow, default threads"

    def start(self, workdir: str) -> None:
        import kuzu
        self.db = kuzu.Database(os.path.join(workdir, "kuzu-db"))
        self.conn = kuzu.Connection(self.db)
        self.conn.execute("LOAD vector")
        self.conn.execute("LOAD fts")
        self.efs = DEFAULT_EFS
        self.conn.execute("CREATE NODE TABLE Note(id STRING PRIMARY KEY, text STRING, session STRING, ts INT64, "
                          "embedding FLOAT[384])")
        self.conn.execute("CREATE NODE TABLE Topic(name STRING PRIMARY KEY)")
        self.conn.execute("CREATE REL TABLE ABOUT(FROM Note TO Topic)")
        self.conn.execute("CREATE REL TABLE DECIDED(FROM Note TO Topic, text STRING, ts INT64)")

    def close(self) -> None:
        self.conn.close()
        self.db.close()

    def run(self, query: str, params: dict | None = None) -> list:
        return self.conn.execute(query, params or {}).get_all()

    # ---- load: COPY from pyarrow tables (UNWIND of 384-float lists is ~30x slower) -------------
    def load_nodes(self, wl: Workload) -> None:
        import pyarrow as pa
        self.wl = wl
        notes = pa.table({  # noqa: F841 - COPY ... FROM notes scans this local variable
            "id": wl.ids, "text": wl.texts, "session": wl.sessions, "ts": pa.array(wl.ts, pa.int64()),
            "embedding": pa.FixedSizeListArray.from_arrays(pa.array(wl.embeddings.reshape(-1), pa.float32()), 384)})
        self.conn.execute("COPY Note FROM notes")
        topics = pa.table({"name": wl.topics})  # noqa: F841
        self.conn.execute("COPY Topic FROM topics")

    def load_edges(self, wl: Workload) -> None:
        import pyarrow as pa
        about = pa.table({"from": [wl.ids[i] for i, _ in wl.about],  # noqa: F841
                          "to": [wl.topics[t] for _, t in wl.about]})
        self.conn.execute("COPY ABOUT FROM about")
        decided = pa.table({"from": [wl.ids[d[0]] for d in wl.decided],  # noqa: F841
                            "to": [wl.topics[d[1]] for d in wl.decided],
                            "text": [d[2] for d in wl.decided], "ts": pa.array([d[3] for d in wl.decided], pa.int64())})
        self.conn.execute("COPY DECIDED FROM decided")

    def build_indexes(self, wl: Workload) -> None:
        self.conn.execute("CALL CREATE_VECTOR_INDEX('Note', 'note_e', 'embedding', metric := 'cosine')")
        self.conn.execute("CALL CREATE_FTS_INDEX('Note', 'note_t', ['text'])")
        # A projected graph per filter, made once (its cost is not in the timings): the pre-filter.
        for name, since in wl.since_ms.items():
            self.conn.execute(f"CALL PROJECT_GRAPH('{name}', {{'Note': 'n.ts >= {int(since)}'}}, [])")

    def levels(self) -> list[dict]:
        return [{"efs": DEFAULT_EFS}] + [{"efs": efs} for efs in (25, 50, 100, 200, 400, 800, 1600)]

    def set_level(self, level: dict, wl: Workload) -> None:
        self.efs = level["efs"]

    # ---- operations --------------------------------------------------------------------------
    def ops(self) -> dict:
        queries = {None: VECTOR.format(graph="Note")}
        queries.update({name: VECTOR.format(graph=name) for name in self.wl.since_ms})
        filter_of = {since: name for name, since in self.wl.since_ms.items()}

        def vector(p):
            query = queries[filter_of.get(p["since_ms"])]
            v = np.asarray(p["v"], dtype=np.float32).tolist()
            return [r[0] for r in self.run(query, {"v": v, "k": p["k"], "efs": max(self.efs, p["k"])})]

        def hybrid(p):
            rows = self.run(HYBRID, {"v": p["v"].tolist(), "k": p["k"], "k3": 3 * p["k"], "q": p["q"],
                                     "since": p["since_ms"], "efs": self.efs})
            return [(r[0], r[1], r[2]) for r in rows]

        return {
            "return1": lambda p: self.run(O.RETURN_1)[0][0],
            "point_lookup": lambda p: self.run(O.POINT_LOOKUP, {"id": p["id"]})[0][0],
            "vector": vector, "vector_ts30": vector, "vector_ts1": vector,
            "fulltext": lambda p: [r[0] for r in self.run(FULLTEXT, {"q": p["q"], "k": p["k"]})],
            "hybrid": hybrid,
            "two_hop_anchored": lambda p: self.run(O.WALK_TWO_HOP_ANCHORED, {"id": p["id"]})[0][0],
            "two_hop_global": lambda p: self.run(O.WALK_TWO_HOP_GLOBAL)[0][0],
        }
