"""``actloop annotate``: serve a run's episodes to one human annotator on 127.0.0.1.

Routes (all JSON but the page and the frames):

- ``GET /``: the annotation page (:mod:`.annotate_page`);
- ``GET /api/rubric``: the rubric document;
- ``GET /api/episodes``: the episodes with this annotator's progress;
- ``GET /api/episodes/<name>``: one episode's evidence, automatic signals and the annotator's state;
- ``GET /frames/<name>/<path>``: a frame the episode's evidence shows (nothing else of the record: its
  events hold the checker's state), else 404;
- ``POST /api/judgments``: one answer, appended at once to ``diagnostics/human/<annotator>.jsonl``; a bad
  one gets 400 and a JSON error, and nothing is written.

A request whose ``Host`` is not this server's loopback address, or a POST whose ``Origin`` is not this
server, is refused with 403 (DNS rebinding and cross-site requests).
"""

from __future__ import annotations

import json
import secrets
import threading
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from actloop.core.text import readable
from actloop.errors import ConfigError, RecordError
from actloop.records.jsonl import RESULTS_FILE
from actloop.suites.vabench.diagnostics.annotate_page import render_annotate_page
from actloop.suites.vabench.diagnostics.annotate_state import AnnotationBook
from actloop.suites.vabench.diagnostics.evidence import RunEpisode, episode_evidence, run_episodes
from actloop.suites.vabench.diagnostics.rubric import rubric_document
from actloop.suites.vabench.diagnostics.signals import episode_signals
from actloop.viewer.assets import content_policy

HOST = "127.0.0.1"
MAX_BODY = 16_384
IMAGE_TYPES = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg"}


class AnnotationServer:
    """The annotation server of one run and one annotator (``port`` 0: any free port)."""

    def __init__(self, run_dir: Path, annotator: str, port: int = 0) -> None:
        run_dir = Path(run_dir)
        if not (run_dir / RESULTS_FILE).is_file():
            raise ConfigError(f"{run_dir} has no {RESULTS_FILE}: not an actloop run directory")
        self.run_dir = run_dir
        self.episodes = run_episodes(run_dir)
        if not self.episodes:
            raise ConfigError(f"{run_dir} has no episode records to annotate")
        self.by_name: dict[str, RunEpisode] = {e.name: e for e in self.episodes}
        self.book = AnnotationBook(run_dir, annotator, [e.name for e in self.episodes])
        self._frames: dict[str, set[str]] = {}
        try:
            self.httpd = ThreadingHTTPServer((HOST, port), _Handler)
        except OSError as err:
            self.book.close()
            raise ConfigError(f"cannot serve on {HOST}:{port}: {err.strerror or err}") from None
        self.httpd.daemon_threads = True
        self.httpd.annotation = self  # type: ignore[attr-defined]
        self.port: int = self.httpd.server_address[1]
        self.url = f"http://{HOST}:{self.port}/"
        self.hosts = {f"{HOST}:{self.port}", f"localhost:{self.port}"}
        self.origins = {f"http://{host}" for host in self.hosts}
        self._thread: threading.Thread | None = None

    def serve_forever(self) -> None:
        self.httpd.serve_forever()

    def start(self) -> AnnotationServer:
        """Serve on a background thread (tests, notebooks); :meth:`close` stops it."""
        self._thread = threading.Thread(target=self.serve_forever, name="annotate", daemon=True)
        self._thread.start()
        return self

    def close(self) -> None:
        if self._thread is not None:
            self.httpd.shutdown()
            self._thread.join()
        self.httpd.server_close()
        self.book.close()

    def __enter__(self) -> AnnotationServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- what the routes answer ---
    def episode_list(self) -> dict[str, Any]:
        states = self.book.states()
        return {
            "annotator": self.book.annotator,
            "run": str(self.run_dir),
            "episodes": [
                {
                    "name": e.name,
                    "task": e.task,
                    "seed": e.seed,
                    "complete": state.complete,
                    "answered": sum(item in state.answers for item in state.required),
                    "required": len(state.required),
                }
                for e, state in zip(self.episodes, states, strict=True)
            ],
            "progress": self.book.progress(states),
            "problems": self.book.problems,
        }

    def episode(self, name: str) -> dict[str, Any] | None:
        episode = self.by_name.get(name)
        if episode is None:
            return None
        evidence = episode_evidence(episode.record_dir)
        self._frames[name] = _frame_paths(evidence)
        return {
            "name": name,
            "evidence": evidence,
            "signals": [s.to_json() for s in episode_signals(evidence)],
            "state": self.book.state(name).to_json(),
        }

    def frame(self, name: str, path: str) -> tuple[bytes, str] | None:
        """A frame's bytes and type when the episode's evidence shows it, else None."""
        episode = self.by_name.get(name)
        if episode is None:
            return None
        if name not in self._frames:
            self._frames[name] = _frame_paths(episode_evidence(episode.record_dir))
        kind = IMAGE_TYPES.get(Path(path).suffix.lower())
        if path not in self._frames[name] or kind is None:
            return None
        root = episode.record_dir.resolve()
        file = (root / path).resolve()
        if not file.is_relative_to(root) or not file.is_file():
            return None
        return file.read_bytes(), kind

    def save(self, body: Any) -> dict[str, Any]:
        """Record a posted answer (a RecordError, and nothing written, when it is refused) and return the
        reply: what was saved, the episode's state and the progress."""
        judgment = self.book.record(body)
        return {
            "saved": judgment.to_json(),
            "state": self.book.state(judgment.episode).to_json(),
            "progress": self.book.progress(),
        }


