"""``POST /db/{db}/embed``: the cookbook's hash-384 embedding of a text, for the search playground.

The console needs a query vector for a typed question; this serves the deterministic hash-384
embedder (``relate.server.ai.hash384``, the server's copy of ``relate.embedders.hash384``). Authenticated like
every other endpoint; the text is bounded.
"""
from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from relate.protocol.errors import ClientError

from . import requests as rq
from .query_api import failure

MAX_TEXT = 10_000
MODELS = ("hash-384",)


def embed_endpoint(api):
    async def embed(request: Request) -> Response:
        try:
            api._check_db(request)
            auth = api._auth(request)
            body = rq.parse_json(await rq.read_body(request, 64 * 1024))
            text, model = body.get("text"), body.get("model", "hash-384")
            if not isinstance(text, str) or len(text) > MAX_TEXT:
                raise ClientError(f"\"text\" must be a string of at most {MAX_TEXT} characters", code=rq.INVALID)
            if model not in MODELS:
                raise ClientError(f"unknown embedding model {str(model)[:40]!r}; known: {', '.join(MODELS)}",
                                  code=rq.INVALID)
            key, core = await api.sessions.acquire(auth, api._peer(request))    # authenticates
            await api.sessions.release(key, core)
        except Exception as exc:
            return failure(exc)
        from relate.server.ai.hash384 import hash384
        return JSONResponse({"model": model, "vector": hash384(text)})
    return embed
