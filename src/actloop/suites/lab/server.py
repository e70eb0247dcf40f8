"""The bench over HTTP, on 127.0.0.1 and on a Unix socket: what the agent's client talks to.

Every request needs ``Authorization: Bearer <token>`` (else 401). Calls are JSON POSTs to ``/v1/<call>``
(``observe``, ``move_joints``, ``gripper``, ``ik``, ``wait``, ``export``, ``submit``; at T1 and T2 also
``segment`` and ``move_hand``) or GETs of ``/v1/calibration`` and ``/v1/state``. A malformed request (its
length, its JSON) answers 400; a refused call 422 with what to fix and nothing moved; any call once the
result is submitted or the budget is spent answers 409 (the two GET queries still answer); unknown paths
404; a failure of the bench itself 500 (its traceback goes to the server's standard error). Every request
gets an answer. One episode per server; calls run one at a time on one thread (a renderer's GL context
belongs to the thread that made it). Images and masks travel base64-encoded in JSON.

The sandboxed agent has no network of its own: it reaches the bench through the Unix socket, which lives
in a private directory of the server's (:attr:`LabServer.socket_path`) mounted into the sandbox.
"""

from __future__ import annotations

import base64
import json
import math
import secrets
import shutil
import socketserver
import sys
import tempfile
import threading
import traceback
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from actloop.suites.lab.env import LabEnv
from actloop.suites.lab.requests import EpisodeOver, LabRequestError

MAX_BODY_BYTES = 64 * 1024 * 1024
MAX_JSON_DEPTH = 32
"""How deeply a request's JSON may nest (a trajectory needs 3, a citation 3)."""
REQUEST_TIMEOUT_S = 120.0
"""How long the server waits for a request's bytes before it gives up on the connection."""
SOCKET_NAME = "lab.sock"


class BadRequest(Exception):
    """A request the server cannot read (HTTP 400)."""


def _observe(env: LabEnv, args: dict[str, Any]) -> dict[str, Any]:
    seen = env.observe()
    return {
        **seen,
        "images": {name: base64.b64encode(png).decode("ascii") for name, png in seen["images"].items()},
    }


def _segment(env: LabEnv, args: dict[str, Any]) -> dict[str, Any]:
    seen = env.segment(_text(args, "part"), _text(args, "camera", "front"))
    return {**seen, "mask_png": base64.b64encode(seen["mask_png"]).decode("ascii")}


def _wait(env: LabEnv, args: dict[str, Any]) -> dict[str, Any]:
    seconds = _number(args, "seconds")
    if not (math.isfinite(seconds) and seconds >= 0):
        raise LabRequestError(f"seconds must be a non-negative number, got {seconds!r}")
    return env.wait(min(seconds, env.spec.budget_s))  # no wait lasts past the budget


def _arg(args: dict[str, Any], name: str, default: Any = None) -> Any:
    """A named argument as sent (the bench validates it and says what is wrong)."""
    return args.get(name, default)


def _number(args: dict[str, Any], name: str) -> float:
    """A named argument that must be a number (a boolean is not one)."""
    value = args.get(name)
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise LabRequestError(f"{name} must be a number, got {value!r}")
    return float(value)


def _text(args: dict[str, Any], name: str, default: str | None = None) -> str:
    """A named argument that must be a string."""
    value = args.get(name, default)
    if not isinstance(value, str):
        raise LabRequestError(f"{name} must be a string, got {value!r}")
    return value


CALLS: dict[str, Callable[[LabEnv, dict[str, Any]], dict[str, Any]]] = {
    "observe": _observe,
    "move_joints": lambda env, a: env.move_joints(_arg(a, "targets")),
    "gripper": lambda env, a: env.gripper(_number(a, "width_m")),
    "ik": lambda env, a: env.ik(_arg(a, "position"), _arg(a, "quaternion"), _arg(a, "start")),
    "wait": _wait,
    "submit": lambda env, a: env.submit(_arg(a, "result"), _arg(a, "citations", [])),
    "export": lambda env, a: env.export(_text(a, "logger"), _text(a, "file")),
    "segment": _segment,
    "move_hand": lambda env, a: env.move_hand(_arg(a, "position"), _arg(a, "quaternion")),
}
QUERIES: dict[str, Callable[[LabEnv], dict[str, Any]]] = {
    "calibration": LabEnv.calibration,
    "state": LabEnv.robot_state,
}


def _call(env: LabEnv, call: Callable[[LabEnv, dict[str, Any]], dict[str, Any]], args: dict[str, Any]) -> Any:
    """Run a call on a running episode (EpisodeOver once it has ended, whatever the call)."""
    env.require_running()
    return call(env, args)


