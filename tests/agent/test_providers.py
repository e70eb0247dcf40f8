"""Episodes through Inspect's real OpenAI Chat, OpenAI Responses and Anthropic providers, against a
loopback fake server: wire formats, retries on 429, infra errors on persistent 500s, repairs."""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from actloop.suites.vabench.protocol.decisions import INCREMENTAL_CAMERA_ACTIONS, SEMANTIC_VIEWS
from episode_rows import run_json
from fake_providers import FakeProviders, serve

pytestmark = pytest.mark.filterwarnings("ignore:The 'initial' parameter is deprecated:DeprecationWarning")
HERE = Path(__file__).resolve().parent
MOVE = '{"action": "gripper.move_world", "axis": "z", "sign": "-", "distance_mm": 20}'
CLOSE = '```json\n{"action": "gripper.close", "reason": "fingers around the cube"}\n```'


@dataclass(frozen=True)
class Provider:
    model: str
    model_args: dict[str, Any]
    env_prefix: str
    base_suffix: str

    def last_user_parts(self, body: dict[str, Any]) -> tuple[list[str], list[str]]:
        """(texts, image data URIs or base64 payloads) of the request's last user message."""
        messages = body["input"] if "input" in body else body["messages"]
        user = [m for m in messages if m.get("role") == "user"][-1]
        content = user["content"]
        parts = [{"type": "text", "text": content}] if isinstance(content, str) else content
        texts = [p["text"] for p in parts if p["type"] in ("text", "input_text")]
        images = [
            p["image_url"]["url"] if p["type"] == "image_url" else p.get("image_url") or p["source"]["data"]
            for p in parts
            if p["type"] in ("image_url", "input_image", "image")
        ]
        return texts, images

    def system_text(self, body: dict[str, Any]) -> str:
        if "system" in body:
            system = body["system"]
            return system if isinstance(system, str) else " ".join(b["text"] for b in system)
        messages = body["input"] if "input" in body else body["messages"]
        first = messages[0]
        assert first["role"] in ("system", "developer")
        content = first["content"]
        return content if isinstance(content, str) else " ".join(p["text"] for p in content)


PROVIDERS = {
    "openai-chat": Provider("openai/gpt-4o-mini", {"responses_api": False}, "OPENAI", "/v1"),
    "openai-responses": Provider("openai/gpt-4o-mini", {"responses_api": True}, "OPENAI", "/v1"),
    "anthropic": Provider("anthropic/claude-sonnet-4-0", {}, "ANTHROPIC", ""),
}
ROUTE = {
    "openai-chat": "/v1/chat/completions",
    "openai-responses": "/v1/responses",
    "anthropic": "/v1/messages",
}


def run(
    name: str,
    server: FakeProviders,
    out: Path,
    monkeypatch: pytest.MonkeyPatch,
    episode: tuple[str, int, int] = ("pick_cube", 3, 0),
    suite: str = "fake",
    **options: Any,
) -> dict[str, Any]:
    """One episode through provider ``name`` against ``server``; ``options`` go to ``evaluate``."""
    provider = PROVIDERS[name]
    monkeypatch.syspath_prepend(str(HERE))
    monkeypatch.setenv(f"{provider.env_prefix}_API_KEY", "dummy-key")
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")
    (row,) = run_json(
        suite,
        [episode],
        provider.model,
        provider.model_args,
        out,
        isolation="inline",
        # passed explicitly (not via <PROVIDER>_BASE_URL) so each server gets its own cached model client
        model_base_url=server.base_url.removesuffix("/v1") + provider.base_suffix,
        timeout=30,
        **{"max_retries": 2, **options},
    )
    return row


def events(out: Path, row: dict[str, Any]) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (out / row["record_dir"] / "events.jsonl").open()]


