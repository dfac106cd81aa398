"""db.answer: one provider call over the numbered retrieved chunks; markers validated, facts as context.

The prompt asks for an answer only from the numbered sources, with [n] markers, and for a plain
statement when the sources do not hold the answer. Every [n] the model writes is checked against the
sources actually sent; invented markers are removed. Graph facts go in as unnumbered context, so they
can never be cited. When the provider fails, the answer is null and the sources stay.
"""
from __future__ import annotations

import re
import time

from relate.protocol.errors import QueryTimeout, Terminated

from ..ai.providers import get_provider

# [3], and the grouped forms models also write: [1, 3], [1,3], [1; 3]
# [3], [1, 3], [1; 3], [1 and 3], [2-4] / [2–4] (a range), any number of digits: every form a model uses
_MARKER = re.compile(r"\[\s*(\d+(?:\s*(?:[,;\-\u2013\u2014]|and|&)\s*\d+)*)\s*\]")
_MARKER_PART = re.compile(r"(\d+)\s*[\-\u2013\u2014]\s*(\d+)|(\d+)")
_RANGE_MAX = 50           # a wider "range" is read as its two ends (it names no real run of sources)


def _marker_numbers(body: str) -> list[int]:
    """The source numbers one marker names, ranges expanded."""
    out: list[int] = []
    for low, high, single in _MARKER_PART.findall(body):
        if single:
            out.append(int(single))
            continue
        a, b = int(low), int(high)
        out.extend(range(a, b + 1) if 0 <= b - a <= _RANGE_MAX else (a, b))
    return out
MAX_SOURCE_CHARS = 2_000

SYSTEM_PROMPT = (
    "You answer questions using only the numbered sources given. Cite every claim with the source's "
    "marker, like [1] or [2][3]. Use only the markers of the sources listed. If the sources do not contain "
    "the answer, say plainly that they do not, and do not use your own knowledge. The graph facts are "
    "background that explains how the sources relate; they are not sources and must not be cited.")


def estimate_tokens(text: str) -> int:
    """A provider-independent token estimate (about four characters per token)."""
    return (len(text) + 3) // 4


def build_prompt(question: str, sources: list[dict], facts: list[dict]) -> list[dict]:
    lines = ["Sources:"]
    for source in sources:
        title = f" ({source['document']})" if source.get("document") else ""
        lines.append(f"[{source['n']}]{title} {source['text'][:MAX_SOURCE_CHARS]}")
    if facts:
        lines.append("\nGraph facts (context only, not citable):")
        for fact in facts:
            lines.append(f"- {fact['from']} {fact['predicate'] or fact['type']} {fact['to']}")
    lines.append(f"\nQuestion: {question}")
    return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": "\n".join(lines)}]


def count_markers(text: str) -> int:
    """How many source numbers the [n] markers of ``text`` name (a group [1, 3] names two)."""
    return sum(len(_marker_numbers(m.group(1))) for m in _MARKER.finditer(text))


def validate_citations(text: str, sources: list[dict]) -> tuple[str, list[dict]]:
    """``text`` without markers that name no source, and the citations kept (first use order)."""
    by_n = {s["n"]: s for s in sources}
    cited: dict[int, dict] = {}

    def keep(match):
        numbers = _marker_numbers(match.group(1))
        valid = list(dict.fromkeys(n for n in numbers if n in by_n))
        for n in valid:
            source = by_n[n]
            cited.setdefault(n, {"marker": n, "node": source["node"], "document": source.get("document")})
        if len(valid) == len(numbers) and re.fullmatch(r"\s*\d+(?:\s*,\s*\d+)*\s*", match.group(1)):
            return match.group(0)
        return "[" + ", ".join(str(n) for n in valid) + "]" if valid else ""
    cleaned = _MARKER.sub(keep, text)
    cleaned = re.sub(r"[ \t]+([.,;:!?])", r"\1", cleaned)
    cleaned = re.sub(r"[ \t]{2,}", " ", cleaned).strip()
    return cleaned, list(cited.values())


def synthesize(ctx, question: str, retrieval, runner_text, diagnostics) -> dict:
    """{answer, citations, sources}; ``runner_text(node id) -> (text, document id)``."""
    sources = []
    for row in retrieval.rows:
        text, document = runner_text(row["node"].id)
        sources.append({"n": len(sources) + 1, "node": row["node"], "document": document, "text": text or "",
                        "score": row["score"], "rank": row["rank"], "lanes": row["lanes"]})
    seen, facts = set(), []
    for row in retrieval.rows:
        for fact in row["evidence"]:
            if fact["fact"] not in seen:
                seen.add(fact["fact"])
                facts.append(fact)
    answer, citations = None, []
    with diagnostics.step("synthesis") as step:
        if not sources:
            step["skipped"] = "no sources"
            return {"answer": None, "citations": [], "sources": []}
        messages = build_prompt(question, sources, facts)
        prompt_text = "".join(m["content"] for m in messages)
        step["tokensIn"] = estimate_tokens(prompt_text)
        try:
            started = time.perf_counter()
            with ctx.costs.call("llmCalls", "answer synthesis", "db.retrieve"):
                raw = get_provider(ctx.db).chat(messages)
            step["providerMs"] = round((time.perf_counter() - started) * 1000, 3)
            step["tokensOut"] = estimate_tokens(raw)
            answer, citations = validate_citations(raw, sources)
            if not answer.strip():       # an empty reply (or one of invented markers alone) answers nothing
                raise ValueError("the model's reply holds no answer")
            step["citations"] = len(citations)
            step["dropped"] = count_markers(raw) - count_markers(answer)
        except (Terminated, QueryTimeout):
            raise
        except Exception as error:         # the caller loses the prose, never the sources
            step["tokensOut"] = 0
            diagnostics.degrade("synthesis", error, "null answer, sources intact")
            answer, citations = None, []
    return {"answer": answer, "citations": citations, "sources": sources}
