"""db.retrieve: three lanes over chunks, fused by weighted RRF, hydrated from every asserting document.

- direct (weight 1.0, always): hybrid dense + keyword search on the question as asked;
- expanded (0.6): entities named in the question, two hops of facts around them, and the question
  searched again together with the names reached;
- evidence (0.6): the question restricted to the chunks of the documents asserting the facts crossed,
  ordered by corroboration (how many distinct documents assert the fact).
The graph lanes may fail or find nothing: the direct lane's results stand and the diagnostics say why.
"""
from __future__ import annotations

import math

from relate.protocol.errors import CypherTypeError, QueryTimeout, Terminated

from ..ai.statement import for_ctx
from ..query.refs import NodeRef
from . import graph
from .diagnostics import Diagnostics
from .fusion import wrrf

MAX_QUESTION_CHARS = 10_000
HYBRID_CONSTANT = 60            # RRF constant joining the dense and keyword lists inside a lane


class Retrieval:
    """The outcome of one retrieval: ranked rows, the facts crossed and the diagnostics."""

    def __init__(self):
        self.rows: list[dict] = []
        self.facts: dict[int, dict] = {}
        self.entities: list[dict] = []
        self.diagnostics = Diagnostics()


def retrieve(ctx, question, opts: dict) -> Retrieval:
    if question is None:
        question = ""
    if not isinstance(question, str):
        raise CypherTypeError("db.retrieve takes the question as a string", detail="InvalidArgumentType",
                              phase="runtime")
    question = question[:MAX_QUESTION_CHARS]
    out = Retrieval()
    diag = out.diagnostics
    run = Runner(ctx, opts)
    lanes_wanted = set(opts["lanes"] or ("direct", "expanded", "evidence"))
    lists: dict[str, list[int]] = {}
    with diag.step("direct") as step:
        lists["direct"] = run.hybrid(question)
        step["hits"] = len(lists["direct"])
    if lanes_wanted & {"expanded", "evidence"}:
        try:
            _graph_lanes(run, question, lanes_wanted, lists, out)
        except (Terminated, QueryTimeout):
            raise
        except Exception as error:          # the graph enhances, never replaces: direct lane only
            diag.degrade("graph", error, "direct lane only")
            lists = {"direct": lists["direct"]}
            out.facts = {}
    with diag.step("fusion") as step:
        lists = {lane: ids for lane, ids in lists.items() if ids}
        fused = wrrf(lists, opts["weights"], opts["rrfConstant"])[:opts["k"]]
        step.update({"kind": "wrrf", "k": opts["k"], "constant": opts["rrfConstant"],
                     "lanes": sorted(lists), "weights": {lane: opts["weights"].get(lane, 0.0) for lane in lists}})
    doc_facts = run.facts_by_document(out.facts)
    for rank, (cid, score, lanes) in enumerate(fused, start=1):
        out.rows.append({"node": NodeRef(cid), "score": score, "rank": rank, "lanes": lanes,
                         "evidence": run.evidence_of(cid, doc_facts, out.facts)})
    if opts["hydrate"] and out.facts:
        with diag.step("hydration") as step:
            added = run.hydrate(out.rows, out.facts, doc_facts)
            step["chunks"] = len(added)
        out.rows += added
    return out


def _graph_lanes(run, question, lanes_wanted, lists, out) -> None:
    diag, opts, ctx = out.diagnostics, run.opts, run.ctx
    with diag.step("entities") as step:
        out.entities = graph.find_entities(ctx, question, opts)
        step["resolved"] = [e["name"] for e in out.entities]
    if not out.entities:
        return                               # nothing to traverse: the direct lane is the answer
    with diag.step("traversal") as step:
        out.facts, reached = graph.traverse(ctx, [e["id"] for e in out.entities], opts)
        step.update({"hops": opts["hops"], "facts": len(out.facts), "entities": len(reached)})
    if not out.facts:
        return                               # no facts: fusion has one lane
    if "expanded" in lanes_wanted:
        with diag.step("expanded") as step:
            names = [run.tx.node_prop(nid, "name") for nid, hop in sorted(reached.items(), key=lambda x: x[1])
                     if hop > 0]
            text = question + " " + " ".join(n for n in names if isinstance(n, str))
            lists["expanded"] = run.hybrid(text)
            step["hits"] = len(lists["expanded"])
    if "evidence" in lanes_wanted:
        with diag.step("evidence") as step:
            lists["evidence"], documents = run.evidence_lane(question, out.facts)
            step.update({"hits": len(lists["evidence"]), "documents": documents})


