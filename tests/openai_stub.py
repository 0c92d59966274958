"""A local OpenAI-compatible chat-completions server for tests: real HTTP on 127.0.0.1.

    with OpenAIStub(lambda request: "reply text") as stub:
        client = openai.OpenAI(base_url=stub.base_url, api_key="test")
        ...
        stub.requests  # every JSON body received, in order, plus "path" and lower-cased "headers"

The responder gets the parsed request body (``model``, ``messages``, ...) and returns either a
string (the assistant message), or an ``(http_status, json_body)`` tuple to simulate errors such as
429 rate limits or 500s.
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class OpenAIStub:
    def __init__(self, responder):
        self.responder = responder
        self.requests: list[dict] = []
        self._lock = threading.Lock()
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                with stub._lock:
                    stub.requests.append(
                        {"path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()}, **body}
                    )
                if not self.path.rstrip("/").endswith("/chat/completions"):
                    return self._send(404, {"error": {"message": f"no route {self.path}"}})
                reply = stub.responder(body)
                if isinstance(reply, tuple):
                    return self._send(*reply)
                self._send(
                    200,
                    {
                        "id": f"chatcmpl-{len(stub.requests)}",
                        "object": "chat.completion",
                        "created": int(time.time()),
                        "model": body.get("model", "stub"),
                        "choices": [
                            {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": reply}}
                        ],
                        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
                    },
                )

            def _send(self, status, payload):
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def base_url(self):
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()
