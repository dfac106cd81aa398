"""The graph side of retrieval: entities named in a question, and the facts two hops around them.

With an AI provider configured its model lists the names in the question (spec 003) and each is looked
up in the trigram index of the graph's own entity names; a name found there by no entity is looked up by
meaning through the entities' vector index where one declares its embedder (resolution's embedding stage). Without one (or ``{entities: 'gazetteer'}``, or
when the model fails) a deterministic gazetteer: every phrase of one to four words of the question is
looked up there; the best non-overlapping matches above a threshold win.
"""
from __future__ import annotations

import re

import numpy as np

from ..ai import providers, replies
from ..index.trigram import trigram_similarity
from .normalize import normalize_name
from .names import search_in_scope, trigram_lookup

_WORDS = re.compile(r"[^\W_]+(?:['’.-][^\W_]+)*")
_POSSESSIVE = re.compile(r"(?<=\w)['’]s\b")
MAX_QUESTION_WORDS = 64
MAX_PHRASE_WORDS = 4
MAX_NAMES = 32                 # names taken from a model's list


def _in_scope(tx, nid: int, label: str, workspace) -> bool:
    return (tx.node_exists(nid) and label in tx.node_labels(nid)
            and (workspace is None or tx.node_prop(nid, "workspace") == workspace))


def find_entities(ctx, question: str, opts: dict, diagnostics=None) -> tuple[list[dict], str]:
    """[{entity id, name, phrase, similarity}] for the entities the question names, and what named them
    ('llm' or 'gazetteer'). A model that fails or answers no list leaves the gazetteer to do it (noted in
    ``diagnostics``): the graph enhances, never replaces."""
    source = opts["entities"]
    if source == "auto":
        source = "llm" if providers.configured(ctx.db) else "gazetteer"
    phrases = None
    if source == "llm":
        try:
            phrases = [(name, i, i) for i, name in enumerate(_llm_names(ctx, question))]
        except (providers.ProviderError, ValueError) as error:
            if diagnostics is not None:
                diagnostics.degrade("entities", error, "gazetteer")
            source = "gazetteer"
    if phrases is None:
        words = _WORDS.findall(_POSSESSIVE.sub("", question))[:MAX_QUESTION_WORDS]
        phrases = [(" ".join(words[i:j]), i, j - 1) for i in range(len(words))
                   for j in range(i + 1, min(len(words), i + MAX_PHRASE_WORDS) + 1)]
    label, workspace, threshold = opts["entityLabel"], opts["workspace"], opts["entityThreshold"]
    index = trigram_lookup(ctx.db, label, "normalized")
    tx = ctx.tx
    candidates = []
    for phrase, first, last in phrases:
        norm = normalize_name(phrase)
        if not norm:
            continue
        # A name under three characters ("Go", "AI", "R") is too short for trigram likeness: it matches
        # only itself, and the gazetteer takes it only where the question writes it with a capital (so
        # "we go" and "is" name nothing).
        short = len(norm) < 3
        if short and source != "llm" and phrase == phrase.lower():
            continue
        wanted = 1.0 if short else threshold
        ctx.check()
        for nid, _ in search_in_scope(index, norm, 3, wanted, lambda n: _in_scope(tx, n, label, workspace)):
            current = tx.node_prop(nid, "normalized")
            if not isinstance(current, str) or (len(current) < 3 or short) and current != norm:
                continue
            sim = trigram_similarity(norm, current)
            if sim >= wanted:
                candidates.append((sim * (last - first + 1), sim, first, last, nid, phrase))
    if source == "llm":
        found = {c[2] for c in candidates}
        candidates += _by_meaning(ctx, [(p, f, last) for p, f, last in phrases if f not in found], opts,
                                  lambda n: _in_scope(tx, n, label, workspace))
    # the most words covered, weighted by similarity, first: "Ada Lovelace" (0.9 x 2) beats an entity
    # called "Ada" (1.0 x 1); spans may not overlap; one phrase per entity
    candidates.sort(key=lambda c: (-c[0], -c[1], c[2], c[4]))
    taken: set[int] = set()
    chosen, seen = [], set()
    for _, sim, first, last, nid, phrase in candidates:
        span = set(range(first, last + 1))
        if nid in seen or (source != "llm" and span & taken):
            continue
        taken |= span
        seen.add(nid)
        chosen.append({"id": nid, "name": tx.node_prop(nid, "name"), "phrase": phrase, "similarity": sim})
    return chosen, source


