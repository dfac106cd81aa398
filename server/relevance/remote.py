"""Relevance producers that search a store outside this world (spec 001): ``remote-search`` (a JSON
search endpoint, e.g. a memory service) and ``elasticsearch`` (an index's ``_search``).

The anchor's text is the query. Each request is one ``apiCalls``, counted when it is sent (a search the
store refuses or times out on still counts), never a ``semanticCalls``. The target label's declared
scope travels with every request as filters, and a caller without that scope sends nothing (fail
closed, as for the local kinds). A record becomes the edge's target: the stored target node whose
``targetKey`` equals the record's key, else a query-time node of the target label (and its ancestors)
carrying the record's fields; the record's score goes on the edge, never on the node.
"""
from __future__ import annotations

import math
import os
from urllib.parse import quote

from ..ai import replies
from ..ai.providers import ProviderError, get_provider, post_json
from .lanes import RRF_K

MAX_RECORDS = 1000
MAX_PROBES = 4                 # concept mode: probe terms a model may choose per anchor
MAX_PROBE_CHARS = 200
PROBE_PROMPT = ("You expand a concept into search terms for a search engine. Reply with a JSON array of at most "
                f"{MAX_PROBES} short search terms (words or phrases) that documents about the concept would use, "
                "and nothing else.")
_LIST_KEYS = ("results", "hits", "records", "data", "items")
_SCALARS = (str, int, float, bool)


def request(join, key: str, k: int, intent: str | None, filters: dict) -> tuple[str, dict]:
    """The URL and JSON body of one search."""
    if join.kind == "elasticsearch":
        match = {"multi_match": {"query": key, "fields": list(join.fields) or ["*"]}}
        query = {"bool": {"must": [match], "filter": [{"term": {prop: value}} for prop, value in filters.items()]}}
        return f"{join.url.rstrip('/')}/{quote(join.index, safe='')}/_search", {"size": k, "query": query}
    body: dict = {"query": key, "k": k}
    if intent is not None:
        body["intent"] = intent
    if filters:
        body["filter"] = dict(filters)
    return join.url, body


def _headers(join) -> dict:
    if not join.api_key_env:
        return {}
    secret = os.environ.get(join.api_key_env)
    if not secret:
        raise ProviderError(f"Relevance join `{join.name}`: the environment variable {join.api_key_env} "
                            f"holding the store's key is not set", detail="NotConfigured")
    return {"Authorization": f"{'ApiKey' if join.kind == 'elasticsearch' else 'Bearer'} {secret}"}


def _field(record: dict, path: str):
    """``path``'s value in ``record`` (dots go into nested maps: 'meta.score')."""
    value = record
    for part in path.split("."):
        if not isinstance(value, dict):
            return None
        value = value.get(part)
    return value


def _records(join, data) -> list[tuple[dict, object, float | None]]:
    """(record, key, score) for each record of a store's answer; ProviderError when it holds no list."""
    what = f"relevance join `{join.name}`"
    if join.kind == "elasticsearch":
        hits = data.get("hits", {}).get("hits") if isinstance(data, dict) and isinstance(data.get("hits"), dict) \
            else None
        if not isinstance(hits, list):
            raise ProviderError(f"{what}: the answer holds no hits.hits list", detail="Malformed")
        out = []
        for hit in hits[:MAX_RECORDS]:
            if not isinstance(hit, dict):
                continue
            record = dict(hit.get("_source") or {})
            key = _field(record, join.record_key) if join.record_key != "_id" else hit.get("_id")
            raw = hit.get("_score")
            # BM25 is unbounded: s / (1 + s) keeps the order and reads as 0..1, as the keyword lane's
            score = raw / (1 + raw) if isinstance(raw, (int, float)) and math.isfinite(raw) and raw >= 0 else None
            out.append((record, key, score))
        return out
    items = data if isinstance(data, list) else next(
        (data[name] for name in _LIST_KEYS if isinstance(data, dict) and isinstance(data.get(name), list)), None)
    if items is None:
        raise ProviderError(f"{what}: the answer holds no list of records", detail="Malformed")
    out = []
    for record in items[:MAX_RECORDS]:
        if not isinstance(record, dict):
            continue
        raw = _field(record, join.score_field)
        score = float(raw) if isinstance(raw, (int, float)) and not isinstance(raw, bool) \
            and math.isfinite(raw) else None
        out.append((record, _field(record, join.record_key), score))
    return out


