"""The measured operations: names, what each row means, and the parameters of repetition r (the same on
every system, cycling through the workload's questions and lookup ids)."""
from __future__ import annotations

from dataclasses import dataclass

from .workload import Workload

K = 10


@dataclass(frozen=True)
class Op:
    name: str
    title: str
    kind: str          # "vector" | "fulltext" | "hybrid" | "count" | "lookup" | "trivial": how results are checked
    filter: str | None = None   # workload filter name ("ts30", "ts1") for filtered vector searches


OPS = [
    Op("return1", "RETURN 1", "trivial"),
    Op("point_lookup", "point lookup by unique id", "lookup"),
    Op("vector", "vector top-10", "vector"),
    Op("vector_ts30", "vector top-10, ts filter keeps 30%", "vector", "ts30"),
    Op("vector_ts1", "vector top-10, ts filter keeps 1%", "vector", "ts1"),
    Op("fulltext", "full-text top-10", "fulltext"),
    Op("hybrid", "hybrid recall (vector + full-text + RRF + hop)", "hybrid"),
    Op("two_hop_anchored", "2-hop count, anchored", "count"),
    Op("two_hop_global", "2-hop count, global", "count"),
]
OPS_BY_NAME = {op.name: op for op in OPS}
VECTOR_OPS = [op for op in OPS if op.kind == "vector"]


def params(wl: Workload, op: Op, r: int) -> dict:
    """Parameters of repetition r: question r mod Q, lookup id r mod Q; ``since`` as ISO text and epoch ms."""
    q = r % len(wl.questions)
    since_ms = wl.since_ms[op.filter] if op.filter else wl.all_since_ms
    return {"k": K, "q": wl.questions[q], "v": wl.question_vectors[q], "qi": q,
            "id": wl.ids[wl.lookups[q]], "note": wl.lookups[q],
            "since": wl.since_iso(since_ms), "since_ms": since_ms}


# Plain Cypher, run as is by Relate, FalkorDB and Kuzu.
RETURN_1 = "RETURN 1 AS x"
POINT_LOOKUP = "MATCH (n:Note {id: $id}) RETURN n.text AS text"
# The 2-hop counts. Relate applies Cypher's relationship uniqueness (a <> b) by itself; FalkorDB and Kuzu
# match fixed-length patterns with walk semantics and count a = b paths too, so they get the WHERE
# (named relationships also keep FalkorDB from counting distinct endpoint pairs instead of paths).
TWO_HOP_ANCHORED = "MATCH (n:Note {id: $id})-[a:ABOUT]->(t:Topic)<-[b:ABOUT]-(m:Note) RETURN count(*) AS c"
TWO_HOP_GLOBAL = "MATCH (a:Note)-[d1:DECIDED]->(t:Topic)<-[d2:DECIDED]-(b:Note) RETURN count(*) AS c"
WALK_TWO_HOP_ANCHORED = """MATCH (n:Note {id: $id})-[a:ABOUT]->(t:Topic)<-[b:ABOUT]-(m:Note) WHERE id(a) <> id(b)
RETURN count(*) AS c"""
WALK_TWO_HOP_GLOBAL = """MATCH (a:Note)-[d1:DECIDED]->(t:Topic)<-[d2:DECIDED]-(b:Note) WHERE id(d1) <> id(d2)
RETURN count(*) AS c"""
