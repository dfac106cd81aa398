"""db.retrieve: three lanes over chunks, fused by weighted RRF, hydrated from every asserting document.

- direct (weight 1.0, always): hybrid dense + keyword search on the question as asked;
- expanded (0.6): entities named in the question, two hops of facts around them, and the question
  searched again together with the names reached;
- evidence (0.6): the question restricted to the chunks of the documents asserting the facts crossed,
  ordered by corroboration (how many distinct documents assert the fact).
The graph lanes may fail or find nothing: the direct lane's results stand and the diagnostics say why.
Likewise inside a lane: with one of the two chunk indexes missing, or the embedder failing, the other
half of the hybrid search answers (a `degraded` entry says so); only with neither is it an error.
"""
from __future__ import annotations

import math

from relate.protocol.errors import CypherTypeError, IndexNotFound, QueryTimeout, Terminated

from ..ai.statement import for_ctx
from ..query.refs import NodeRef
from . import graph
from .diagnostics import Diagnostics
from .fusion import wrrf
from .model import LANES

MAX_QUESTION_CHARS = 10_000
HYBRID_CONSTANT = 60            # RRF constant joining the dense and keyword lists inside a lane


class Retrieval:
    """The outcome of one retrieval: ranked rows, the facts crossed and the diagnostics."""

    def __init__(self):
        self.rows: list[dict] = []
        self.facts: dict[int, dict] = {}
        self.entities: list[dict] = []
        self.diagnostics = Diagnostics()
        self.runner: Runner | None = None


def retrieve(ctx, question, opts: dict) -> Retrieval:
    if question is None:
        question = ""
    if not isinstance(question, str):
        raise CypherTypeError("db.retrieve takes the question as a string", detail="InvalidArgumentType",
                              phase="runtime")
    out = Retrieval()
    diag = out.diagnostics
    if len(question) > MAX_QUESTION_CHARS:      # searched as far as the limit, and said so
        diag.degraded.append({"step": "question", "error": f"the question has {len(question)} characters",
                              "code": None, "fallback": f"searched its first {MAX_QUESTION_CHARS:,}"})
        question = question[:MAX_QUESTION_CHARS]
    run = out.runner = Runner(ctx, opts, diag)
    lanes_wanted = set(LANES if opts["lanes"] is None else opts["lanes"])
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
        ranked = wrrf(lists, opts["weights"], opts["rrfConstant"])
        fused = ranked[:opts["k"]]
        step.update({"kind": "rrf", "k": opts["k"], "constant": opts["rrfConstant"],
                     "lanes": sorted(lists), "weights": {lane: opts["weights"].get(lane, 0.0) for lane in lists}})
        # The floor: the plain search's best chunk stays in the answer however the graph lanes vote, so
        # adding lanes can only add to what the direct lane alone would have found (spec 003, "In short").
        best = lists.get("direct", [None])[0]
        if best is not None and fused and opts["weights"].get("direct", 0.0) > 0 \
                and all(item != best for item, _, _ in fused):
            fused = fused[:-1] + [next(entry for entry in ranked if entry[0] == best)]
            step["floor"] = "kept the direct lane's best hit"
    out.rows = [{"node": NodeRef(cid), "score": score, "rank": rank, "lanes": lanes, "evidence": []}
                for rank, (cid, score, lanes) in enumerate(fused, start=1)]
    if out.facts:
        try:
            _attach_evidence(run, out)
        except (Terminated, QueryTimeout):
            raise
        except Exception as error:          # the ranked chunks stand without their evidence
            diag.degrade("hydration", error, "ranked chunks without evidence")
            out.rows = out.rows[:len(fused)]
            for row in out.rows:
                row["evidence"] = []
    return out


