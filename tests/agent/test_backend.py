"""The ``actloop/replay`` and ``actloop/baseline`` model backends and their Inspect registration."""

from __future__ import annotations

import asyncio
import json
import sys
import types
from pathlib import Path
from typing import Any

import pytest
from inspect_ai.model import ChatMessage, ChatMessageAssistant, ChatMessageUser, get_model

from actloop.agent.replay import FINISHED, load_replies, replay_reply
from actloop.errors import ConfigError
from episode_rows import run_json

pytestmark = pytest.mark.filterwarnings("ignore:The 'initial' parameter is deprecated:DeprecationWarning")
HERE = Path(__file__).resolve().parent
MOVE = {"action": "gripper.move_world", "axis": "z", "sign": "-", "distance_mm": 20}
CLOSE = {"action": "gripper.close"}


def test_replay_file_formats(tmp_path: Path) -> None:
    listing = tmp_path / "decisions.json"
    listing.write_text(json.dumps([MOVE, "not json"]))
    assert load_replies(listing) == [json.dumps(MOVE), "not json"]

    lines = tmp_path / "decisions.jsonl"
    lines.write_text(json.dumps(MOVE) + "\n\n" + json.dumps(CLOSE) + "\n")
    assert load_replies(lines) == [json.dumps(MOVE), json.dumps(CLOSE)]

    events = tmp_path / "events.jsonl"
    rows = [
        {"type": "model_output", "data": {"text": "garbage"}, "created_at": "t"},
        {"type": "decision", "data": {"decision": MOVE}, "created_at": "t"},
        {"type": "decision", "data": {"decision": CLOSE}, "created_at": "t"},
    ]
    events.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert load_replies(events) == [json.dumps(MOVE), json.dumps(CLOSE)]

    assert replay_reply(["a"], 0) == "a"
    assert replay_reply(["a"], 1) == FINISHED == '{"stop": true, "reason": "replay finished"}'


def generate(model_name: str, messages: list[ChatMessage], **model_args: Any) -> Any:
    model = get_model(model_name, memoize=False, **model_args)
    return asyncio.run(model.generate(messages))


def test_replay_model_indexes_by_assistant_turns(tmp_path: Path) -> None:
    path = tmp_path / "d.json"
    path.write_text(json.dumps([MOVE, CLOSE]))
    user = ChatMessageUser(content="observation")
    output = generate("actloop/replay", [user], decisions=str(path))
    assert json.loads(output.completion) == MOVE
    assert output.usage is not None and output.usage.output_tokens > 0
    later: list[ChatMessage] = [
        user,
        ChatMessageAssistant(content="x"),
        user,
        ChatMessageAssistant(content="y"),
        user,
    ]
    assert generate("actloop/replay", later, decisions=str(path)).completion == FINISHED


def test_model_names_and_args_are_checked(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="choose one of: baseline, lab-reference, replay"):
        get_model("actloop/oracle", memoize=False)
    with pytest.raises(ConfigError, match="decisions=PATH"):
        get_model("actloop/replay", memoize=False)
    with pytest.raises(ConfigError, match="unknown model args: temperature_x"):
        get_model("actloop/baseline", memoize=False, temperature_x=1)


def test_baseline_model_calls_the_policy(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[list[ChatMessage]] = []

    def decide(messages: list[ChatMessage]) -> str:
        seen.append(messages)
        return json.dumps(CLOSE)

    policy = types.ModuleType("actloop.suites.vabench.baseline")
    policy.decide = decide  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "actloop.suites.vabench.baseline", policy)
    output = generate("actloop/baseline", [ChatMessageUser(content="obs")])
    assert json.loads(output.completion) == CLOSE and len(seen) == 1
    assert output.usage is not None and output.usage.total_tokens > 0


def test_recorded_episode_replays_identically(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(HERE))
    decisions = tmp_path / "d.json"
    decisions.write_text(json.dumps(["oops", {"tool": "camera.history", "args": {"step": 0}}, MOVE, CLOSE]))
    common: dict[str, Any] = {"env_factory": "fake_env:FakeEnv", "isolation": "inline"}
    (first,) = run_json(
        "fake",
        [("pick_cube", 0, 0)],
        "actloop/replay",
        {"decisions": str(decisions)},
        tmp_path / "a",
        **common,
    )
    recorded = tmp_path / "a" / first["record_dir"] / "events.jsonl"
    (again,) = run_json(
        "fake",
        [("pick_cube", 0, 0)],
        "actloop/replay",
        {"decisions": str(recorded)},
        tmp_path / "b",
        **common,
    )
    assert (first["stop_reason"], first["steps"]) == (again["stop_reason"], again["steps"]) == ("success", 2)
    assert (first["repairs"], again["repairs"]) == (1, 0)  # only valid decisions are recorded as decisions
