"""A tiny HTTP endpoint for liveness probes: ``GET /health`` answers 200 with a JSON body."""
from __future__ import annotations

import asyncio
import json

_MAX_REQUEST = 8192


async def serve_health(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, status) -> None:
    """Answer one request; ``status()`` returns the JSON-able body (or raises if unhealthy)."""
    try:
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5.0)
        parts = head[:_MAX_REQUEST].split(b" ", 2)
        method, path = (parts[0], parts[1]) if len(parts) >= 2 else (b"", b"")
        if method in (b"GET", b"HEAD") and path.split(b"?")[0] in (b"/health", b"/"):
            try:
                code, body = "200 OK", status()
            except Exception as exc:  # an unhealthy server says why
                code, body = "503 Service Unavailable", {"status": "unavailable", "error": str(exc)}
        else:
            code, body = "404 Not Found", {"error": "not found"}
        payload = json.dumps(body).encode()
        writer.write(f"HTTP/1.1 {code}\r\nContent-Type: application/json\r\nContent-Length: {len(payload)}\r\n"
                     f"Connection: close\r\n\r\n".encode() + (payload if method != b"HEAD" else b""))
        await writer.drain()
    except (asyncio.TimeoutError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
        pass
    finally:
        writer.close()
