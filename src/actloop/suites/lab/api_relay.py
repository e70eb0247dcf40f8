"""The model API relay: the one way out of an agent's sandbox.

A coding agent calls its model's API. Its sandbox has no network of its own (only its own loopback), so
the evaluator serves a relay on a Unix socket that the sandbox mounts: inside, :mod:`.relay_forward` listens
on ``127.0.0.1:``:data:`API_PORT` and passes each connection to the socket; outside, :class:`ApiRelay`
sends each HTTP request on to the one upstream it was made for (the model API's origin, e.g.
``https://api.anthropic.com`` or a ``--model-base-url``) and streams the answer back as it comes. Nothing
else is reachable: not the host's other services, not the internet.

The relay keeps what passed (:class:`Exchange`: each request's method, path, status, sizes, the token usage
the answer reports and any failure), so a run records its traffic and its usage from the wire, and the
harness learns at once when the API is unreachable or refuses the key (an agent may hang or retry for
minutes on either).
"""

from __future__ import annotations

import json
import shutil
import socketserver
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import httpx

API_PORT = 18080
"""The port the relay answers on inside the sandbox (its loopback is its own)."""
RELAY_DIR = "/run/api"
"""Where the relay's directory (its socket and the forwarder) appears inside the sandbox."""
SOCKET_NAME = "api.sock"
FORWARDER = "relay_forward.py"
HOP_BY_HOP = frozenset(
    {"connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "te", "trailer",
     "transfer-encoding", "upgrade", "host", "content-length"}
)  # fmt: skip
CONNECT_TIMEOUT_S = 10.0
READ_TIMEOUT_S = 600.0
STOP_POLL_S = 0.02
"""How often the relay's thread checks whether it is to stop."""


@dataclass
class Exchange:
    """One request through the relay: when (s since the relay started), what, how it was answered."""

    time_s: float
    method: str
    path: str
    status: int | None = None
    """The upstream's status, or 400 when the relay refused the request itself (None when the upstream was
    never reached)."""
    request_bytes: int = 0
    response_bytes: int = 0
    usage: dict[str, int] = field(default_factory=dict)
    """Tokens the answer reports (``input``, ``output``, ``cache_read``, ``cache_write``)."""
    error: str = ""