class Runner:
    """Index searches and graph reads of one retrieval, through the statement's transaction."""

    def __init__(self, ctx, opts):
        self.ctx, self.opts, self.tx = ctx, opts, ctx.tx
        self.manager = ctx.db.index_manager
        self._doc_nodes: dict | None = None
        self._doc_of: dict[int, str | None] = {}
        self._embedder = opts["embedder"] or \
            self.manager.get(opts["vectorIndex"]).definition.config.get("vector.embedder") or "hash-384"

    # ---- searches -------------------------------------------------------------------------
    def hybrid(self, text: str, keys=None) -> list[int]:
        """Dense + keyword hits for ``text`` (optionally among ``keys``), fused by plain RRF."""
        k, tx = self.opts["laneK"], self.tx
        lists = {}
        if any(ch.isalnum() for ch in text):
            vector = for_ctx(self.ctx).embed(text, self._embedder)
            if any(vector):
                lists["dense"] = [i for i, _ in self.manager.vector_search(self.opts["vectorIndex"], vector, k,
                                                                           keys=keys) if tx.node_exists(i)]
        lists["keyword"] = [i for i, _ in self.manager.fulltext_search(self.opts["fulltextIndex"], text, 0, k,
                                                                       mode="plain", keys=keys)
                            if tx.node_exists(i)]
        return [i for i, _, _ in wrrf(lists, {"dense": 1.0, "keyword": 1.0}, HYBRID_CONSTANT)][:k]

    def evidence_lane(self, question: str, facts: dict) -> tuple[list[int], int]:
        """Chunks of the provenance documents: by corroboration, then by the question's own rank."""
        support: dict[str, int] = {}
        for fact in facts.values():
            corroboration = len(fact["sources"])
            for doc in fact["sources"]:
                support[doc] = max(support.get(doc, 0), corroboration)
        chunks: dict[int, int] = {}
        for doc, corroboration in support.items():
            for cid in self.chunks_of(doc):
                chunks[cid] = corroboration
        if not chunks:
            return [], len(support)
        ranked = {cid: r for r, cid in enumerate(self.hybrid(question, keys=set(chunks)))}
        order = sorted(chunks, key=lambda c: (-chunks[c], ranked.get(c, math.inf), c))
        return order[:self.opts["laneK"]], len(support)

    # ---- documents and chunks -------------------------------------------------------------
    def _documents(self) -> dict:
        if self._doc_nodes is None:
            tx, label = self.tx, self.opts["documentLabel"]
            self._doc_nodes = {}
            for nid in tx.nodes_by_label(label):
                self.ctx.check()
                self._doc_nodes.setdefault(tx.node_prop(nid, "id"), nid)
        return self._doc_nodes

    def document_node(self, doc_id: str) -> int | None:
        tx, label = self.tx, self.opts["documentLabel"]
        if tx.has_property_index("node", label, "id"):
            for nid in tx.index_seek("node", label, "id", doc_id):
                return nid
            return None
        return self._documents().get(doc_id)

    def chunks_of(self, doc_id: str) -> list[int]:
        nid = self.document_node(doc_id)
        if nid is None:
            return []
        chunk_label = self.opts["chunkLabel"]
        tx = self.tx
        chunks = [other for _, other in tx.expand(nid, "out", (self.opts["chunkRel"],))
                  if chunk_label in tx.node_labels(other)]
        return sorted(chunks, key=lambda c: (_position(tx.node_prop(c, "position")), c))

    def document_of(self, cid: int) -> str | None:
        if cid not in self._doc_of:
            doc = None
            for _, other in self.tx.expand(cid, "in", (self.opts["chunkRel"],)):
                doc = self.tx.node_prop(other, "id")
                break
            self._doc_of[cid] = doc
        return self._doc_of[cid]

    # ---- evidence and hydration -----------------------------------------------------------
    @staticmethod
    def facts_by_document(facts: dict) -> dict[str, list[int]]:
        out: dict[str, list[int]] = {}
        for rid, fact in facts.items():
            for doc in fact["sources"]:
                out.setdefault(doc, []).append(rid)
        return out

    def fact_map(self, rid: int, fact: dict) -> dict:
        tx = self.tx
        return {"fact": rid, "type": fact["type"], "predicate": fact["predicate"],
                "from": tx.node_prop(fact["start"], "name"), "to": tx.node_prop(fact["end"], "name"),
                "hop": fact["hop"], "documents": list(fact["sources"]), "corroboration": len(fact["sources"])}

    def evidence_of(self, cid: int, doc_facts: dict, facts: dict) -> list[dict]:
        doc = self.document_of(cid) if facts else None
        return [self.fact_map(rid, facts[rid]) for rid in doc_facts.get(doc, ())]

    def hydrate(self, rows: list[dict], facts: dict, doc_facts: dict) -> list[dict]:
        """Chunks of EVERY document asserting a fact the results use (not one per fact)."""
        have = {row["node"].id for row in rows}
        used = {item["fact"] for row in rows for item in row["evidence"]}
        docs = list(dict.fromkeys(doc for rid in sorted(used, key=lambda r: facts[r]["hop"])
                                  for doc in facts[rid]["sources"]))
        added, rank = [], len(rows)
        for doc in docs:
            for cid in self.chunks_of(doc)[:self.opts["hydrateChunks"]]:
                if cid in have:
                    continue
                have.add(cid)
                rank += 1
                added.append({"node": NodeRef(cid), "score": 0.0, "rank": rank, "lanes": ["hydration"],
                              "evidence": [self.fact_map(r, facts[r]) for r in doc_facts.get(doc, ())]})
        return added


def _position(value):
    return value if type(value) in (int, float) else math.inf