def _attach_evidence(run, out) -> None:
    """Each row's facts (through its document), then the chunks of every document asserting them."""
    doc_facts = run.facts_by_document(out.facts)
    for row in out.rows:
        row["evidence"] = run.evidence_of(row["node"].id, doc_facts, out.facts)
    if run.opts["hydrate"]:
        with out.diagnostics.step("hydration") as step:
            added = run.hydrate(out.rows, out.facts, doc_facts)
            step["chunks"] = len(added)
        out.rows += added


def _graph_lanes(run, question, lanes_wanted, lists, out) -> None:
    diag, opts, ctx = out.diagnostics, run.opts, run.ctx
    with diag.step("entities") as step:
        out.entities, step["source"] = graph.find_entities(ctx, question, opts, diag)
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

    def __init__(self, ctx, opts, diagnostics: Diagnostics | None = None):
        self.ctx, self.opts, self.tx = ctx, opts, ctx.tx
        self.manager = ctx.db.index_manager
        self.diagnostics = diagnostics
        self._doc_nodes: dict | None = None
        self._doc_of: dict[int, str | None] = {}
        self._scope: set[int] | None = None
        self.vector_index = self._existing(opts["vectorIndex"], "dense", "keyword search only")
        self.fulltext_index = self._existing(opts["fulltextIndex"], "keyword", "dense search only")
        if self.vector_index is None and self.fulltext_index is None:
            raise IndexNotFound(f"db.retrieve needs the vector index `{opts['vectorIndex']}` or the full-text "
                                f"index `{opts['fulltextIndex']}` over the chunks; neither exists")
        self._embedder = opts["embedder"]
        if self._embedder is None and self.vector_index is not None:
            self._embedder = self.manager.get(self.vector_index).definition.config.get("vector.embedder")
        self._embedder = self._embedder or "hash-384"

    def _existing(self, name: str, half: str, fallback: str) -> str | None:
        """``name`` if that index exists; else None, and the diagnostics say which half is missing."""
        try:
            self.manager.get(name)
        except IndexNotFound as error:
            if self.diagnostics is not None:
                self.diagnostics.degrade(half, error, fallback)
            return None
        return name

    # ---- searches -------------------------------------------------------------------------
    def hybrid(self, text: str, keys=None) -> list[int]:
        """Dense + keyword hits for ``text`` (optionally among ``keys``), fused by plain RRF."""
        k, tx = self.opts["laneK"], self.tx
        scope = self.scope()
        if scope is not None:
            keys = scope if keys is None else set(keys) & scope
        if keys is not None and not keys:
            return []
        lists = {}
        if self.vector_index is not None and any(ch.isalnum() for ch in text):
            lists["dense"] = self._dense(text, k, keys)
        if self.fulltext_index is not None:
            lists["keyword"] = [i for i, _ in self.manager.fulltext_search(self.fulltext_index, text, 0, k,
                                                                           mode="plain", keys=keys, tx=tx)
                                if tx.node_exists(i)]
        return [i for i, _, _ in wrrf(lists, {"dense": 1.0, "keyword": 1.0}, HYBRID_CONSTANT)][:k]

    def _dense(self, text: str, k: int, keys) -> list[int]:
        """Vector hits; an embedder that fails (model missing, provider down) leaves the keyword half."""
        try:
            vector = for_ctx(self.ctx).embed(text, self._embedder)
            if not any(vector):
                return []
            return [i for i, _ in self.manager.vector_search(self.vector_index, vector, k, keys=keys, tx=self.tx)
                    if self.tx.node_exists(i)]
        except (Terminated, QueryTimeout):
            raise
        except Exception as error:
            if self.fulltext_index is None or self.diagnostics is None:
                raise                        # no keyword half to fall back on
            self.diagnostics.degrade("dense", error, "keyword search only")
            self.vector_index = None         # once per retrieval, not once per lane
            return []

    def scope(self) -> set[int] | None:
        """The chunks of the ``workspace`` option (None: every chunk)."""
        workspace = self.opts["workspace"]
        if workspace is None:
            return None
        if self._scope is None:
            tx, label = self.tx, self.opts["chunkLabel"]
            if tx.has_property_index("node", label, "workspace"):
                candidates = tx.index_seek("node", label, "workspace", workspace)
            else:
                candidates = tx.nodes_by_label(label)
            self._scope = set()
            for nid in candidates:
                self.ctx.check()
                if tx.node_prop(nid, "workspace") == workspace and label in tx.node_labels(nid):
                    self._scope.add(nid)
        return self._scope

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
    def _documents(self) -> dict[object, list[int]]:
        if self._doc_nodes is None:
            tx, label = self.tx, self.opts["documentLabel"]
            self._doc_nodes = {}
            for nid in tx.nodes_by_label(label):
                self.ctx.check()
                self._doc_nodes.setdefault(tx.node_prop(nid, "id"), []).append(nid)
        return self._doc_nodes

    def document_nodes(self, doc_id) -> list[int]:
        """Every document node with this id: workspaces may reuse ids, and the chunk scope tells them apart."""
        tx, label = self.tx, self.opts["documentLabel"]
        if tx.has_property_index("node", label, "id"):
            return list(tx.index_seek("node", label, "id", doc_id))
        return self._documents().get(doc_id, [])

    def chunks_of(self, doc_id) -> list[int]:
        """The document's chunks inside the retrieval's scope, in position order."""
        chunk_label, rel = self.opts["chunkLabel"], self.opts["chunkRel"]
        tx = self.tx
        scope = self.scope()
        chunks = {other for nid in self.document_nodes(doc_id) for _, other in tx.expand(nid, "out", (rel,))
                  if chunk_label in tx.node_labels(other) and (scope is None or other in scope)}
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
        """Chunks of EVERY document asserting a fact the results use (not one per fact): from each, the
        ``hydrateChunks`` chunks that carry those facts best (see ``_carriers``)."""
        have = {row["node"].id for row in rows}
        used = {item["fact"] for row in rows for item in row["evidence"]}
        docs = list(dict.fromkeys(doc for rid in sorted(used, key=lambda r: (facts[r]["hop"], r))
                                  for doc in facts[rid]["sources"]))
        added, rank = [], len(rows)
        for doc in docs:
            asserted = [facts[rid] for rid in doc_facts.get(doc, ()) if rid in used]
            for cid in self._carriers(self.chunks_of(doc), asserted)[:self.opts["hydrateChunks"]]:
                if cid in have:
                    continue
                have.add(cid)
                rank += 1
                added.append({"node": NodeRef(cid), "score": 0.0, "rank": rank, "lanes": ["hydration"],
                              "evidence": [self.fact_map(r, facts[r]) for r in doc_facts.get(doc, ())]})
        return added

    def _carriers(self, chunks: list[int], asserted: list[dict]) -> list[int]:
        """``chunks`` (in position order) with those that carry the asserted facts first: the chunk that
        states a fact is the one that mentions its two entities (a MENTIONS relationship, else the
        entity's name in its text), not whichever chunk opens the document."""
        if len(chunks) <= self.opts["hydrateChunks"] or not asserted:
            return chunks
        tx, mention = self.tx, self.opts["mentionRel"]
        ends = {nid for fact in asserted for nid in (fact["start"], fact["end"])}
        names = {nid: name.lower() for nid in ends
                 if isinstance(name := tx.node_prop(nid, "name"), str) and name.strip()}
        carried = {}
        for position, cid in enumerate(chunks):
            self.ctx.check()
            mentioned = {other for _, other in tx.expand(cid, "out", (mention,))} & ends
            text = tx.node_prop(cid, "text")
            if isinstance(text, str):
                lowered = text.lower()
                mentioned |= {nid for nid, name in names.items() if name in lowered}
            carried[cid] = (-len(mentioned), position)
        return sorted(chunks, key=carried.__getitem__)


def _position(value):
    return value if type(value) in (int, float) else math.inf