def _by_meaning(ctx, phrases, opts: dict, in_scope) -> list[tuple]:
    """Entity resolution's last stage for the names a model listed that no exact or trigram lookup
    found (spec 003: the same entity sharing no characters, "Facebook" for Meta): each name embedded as
    the entities' vector index declares, its nearest entities in scope, cosine at least
    ``entityEmbeddingThreshold``. Nothing without such an index."""
    if not phrases:
        return []
    from .resolve import entity_vector_index
    manager = ctx.db.index_manager
    index = entity_vector_index(manager, opts["entityLabel"])
    if index is None:
        return []
    from ..ai.statement import for_ctx
    model = manager.get(index).definition.config.get("vector.embedder")
    vectors = for_ctx(ctx).embed_many([p for p, _, _ in phrases], model)
    threshold, tx, out = opts["entityEmbeddingThreshold"], ctx.tx, []
    for (phrase, first, last), vector in zip(phrases, vectors):
        q = np.asarray(vector, dtype=np.float64)
        qn = np.linalg.norm(q)
        if not qn:
            continue
        for nid, _ in manager.vector_search(index, vector, 10, tx=tx):
            ctx.check()
            stored = tx.node_prop(nid, "embedding") if in_scope(nid) else None
            v = None if stored is None else np.asarray(list(stored), dtype=np.float64)
            if v is None or v.shape != q.shape or not np.linalg.norm(v):
                continue
            sim = float(q @ v / (qn * np.linalg.norm(v)))
            if sim >= threshold:
                out.append((sim * (last - first + 1), sim, first, last, nid, phrase))
    return out


def _llm_names(ctx, question: str) -> list[str]:
    """The names the provider's model lists for ``question``; ValueError when its reply holds no JSON
    array of strings (an empty array is an answer: it found nothing)."""
    prompt = ("List the named entities (people, organisations, products, places, concepts) that the question "
              "mentions. Answer with a JSON array of strings and nothing else.\n\nQuestion: " + question)
    with ctx.costs.call("llmCalls", "entity extraction", "db.retrieve"):
        text = providers.get_provider(ctx.db).chat([{"role": "user", "content": prompt}])
    return replies.string_list(text, MAX_NAMES)


def traverse(ctx, seeds: list[int], opts: dict) -> tuple[dict, dict]:
    """Breadth-first from ``seeds`` over entity-to-entity relationships, up to ``hops``.

    Per entity, each (type, direction) group keeps its ``maxFanout`` best-corroborated facts (0: all),
    and, unless ``siblings``, no fact leads back along the type that reached the entity.
    Returns (facts: rid -> {hop, type, start, end, predicate, sources}, reached: entity id -> hop)."""
    tx, label, workspace = ctx.tx, opts["entityLabel"], opts["workspace"]
    fanout = opts["maxFanout"]
    reached = {nid: 0 for nid in seeds}
    arrived: dict[int, tuple] = {}         # entity -> (type, direction) of the fact that reached it
    facts: dict[int, dict] = {}
    frontier = list(seeds)
    for hop in range(1, opts["hops"] + 1):
        nxt = []
        for nid in frontier:
            groups: dict[tuple, list] = {}
            for rid, other in tx.expand(nid, "both", None):
                ctx.check()
                if rid in facts or not _in_scope(tx, other, label, workspace):
                    continue
                start, end = tx.rel_endpoints(rid)
                kind, outgoing = tx.rel_type(rid), start == nid
                if not opts["siblings"] and arrived.get(nid) == (kind, not outgoing):
                    # back along the type that brought us here: a sibling (a co-worker of the person
                    # asked about), not a property of the entity reached; it floods the lanes with names
                    continue
                sources = tx.rel_prop(rid, "sources")
                sources = list(dict.fromkeys(s for s in sources if isinstance(s, str))) \
                    if isinstance(sources, list) else []
                groups.setdefault((kind, outgoing), []).append(
                    (rid, other, {"hop": hop, "type": kind, "start": start, "end": end,
                                  "predicate": tx.rel_prop(rid, "predicate"), "sources": sources}))
            for (kind, outgoing), members in groups.items():
                if fanout:
                    members = sorted(members, key=lambda m: (-len(m[2]["sources"]), m[0]))[:fanout]
                for rid, other, fact in members:
                    if len(facts) >= opts["maxFacts"]:
                        return facts, reached
                    facts[rid] = fact
                    if other not in reached:
                        reached[other] = hop
                        arrived[other] = (kind, outgoing)
                        nxt.append(other)
        frontier = nxt
    return facts, reached
