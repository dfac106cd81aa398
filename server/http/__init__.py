"""The HTTP listener: Neo4j-style Query API v2, bearer-token login, the browser console and /health.

A Starlette app served by uvicorn on the server's own event loop; every statement goes through the
same ``SessionCore`` (auth, limits, timeouts, logging) as the native protocol.
"""
