"""The retrieval data model (docs/retrieval.md) and the options every procedure reads.

    (:Document {id, title, workspace})-[:HAS_CHUNK]->(:Chunk {id, text, embedding, workspace, position})
    (:Chunk)-[:MENTIONS]->(:Entity {workspace, name, normalized, type[, embedding]})   (hydration's hint)
    (:Entity)-[fact:ANY_TYPE {predicate?, sources: [document id, ...]}]->(:Entity)

A fact is a relationship between two entities; ``sources`` lists the ids of the documents asserting it
(its provenance). Labels, types and index names can be changed per call through the options map.
"""
from __future__ import annotations

import math

from relate.protocol.errors import ArgumentError

LANES = ("direct", "expanded", "evidence")
ENTITY_SOURCES = ("auto", "llm", "gazetteer")
MAX_LANE_K = 10_000            # hits per index search: a fused top-k never needs more, and each costs a row

DEFAULTS = {
    "k": 10,                       # results wanted
    "laneK": 20,                   # hits each index search contributes to a lane (docs/retrieval.md)
    "rrfConstant": 60,             # the k of reciprocal rank fusion: Σ w / (c + rank)
    "weights": {"direct": 1.0, "expanded": 0.6, "evidence": 0.6},
    "workspace": None,             # restrict chunks and entities to one workspace (None: all)
    "documentLabel": "Document", "chunkLabel": "Chunk", "entityLabel": "Entity",
    "chunkRel": "HAS_CHUNK", "mentionRel": "MENTIONS",
    "vectorIndex": "chunk_embedding", "fulltextIndex": "chunk_text",
    "embedder": None,              # None: the vector index's declared embedder, else hash-384
    # 'auto': the configured provider's model extracts names from the question (spec 003), the
    # gazetteer without one; 'llm' or 'gazetteer' force either
    "entities": "auto",
    "entityThreshold": 0.5,        # trigram similarity for a question phrase to name an entity
    "entityEmbeddingThreshold": 0.9,   # cosine for a model-named entity found by meaning (db.entity.resolve's)
    "hops": 2, "maxFacts": 200,
    "maxFanout": 2,                # facts kept per entity and (type, direction), best corroborated (0: all)
    "siblings": False,             # follow a fact type back the way it came (A->B<-C): off by default
    "hydrate": True, "hydrateChunks": 2,
    "lanes": None,                 # e.g. ['direct'] or []: only these graph lanes (direct always runs)
}


def options(given, extra: dict | None = None) -> dict:
    """``given`` (a map or null) over the defaults; an unknown key is an ArgumentError."""
    allowed = dict(DEFAULTS, **(extra or {}))
    if given is None:
        given = {}
    if not isinstance(given, dict):
        raise ArgumentError("The options must be a map", detail="InvalidArgumentValue")
    unknown = sorted(set(given) - set(allowed))
    if unknown:
        raise ArgumentError(f"Unknown option(s) {unknown}; known: {sorted(allowed)}", detail="InvalidArgumentValue")
    out = dict(allowed)
    out.update({key: value for key, value in given.items() if value is not None})
    given_weights = given.get("weights") or {}
    if not isinstance(given_weights, dict):
        raise ArgumentError("Option `weights` must be a map {direct, expanded, evidence}", detail="InvalidArgumentValue")
    unknown_lanes = sorted(set(given_weights) - set(LANES))
    if unknown_lanes:
        # a misspelt lane would otherwise be ignored silently and the real lane keep its default
        raise ArgumentError(f"Unknown lane(s) {unknown_lanes} in `weights`; lanes: {list(LANES)}",
                            detail="InvalidArgumentValue")
    weights = dict(DEFAULTS["weights"])
    weights.update({lane: w for lane, w in given_weights.items() if w is not None})
    for lane, weight in weights.items():
        if type(weight) not in (int, float) or not math.isfinite(weight) or weight < 0:
            raise ArgumentError(f"Lane weight `{lane}` must be a finite non-negative number, got {weight!r}",
                                detail="InvalidArgumentValue")
    out["weights"] = weights
    for key in ("k", "laneK", "hops", "maxFacts", "maxFanout", "hydrateChunks"):
        if type(out[key]) is not int or out[key] < 0:
            raise ArgumentError(f"Option `{key}` must be a non-negative integer, got {out[key]!r}",
                                detail="InvalidArgumentValue")
    if out["laneK"] > MAX_LANE_K:
        raise ArgumentError(f"Option `laneK` must be at most {MAX_LANE_K}, got {out['laneK']}",
                            detail="InvalidArgumentValue")
    lanes = out["lanes"]
    if lanes is not None and (not isinstance(lanes, list) or not set(lanes) <= set(LANES)):
        raise ArgumentError(f"Option `lanes` must be a list of {list(LANES)}", detail="InvalidArgumentValue")
    if out["entities"] not in ENTITY_SOURCES:
        raise ArgumentError(f"Option `entities` must be one of {list(ENTITY_SOURCES)}", detail="InvalidArgumentValue")
    for key in ("hydrate", "siblings"):
        if type(out[key]) is not bool:
            raise ArgumentError(f"Option `{key}` must be a boolean", detail="InvalidArgumentValue")
    for key in ("documentLabel", "chunkLabel", "entityLabel", "chunkRel", "mentionRel", "vectorIndex", "fulltextIndex"):
        if not isinstance(out[key], str):
            raise ArgumentError(f"Option `{key}` must be a string", detail="InvalidArgumentValue")
    if out["workspace"] is not None and not isinstance(out["workspace"], str):
        raise ArgumentError("Option `workspace` must be a string", detail="InvalidArgumentValue")
    for key in ("entityThreshold", "entityEmbeddingThreshold"):
        if type(out[key]) not in (int, float) or not 0 < out[key] <= 1:
            raise ArgumentError(f"Option `{key}` must be a number in (0, 1]", detail="InvalidArgumentValue")
    constant = out["rrfConstant"]
    if type(constant) not in (int, float) or not math.isfinite(constant) or constant < 0:
        raise ArgumentError("Option `rrfConstant` must be a finite non-negative number", detail="InvalidArgumentValue")
    return out
