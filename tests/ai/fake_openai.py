"""A local OpenAI-compatible HTTP server for tests (127.0.0.1, a free port): /v1/embeddings answers
hash-384 vectors, /v1/chat/completions answers what the test's ``chat`` callable returns. It records
every request (path, headers, body) so tests can count calls and check the key is sent."""
from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from relate.embedders import hash384


class FakeOpenAI:
    def __init__(self, chat=None, *, fail_status: int | None = None, delay_s: float = 0.0):
        self.requests: list[tuple[str, dict, dict]] = []
        self.chat = chat or (lambda body: "ok")
        self.fail_status, self.delay_s = fail_status, delay_s
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):      # keep test output clean
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
                fake.requests.append((self.path, dict(self.headers), body))
                if fake.delay_s:
                    time.sleep(fake.delay_s)
                if fake.fail_status:
                    return self._send(fake.fail_status, {"error": {"message": "boom"}})
                if self.path == "/v1/embeddings":
                    inputs = body["input"] if isinstance(body["input"], list) else [body["input"]]
                    data = [{"index": i, "embedding": hash384(t)} for i, t in enumerate(inputs)]
                    return self._send(200, {"object": "list", "data": data, "model": body.get("model")})
                if self.path == "/v1/chat/completions":
                    text = fake.chat(body)
                    return self._send(200, {"choices": [{"index": 0, "message": {"role": "assistant",
                                                                                  "content": text}}]})
                self._send(404, {"error": "not found"})

            def _send(self, status, payload):
                raw = json.dumps(payload).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(raw)))
                    self.end_headers()
                    self.wfile.write(raw)
                except OSError:        # the client gave up (timeout tests)
                    pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def calls(self, path: str) -> int:
        return sum(1 for p, _, _ in self.requests if p == path)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()
