"""A loopback model server for the in-flight benchmark: OpenAI Chat Completions with a fixed latency.

Every request is answered after ``latency_s`` with the next decision of a fixed script, chosen by how
many assistant turns the conversation already holds, so any number of episodes can run the same script
at once. The body is never parsed as JSON (episodes send several megabytes of images per turn): the
server counts assistant messages in the raw bytes. It runs in a process of its own, so its work never
competes with the driver's for the interpreter lock, and only ever binds 127.0.0.1.
"""

from __future__ import annotations

import json
import multiprocessing
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from multiprocessing.connection import Connection
from types import TracebackType
from typing import Any

ASSISTANT_ROLES = (b'"role": "assistant"', b'"role":"assistant"')


def _reply(text: str) -> bytes:
    usage = {"prompt_tokens": 1000, "completion_tokens": 20, "total_tokens": 1020}
    message = {"role": "assistant", "content": text}
    return json.dumps(
        {
            "id": "chatcmpl-bench",
            "object": "chat.completion",
            "created": 0,
            "model": "bench",
            "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
            "usage": usage,
        }
    ).encode()


class _Handler(BaseHTTPRequestHandler):
    server: _LatencyHTTPServer
    protocol_version = "HTTP/1.1"

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        turn = sum(body.count(role) for role in ASSISTANT_ROLES)
        script = self.server.script
        time.sleep(self.server.latency_s)
        data = _reply(script[min(turn, len(script) - 1)])
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        pass


class _LatencyHTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 1024

    def __init__(self, script: list[str], latency_s: float) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.script = script
        self.latency_s = latency_s


def _serve(conn: Connection, script: list[str], latency_s: float) -> None:
    httpd = _LatencyHTTPServer(script, latency_s)
    conn.send(httpd.server_address[1])
    httpd.serve_forever()


class LatencyServer:
    """The server in a child process for the duration of a ``with`` block; ``base_url`` for the model."""

    def __init__(self, script: list[str], latency_s: float) -> None:
        if not script:
            raise ValueError("the benchmark server needs at least one scripted reply")
        ctx = multiprocessing.get_context("spawn")
        parent, child = ctx.Pipe()
        self._process = ctx.Process(target=_serve, args=(child, script, latency_s), daemon=True)
        self._process.start()
        child.close()
        if not parent.poll(30):
            self._process.kill()
            raise RuntimeError("the benchmark server did not start within 30 s")
        self.port: int = parent.recv()
        parent.close()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def close(self) -> None:
        self._process.terminate()
        self._process.join(5)

    def __enter__(self) -> LatencyServer:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()
