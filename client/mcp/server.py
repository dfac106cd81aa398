"""``relate-mcp``: tools for AI assistants over a Relate database, with the ``mcp`` SDK.

    relate-mcp notes.rl                                  # embedded database, stdio transport
    relate-mcp relate://127.0.0.1:7688 -u neo4j          # a server (password: RELATE_PASSWORD)
    relate-mcp notes.rl --transport streamable-http --port 8765 --allow-writes
"""
from __future__ import annotations

import argparse
import json
import os
from typing import Any

import anyio
from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

import relate
from relate.errors import RelateError

from .tools import GraphTools, error_text

INSTRUCTIONS = ("A Relate graph database (Cypher). Read the schema first (get_schema or the relate://schema "
                "resource), then query with read_cypher; searches use the vector and full-text indexes.")


def build_server(tools: GraphTools) -> MCPServer:
    server = MCPServer("relate", instructions=INSTRUCTIONS)

    async def call(fn, *args) -> dict:
        try:
            return await anyio.to_thread.run_sync(fn, *args)
        except RelateError as exc:
            raise ToolError(error_text(exc)) from None  # shown to the model, with the code

    @server.tool(description="The graph's schema: labels, relationship types, property keys, indexes, constraints.")
    async def get_schema() -> dict:
        return await call(tools.schema)

    @server.tool(description="Run a read-only Cypher statement (the engine refuses writes) and return its rows "
                             "(at most 1000).")
    async def read_cypher(statement: str, parameters: dict[str, Any] | None = None) -> dict:
        return await call(tools.read, statement, parameters)

    @server.tool(description="Run a Cypher statement that writes. Refused unless relate-mcp runs with "
                             "--allow-writes.")
    async def write_cypher(statement: str, parameters: dict[str, Any] | None = None) -> dict:
        return await call(tools.write, statement, parameters)

    @server.tool(description="Nearest nodes in a vector index, for a vector or a text (embedded with the "
                             "server's embedder).")
    async def search_vector(index: str, text: str | None = None, vector: list[float] | None = None,
                            k: int = 10) -> dict:
        return await call(tools.search_vector, index, vector, text, k)

    @server.tool(description="Best nodes of a full-text index for a Lucene query.")
    async def search_fulltext(index: str, query: str, k: int = 10) -> dict:
        return await call(tools.search_fulltext, index, query, k)

    @server.tool(description="Vector and full-text results fused by reciprocal rank (SEARCH ... COMBINE).")
    async def search_combined(vector_index: str, fulltext_index: str, text: str, k: int = 10) -> dict:
        return await call(tools.search_combined, vector_index, fulltext_index, text, k)

    @server.resource("relate://schema", name="schema", mime_type="application/json",
                     description="The graph's schema as JSON")
    async def schema_resource() -> str:
        return json.dumps(await call(tools.schema))

    return server


def _embedder(name: str):
    if name == "none":
        return None
    from relate.embedders import hash384
    return hash384


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="relate-mcp", description="MCP server for a Relate database")
    parser.add_argument("target", help="a database path (embedded) or a relate://host:port URL")
    parser.add_argument("-u", "--user", default=os.environ.get("RELATE_USER", "neo4j"))
    parser.add_argument("--allow-writes", action="store_true", help="enable the write_cypher tool")
    parser.add_argument("--transport", choices=["stdio", "streamable-http"], default="stdio")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--embedder", choices=["hash-384", "none"], default="hash-384",
                        help="embeds search texts for vector indexes (default: the cookbook's hash-384)")
    args = parser.parse_args(argv)
    auth = None
    if args.target.startswith(("relate://", "relate+s://")):
        auth = (args.user, os.environ.get("RELATE_PASSWORD", ""))
    connection = relate.connect(args.target, auth=auth) if auth else relate.connect(args.target)
    try:
        server = build_server(GraphTools(connection, allow_writes=args.allow_writes, embed=_embedder(args.embedder)))
        if args.transport == "stdio":
            server.run("stdio")
        else:
            server.run("streamable-http", host=args.host, port=args.port)
    finally:
        connection.close()


if __name__ == "__main__":
    main()