def _depth(value: Any) -> int:
    """How deeply ``value`` nests lists and objects (counted without recursion)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict | list):
            deepest = max(deepest, level)
            if level > MAX_JSON_DEPTH:
                return level
            stack.extend((child, level + 1) for child in (item.values() if isinstance(item, dict) else item))
    return deepest


class LabServer(ThreadingHTTPServer):
    """Serves one :class:`LabEnv` to holders of ``token``, on a loopback port and, with ``socket_path``,
    on that Unix socket too."""

    daemon_threads = True

    def __init__(self, env: LabEnv, token: str, port: int = 0, socket_path: Path | None = None) -> None:
        super().__init__(("127.0.0.1", port), _Handler)
        self.env = env
        self.token = token
        self.bench_thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="lab-bench")
        self.socket_path = socket_path
        self.unix = _UnixServer(self, socket_path) if socket_path is not None else None

    def run(self, fn: Callable[[], dict[str, Any]]) -> dict[str, Any]:
        """Run ``fn`` on the bench thread and return its answer (its exception propagates)."""
        return self.bench_thread.submit(fn).result()

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host!s}:{port}"


class _UnixServer(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    """The same bench on a Unix socket (what the sandboxed agent reaches)."""

    daemon_threads = True

    def __init__(self, lab: LabServer, path: Path) -> None:
        super().__init__(str(path), _Handler)
        self.lab = lab
        self.env = lab.env
        self.token = lab.token
        self.run = lab.run


class _Handler(BaseHTTPRequestHandler):
    server: LabServer
    timeout = REQUEST_TIMEOUT_S

    def log_message(self, format: str, *args: Any) -> None:  # requests are recorded elsewhere
        return

    def address_string(self) -> str:  # a Unix socket's peer has no address
        return str(self.client_address[0]) if self.client_address else "unix"

    def do_GET(self) -> None:
        if self._authorized():
            query = QUERIES.get(self.path.removeprefix("/v1/"))
            if query is None:
                self._send(404, {"error": f"no such query {self.path}; GET /v1/calibration or /v1/state"})
                return
            env = self.server.env
            self._answer(lambda: query(env))

    def do_POST(self) -> None:
        if not self._authorized():
            return
        call = CALLS.get(self.path.removeprefix("/v1/"))
        if call is None:
            self._send(404, {"error": f"no such call {self.path}; calls: {', '.join(sorted(CALLS))}"})
            return
        try:
            args = self._arguments()
        except BadRequest as err:
            self.close_connection = True
            self._send(400, {"error": str(err)})
            return
        env = self.server.env
        self._answer(lambda: _call(env, call, args))

    def _arguments(self) -> dict[str, Any]:
        """The request's JSON object of named arguments (BadRequest when it cannot be read)."""
        header = self.headers.get("Content-Length") or "0"
        try:
            length = int(header)
        except ValueError:
            raise BadRequest(f"Content-Length must be a whole number of bytes, got {header!r}") from None
        if not 0 <= length <= MAX_BODY_BYTES:
            raise BadRequest(f"Content-Length must be from 0 to {MAX_BODY_BYTES} bytes, got {length}")
        body = self.rfile.read(length)
        if len(body) < length:
            raise BadRequest(f"the body ended after {len(body)} of its {length} bytes")
        try:
            args = json.loads(body or b"{}")
        except (ValueError, RecursionError) as err:
            raise BadRequest(f"the body is not JSON: {str(err)[:200]}") from None
        if not isinstance(args, dict):
            raise BadRequest("the body must be a JSON object of named arguments")
        if _depth(args) > MAX_JSON_DEPTH:
            raise BadRequest(f"the body nests deeper than {MAX_JSON_DEPTH} levels")
        return args

    def _answer(self, fn: Callable[[], Any]) -> None:
        """Run ``fn`` on the bench and send its answer, or the status its failure calls for."""
        try:
            answer = self.server.run(fn)
            status, body = 200, json.dumps(answer, allow_nan=False).encode("utf-8")
        except LabRequestError as err:
            status, body = 422, _error(str(err))
        except EpisodeOver as err:
            status, body = 409, _error(str(err))
        except Exception as err:  # a fault of the bench: answered, and told on the server's stderr
            traceback.print_exc(file=sys.stderr)
            status, body = (
                500,
                _error(f"the bench failed on this request ({type(err).__name__})"),
            )
        self._send_bytes(status, body)

    def _authorized(self) -> bool:
        expected = f"Bearer {self.server.token}"
        if secrets.compare_digest(self.headers.get("Authorization", "").encode(), expected.encode()):
            return True
        self._send(401, {"error": "missing or wrong bearer token (see the workspace's token file)"})
        return False

    def _send(self, status: int, body: dict[str, Any]) -> None:
        self._send_bytes(status, json.dumps(body, allow_nan=False).encode("utf-8"))

    def _send_bytes(self, status: int, data: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def _error(message: str) -> bytes:
    return json.dumps({"error": message}).encode("utf-8")


STOP_POLL_S = 0.02
"""How often a serving thread checks whether it is to stop (the standard library's half second would add
most of a second to every served episode's end)."""


@contextmanager
def serving(env: LabEnv, token: str | None = None) -> Iterator[LabServer]:
    """Serve ``env`` on a free loopback port and on a Unix socket in a private directory for the duration
    of the block."""
    directory = Path(tempfile.mkdtemp(prefix="actloop-bench-"))
    server = LabServer(env, token or secrets.token_urlsafe(24), socket_path=directory / SOCKET_NAME)
    threads = [
        threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": STOP_POLL_S}, daemon=True, name="lab-server"
        )
    ]
    if server.unix is not None:
        threads.append(
            threading.Thread(
                target=server.unix.serve_forever,
                kwargs={"poll_interval": STOP_POLL_S},
                daemon=True,
                name="lab-server-unix",
            )
        )
    for thread in threads:
        thread.start()
    try:
        yield server
    finally:
        for listener in (server, server.unix):
            if listener is not None:
                listener.shutdown()
                listener.server_close()
        for thread in threads:
            thread.join(5)
        shutil.rmtree(directory, ignore_errors=True)
        server.bench_thread.submit(env.close).result()
        server.bench_thread.shutdown()