def search(join, key: str, k: int, intent: str | None, filters: dict) -> list[dict]:
    """The store's hits for one anchor key, best first: [{record, key, score, rank}]. Raises
    ProviderError (the caller has already counted the call)."""
    url, body = request(join, key, k, intent, filters)
    data = post_json(url, body, headers=_headers(join), timeout_s=join.timeout,
                     what=f"relevance join `{join.name}` ({join.kind})")
    records = [r for r in _records(join, data) if isinstance(r[1], (str, int)) and not isinstance(r[1], bool)]
    if join.kind != "elasticsearch":
        # a store's own order, unless it gives scores: then the best score first (ties keep its order)
        records.sort(key=lambda r: -r[2] if r[2] is not None else math.inf)
    seen, hits = set(), []
    for record, rkey, score in records:
        if rkey in seen:
            continue
        seen.add(rkey)
        hits.append({"record": record, "key": rkey, "score": score, "rank": len(hits) + 1})
        if len(hits) == k:
            break
    return hits


def probe_terms(ctx, join, key: str, intent: str | None) -> list[str]:
    """Concept mode: the model's probe terms for one anchor of ``join`` (one llmCalls, counted when asked,
    logged by purpose, never by the anchor's text). Raises ProviderError or ValueError (no list in the
    reply); an empty list means the anchor's own text."""
    brief = f"\nBrief: {intent}" if intent else ""
    with ctx.costs.call("llmCalls", "concept expansion", join.name):
        text = get_provider(ctx.db).chat([{"role": "system", "content": PROBE_PROMPT},
                                          {"role": "user", "content": f"Concept: {key}{brief}"}])
    terms: dict[str, str] = {}
    for term in replies.string_list(text, MAX_PROBES * 4):
        terms.setdefault(term.lower(), term[:MAX_PROBE_CHARS])
    return list(terms.values())[:MAX_PROBES] or [key]


def fuse(lists: list[list[dict]], k: int) -> list[dict]:
    """Several probes' hits as one list: reciprocal rank fusion over the record keys, each record's best
    score kept (a record several probes find outranks a lone hit)."""
    if len(lists) == 1:
        return lists[0]
    fused: dict = {}
    for hits in lists:
        for hit in hits:
            entry = fused.setdefault(hit["key"], {"hit": hit, "rrf": 0.0, "score": hit["score"]})
            entry["rrf"] += 1.0 / (RRF_K + hit["rank"])
            if hit["score"] is not None and (entry["score"] is None or hit["score"] > entry["score"]):
                entry["score"] = hit["score"]
    ranked = sorted(fused.values(), key=lambda e: -e["rrf"])[:k]
    return [dict(e["hit"], score=e["score"], rank=rank) for rank, e in enumerate(ranked, 1)]


def node_props(join, record: dict, rkey) -> dict:
    """A record's fields as node properties: scalars and lists of scalars; the score stays on the edge."""
    props = {}
    for name, value in record.items():
        if not isinstance(name, str) or name == join.score_field or value is None:
            continue
        if isinstance(value, _SCALARS) and not (isinstance(value, float) and not math.isfinite(value)):
            props[name] = value
        elif isinstance(value, list) and value and all(type(v) is type(value[0]) and isinstance(v, _SCALARS)
                                                       for v in value):
            props[name] = list(value)
    props[join.target_key] = rkey
    return props


def resolve(ctx, rc, join, scope, hits: list[dict], made: dict, *, mode: str | None = None,
            probe: str = "remote", props=node_props, status: str | None = None) -> list[dict]:
    """Hits with ``id``: the stored target whose ``targetKey`` is the record's key (within the scope),
    else one query-time node per (label, key) in this statement (``made``) with ``props(join, record,
    key)``. The store answered under the scope's filters, so its query-time nodes carry them; a record
    that says otherwise is dropped (a remote join can never surface another context's documents). A
    record without a status gets ``status`` when one is given (a source with no lifecycle of its own)."""
    tx = ctx.tx
    filters = dict(scope.equalities)
    out = []
    for hit in hits:
        record = hit["record"]
        if any(prop in record and record[prop] != value for prop, value in filters.items()):
            continue
        if scope.status_prop and status is not None and record.get(scope.status_prop) is None:
            record = {**record, scope.status_prop: status}
        found = record.get(scope.status_prop) if scope.status_prop else None
        if found is not None and (found in scope.never or (scope.allowed is not None and found not in scope.allowed)):
            continue                            # the lifecycle the target label declares applies to records too
        nid = next((n for n in tx.index_seek("node", join.target_label, join.target_key, hit["key"])
                    if scope.accepts(n)), None)
        if nid is None:
            memo = (join.target_label, join.target_key, hit["key"])
            nid = made.get(memo)
            if nid is None:
                labels = [join.target_label, *rc.ancestors(join.target_label)]
                nid = made[memo] = tx.add_virtual_node(labels, {**filters, **props(join, record, hit["key"])})
        snippet = record.get("snippet")
        out.append({"id": nid, "score": hit["score"], "rank": hit["rank"], "mode": mode or join.kind,
                    "probes": [probe], "snippet": snippet if isinstance(snippet, str) else None,
                    "matchedTerms": list(hit.get("matchedTerms", []))})
    return out
