"""The HTTP listener: the Starlette app served by uvicorn on the server's own event loop.

uvicorn's ``Server.serve`` would install its own signal handlers, so the listener drives its
startup, tick loop and shutdown directly and leaves SIGTERM/SIGINT to ``RelateServer``.
"""
from __future__ import annotations

import asyncio
import os

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from .embed import embed_endpoint
from .query_api import QueryApi
from .retrieve import retrieve_endpoints
from .sessions import HttpSessions

STATIC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "static")


def build_app(server, sessions: HttpSessions) -> Starlette:
    api = QueryApi(server, sessions)

    async def health(request: Request) -> Response:
        try:
            return JSONResponse(server._health())
        except Exception as exc:          # an unhealthy server says why
            return JSONResponse({"status": "unavailable", "error": str(exc)}, status_code=503)

    async def console(request: Request) -> Response:
        return FileResponse(os.path.join(STATIC, "index.html"), headers={"Cache-Control": "no-cache"})

    base = "/db/{db}/query/v2"
    retrieve, retrieve_diagnostics = retrieve_endpoints(api)
    routes = [
        Route("/health", health, methods=["GET", "HEAD"]),
        Route("/", console, methods=["GET", "HEAD"]),
        Route("/login", api.login, methods=["POST"]),
        Route(base, api.query, methods=["POST"]),
        Route(base + "/tx", api.begin, methods=["POST"]),
        Route(base + "/tx/{tx}", api.run, methods=["POST"]),
        Route(base + "/tx/{tx}", api.rollback, methods=["DELETE"]),
        Route(base + "/tx/{tx}/commit", api.commit, methods=["POST"]),
        Route("/db/{db}/embed", embed_endpoint(api), methods=["POST"]),
        Route("/db/{db}/retrieve", retrieve, methods=["POST"]),
        Route("/db/{db}/retrieve/diagnostics", retrieve_diagnostics, methods=["POST"]),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    return Starlette(routes=routes)


class HttpListener:
    def __init__(self, server, host: str, port: int):
        self.sessions = HttpSessions(server, tx_timeout_s=server.config.http_tx_timeout,
                                     max_transactions=server.config.max_connections)
        config = uvicorn.Config(build_app(server, self.sessions), host=host, port=port, lifespan="off",
                                log_config=None, access_log=False, server_header=False,
                                timeout_graceful_shutdown=5, h11_max_incomplete_event_size=64 * 1024)
        config.load()
        self._server = uvicorn.Server(config)
        self._server.lifespan = config.lifespan_class(config)
        self._ticker: asyncio.Task | None = None

    async def start(self) -> str:
        """Listen; the bound ``host:port``."""
        await self._server.startup()
        self.sessions.start()
        self._ticker = asyncio.create_task(self._server.main_loop())
        host, port = self._server.servers[0].sockets[0].getsockname()[:2]
        return f"{host}:{port}"

    async def close(self) -> None:
        self._server.should_exit = True
        if self._ticker is not None:
            await self._ticker
        await self.sessions.close()
        await self._server.shutdown()
