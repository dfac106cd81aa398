"""One relevance search for one anchor key: the fused (vector + lexical, RRF), keyword and participant
lanes. A hit is a dict {id, score, rank, mode, snippet, matchedTerms, probes}; scope and lifecycle
filters run at the source, so a lane never returns a node the caller may not read."""
from __future__ import annotations

import re

import numpy as np

from relate.protocol.values import Vector

from relate.server.ai.statement import for_ctx
from relate.server.ai import embedders

RRF_K = 60
_WORD = re.compile(r"[a-z0-9]+")
# Words that carry no assertion on their own: a keyword lane does not require them.
STOP_WORDS = frozenset("a an and are as at be by for from has have i in is it its of on or that the this "
                       "to was were what when where which who why will with about me my you your".split())


MAX_TERMS = 64          # a long anchor text is searched by its first terms (a bounded query)


def terms(text: str) -> list[str]:
    """The anchor text's lowercase word tokens (the full-text analyzers' tokens), in order, unique."""
    return list(dict.fromkeys(_WORD.findall(text[:100_000].lower())))[:MAX_TERMS]


def assertable(text: str) -> list[str]:
    return [t for t in terms(text) if t not in STOP_WORDS] or terms(text)


class Scope:
    """Which target nodes a search may return: label, scope equalities, lifecycle exclusions."""

    def __init__(self, tx, label: str, equalities: list[tuple[str, object]], never: tuple, status_prop: str | None,
                 allowed: tuple | None = None):
        self.tx, self.label = tx, label
        self.equalities, self.never, self.status_prop = equalities, never, status_prop
        self.allowed = allowed          # the only statuses read (None: every one but `never`)

    def accepts_from(self, definition):
        """The acceptance test for hits of an index: a plain visibility check when the index holds
        only the target label and nothing else is filtered (no read of the node needed)."""
        if not self.equalities and self.status_prop is None and list(definition.tokens) == [self.label]:
            return self.tx.node_exists
        return self.accepts

    def accepts(self, nid: int) -> bool:
        found = self.tx.node(nid)
        if found is None:
            return False
        labels, props = found
        if self.label not in labels:
            return False
        for prop, value in self.equalities:
            if props.get(prop) != value:
                return False
        if self.status_prop is not None:
            status = props.get(self.status_prop)
            if status is None or status in self.never or (self.allowed is not None and status not in self.allowed):
                return False
        return True


def _filtered(search, want: int, accept) -> list[tuple[int, float]]:
    """The first ``want`` hits ``accept`` keeps: ask ``search(limit)`` for exactly ``want`` first (the
    usual case: nothing is filtered out), then for more while the filter drops some."""
    limit = want
    while True:
        hits = search(limit)
        kept = [h for h in hits if accept(h[0])]
        if len(kept) >= want or len(hits) < limit or limit >= 1 << 20:
            return kept[:want]
        limit = limit * 4 + 10


