"""Entity resolution inside the caller's transaction: exact, then trigram, then embedding, else create.

Identity is (workspace, normalized name, type). The procedure runs in a write transaction (writers are
serialized), so two ingests mentioning the same thing cannot both miss it and both create it: the
second sees the first's entity. A uniqueness constraint on (normalized, workspace, type) backs it up.
"""
from __future__ import annotations

import numpy as np

from relate.protocol.errors import ArgumentError, CypherTypeError

from ..index.trigram import trigram_similarity
from ..query.refs import NodeRef
from .normalize import normalize_name
from .names import search_in_scope, trigram_lookup
from .typos import one_slip

TYPO_FLOOR = 0.3        # pg_trgm's own default threshold: below it a "slip" is a different name

RESOLVE_DEFAULTS = {"workspace": None, "label": "Entity", "trigramThreshold": 0.6, "embeddingThreshold": 0.9,
                    "embedder": None, "embeddingIndex": None, "create": True, "maxScan": 10_000, "typos": True}


def resolve_options(given) -> dict:
    if given is None or not isinstance(given, dict):
        raise ArgumentError("db.entity.resolve needs an options map with a workspace", detail="InvalidArgumentValue")
    unknown = sorted(set(given) - set(RESOLVE_DEFAULTS))
    if unknown:
        raise ArgumentError(f"Unknown option(s) {unknown}; known: {sorted(RESOLVE_DEFAULTS)}",
                            detail="InvalidArgumentValue")
    out = dict(RESOLVE_DEFAULTS)
    out.update({k: v for k, v in given.items() if v is not None})
    if not isinstance(out["workspace"], str):
        raise ArgumentError("db.entity.resolve needs a `workspace` string option", detail="InvalidArgumentValue")
    for key in ("trigramThreshold", "embeddingThreshold"):
        if type(out[key]) not in (int, float) or not 0 <= out[key] <= 1:
            raise ArgumentError(f"`{key}` must be a number in [0, 1]", detail="InvalidArgumentValue")
    # a string 'false' would otherwise be truthy and create entities the caller asked not to create
    for key in ("create", "typos"):
        if type(out[key]) is not bool:
            raise ArgumentError(f"`{key}` must be a boolean, got {out[key]!r}", detail="InvalidArgumentValue")
    if type(out["maxScan"]) is not int or out["maxScan"] < 1:
        raise ArgumentError(f"`maxScan` must be a positive integer, got {out['maxScan']!r}",
                            detail="InvalidArgumentValue")
    for key in ("label", "embedder", "embeddingIndex"):
        if out[key] is not None and not (isinstance(out[key], str) and out[key]):
            raise ArgumentError(f"`{key}` must be a non-empty string", detail="InvalidArgumentValue")
    return out


def entity_vector_index(manager, label: str) -> str | None:
    """The vector index over ``label``'s ``embedding`` that declares an embedder (the first by name):
    the embedding stage's default, so entities whose vectors live beside them resolve by meaning
    without naming the index in every call."""
    for name in sorted(manager.names()):
        definition = manager.get(name).definition
        if (definition.type == "VECTOR" and definition.entity == "node" and label in definition.tokens
                and definition.properties == ["embedding"] and definition.config.get("vector.embedder")):
            return name
    return None


def _mention(item) -> tuple[str, str | None]:
    if isinstance(item, str):
        return item, None
    if isinstance(item, dict) and isinstance(item.get("name"), str):
        kind = item.get("type")
        if kind is not None and not isinstance(kind, str):
            raise CypherTypeError("A mention's type must be a string", detail="InvalidArgumentType", phase="runtime")
        return item["name"], kind
    raise CypherTypeError("A mention is a string or a map {name, type}", detail="InvalidArgumentType",
                          phase="runtime")


