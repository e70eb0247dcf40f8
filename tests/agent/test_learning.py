"""The learning phase (gate, validation, storage) and the summary conditions of evaluation runs."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from inspect_ai.log import list_eval_logs, read_eval_log
from PIL import Image

from actloop.agent.options import HarnessOptions
from actloop.errors import ConfigError
from actloop.suites.vabench.agent.learn_run import RESULTS_FILE, learn
from actloop.suites.vabench.agent.learning import MIN_DISTINCT_FRAMES, SUMMARY_FIELDS, LearningLoop
from actloop.suites.vabench.agent.summaries import load_summary, resolve_summaries, summary_source
from actloop.suites.vabench.demonstration import META_FILE, demonstration_dir
from episode_rows import run_json

pytestmark = pytest.mark.filterwarnings("ignore:The 'initial' parameter is deprecated:DeprecationWarning")
HERE = Path(__file__).resolve().parent
TASK = "grasp_single_cube"
SUMMARY = {name: "lift it" for name in SUMMARY_FIELDS} | {
    "pre_close_checks": ["fingers straddle the cube"],
    "completion_conditions": ["cube above the table"],
    "required_arms": 1,
}


def frames_tool(*indices: int) -> dict[str, Any]:
    return {"tool": "demo.frames", "args": {"indices": list(indices)}}


def fake_demonstration(root: Path, frames: int = 6) -> None:
    """A demonstration directory with small distinct PNG frames (no simulation needed)."""
    directory = demonstration_dir(root, TASK)
    directory.mkdir(parents=True)
    names = []
    for i in range(frames):
        buffer = io.BytesIO()
        Image.new("RGB", (8, 8), (40 * i, 0, 0)).save(buffer, format="PNG")
        (directory / f"frame_{i:02d}.png").write_bytes(buffer.getvalue())
        names.append(f"frame_{i:02d}.png")
    meta = {
        "task": TASK,
        "seed": 1020,
        "video": "demonstration.mp4",
        "frames": names,
        "fps": 10,
        "video_frames": 40,
        "expert_success": True,
    }
    (directory / META_FILE).write_text(json.dumps(meta))


def run_learning(tmp_path: Path, replies: list[Any]) -> dict[str, Any]:
    fake_demonstration(tmp_path / "demos")
    script = tmp_path / "script.json"
    script.write_text(json.dumps(replies))
    (row,) = learn(
        [TASK], "actloop/replay", {"decisions": str(script)}, tmp_path / "demos", tmp_path / "sums"
    )
    return row


def test_the_gate_rejects_a_summary_before_three_distinct_frames(tmp_path: Path) -> None:
    replies = [frames_tool(0, 5), frames_tool(5), {"summary": SUMMARY}, frames_tool(2), {"summary": SUMMARY}]
    row = run_learning(tmp_path, replies)
    assert row["accepted"] is True and row["frames_seen"] == [0, 5, 2]
    assert row["repairs"] == 1 and row["model_calls"] == 5
    stored = load_summary(tmp_path / "sums", "actloop/replay", TASK)
    assert stored["summary"] == SUMMARY and stored["frames_inspected"] == [0, 5, 2]
    assert json.loads((tmp_path / "sums" / RESULTS_FILE).read_text())["accepted"] is True


def test_a_summary_never_preceded_by_enough_frames_is_not_stored(tmp_path: Path) -> None:
    row = run_learning(tmp_path, [frames_tool(1), {"summary": SUMMARY}] * 2 + [{"summary": SUMMARY}])
    assert row["accepted"] is False and row["stop_reason"] == "invalid_answers"
    assert len(row["frames_seen"]) < MIN_DISTINCT_FRAMES
    assert not (tmp_path / "sums" / "actloop__replay" / f"{TASK}.json").exists()


@pytest.mark.parametrize(
    ("bad", "fix"),
    [
        ({"summary": {"grasp_region": "middle"}}, "lacks the fields"),
        ({"summary": {**SUMMARY, "pre_close_checks": "look"}}, "must be a list of strings"),
        ({"summary": {**SUMMARY, "required_arms": 3}}, "must be 1 or 2"),
        (frames_tool(99), "between 0 and 5"),
    ],
)
def test_invalid_answers_are_repaired(tmp_path: Path, bad: dict[str, Any], fix: str) -> None:
    row = run_learning(tmp_path, [frames_tool(0, 1, 2), bad, {"summary": SUMMARY}])
    assert row["accepted"] is True and row["repairs"] == 1
    (info,) = list_eval_logs(str(tmp_path / "sums" / "logs"))
    (sample,) = read_eval_log(info).samples or []
    repairs = [m.text for m in sample.messages if m.role == "user" and "was not accepted" in m.text]
    assert len(repairs) == 1 and fix in repairs[0]


def test_repair_messages_say_what_to_fix() -> None:
    loop = LearningLoop(model=None, messages=[], frames=[b"png"] * 6)  # type: ignore[arg-type]
    assert "you have inspected 0" in str(loop._handle(json.dumps({"summary": SUMMARY})))
    assert "between 0 and 5" in str(loop._handle(json.dumps(frames_tool(6))))
    assert "only tool" in str(loop._handle(json.dumps({"tool": "camera.history", "args": {}})))
    assert loop._handle(json.dumps(frames_tool(0, 1, 4))) is None
    assert "lacks the fields" in str(loop._handle(json.dumps({"summary": {"grasp_region": "x"}})))
    assert loop._handle(json.dumps({"summary": SUMMARY})) is None and loop.outcome.summary == SUMMARY


def test_summary_conditions_resolve_to_the_right_author(tmp_path: Path) -> None:
    assert summary_source("own", "openai/gpt-4o") == "openai/gpt-4o"
    assert summary_source("shared:anthropic/claude", "openai/gpt-4o") == "anthropic/claude"
    assert summary_source("none", "openai/gpt-4o") is None
    with pytest.raises(ConfigError, match="own, shared:<model> or none"):
        summary_source("shared:", "m")
    with pytest.raises(ConfigError, match="actloop learn"):
        resolve_summaries("own", "m", {TASK: TASK}, tmp_path)


def test_a_shared_summary_reaches_the_prompt_and_the_row(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run_learning(tmp_path, [frames_tool(0, 1, 2), {"summary": SUMMARY}])
    texts = resolve_summaries("shared:actloop/replay", "other/model", {"pick_cube": TASK}, tmp_path / "sums")
    monkeypatch.syspath_prepend(str(HERE))
    decisions = tmp_path / "episode.json"
    decisions.write_text(json.dumps([{"stop": True}]))
    (row,) = run_json(
        "fake",
        [("pick_cube", 0, 1)],
        "actloop/replay",
        {"decisions": str(decisions)},
        tmp_path / "out",
        env_factory="fake_env:FakeEnv",
        isolation="inline",
        harness=HarnessOptions(summary="shared:actloop/replay", summaries=texts),
    )
    assert row["summary"] == "shared:actloop/replay"
    start = json.loads((tmp_path / "out" / row["record_dir"] / "events.jsonl").open().readline())
    prompt = start["data"]["system_prompt"]
    assert "## Demonstration summary" in prompt and "- grasp region: lift it" in prompt
    assert "- pre close checks: fingers straddle the cube" in prompt
