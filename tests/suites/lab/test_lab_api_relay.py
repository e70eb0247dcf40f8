"""The model API relay: from inside the sandbox the model's API answers on 127.0.0.1:API_PORT (streams
passed through as they come, usage read off the wire) while the host's other services, its addresses and
the bench's port stay unreachable; an unreachable API and a refused key are named at once.

Every server here is started by the test on 127.0.0.1 and stopped by it."""

from __future__ import annotations

import json
import os
import shutil
import socket
from contextlib import AbstractContextManager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest

from actloop.suites.lab import sandbox_namespaces
from actloop.suites.lab.api_relay import API_PORT, relaying, usage_of
from actloop.suites.lab.sandbox import Sandbox, agent_python_dir
from loopback import served

ANTHROPIC_STREAM = (
    b'event: message_start\ndata: {"type":"message_start","message":{"usage":{"input_tokens":120,'
    b'"cache_read_input_tokens":30,"output_tokens":1}}}\n\n'
    b'event: content_block_delta\ndata: {"type":"content_block_delta","delta":{"text":"hi"}}\n\n'
    b'event: message_delta\ndata: {"type":"message_delta","usage":{"output_tokens":42}}\n\n'
    b'event: message_stop\ndata: {"type":"message_stop"}\n\n'
)
OPENAI_STREAM = (
    b'event: response.output_item.done\ndata: {"type":"response.output_item.done","item":{}}\n\n'
    b'event: response.completed\ndata: {"type":"response.completed","response":{"id":"r1",'
    b'"usage":{"input_tokens":200,"output_tokens":17,"total_tokens":217}}}\n\n'
)


@pytest.fixture(scope="module")
def agent_python() -> Path:
    directory = agent_python_dir()
    if not (shutil.which("bwrap") and (directory / ".complete").exists()):
        if os.environ.get("ACTLOOP_REQUIRE_SANDBOX") == "1":
            pytest.fail(
                f"bubblewrap or the agents' Python ({directory}) is missing: scripts/setup-lab-sandbox.sh"
            )
        pytest.skip("no sandbox here: run scripts/setup-lab-sandbox.sh")
    return directory