class Resolver:
    """Resolves mentions against the entities visible in ``ctx.tx`` (its own writes included)."""

    def __init__(self, ctx, opts: dict):
        self.ctx, self.tx, self.opts = ctx, ctx.tx, opts
        self.label = opts["label"]
        self.workspace = opts["workspace"]
        # read once per call: the change log of a long ingest transaction grows with every statement
        self._created_earlier = [change[1] for change in self.tx.change_log()
                                 if change[0] == "node+" and self.label in change[2]]
        self._embedder = None
        if opts["embedder"] is None and opts["embeddingIndex"] is None:
            # the entities' own vectors, where an index over them declares how to embed a mention
            opts = self.opts = {**opts, "embeddingIndex": entity_vector_index(ctx.db.index_manager, self.label)}
        if opts["embedder"] is not None or opts["embeddingIndex"] is not None:
            from ..ai import embedders
            name = opts["embedder"]
            if name is None and opts["embeddingIndex"] is not None:
                name = ctx.db.index_manager.get(opts["embeddingIndex"]).definition.config.get("vector.embedder")
            self._embedder = embedders.get(name)

    def resolve(self, item) -> dict:
        name, kind = _mention(item)
        norm = normalize_name(name)
        if not norm:
            return {"mention": name, "entity": None, "created": False, "stage": "empty", "similarity": None}
        found = self._exact(norm, kind)
        if found is not None:
            return self._row(name, found, "exact", 1.0)
        found, sim = self._trigram(norm, kind)
        if found is not None:
            return self._row(name, found, "trigram", sim)
        vector = None
        if self._embedder is not None:
            vector = self._embedder.embed([name], self.ctx.db)[0]
            found, sim = self._by_embedding(vector, kind)
            if found is not None:
                return self._row(name, found, "embedding", sim)
        if not self.opts["create"]:
            return {"mention": name, "entity": None, "created": False, "stage": "unresolved", "similarity": None}
        return self._row(name, self._create(name, norm, kind, vector), "created", None, created=True)

    @staticmethod
    def _row(name, nid, stage, sim, created=False) -> dict:
        return {"mention": name, "entity": NodeRef(nid), "created": created, "stage": stage, "similarity": sim}

    def _same_scope(self, nid: int, kind) -> bool:
        tx = self.tx
        return (tx.node_exists(nid) and self.label in tx.node_labels(nid)
                and tx.node_prop(nid, "workspace") == self.workspace and tx.node_prop(nid, "type") == kind)

    def _written(self) -> list[int]:
        """Nodes this statement wrote (``touched_nodes``) and entities earlier statements of the
        transaction created: not committed, so not in an index that follows commits."""
        return list(dict.fromkeys([*self.ctx.touched_nodes, *self._created_earlier]))

    def _exact(self, norm: str, kind):
        tx = self.tx
        if tx.has_property_index("node", self.label, "normalized"):
            candidates = tx.index_seek("node", self.label, "normalized", norm)
        else:
            candidates = (n for n in tx.nodes_by_label(self.label) if tx.node_prop(n, "normalized") == norm)
        for nid in candidates:
            self.ctx.check()
            if tx.node_prop(nid, "normalized") == norm and self._same_scope(nid, kind):
                return nid
        return None

    def _trigram(self, norm: str, kind):
        """The most similar entity in scope at or above the threshold, else one a typo or plural away."""
        threshold = self.opts["trigramThreshold"]
        floor = min(threshold, TYPO_FLOOR) if self.opts["typos"] else threshold
        index = trigram_lookup(self.ctx.db, self.label, "normalized")
        scored = []
        for nid, _ in search_in_scope(index, norm, 20, floor, lambda n: self._same_scope(n, kind)):
            # the index follows commits; the snapshot decides what is visible
            current = self.tx.node_prop(nid, "normalized")
            if isinstance(current, str):
                scored.append((nid, current))
        # entities this transaction wrote are not committed, so not in an index that follows commits
        for nid in self._written():
            current = self.tx.node_prop(nid, "normalized") if self._same_scope(nid, kind) else None
            if isinstance(current, str):
                scored.append((nid, current))
        best, best_key = None, None
        for nid, current in dict.fromkeys(scored):
            sim = trigram_similarity(norm, current)
            if sim >= threshold or (self.opts["typos"] and sim >= floor and one_slip(norm, current)):
                key = (sim >= threshold, sim, -nid)
                if best_key is None or key > best_key:
                    best, best_key = nid, key
        return (best, best_key[1]) if best is not None else (None, None)

    def _by_embedding(self, vector, kind):
        tx, threshold = self.tx, self.opts["embeddingThreshold"]
        index_name = self.opts["embeddingIndex"]
        if index_name is not None:
            candidates = [nid for nid, _ in self.ctx.db.index_manager.vector_search(index_name, vector, 20, tx=tx)]
        else:
            candidates = []
            for nid in tx.nodes_by_label(self.label):
                self.ctx.check()
                candidates.append(nid)
                if len(candidates) >= self.opts["maxScan"]:
                    break
        candidates += self._written()
        q = np.asarray(vector, dtype=np.float64)
        qn = np.linalg.norm(q)
        best, best_sim = None, threshold
        for nid in dict.fromkeys(candidates):
            if not self._same_scope(nid, kind):
                continue
            stored = tx.node_prop(nid, "embedding")
            if stored is None:
                continue
            v = np.asarray(list(stored), dtype=np.float64)
            if v.shape != q.shape or qn == 0 or not np.linalg.norm(v):
                continue
            sim = float(q @ v / (qn * np.linalg.norm(v)))
            if sim >= best_sim:
                best, best_sim = nid, sim
        return (best, best_sim) if best is not None else (None, None)

    def _create(self, name: str, norm: str, kind, vector) -> int:
        tx = self.tx
        if not hasattr(tx, "create_node"):
            raise ArgumentError("db.entity.resolve creates entities: run it in a write transaction",
                                detail="InvalidArgumentValue")
        props = {"workspace": self.workspace, "name": name, "normalized": norm}
        if kind is not None:
            props["type"] = kind
        if vector is not None:
            props["embedding"] = [float(x) for x in vector]
        nid = tx.create_node([self.label], props)
        ctx = self.ctx
        ctx.touched_nodes.add(nid)           # statement-end constraint checks (uniqueness) see it
        ctx.counters.add("nodes_created")
        ctx.counters.add("labels_added")
        ctx.counters.add("properties_set", len(props))
        return nid


def resolve_mentions(ctx, mentions, options) -> list[dict]:
    """db.entity.resolve: one row per mention, in order."""
    if mentions is None:
        return []
    if not isinstance(mentions, list):
        mentions = [mentions]
    resolver = Resolver(ctx, resolve_options(options))
    return [resolver.resolve(item) for item in mentions]
