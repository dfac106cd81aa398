"""The agentic-rag lane: a bounded LLM loop behind the provider interface (one reformulation call,
both deterministic lanes per query, one judging call). Grounded: the judge sees candidates under
handles (d1, d2, ...) and only handles it was shown can become edges. Fail-open: the caller falls back
to the fused lane for the anchor on any exception raised here."""
from __future__ import annotations

import json

from relate.server.ai.providers import ProviderError, get_provider

from . import lanes

MAX_QUERIES = 3
MAX_QUERY_CHARS = 200
MAX_CANDIDATES = 40

PLAN_PROMPT = ("You plan document retrieval. Given an anchor and a brief, reply with JSON "
               '{"queries": ["..."]} holding at most 3 short search queries that find documents bearing on '
               "the brief.")
JUDGE_PROMPT = ("You judge retrieved candidates against a brief. Reply with JSON "
                '{"results": [{"id": "<candidate id>", "score": <0..1>, "evidence": "<verbatim quote>"}]} '
                "listing only candidates that bear on the brief, best first. Use only the ids given.")


def _json(text: str) -> dict:
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end < start:
        raise ProviderError("the model's answer holds no JSON object", detail="Malformed")
    try:
        data = json.loads(text[start:end + 1])
    except ValueError:
        raise ProviderError("the model's answer is not valid JSON", detail="Malformed") from None
    if not isinstance(data, dict):
        raise ProviderError("the model's answer is not a JSON object", detail="Malformed")
    return data


def run(ctx, join, scope, text: str, intent: str | None, k: int) -> list[dict]:
    provider = get_provider(ctx.db)
    brief = intent or join.intent or "relevant to the anchor"
    with ctx.costs.call("llmCalls", "agentic plan", join.name):     # counted when asked, failed or not
        reply = provider.chat([{"role": "system", "content": PLAN_PROMPT},
                               {"role": "user", "content": json.dumps({"anchor": text, "brief": brief})}],
                              response_format={"type": "json_object"})
    plan = _json(reply)
    queries = [text]
    for q in plan.get("queries") or []:
        if isinstance(q, str) and q.strip() and q not in queries:
            queries.append(q.strip()[:MAX_QUERY_CHARS])
    queries = queries[:MAX_QUERIES + 1]
    candidates: dict[int, dict] = {}
    for query in queries:
        for hit in lanes.fused(ctx, join, scope, query, k) + lanes.keyword(ctx, join, scope, query, k):
            seen = candidates.setdefault(hit["id"], {**hit, "probes": []})
            for probe in hit["probes"]:
                if probe not in seen["probes"]:
                    seen["probes"].append(probe)
    if not candidates:
        return []
    # the judge reads a bounded listing: the best-ranked candidates first
    ranked = sorted(candidates, key=lambda nid: candidates[nid].get("rank", 0))[:MAX_CANDIDATES]
    handles = {f"d{i}": nid for i, nid in enumerate(ranked, start=1)}
    listing = [{"id": h, "snippet": candidates[nid]["snippet"]} for h, nid in handles.items()]
    with ctx.costs.call("llmCalls", "agentic judge", join.name):
        reply = provider.chat([{"role": "system", "content": JUDGE_PROMPT},
                               {"role": "user", "content": json.dumps({"brief": brief, "anchor": text,
                                                                       "candidates": listing})}],
                              response_format={"type": "json_object"})
    verdict = _json(reply)
    results = verdict.get("results")
    if not isinstance(results, list):
        raise ProviderError("the judge's answer has no results list", detail="Malformed")
    out, used = [], set()
    for item in results:
        if not isinstance(item, dict):
            continue
        nid = handles.get(item.get("id"))       # grounding: only handles the judge was shown
        if nid is None or nid in used:
            continue
        used.add(nid)
        score = item.get("score")
        score = min(1.0, max(0.0, float(score))) if type(score) in (int, float) else 0.0
        hit = candidates[nid]
        evidence = item.get("evidence")
        text_seen = hit["snippet"] or ""
        snippet = evidence if isinstance(evidence, str) and evidence and evidence in text_seen else text_seen
        out.append({"id": nid, "score": round(score, 6), "mode": "agentic-rag", "snippet": snippet,
                    "matchedTerms": hit.get("matchedTerms", []), "probes": hit["probes"] + ["judge"]})
        if len(out) >= k:
            break
    if results and not out:
        # every id the judge named is one it was never shown: a hallucinated verdict is a failed loop
        # (the caller falls back to the fused lane), not a judgement that nothing fits the brief
        raise ProviderError("the judge named only candidates it was not shown", detail="Ungrounded")
    for rank, hit in enumerate(out, start=1):
        hit["rank"] = rank
    return out