class ApiRelay(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    """Relays HTTP from the sandbox to ``upstream`` (an origin, ``scheme://host[:port]``, with an optional
    path prefix); serves on :attr:`socket_path` in a fresh directory until :meth:`close`."""

    daemon_threads = True

    def __init__(self, upstream: str) -> None:
        self.upstream = upstream.rstrip("/")
        if not self.upstream.startswith(("http://", "https://")):
            raise ValueError(f"the model API must be an http(s) URL, got {upstream!r}")
        url = httpx.URL(self.upstream)
        self.origin = (url.scheme, url.netloc)
        """Where every request must go: the upstream's scheme and host (with its port)."""
        self.directory = Path(tempfile.mkdtemp(prefix="actloop-api-"))
        self.directory.chmod(0o755)
        shutil.copy(Path(__file__).with_name(FORWARDER), self.directory / FORWARDER)
        super().__init__(str(self.directory / SOCKET_NAME), _RelayHandler)
        (self.directory / SOCKET_NAME).chmod(0o777)
        self.client = httpx.Client(timeout=httpx.Timeout(READ_TIMEOUT_S, connect=CONNECT_TIMEOUT_S))
        self.exchanges: list[Exchange] = []
        self.lock = threading.Lock()
        self.started = time.monotonic()
        self._thread = threading.Thread(
            target=self.serve_forever, kwargs={"poll_interval": STOP_POLL_S}, daemon=True, name="api-relay"
        )
        self._thread.start()

    @property
    def socket_path(self) -> Path:
        return self.directory / SOCKET_NAME

    def record(self, exchange: Exchange) -> None:
        with self.lock:
            self.exchanges.append(exchange)

    def problem(self) -> str:
        """Why the API cannot serve the agent, once that is clear ("" while it is not): it could not be
        reached, or it refused the key, and it has answered no request yet (later failures are the agent's
        to retry)."""
        with self.lock:
            done = [e for e in self.exchanges if e.status is not None or e.error]
        if not done or any(e.status is not None and e.status < 400 for e in done):
            return ""
        last = done[-1]
        if last.status is None:
            return f"the model API at {self.upstream} is unreachable: {last.error}"
        if last.status in (401, 403):
            return f"the model API at {self.upstream} refused the key ({last.status})"
        return ""

    def usage(self) -> dict[str, int]:
        """The tokens of every answer, summed."""
        total: dict[str, int] = {}
        with self.lock:
            for exchange in self.exchanges:
                for name, count in exchange.usage.items():
                    total[name] = total.get(name, 0) + count
        return total

    def summary(self) -> list[dict[str, Any]]:
        with self.lock:
            return [asdict(e) for e in self.exchanges]

    def close(self) -> None:
        self.shutdown()
        self.server_close()
        self.client.close()
        shutil.rmtree(self.directory, ignore_errors=True)


def relayed(argv: Sequence[str]) -> list[str]:
    """The arguments (after the agents' Python) that run ``argv`` behind the relay's forwarder."""
    return [f"{RELAY_DIR}/{FORWARDER}", f"{RELAY_DIR}/{SOCKET_NAME}", str(API_PORT), "--", *argv]


@contextmanager
def relaying(upstream: str) -> Iterator[ApiRelay]:
    """An :class:`ApiRelay` to ``upstream`` for the block."""
    relay = ApiRelay(upstream)
    try:
        yield relay
    finally:
        relay.close()


class _RelayHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: ApiRelay

    def do_GET(self) -> None:
        self._relay()

    do_POST = do_PUT = do_DELETE = do_HEAD = do_PATCH = do_OPTIONS = do_GET

    def _relay(self) -> None:
        relay = self.server
        exchange = Exchange(round(time.monotonic() - relay.started, 3), self.command, self.path)
        relay.record(exchange)  # filled in as it goes: its status and failure show before the agent sees them
        target = httpx.URL(relay.upstream + self.path)
        if not self.path.startswith("/") or (target.scheme, target.netloc) != relay.origin:
            # e.g. "@elsewhere/..." would make the upstream's host a user name and go elsewhere
            exchange.status, exchange.error = (
                400,
                f"refused: {self.path[:200]!r} is not a path on the model API",
            )
            self._refuse(exchange.error, 400)
            return
        body = self._body()
        exchange.request_bytes = len(body)
        headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP_BY_HOP | {"accept-encoding"}}
        headers["accept-encoding"] = "identity"  # answers come uncompressed, so their usage can be read
        try:
            with relay.client.stream(
                self.command, relay.upstream + self.path, headers=headers, content=body
            ) as answer:
                exchange.status = answer.status_code
                self._answer(answer, exchange)
        except httpx.HTTPError as err:
            exchange.error = f"{type(err).__name__}: {err}" if str(err) else type(err).__name__
            if exchange.status is None:
                self._refuse(exchange.error)

    def _body(self) -> bytes:
        if self.headers.get("transfer-encoding", "").lower() == "chunked":
            chunks = []
            while size := int(self.rfile.readline().split(b";")[0].strip() or b"0", 16):
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
            self.rfile.readline()
            return b"".join(chunks)
        return self.rfile.read(int(self.headers.get("content-length") or 0))

    def _answer(self, answer: httpx.Response, exchange: Exchange) -> None:
        self.send_response(answer.status_code)
        for name, value in answer.headers.multi_items():
            if name.lower() not in HOP_BY_HOP:
                self.send_header(name, value)
        self.send_header("transfer-encoding", "chunked")
        self.end_headers()
        seen = bytearray()
        for chunk in answer.iter_raw():
            exchange.response_bytes += len(chunk)
            if len(seen) < USAGE_SCAN_BYTES:
                seen += chunk
            self.wfile.write(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
            self.wfile.flush()
        exchange.usage = usage_of(bytes(seen), answer.headers.get("content-encoding", ""))
        self.wfile.write(b"0\r\n\r\n")

    def _refuse(self, error: str, status: int = 502) -> None:
        payload = json.dumps({"error": {"type": "relay_error", "message": error}}).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, format: str, *args: Any) -> None:
        pass


USAGE_SCAN_BYTES = 4 * 1024 * 1024
"""How much of an answer is kept to find its usage in."""
USAGE_FIELDS = {
    "input_tokens": "input",
    "output_tokens": "output",
    "cache_read_input_tokens": "cache_read",
    "cache_creation_input_tokens": "cache_write",
}


def usage_of(body: bytes, encoding: str = "") -> dict[str, int]:
    """The token usage an API answer reports: a JSON body's ``usage``, or a stream's (server-sent events:
    Anthropic's ``message_start`` and ``message_delta``, OpenAI's ``response.completed``), summed over
    its messages. Empty when the body is compressed or reports none."""
    if encoding and encoding != "identity":
        return {}
    text = body.decode(errors="replace")
    documents = [line[5:].strip() for line in text.splitlines() if line.startswith("data:")] or [text]
    found: dict[str, int] = {}
    for document in documents:
        try:
            event = json.loads(document)
        except ValueError:
            continue
        for usage in _usages(event):
            for name, ours in USAGE_FIELDS.items():
                if isinstance(usage.get(name), int):
                    # a stream's later count of a kind replaces its earlier one (Anthropic repeats them)
                    found[ours] = max(found.get(ours, 0), usage[name])
    return found


def _usages(event: Any) -> list[dict[str, Any]]:
    """The ``usage`` objects an event carries (at its top, in its ``message`` or its ``response``)."""
    if not isinstance(event, dict):
        return []
    holders = [event, event.get("message"), event.get("response")]
    return [h["usage"] for h in holders if isinstance(h, dict) and isinstance(h.get("usage"), dict)]
