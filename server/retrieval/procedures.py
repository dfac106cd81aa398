"""Registration of db.entity.resolve, db.retrieve, db.retrieve.response, db.retrieve.diagnostics and
db.answer."""
from __future__ import annotations

from ..ai import providers
from .model import options
from .resolve import resolve_mentions
from .retrieve import retrieve


def register(registry) -> None:
    registry.register("db.entity.resolve", [("mentions", "ANY?"), ("options", "MAP?", None)],
                      [("mention", "STRING?"), ("entity", "NODE?"), ("created", "BOOLEAN?"), ("stage", "STRING?"),
                       ("similarity", "FLOAT?")], resolve_mentions, mode="WRITE",
                      description="Resolve entity mentions to existing entities (exact, trigram, embedding) or create them.")
    registry.register("db.retrieve", [("question", "ANY?"), ("options", "MAP?", {})],
                      [("node", "NODE?"), ("score", "FLOAT?"), ("rank", "INTEGER?"), ("lanes", "LIST? OF STRING?"),
                       ("evidence", "LIST? OF MAP?"), ("diagnostics", "MAP?"), ("answer", "STRING?"),
                       ("citations", "LIST? OF MAP?")], _retrieve,
                      description="Three-lane retrieval (dense, keyword, graph) for a question, fused, with evidence "
                                  "and (with an AI provider) the cited answer.")
    registry.register("db.retrieve.response", [("question", "ANY?"), ("options", "MAP?", {})],
                      [("results", "LIST? OF MAP?"), ("answer", "STRING?"), ("citations", "LIST? OF MAP?"),
                       ("diagnostics", "MAP?")], _response,
                      description="db.retrieve's whole response as one row: the ranked results, the cited answer "
                                  "and the diagnostics, also when nothing was found.")
    registry.register("db.retrieve.diagnostics", [("question", "ANY?"), ("options", "MAP?", {})],
                      [("step", "STRING?"), ("ms", "FLOAT?"), ("details", "MAP?")], _diagnostics,
                      description="What each retrieval lane found for a question, and why.")
    registry.register("db.answer", [("question", "ANY?"), ("options", "MAP?", {})],
                      [("answer", "STRING?"), ("citations", "LIST? OF MAP?"), ("sources", "LIST? OF MAP?"),
                       ("diagnostics", "MAP?")], _answer,
                      description="An answer to a question from the retrieved evidence, with citations.")


# db.retrieve's own option: synthesize the cited answer (spec 003: "one call, every search") when an AI
# provider is configured; {answer: false} skips the model call.
_RETRIEVE_OPTIONS = {"answer": True}


def _synthesized(ctx, question, result) -> dict:
    """db.answer's {answer, citations, sources} for a retrieval (one model call)."""
    from .answer import synthesize
    runner = result.runner
    return synthesize(ctx, question if isinstance(question, str) else "", result,
                      lambda cid: (ctx.tx.node_prop(cid, "text"), runner.document_of(cid)), result.diagnostics)


def _with_answer(ctx, question, opts: dict):
    """The retrieval, and {answer, citations} synthesized from it (null / [] without a provider)."""
    result = retrieve(ctx, question, opts)
    if opts["answer"] and result.rows and providers.configured(ctx.db):
        made = _synthesized(ctx, question, result)
        return result, {"answer": made["answer"], "citations": made["citations"]}
    return result, {"answer": None, "citations": []}


def _retrieve(ctx, question, opts=None):
    result, answer = _with_answer(ctx, question, options(opts, _RETRIEVE_OPTIONS))
    diagnostics = result.diagnostics.as_map()
    return [dict(row, diagnostics=diagnostics, **answer) for row in result.rows]


def _response(ctx, question, opts=None):
    """One row: [{node, score, rank, lanes, evidence}], answer, citations, diagnostics (one retrieval)."""
    result, answer = _with_answer(ctx, question, options(opts, _RETRIEVE_OPTIONS))
    results = [{key: row[key] for key in ("node", "score", "rank", "lanes", "evidence")} for row in result.rows]
    return [{"results": results, "diagnostics": result.diagnostics.as_map(), **answer}]


def _diagnostics(ctx, question, opts=None):
    """One row per step (name, ms, the step's counts), then one per degradation (step 'degraded')."""
    result, _ = _with_answer(ctx, question, options(opts, _RETRIEVE_OPTIONS))
    rows = []
    for step in result.diagnostics.steps:
        rows.append({"step": step["name"], "ms": step["ms"],
                     "details": {k: v for k, v in step.items() if k not in ("name", "ms")}})
    for item in result.diagnostics.degraded:
        rows.append({"step": "degraded", "ms": 0.0, "details": dict(item)})
    return rows


def _answer(ctx, question, opts=None):
    result = retrieve(ctx, question, options(opts))
    out = _synthesized(ctx, question, result)
    return [{"answer": out["answer"], "citations": out["citations"], "sources": out["sources"],
             "diagnostics": result.diagnostics.as_map()}]
