"""The bench over HTTP on 127.0.0.1: what the agent's client talks to.

Every request needs ``Authorization: Bearer <token>`` (else 401). Calls are JSON POSTs to ``/v1/<call>``
(``observe``, ``move_joints``, ``gripper``, ``ik``, ``wait``, ``export``, ``submit``; at T1 and T2 also
``segment``
and ``move_hand``) or GETs of ``/v1/calibration`` and ``/v1/state``. A refused call answers 422 with what
to fix and nothing moved; any action after the submission or once the budget is spent answers 409; unknown
paths 404. One episode per server; calls run one at a time on one thread (a renderer's GL context belongs
to the thread that made it). Images and masks travel base64-encoded in JSON.
"""

from __future__ import annotations

import base64
import json
import secrets
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from actloop.suites.lab.env import EpisodeOver, LabEnv, LabRequestError

MAX_BODY_BYTES = 64 * 1024 * 1024


def _observe(env: LabEnv, args: dict[str, Any]) -> dict[str, Any]:
    seen = env.observe()
    return {
        **seen,
        "images": {name: base64.b64encode(png).decode("ascii") for name, png in seen["images"].items()},
    }


def _segment(env: LabEnv, args: dict[str, Any]) -> dict[str, Any]:
    seen = env.segment(_arg(args, "part"), _arg(args, "camera", "front"))
    return {**seen, "mask_png": base64.b64encode(seen["mask_png"]).decode("ascii")}


def _arg(args: dict[str, Any], name: str, default: Any = None) -> Any:
    """A named argument as sent (the bench validates it and says what is wrong)."""
    return args.get(name, default)


CALLS: dict[str, Callable[[LabEnv, dict[str, Any]], dict[str, Any]]] = {
    "observe": _observe,
    "move_joints": lambda env, a: env.move_joints(_arg(a, "targets")),
    "gripper": lambda env, a: env.gripper(_arg(a, "width_m")),
    "ik": lambda env, a: env.ik(_arg(a, "position"), _arg(a, "quaternion")),
    "wait": lambda env, a: env.wait(_arg(a, "seconds")),
    "submit": lambda env, a: env.submit(_arg(a, "result"), _arg(a, "citations", [])),
    "export": lambda env, a: env.export(_arg(a, "logger"), _arg(a, "file")),
    "segment": _segment,
    "move_hand": lambda env, a: env.move_hand(_arg(a, "position"), _arg(a, "quaternion")),
}
QUERIES: dict[str, Callable[[LabEnv], dict[str, Any]]] = {
    "calibration": LabEnv.calibration,
    "state": LabEnv.robot_state,
}


class LabServer(ThreadingHTTPServer):
    """Serves one :class:`LabEnv` to holders of ``token``."""

    daemon_threads = True

    def __init__(self, env: LabEnv, token: str, port: int = 0) -> None:
        super().__init__(("127.0.0.1", port), _Handler)
        self.env = env
        self.token = token
        self.bench_thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="lab-bench")

    def run(self, fn: Callable[[], dict[str, Any]]) -> dict[str, Any]:
        """Run ``fn`` on the bench thread and return its answer (its exception propagates)."""
        return self.bench_thread.submit(fn).result()

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host!s}:{port}"


class _Handler(BaseHTTPRequestHandler):
    server: LabServer

    def log_message(self, format: str, *args: Any) -> None:  # requests are recorded elsewhere
        return

    def do_GET(self) -> None:
        if self._authorized():
            query = QUERIES.get(self.path.removeprefix("/v1/"))
            if query is None:
                self._send(404, {"error": f"no such query {self.path}; GET /v1/calibration or /v1/state"})
                return
            env = self.server.env
            self._send(200, self.server.run(lambda: query(env)))

    def do_POST(self) -> None:
        if not self._authorized():
            return
        call = CALLS.get(self.path.removeprefix("/v1/"))
        if call is None:
            self._send(404, {"error": f"no such call {self.path}; calls: {', '.join(sorted(CALLS))}"})
            return
        length = int(self.headers.get("Content-Length") or 0)
        if length > MAX_BODY_BYTES:
            self._send(413, {"error": f"request body over {MAX_BODY_BYTES} bytes"})
            return
        try:
            args = json.loads(self.rfile.read(length) or b"{}")
        except ValueError as err:
            self._send(422, {"error": f"the body is not JSON: {err}"})
            return
        if not isinstance(args, dict):
            self._send(422, {"error": "the body must be a JSON object of named arguments"})
            return
        env = self.server.env
        try:
            self._send(200, self.server.run(lambda: call(env, args)))
        except LabRequestError as err:
            self._send(422, {"error": str(err)})
        except EpisodeOver as err:
            self._send(409, {"error": str(err)})

    def _authorized(self) -> bool:
        expected = f"Bearer {self.server.token}"
        if secrets.compare_digest(self.headers.get("Authorization", ""), expected):
            return True
        self._send(401, {"error": "missing or wrong bearer token (see the workspace's token file)"})
        return False

    def _send(self, status: int, body: dict[str, Any]) -> None:
        data = json.dumps(body, allow_nan=False).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@contextmanager
def serving(env: LabEnv, token: str | None = None) -> Iterator[LabServer]:
    """Serve ``env`` on a free loopback port for the duration of the block."""
    server = LabServer(env, token or secrets.token_urlsafe(24))
    thread = threading.Thread(target=server.serve_forever, daemon=True, name="lab-server")
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)
        server.bench_thread.submit(env.close).result()
        server.bench_thread.shutdown()