class _Upstream(BaseHTTPRequestHandler):
    """A scripted model API: /v1/messages streams ANTHROPIC_STREAM, /v1/deny answers 401, anything else
    echoes the request as JSON."""

    protocol_version = "HTTP/1.1"
    server: ThreadingHTTPServer

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("content-length") or 0))
        self.server.seen.append((self.path, dict(self.headers), body))  # type: ignore[attr-defined]
        if self.path.startswith("/v1/messages"):
            self._send(200, ANTHROPIC_STREAM, "text/event-stream")
        elif self.path == "/v1/deny":
            self._send(401, b'{"error":{"type":"authentication_error"}}', "application/json")
        else:
            echo = {"path": self.path, "key": self.headers.get("x-api-key"), "body": body.decode()}
            self._send(200, json.dumps(echo).encode(), "application/json")

    def _send(self, status: int, payload: bytes, kind: str) -> None:
        self.send_response(status)
        self.send_header("content-type", kind)
        self.send_header("content-length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, format: str, *args: Any) -> None:
        pass


def upstream() -> AbstractContextManager[ThreadingHTTPServer]:
    """The scripted model API, served for a ``with`` block."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Upstream)
    server.seen = []  # type: ignore[attr-defined]
    return served(server)


def origin(server: ThreadingHTTPServer) -> str:
    return f"http://127.0.0.1:{server.server_address[1]}"


def run_inside(box: Sandbox, tmp_path: Path, code: str) -> dict[str, Any]:
    (tmp_path / "probe.py").write_text(code)
    out = tmp_path / "out.json"
    with out.open("wb") as stdout:
        ran = box.run(["python", "probe.py"], 60, stdout.fileno())
    assert ran.returncode == 0, ran
    return json.loads(out.read_text())  # type: ignore[no-any-return]


def test_inside_the_sandbox_only_the_model_api_answers(agent_python: Path, tmp_path: Path) -> None:
    other = socket.socket()
    other.bind(("0.0.0.0", 0))
    other.listen()
    port = other.getsockname()[1]
    hosts = ["127.0.0.1", *sandbox_namespaces.host_addresses()]
    probe = f"""
import json, socket, httpx
base = "http://127.0.0.1:{API_PORT}"
api = httpx.post(base + "/v1/echo?beta=true", json={{"q": 1}}, headers={{"x-api-key": "k1"}})
streamed = httpx.post(base + "/v1/messages", json={{}}).text
reached = {{}}
for host in {hosts!r}:
    s = socket.socket()
    s.settimeout(2)
    reached[host] = s.connect_ex((host, {port}))
print(json.dumps({{"echo": api.json(), "streamed": streamed, "reached": reached}}))
"""
    with upstream() as server, relaying(origin(server)) as relay:
        box = Sandbox(tmp_path, agent_python, api_relay=relay.directory)
        report = run_inside(box, tmp_path, probe)
        exchanges = relay.summary()
        seen = server.seen  # type: ignore[attr-defined]
        encodings = {
            v for _, headers, _ in seen for k, v in headers.items() if k.lower() == "accept-encoding"
        }
    other.close()
    assert report["echo"] == {"path": "/v1/echo?beta=true", "key": "k1", "body": '{"q":1}'}
    assert report["streamed"] == ANTHROPIC_STREAM.decode()
    assert 0 not in report["reached"].values() and len(report["reached"]) >= 2, report
    assert encodings == {"identity"}  # httpx asked for gzip: the relay takes answers uncompressed
    assert [(e["method"], e["path"], e["status"]) for e in exchanges] == [
        ("POST", "/v1/echo?beta=true", 200),
        ("POST", "/v1/messages", 200),
    ]
    assert exchanges[1]["usage"] == {"input": 120, "cache_read": 30, "output": 42}
    assert relay.usage() == {"input": 120, "cache_read": 30, "output": 42} and relay.problem() == ""


def test_an_unreachable_api_and_a_refused_key_are_named(tmp_path: Path) -> None:
    closed = socket.socket()
    closed.bind(("127.0.0.1", 0))
    dead = f"http://127.0.0.1:{closed.getsockname()[1]}"
    closed.close()  # nothing listens there now
    with relaying(dead) as relay:
        transport = httpx.HTTPTransport(uds=str(relay.socket_path))
        answer = httpx.Client(transport=transport).post("http://relay/v1/messages", json={})
        assert answer.status_code == 502 and "ConnectError" in answer.json()["error"]["message"]
        assert relay.problem().startswith(f"the model API at {dead} is unreachable: ConnectError")
    with upstream() as server, relaying(origin(server)) as relay:
        transport = httpx.HTTPTransport(uds=str(relay.socket_path))
        assert httpx.Client(transport=transport).post("http://relay/v1/deny", json={}).status_code == 401
        assert relay.problem() == f"the model API at {origin(server)} refused the key (401)"


def test_a_request_aimed_elsewhere_is_refused(tmp_path: Path) -> None:
    """A request target that is no path (``@host:port/...`` would turn the upstream's host into a user name)
    is answered 400 by the relay and reaches nothing."""
    with upstream() as api, upstream() as other, relaying(origin(api)) as relay:
        elsewhere = f"@127.0.0.1:{other.server_address[1]}/v1/echo"
        with socket.socket(socket.AF_UNIX) as client:
            client.connect(str(relay.socket_path))
            request = (
                f"POST {elsewhere} HTTP/1.1\r\nHost: relay\r\nConnection: close\r\nContent-Length: 0\r\n\r\n"
            )
            client.sendall(request.encode())
            answer = b"".join(iter(lambda: client.recv(65536), b"")).decode()  # all of it, to the close
        assert answer.startswith("HTTP/1.1 400") and "is not a path on the model API" in answer
        assert other.seen == [] and api.seen == []  # type: ignore[attr-defined]
        assert relay.problem() == ""


def test_the_relay_refuses_an_unsandboxed_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from actloop.errors import ConfigError
    from actloop.suites.lab import sandbox

    monkeypatch.setattr(sandbox.shutil, "which", lambda name: None)
    box = Sandbox(tmp_path, tmp_path, allow_unsandboxed=True, api_relay=tmp_path)
    with pytest.raises(ConfigError, match="needs the sandbox's own loopback"):
        box.command(["true"])


@pytest.mark.parametrize(
    ("body", "usage"),
    [
        (ANTHROPIC_STREAM, {"input": 120, "cache_read": 30, "output": 42}),
        (OPENAI_STREAM, {"input": 200, "output": 17}),
        (b'{"id":"m","usage":{"input_tokens":5,"output_tokens":6}}', {"input": 5, "output": 6}),
        (b"data: not json\n\n", {}),
    ],
)
def test_usage_is_read_off_an_answer(body: bytes, usage: dict[str, int]) -> None:
    assert usage_of(body) == usage
    assert usage_of(body, "gzip") == {}