@pytest.mark.parametrize("name", PROVIDERS)
def test_requests_carry_the_image_and_observation_in_the_provider_format(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with serve([MOVE, CLOSE]) as server:
        row = run(name, server, tmp_path, monkeypatch)
    assert (row["stop_reason"], row["success"], row["steps"]) == ("success", True, 2)
    assert [path for path, _ in server.requests] == [ROUTE[name]] * 2
    provider = PROVIDERS[name]
    for _, body in server.requests:
        texts, images = provider.last_user_parts(body)
        assert len(images) == 1 and "GC (finger midpoint)" in " ".join(texts)
        assert "Pick up the red cube." in provider.system_text(body)
    first_image = provider.last_user_parts(server.requests[0][1])[1][0]
    assert first_image.startswith("data:image/png;base64,") or first_image.startswith("iVBOR")
    assert row["tokens"]["input_tokens"] == 200 and row["tokens"]["output_tokens"] == 40


@pytest.mark.parametrize("name", PROVIDERS)
def test_a_rate_limit_is_retried_and_the_episode_completes(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with serve([429, MOVE, CLOSE]) as server:
        row = run(name, server, tmp_path, monkeypatch)
    assert (row["stop_reason"], row["success"], row["model_calls"]) == ("success", True, 2)
    assert len(server.requests) == 3


@pytest.mark.parametrize("name", PROVIDERS)
def test_a_persistent_server_error_ends_the_episode_as_infra_error(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with serve([500] * 10) as server:
        # the provider's SDK retries a 500 itself; Inspect's own retries (after a backoff of 3 s or more)
        # are exhausted in test_provider_failures
        row = run(name, server, tmp_path, monkeypatch, max_retries=0)
    assert (row["stop_reason"], row["success"], row["steps"]) == ("infra_error", False, 0)
    assert row["error"] and len(server.requests) >= 2
    lines = (tmp_path / "results.jsonl").read_text().splitlines()
    assert [json.loads(line)["stop_reason"] for line in lines] == ["infra_error"]
    assert events(tmp_path, row)[-1]["type"] == "episode_end"


@pytest.mark.parametrize("name", PROVIDERS)
def test_malformed_json_gets_a_repair_message_and_the_episode_proceeds(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with serve(['{"action": "gripper.move_world", "axis": "z",', MOVE, CLOSE]) as server:
        row = run(name, server, tmp_path, monkeypatch)
    assert (row["stop_reason"], row["success"], row["repairs"]) == ("success", True, 1)
    texts, images = PROVIDERS[name].last_user_parts(server.requests[1][1])
    assert images == [] and "was not accepted" in " ".join(texts)
    assert any(
        e["type"] == "decision_rejected" and e["data"]["kind"] == "json" for e in events(tmp_path, row)
    )


def test_a_passive_request_carries_the_five_views_in_order_and_no_camera_action(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    camera = '{"action": "camera.view_side"}'
    stop = '{"stop": true, "reason": "done looking"}'
    provider = PROVIDERS["openai-chat"]
    with serve([camera, MOVE, stop]) as server:
        row = run(
            "openai-chat",
            server,
            tmp_path,
            monkeypatch,
            episode=("grasp_single_cube", 1000, 1),
            suite="vabench",
            protocol="passive",
            max_retries=0,
        )
    assert (row["stop_reason"], row["steps"], row["repairs"]) == ("stop", 1, 1)
    first, repair, after_move = (body for _, body in server.requests)
    system = provider.system_text(first)
    camera_actions = [f"view_{v}" for v in SEMANTIC_VIEWS] + list(INCREMENTAL_CAMERA_ACTIONS)
    assert not [a for a in camera_actions if a in system]  # only the camera.history tool remains
    frames = tmp_path / row["record_dir"] / "frames"
    for body, step in ((first, 0), (after_move, 1)):
        _, images = provider.last_user_parts(body)
        expected = [
            "data:image/png;base64,"
            + base64.b64encode((frames / f"step{step:03d}_{view}.png").read_bytes()).decode()
            for view in SEMANTIC_VIEWS
        ]
        assert images == expected  # exactly the five views, in the fixed order
    texts, images = provider.last_user_parts(repair)
    assert images == [] and "camera actions are not available in this protocol" in " ".join(texts)
