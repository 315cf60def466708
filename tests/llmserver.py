"""A local OpenAI-compatible chat-completions server with scripted answers, for
tests of consolidation (no LLM can run on the test machines). It runs in a
thread on 127.0.0.1 with a port the OS picks; each request takes the next
scripted answer (the last one repeats) and is recorded."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def answer(facts: list | None = None, preferences: list | None = None, corrections: list | None = None,
           summary: str = "The user talked about their week.", topics: list | None = None) -> dict[str, Any]:
    """An extraction as the model would send it."""
    return {"facts": facts or [], "preferences": preferences or [], "corrections": corrections or [],
            "summary": summary, "topics": topics if topics is not None else ["week"]}


class LLMServer:
    """Script: a list of steps, each ("json", dict) | ("text", str) | ("status", int) | ("sleep", seconds, dict)
    | ("drip", seconds, dict): the answer one byte every `seconds`, headers included (`dripped` counts the
    bytes that went out, `cut` says whether the client hung up before the end)."""

    def __init__(self) -> None:
        self.script: list[tuple] = []
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.dripped = 0
        self.cut = False
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                server.requests.append({"path": self.path, **body})
                server.headers.append(dict(self.headers))
                step = server.script.pop(0) if len(server.script) > 1 else server.script[0]
                kind = step[0]
                if kind == "status":
                    self.send_response(step[1])
                    self.end_headers()
                    self.wfile.write(b'{"error": "scripted"}')
                    return
                if kind == "drip":
                    self._drip(step[1], json.dumps(step[2]), body.get("model"))
                    return
                if kind == "sleep":
                    time.sleep(step[1])
                    step = ("json", step[2])
                content = json.dumps(step[1]) if step[0] == "json" else step[1]
                data = json.dumps({"id": "x", "object": "chat.completion", "model": body.get("model"),
                                   "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                                                "finish_reason": "stop"}]}).encode()
                try:
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def _drip(self, seconds: float, content: str, model: str | None) -> None:
                data = json.dumps({"id": "x", "object": "chat.completion", "model": model,
                                   "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                                                "finish_reason": "stop"}]}).encode()
                whole = (b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                         + f"Content-Length: {len(data)}\r\n\r\n".encode() + data)
                for i in range(len(whole)):
                    try:
                        self.wfile.write(whole[i:i + 1])
                        self.wfile.flush()
                    except OSError:
                        server.cut = True
                        return
                    server.dripped += 1
                    time.sleep(seconds)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def then(self, *steps: tuple) -> "LLMServer":
        self.script = list(steps)
        self.requests.clear()
        return self

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def sent(self) -> str:
        """Everything sent in the user messages so far."""
        return "\n".join(m["content"] for r in self.requests for m in r["messages"] if m["role"] == "user")
