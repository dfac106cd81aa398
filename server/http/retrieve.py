"""``POST /db/{db}/retrieve`` and ``POST /db/{db}/retrieve/diagnostics``: graph retrieval over HTTP.

Spec 003's dedicated diagnostics endpoint, which the console's search playground fronts. Both run the
retrieval procedures (docs/retrieval.md) as READ statements on a pooled session core, exactly as the
Query API runs a statement: the same auth, database check, body limit, query timeout and error codes.
The question travels as a parameter, so it never appears in the statement text that slow-query logs show.

    {"question": "...", "options": {k: 5, ...}}   # options: db.retrieve's, all optional

``/retrieve`` answers ``{results: [{node, score, rank, lanes, evidence}], answer, citations, diagnostics:
{steps, degraded}}`` (``db.retrieve.response``: one retrieval, diagnostics also when it found nothing);
``/retrieve/diagnostics`` only ``{steps, degraded}`` (``db.retrieve.diagnostics``,
with ``answer: false`` unless the options ask for the synthesis step). Nodes are rendered as the Query
API renders them for the request's Accept header (plain JSON, or typed JSON for
``application/vnd.neo4j.query``); every other member is plain JSON.
"""
from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from relate.protocol.errors import ClientError
from relate.protocol.json_values import from_plain, to_plain, to_typed
from relate.protocol.values import Node

from . import requests as rq
from .query_api import _dumps, failure, start
from .sessions import RequestFailed

RETRIEVE = ("CALL db.retrieve.response($question, $options) YIELD results, answer, citations, diagnostics "
            "RETURN results, answer, citations, diagnostics")
DIAGNOSTICS = ("CALL db.retrieve.diagnostics($question, $options) YIELD step, ms, details "
               "RETURN step, ms, details")
READ = {"mode": "r"}


def retrieve_endpoints(api):
    """The two handlers, ``(retrieve, diagnostics)``, on the Query API object ``api``."""

    async def serve(request: Request, diagnostics_only: bool) -> Response:
        try:
            api._check_db(request)
            auth = api._auth(request)
            question, options = _parse(rq.parse_json(await rq.read_body(request, api._limit)))
            key, core = await api.sessions.acquire(auth, api._peer(request))     # authenticates
        except Exception as exc:
            return failure(exc, request)
        healthy = False
        try:
            if diagnostics_only:
                # no model call where no answer is shown, unless the caller asks for the synthesis step
                quiet = {**options, "answer": False if options.get("answer") is None else options["answer"]}
                body = _diagnostics(await _rows(core, DIAGNOSTICS, question, quiet, api._batch))
            else:
                # one retrieval, one row: its diagnostics come also when it found nothing
                (row,) = await _rows(core, RETRIEVE, question, options, api._batch)
                body = _results(row, _node_encoder(request))
            healthy = True
        except RequestFailed as exc:          # ask() has reset the core: it goes back to the pool
            healthy = True
            return failure(exc)
        finally:
            await api.sessions.release(key, core, healthy=healthy)
        return Response(_dumps(body), media_type="application/json")

    async def retrieve(request: Request) -> Response:
        return await serve(request, diagnostics_only=False)

    async def diagnostics(request: Request) -> Response:
        return await serve(request, diagnostics_only=True)
    return retrieve, diagnostics


def _parse(body: dict) -> tuple[str, dict]:
    """The question and the options map (the procedure itself refuses unknown or mistyped options)."""
    question = body.get("question")
    if not isinstance(question, str):
        raise ClientError("The request needs a string \"question\"", code=rq.INVALID)
    options = body.get("options")
    if options is None:
        options = {}
    if not isinstance(options, dict):
        raise ClientError("\"options\" must be a JSON object of db.retrieve options", code=rq.INVALID)
    unknown = sorted(set(body) - {"question", "options"})
    if unknown:
        raise ClientError(f"Unknown member(s) {[str(k)[:40] for k in unknown[:5]]}; send \"question\" and "
                          "\"options\"", code=rq.INVALID)
    return question, from_plain(rq.plain_parameters(options))


async def _rows(core, statement: str, question: str, options: dict, batch: int) -> list[dict]:
    """Every row of a READ statement, as {field: value}."""
    result = await start(core, statement, {"question": question, "options": options}, batch, dict(READ))
    rows = list(result.first)
    async for more in result.rest():
        rows.extend(more)
    return [dict(zip(result.fields, row)) for row in rows]


def _node_encoder(request: Request):
    return to_typed if rq.wants(request) == "typed" else to_plain


def _render(value, node):
    """Plain JSON, with every node rendered by ``node`` (the Query API's plain or typed form)."""
    if isinstance(value, Node):
        return node(value)
    if isinstance(value, (list, tuple)):
        return [_render(item, node) for item in value]
    if isinstance(value, dict):
        return {str(k): _render(v, node) for k, v in value.items()}
    return to_plain(value)


def _results(row: dict, node) -> dict:
    """db.retrieve.response's row as the endpoint's body."""
    diagnostics = row.get("diagnostics") or {"steps": [], "degraded": []}
    return {"results": [{key: _render(item[key], node) for key in ("node", "score", "rank", "lanes", "evidence")}
                        for item in row.get("results") or []],
            "answer": row.get("answer"), "citations": _render(row.get("citations") or [], node),
            "diagnostics": {"steps": [_step(step) for step in diagnostics.get("steps", [])],
                            "degraded": to_plain(diagnostics.get("degraded", []))}}


def _step(step: dict) -> dict:
    """A step as ``{name, ms, ...its counts}`` (spec 003's order, whichever procedure reported it)."""
    return to_plain({"name": step.get("name"), "ms": step.get("ms"),
                     **{k: v for k, v in step.items() if k not in ("name", "ms")}})


def _diagnostics(rows: list[dict]) -> dict:
    """db.retrieve.diagnostics' rows back into db.retrieve's ``{steps, degraded}`` map."""
    steps, degraded = [], []
    for row in rows:
        details = dict(row.get("details") or {})
        if row["step"] == "degraded":
            degraded.append(details)
        else:
            steps.append(_step({"name": row["step"], "ms": row["ms"], **details}))
    return {"steps": steps, "degraded": to_plain(degraded)}
