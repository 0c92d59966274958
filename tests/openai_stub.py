"""A local OpenAI-compatible chat-completions server for tests: real HTTP on 127.0.0.1.

    with OpenAIStub(lambda request: "reply text") as stub:
        client = openai.OpenAI(base_url=stub.base_url, api_key="test")
        ...
        stub.requests  # every JSON body received, in order, plus "path" and lower-cased "headers"

The responder gets the parsed request body (``model``, ``messages``, ...) and returns either a
string (the assistant message), an ``(http_status, json_body)`` tuple to simulate errors such as
429 rate limits or 500s, or a ``Reply(text, top={label token: probability})``: when the request asks
for ``logprobs`` the first token of the reply then carries those alternatives as ``top_logprobs`` (as
OpenAI, vLLM and Ollama's OpenAI-compatible endpoints return them). ``OpenAIStub(responder,
logprobs="reject")`` answers a request for logprobs with 400 (a server that does not offer them);
``logprobs="ignore"`` answers without them.
"""

from __future__ import annotations

import json
import math
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Reply:
    """A reply of the stub with the alternatives of its first token (token -> probability)."""

    text: str
    top: dict = field(default_factory=dict)


def logprobs_payload(reply: Reply, n_top: int) -> dict:
    """``choices[0].logprobs`` for ``reply``: its words as tokens, the first with ``reply.top``."""
    tokens = reply.text.split(" ") or [""]
    top = sorted(reply.top.items(), key=lambda kv: -kv[1])[: max(n_top, 0)]
    content = []
    for i, token in enumerate(tokens):
        text = token if i == 0 else f" {token}"
        p = reply.top.get(token, 1.0) if i == 0 else 1.0
        alternatives = [{"token": t, "logprob": math.log(q), "bytes": None} for t, q in top] if i == 0 else []
        content.append({"token": text, "logprob": math.log(p), "bytes": None, "top_logprobs": alternatives})
    return {"content": content, "refusal": None}


class OpenAIStub:
    def __init__(self, responder, logprobs="answer"):
        self.responder = responder
        self.logprobs = logprobs
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
                asked = bool(body.get("logprobs"))
                if asked and stub.logprobs == "reject":
                    return self._send(400, {"error": {"message": "logprobs is not supported", "param": "logprobs"}})
                reply = stub.responder(body)
                if isinstance(reply, tuple):
                    return self._send(*reply)
                choice = {"index": 0, "finish_reason": "stop", "logprobs": None}
                if isinstance(reply, Reply):
                    if asked and stub.logprobs == "answer":
                        choice["logprobs"] = logprobs_payload(reply, int(body.get("top_logprobs") or 0))
                    reply = reply.text
                choice["message"] = {"role": "assistant", "content": reply}
                self._send(
                    200,
                    {
                        "id": f"chatcmpl-{len(stub.requests)}",
                        "object": "chat.completion",
                        "created": int(time.time()),
                        "model": body.get("model", "stub"),
                        "choices": [choice],
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
