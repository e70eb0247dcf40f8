"""One episode through Inspect's real OpenAI-compatible provider, against a loopback fake server."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from actloop.agent.options import HarnessOptions
from episode_rows import run_json

pytestmark = pytest.mark.filterwarnings("ignore:The 'initial' parameter is deprecated:DeprecationWarning")
HERE = Path(__file__).resolve().parent
SCRIPT = [
    '```json\n{"action": "gripper.move_world", "axis": "z", "sign": "-", "distance_mm": 20}\n```',
    '{"action": "gripper.close", "reason": "fingers around the cube"}',
]


class FakeChatCompletions(ThreadingHTTPServer):
    """Answers ``POST /v1/chat/completions`` with the scripted replies, recording each request body."""

    def __init__(self, replies: list[str]) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.replies = list(replies)
        self.requests: list[dict[str, Any]] = []
        self.lock = threading.Lock()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"


class _Handler(BaseHTTPRequestHandler):
    server: FakeChatCompletions

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        if self.path != "/v1/chat/completions":
            self._send(404, {"error": {"message": f"no route {self.path}"}})
            return
        with self.server.lock:
            self.server.requests.append(body)
            index = len(self.server.requests) - 1
        content = self.server.replies[index] if index < len(self.server.replies) else '{"stop": true}'
        self._send(
            200,
            {
                "id": f"chatcmpl-{index}",
                "object": "chat.completion",
                "created": 0,
                "model": body["model"],
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": content},
                        "finish_reason": "stop",
                    }
                ],
                "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120},
            },
        )

    def _send(self, status: int, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def server() -> Iterator[FakeChatCompletions]:
    httpd = FakeChatCompletions(SCRIPT)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield httpd
    httpd.shutdown()
    httpd.server_close()
    thread.join(5)


def test_episode_through_openai_compatible_provider(
    server: FakeChatCompletions, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.syspath_prepend(str(HERE))
    # openai-api/<service>/<model> reads <SERVICE>_API_KEY and <SERVICE>_BASE_URL
    monkeypatch.setenv("FAKE_API_KEY", "dummy-key")
    monkeypatch.setenv("FAKE_BASE_URL", server.base_url)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")

    (row,) = run_json(
        "fake",
        [("pick_cube", 7, 0)],
        "openai-api/fake/some-model",
        {},
        tmp_path,
        env_factory="fake_env:FakeEnv",
        isolation="inline",
        max_retries=0,
        timeout=20,
        temperature=0.3,
        harness=HarnessOptions(price_in=2.0, price_out=10.0),
    )

    assert row["model"] == "openai-api/fake/some-model"
    assert (row["stop_reason"], row["success"], row["steps"], row["model_calls"]) == ("success", True, 2, 2)
    assert row["error"] is None and row["seed"] == 7
    assert len(server.requests) == 2
    # usage and cost come from the provider's reported usage (100 in + 20 out per call)
    expected = {"input_tokens": 200, "output_tokens": 40, "total_tokens": 240, "cost_usd": 0.0008}
    assert row["tokens"] == expected
    records = [json.loads(line) for line in (tmp_path / row["record_dir"] / "events.jsonl").open()]
    settings = [r["data"]["request_settings"] for r in records if r["type"] == "model_output"]
    assert [s["temperature"] for s in settings] == [server.requests[0]["temperature"]] * 2 == [0.3, 0.3]
    assert all("messages" not in s and s["model"] == "some-model" for s in settings)
    first = server.requests[0]
    assert first["model"] == "some-model"
    system, user = first["messages"][0], first["messages"][-1]
    assert system["role"] == "system" and "Pick up the red cube." in system["content"]
    parts = {part["type"]: part for part in user["content"]}
    assert "GC (finger midpoint)" in parts["text"]["text"]
    assert parts["image_url"]["image_url"]["url"].startswith("data:image/png;base64,")
    # the second request carries only the new image; the first one is a text placeholder now
    second = server.requests[1]["messages"]
    images = [
        p for m in second if isinstance(m["content"], list) for p in m["content"] if p["type"] != "text"
    ]
    assert len(images) == 1
    assert any(
        p.get("text") == "[image: step 0 view active, omitted]"
        for m in second
        if isinstance(m["content"], list)
        for p in m["content"]
    )


def test_real_scene_episode_through_openai_provider(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The real SpatialEnv in a spawned worker, driven over HTTP by Inspect's OpenAI provider."""
    replies = ['{"action": "camera.view_topdown", "reason": "look down"}', '{"stop": true, "reason": "done"}']
    httpd = FakeChatCompletions(replies)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    monkeypatch.setenv("FAKE_API_KEY", "dummy-key")
    monkeypatch.setenv("FAKE_BASE_URL", httpd.base_url)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")
    try:
        (row,) = run_json(
            "vabench",
            [("grasp_single_cube", 1000, 1)],
            "openai-api/fake/some-model",
            {},
            tmp_path,
            max_retries=0,
            timeout=30,
        )
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(5)
    assert (row["stop_reason"], row["success"], row["steps"], row["error"]) == ("stop", False, 1, None)
    assert len(httpd.requests) == 2
    for request in httpd.requests:
        user = request["messages"][-1]
        parts = {part["type"]: part for part in user["content"]}
        assert "GC (finger midpoint) xyz m: [0.25" in parts["text"]["text"]
        assert "local axis ry (finger closing) in world" in parts["text"]["text"]
        assert parts["image_url"]["image_url"]["url"].startswith("data:image/png;base64,")
    assert "previous action: camera.view_topdown; valid: yes" in json.dumps(httpd.requests[1])
    assert (tmp_path / row["record_dir"] / "frames" / "step001_active.png").exists()
