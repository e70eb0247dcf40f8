"""A loopback server speaking three provider wire formats, with scripted replies and faults.

Routes: ``POST /v1/chat/completions`` (OpenAI Chat Completions), ``POST /v1/responses`` (OpenAI
Responses) and ``POST /v1/messages`` (Anthropic Messages). Each request consumes the next script entry:
a string is answered as the assistant's text; an int is answered as that HTTP error status, with a
``retry-after-ms`` of 1 ms. Once the script is used up, an optional ``responder`` chooses the entry from
the request's path and body. Requests are recorded. Only ever bound to 127.0.0.1.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

USAGE_IN, USAGE_OUT = 100, 20
DEFAULT_REPLY = '{"stop": true, "reason": "script exhausted"}'
Responder = Callable[[str, dict[str, Any]], str | int]
"""(path, request body) -> the script entry answering it."""


class FakeProviders(ThreadingHTTPServer):
    def __init__(self, script: list[str | int], responder: Responder | None = None) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.script = list(script)
        self.responder = responder
        self.requests: list[tuple[str, dict[str, Any]]] = []
        self.lock = threading.Lock()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"

    def next_entry(self, path: str, body: dict[str, Any]) -> str | int:
        with self.lock:
            self.requests.append((path, body))
            index = len(self.requests) - 1
        if index < len(self.script):
            return self.script[index]
        return self.responder(path, body) if self.responder else DEFAULT_REPLY


def _chat(text: str, model: str) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": {
            "prompt_tokens": USAGE_IN,
            "completion_tokens": USAGE_OUT,
            "total_tokens": USAGE_IN + USAGE_OUT,
        },
    }


def _responses(text: str, model: str) -> dict[str, Any]:
    return {
        "id": "resp_1",
        "object": "response",
        "created_at": 0,
        "model": model,
        "status": "completed",
        "output": [
            {
                "type": "message",
                "id": "msg_1",
                "status": "completed",
                "role": "assistant",
                "content": [{"type": "output_text", "text": text, "annotations": []}],
            }
        ],
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "usage": {
            "input_tokens": USAGE_IN,
            "output_tokens": USAGE_OUT,
            "total_tokens": USAGE_IN + USAGE_OUT,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens_details": {"reasoning_tokens": 0},
        },
    }


def _anthropic(text: str, model: str) -> dict[str, Any]:
    return {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [{"type": "text", "text": text}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": USAGE_IN, "output_tokens": USAGE_OUT},
    }


ROUTES: dict[str, Callable[[str, str], dict[str, Any]]] = {
    "/v1/chat/completions": _chat,
    "/v1/responses": _responses,
    "/v1/messages": _anthropic,
}


class _Handler(BaseHTTPRequestHandler):
    server: FakeProviders

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        route = ROUTES.get(self.path)
        if route is None:
            self._send(404, {"error": {"message": f"no route {self.path}"}})
            return
        entry = self.server.next_entry(self.path, body)
        if isinstance(entry, int):
            kind = "rate_limit_error" if entry == 429 else "api_error"
            error = {"type": "error", "error": {"type": kind, "message": f"scripted {entry}"}}
            retry = {"retry-after-ms": "1", **({"retry-after": "0"} if entry == 429 else {})}
            self._send(entry, error, retry)  # the SDKs retry at once rather than after their backoff
            return
        if body.get("stream") and self.path == "/v1/messages":
            self._stream_anthropic(entry, str(body.get("model", "")))
            return
        self._send(200, route(entry, str(body.get("model", ""))))

    def _stream_anthropic(self, text: str, model: str) -> None:
        """The Anthropic Messages reply as server-sent events (the SDK streams long requests)."""
        message = {**_anthropic("", model), "content": [], "stop_reason": None}
        message["usage"] = {"input_tokens": USAGE_IN, "output_tokens": 0}
        events = [
            ("message_start", {"type": "message_start", "message": message}),
            (
                "content_block_start",
                {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
            ),
            (
                "content_block_delta",
                {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text}},
            ),
            ("content_block_stop", {"type": "content_block_stop", "index": 0}),
            (
                "message_delta",
                {
                    "type": "message_delta",
                    "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                    "usage": {"output_tokens": USAGE_OUT},
                },
            ),
            ("message_stop", {"type": "message_stop"}),
        ]
        data = "".join(f"event: {name}\ndata: {json.dumps(payload)}\n\n" for name, payload in events).encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _send(self, status: int, payload: dict[str, Any], headers: dict[str, str] | None = None) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@contextmanager
def serve(script: list[str | int], responder: Responder | None = None) -> Iterator[FakeProviders]:
    """Run a fake provider server on 127.0.0.1 for the duration of the block."""
    httpd = FakeProviders(script, responder)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield httpd
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(5)