def _frame_paths(evidence: dict[str, Any]) -> set[str]:
    """Every frame path the evidence shows (observations and tool results)."""
    paths = set()
    for step in evidence.get("steps") or []:
        for frame in step.get("frames") or []:
            paths.add(frame.get("path"))
        for turn in step.get("turns") or []:
            paths |= {frame.get("path") for frame in turn.get("frames") or []}
    for turn in evidence.get("before") or []:
        paths |= {frame.get("path") for frame in turn.get("frames") or []}
    return {p for p in paths if isinstance(p, str)}


class _Handler(BaseHTTPRequestHandler):
    server_version = "actloop-annotate"
    sys_version = ""

    @property
    def app(self) -> AnnotationServer:
        app: AnnotationServer = self.server.annotation  # type: ignore[attr-defined]
        return app

    def log_message(self, format: str, *args: Any) -> None:  # requests are not logged
        pass

    def do_GET(self) -> None:
        if not self._host_ok():
            return
        try:
            self._get(unquote(urlsplit(self.path).path))
        except (RecordError, OSError) as err:
            self._json(HTTPStatus.INTERNAL_SERVER_ERROR, {"error": str(err)})

    def _get(self, path: str) -> None:
        if path == "/":
            nonce = secrets.token_urlsafe(18)
            page = render_annotate_page(self.app.book.annotator, nonce)
            self._send(HTTPStatus.OK, page.encode(), "text/html; charset=utf-8", content_policy(nonce, True))
        elif path == "/api/rubric":
            self._json(HTTPStatus.OK, rubric_document())
        elif path == "/api/episodes":
            self._json(HTTPStatus.OK, self.app.episode_list())
        elif path.startswith("/api/episodes/") and (found := self.app.episode(path[14:])) is not None:
            self._json(HTTPStatus.OK, found)
        elif path.startswith("/frames/") and "/" in path[8:]:
            name, _, relative = path[8:].partition("/")
            frame = self.app.frame(name, relative)
            if frame is None:
                self._json(HTTPStatus.NOT_FOUND, {"error": "not found"})
            else:
                self._send(HTTPStatus.OK, frame[0], frame[1])
        else:
            self._json(HTTPStatus.NOT_FOUND, {"error": "not found"})

    def do_POST(self) -> None:
        if not self._host_ok():
            return
        if self.headers.get("Origin") not in self.app.origins:
            self._json(HTTPStatus.FORBIDDEN, {"error": "a POST must come from the annotation page"})
            return
        if urlsplit(self.path).path != "/api/judgments":
            self._json(HTTPStatus.NOT_FOUND, {"error": "not found"})
            return
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            length = -1
        if not 0 < length <= MAX_BODY:
            self._json(HTTPStatus.BAD_REQUEST, {"error": f"a body of 1 to {MAX_BODY} bytes is needed"})
            return
        raw = self.rfile.read(length)
        if self.headers.get_content_type() != "application/json":
            self._json(HTTPStatus.BAD_REQUEST, {"error": "the body must be application/json"})
            return
        try:
            body = json.loads(raw)
        except RecursionError:
            self._json(HTTPStatus.BAD_REQUEST, {"error": "the body is not an answer: JSON nested too deeply"})
            return
        except ValueError as err:  # not UTF-8, or not JSON
            self._json(HTTPStatus.BAD_REQUEST, {"error": f"the body is not JSON: {err}"})
            return
        try:
            saved = self.app.save(body)
        except RecordError as err:  # refused before anything is written
            self._json(HTTPStatus.BAD_REQUEST, {"error": str(err)})
        except OSError as err:
            self._json(HTTPStatus.INTERNAL_SERVER_ERROR, {"error": f"the answer could not be saved: {err}"})
        else:
            self._json(HTTPStatus.OK, saved)

    def _host_ok(self) -> bool:
        if self.headers.get("Host") in self.app.hosts:
            return True
        self._json(HTTPStatus.FORBIDDEN, {"error": "this server answers only on its loopback address"})
        return False

    def _json(self, status: HTTPStatus, data: Any) -> None:
        body = readable(json.dumps(data, ensure_ascii=False, allow_nan=False, default=str)).encode()
        self._send(status, body, "application/json; charset=utf-8")

    def _send(self, status: HTTPStatus, body: bytes, kind: str, policy: str | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Referrer-Policy", "no-referrer")
        self.send_header(
            "Content-Security-Policy", (policy or "default-src 'none'") + "; frame-ancestors 'none'"
        )
        self.end_headers()
        self.wfile.write(body)