def _snippet(text: str, words: list[str], width: int = 160) -> str:
    lower = text.lower()
    at = min((lower.find(w) for w in words if w in lower), default=-1)
    if at < 0 or len(text) <= width:
        return text[:width]
    start = max(0, at - width // 3)
    return ("…" if start else "") + text[start:start + width] + ("…" if start + width < len(text) else "")


def _arms(ctx, join):
    """(vector index definition or None, full-text index name or None, text properties) of a join,
    resolved once per statement."""
    state = for_ctx(ctx)
    found = state.arms.get(join.name)
    if found is None:
        manager = ctx.db.index_manager
        vdef = fname = None
        text_props = None
        for name in join.indexes:
            d = manager.get(name).definition
            if d.type == "VECTOR" and vdef is None:
                vdef = d
            elif d.type == "FULLTEXT" and fname is None:
                fname, text_props = name, list(d.properties)
        found = state.arms[join.name] = (vdef, fname, text_props or ["text"])
    return found


def _similarity(vec_a, vec_b, function: str) -> float | None:
    a = np.asarray(vec_a.to_numpy() if type(vec_a) is Vector else vec_a, dtype=np.float32)
    b = np.asarray(vec_b.to_numpy() if type(vec_b) is Vector else vec_b, dtype=np.float32)
    if a.shape != b.shape or a.size == 0:
        return None
    if function == "euclidean":
        return float(1.0 / (1.0 + float(((a - b) ** 2).sum())))
    na, nb = float(np.linalg.norm(a)), float(np.linalg.norm(b))
    if na == 0 or nb == 0:
        return None
    return float((1.0 + float(a @ b) / (na * nb)) / 2.0)


def _decorate(ctx, hits: list[dict], text_props: list[str], words: list[str]) -> list[dict]:
    tx = ctx.tx
    for hit in hits:
        props = tx.node_props(hit["id"])
        text = " ".join(str(props[p]) for p in text_props if isinstance(props.get(p), str))
        tokens = set(_WORD.findall(text.lower()))
        hit["matchedTerms"] = [w for w in words if w in tokens]
        hit["snippet"] = _snippet(text, hit["matchedTerms"] or words)
    return hits


def prefetch_vectors(ctx, join, scope: Scope, texts: list[str], k: int) -> None:
    """Run the vector arm for many anchor texts in one batched index call (kept per statement);
    searches with a filter pushed into the index, or in a transaction that wrote, stay one by one."""
    d = _arms(ctx, join)[0]
    if d is None or any(p in d.filter_properties for p, _ in scope.equalities) or ctx.tx.change_log():
        return          # (a writing transaction's searches go one by one: they see its own writes)
    state = for_ctx(ctx)
    todo = [t for t in dict.fromkeys(texts) if (join.name, t) not in state.vector_hits]
    if len(todo) < 2:
        return
    embedder = d.config.get("vector.embedder") or embedders.DEFAULT
    vectors = state.embed_many(todo, embedder, search=True)
    for text, hits in zip(todo, ctx.db.index_manager.vector_search_many(d.name, vectors, k)):
        state.vector_hits[(join.name, text)] = (k, hits)


def vector_arm(ctx, join, scope: Scope, text: str, k: int):
    """(hits [(id, similarity)], vector index definition) or (None, None) when the join has no vector arm."""
    manager = ctx.db.index_manager
    d = _arms(ctx, join)[0]
    if d is None:
        return None, None
    accept = scope.accepts_from(d)
    batched = for_ctx(ctx).vector_hits.get((join.name, text))
    if batched is not None and batched[0] == k:
        kept = [h for h in batched[1] if accept(h[0])]
        if len(kept) >= k or len(batched[1]) < k:
            return kept[:k], d
    vector = for_ctx(ctx).embed(text, d.config.get("vector.embedder") or embedders.DEFAULT, search=True)
    pushed = [(p, "=", v) for p, v in scope.equalities if p in d.filter_properties]
    return _filtered(lambda limit: manager.vector_search(d.name, vector, limit, pushed, tx=ctx.tx), k, accept), d


def lexical_arm(ctx, join, scope: Scope, words: list[str], k: int, require_all: bool):
    manager = ctx.db.index_manager
    if not words:
        return []
    query = " ".join(("+" if require_all else "") + w for w in words)
    name = _arms(ctx, join)[1]
    if name is None:
        return None
    return _filtered(lambda limit: manager.fulltext_search(name, query, 0, limit, tx=ctx.tx), k,
                     scope.accepts_from(manager.get(name).definition))


def fused(ctx, join, scope: Scope, text: str, k: int) -> list[dict]:
    """Vector and lexical arms over the same scope, fused by reciprocal rank; r.score a similarity."""
    words = terms(text)
    vec_hits, vdef = vector_arm(ctx, join, scope, text, k)
    lex_hits = lexical_arm(ctx, join, scope, words, k, require_all=False) or []
    if not vec_hits:
        if not lex_hits:
            return []
        return keyword_hits(ctx, join, lex_hits, words)     # honest: the lexical retrieval produced the rows
    fused_score: dict[int, float] = {}
    probes: dict[int, list[str]] = {}
    similarity = dict(vec_hits)
    for arm, hits in (("vector", vec_hits), ("keyword", lex_hits)):
        for rank, (nid, _) in enumerate(hits, start=1):
            fused_score[nid] = fused_score.get(nid, 0.0) + 1.0 / (RRF_K + rank)
            probes.setdefault(nid, []).append(arm)
    order = _reachable(sorted(fused_score, key=lambda nid: (-fused_score[nid], nid)), k,
                       [hits[0][0] for hits in (lex_hits, vec_hits) if hits])
    out = []
    query_vector = None
    for rank, nid in enumerate(order, start=1):
        score = similarity.get(nid)
        if score is None:       # found by the lexical arm only: its similarity, computed directly
            if query_vector is None:
                query_vector = for_ctx(ctx).embed(text, vdef.config.get("vector.embedder") or embedders.DEFAULT,
                                                  search=True)
            stored = ctx.tx.node_prop(nid, vdef.properties[0])
            score = _similarity(query_vector, stored, vdef.config.get("vector.similarity_function", "cosine")) \
                if stored is not None else None
        # no stored vector: no similarity to report (null, not 0.0, which would read as "opposite")
        out.append({"id": nid, "score": None if score is None else round(float(score), 6), "rank": rank,
                    "mode": "fused", "probes": probes[nid]})
    return _decorate(ctx, out, _arms(ctx, join)[2], words)


def _reachable(ranked: list[int], k: int, firsts: list[int]) -> list[int]:
    """The top ``k`` of ``ranked`` with each arm's own best hit in it (``firsts``, lexical first): the two
    bests tie on fused score, and a tie must not drop the document holding a distinctive identifier the
    question asked for (spec 001 6.6: a document either arm finds is reachable). They take the places of
    the lowest-ranked others, and the fused order is kept."""
    top = ranked[:k]
    for best in firsts:
        if best in top:
            continue
        spare = [i for i, nid in enumerate(top) if nid not in firsts]
        if not spare:
            break
        del top[spare[-1]]
        top.append(best)
    position = {nid: i for i, nid in enumerate(ranked)}
    return sorted(top, key=position.__getitem__)


def keyword_hits(ctx, join, lex_hits, words) -> list[dict]:
    out = [{"id": nid, "score": round(float(s) / (1.0 + float(s)), 6), "rank": rank, "mode": "keyword",
            "probes": ["keyword"]} for rank, (nid, s) in enumerate(lex_hits, start=1)]
    return _decorate(ctx, out, _arms(ctx, join)[2], words)


def keyword(ctx, join, scope: Scope, text: str, k: int) -> list[dict]:
    """Lexical only: every assertable term present, or an honest empty."""
    words = assertable(text)
    hits = lexical_arm(ctx, join, scope, words, k, require_all=True) or []
    return keyword_hits(ctx, join, hits, words)


def participant(ctx, join, scope: Scope, key, k: int) -> list[dict]:
    """Targets whose resolved ids (``identityField``) contain the anchor's id: a fact, not a name."""
    tx, field = ctx.tx, join.identity_field
    found = []
    for nid in tx.nodes_by_label(join.target_label):
        ctx.check()
        ids = tx.node_prop(nid, field)
        # a list of resolved ids (entityIds), or one (identityField: entityId, as spec 001's producer)
        if (key in ids if isinstance(ids, list) else ids is not None and ids == key) and scope.accepts(nid):
            found.append(nid)
            if len(found) >= k:
                break
    out = [{"id": nid, "score": 1.0, "rank": rank, "mode": "participant", "probes": ["participant"]}
           for rank, nid in enumerate(found, start=1)]
    return _decorate(ctx, out, _arms(ctx, join)[2], [])
