"""The episode solver end to end through Inspect, with the fake environment and the replay model."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import threading
from pathlib import Path
from typing import Any

import inspect_ai
import pytest
from inspect_ai.event import ModelEvent
from inspect_ai.log import EvalSample, list_eval_logs, read_eval_log
from inspect_ai.model import ChatMessage, ChatMessageUser, ContentImage, ContentText, get_model

from actloop.agent.task import episodes_task
from actloop.core.suite import get_suite
from episode_rows import run_json

pytestmark = pytest.mark.filterwarnings("ignore:The 'initial' parameter is deprecated:DeprecationWarning")
HERE = Path(__file__).resolve().parent
FACTORY = "fake_env:FakeEnv"
MOVE = {"action": "gripper.move_world", "axis": "z", "sign": "-", "distance_mm": 20, "reason": "descend"}
CLOSE = {"action": "gripper.close", "reason": "grasp"}


@pytest.fixture(autouse=True)
def _fake_env_importable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(HERE))  # spawned workers inherit sys.path


def run_replay(
    out: Path,
    decisions: list[Any],
    *,
    episodes: list[tuple[str, int, int]] | None = None,
    isolation: str = "inline",
    env_kwargs: dict[str, Any] | None = None,
    workers: int = 1,
    env_timeout: float | None = None,
) -> list[dict[str, Any]]:
    path = out / "decisions.json"
    out.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(decisions))
    return run_json(
        "fake",
        episodes or [("pick_cube", 0, 0)],
        "actloop/replay",
        {"decisions": str(path)},
        out,
        workers=workers,
        env_factory=FACTORY,
        isolation=isolation,  # type: ignore[arg-type]
        env_kwargs=env_kwargs,
        env_timeout=env_timeout,
    )


def events(out: Path, row: dict[str, Any]) -> list[dict[str, Any]]:
    lines = (out / row["record_dir"] / "events.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines]


def only_sample(out: Path) -> EvalSample:
    (info,) = list_eval_logs(str(out / "logs"))
    log = read_eval_log(info, resolve_attachments=True)
    assert log.samples is not None and len(log.samples) == 1
    return log.samples[0]


def model_inputs(sample: EvalSample) -> list[list[ChatMessage]]:
    """The conversation the model received at each call, in order."""
    return [e.input for e in sample.events if isinstance(e, ModelEvent)]


def images(message: ChatMessage) -> int:
    return (
        0 if isinstance(message.content, str) else sum(isinstance(p, ContentImage) for p in message.content)
    )


def texts(message: ChatMessage) -> list[str]:
    if isinstance(message.content, str):
        return [message.content]
    return [p.text for p in message.content if isinstance(p, ContentText)]


def test_success_path_records_everything(tmp_path: Path) -> None:
    (row,) = run_replay(tmp_path, [MOVE, CLOSE])
    assert row["success"] is True and row["stop_reason"] == "success"
    assert (row["steps"], row["repairs"], row["model_calls"], row["error"]) == (2, 0, 2, None)
    assert row["model"] == "actloop/replay" and row["protocol"] == "active"
    assert (row["suite"], row["task"], row["seed"], row["run"]) == ("fake", "pick_cube", 0, 0)
    assert row["record_dir"] == "episodes/pick_cube__seed0__run0" and row["duration_s"] > 0
    assert [json.loads(line) for line in (tmp_path / "results.jsonl").read_text().splitlines()] == [row]

    evs = events(tmp_path, row)
    assert [e["type"] for e in evs] == [
        "episode_start",
        "observation",
        "model_output",
        "decision",
        "env_step",
        "observation",
        "model_output",
        "decision",
        "env_step",
        "observation",
        "episode_end",
    ]
    start = evs[0]["data"]
    assert (start["task"], start["seed"], start["model"], start["isolation"]) == (
        "pick_cube",
        0,
        "actloop/replay",
        "inline",
    )
    assert start["instruction"] == "Pick up the red cube." and start["budget"] == 5
    assert start["scene_id"] == "fake-scene" and start["platform"] == {"digest": "fake-platform"}
    assert "Pick up the red cube." in start["system_prompt"]
    first_obs = evs[1]["data"]
    assert first_obs["frames"] == [{"view": "active", "path": "frames/step000_active.png"}]
    assert (
        (tmp_path / row["record_dir"] / "frames" / "step000_active.png").read_bytes().startswith(b"\x89PNG")
    )
    step = evs[4]["data"]
    assert step["decision"] == MOVE and step["reason"] == "descend"
    assert step["proprioception"][0]["gc"] == pytest.approx([0.3, 0.0, 0.88])
    assert step["evaluation"]["checkpoints"] == {"moved": True}
    assert evs[-1]["data"] == row
    assert json.loads((tmp_path / row["record_dir"] / "result.json").read_text()) == row

    sample = only_sample(tmp_path)
    assert sample.scores is not None
    (score,) = sample.scores.values()
    assert score.value == 1
    assert score.explanation == "stop_reason: success; paper-literal verdict: success"
    assert row["paper_success"] is True and row["paper_success_step"] == row["steps"]


def test_each_request_carries_only_the_current_image(tmp_path: Path) -> None:
    run_replay(tmp_path, [MOVE, MOVE, CLOSE])
    inputs = model_inputs(only_sample(tmp_path))
    assert len(inputs) == 3
    for call, conversation in enumerate(inputs):
        users = [m for m in conversation if isinstance(m, ChatMessageUser)]
        assert [images(m) for m in users] == [0] * call + [1]
        assert "GC (finger midpoint)" in texts(users[-1])[0]
        for earlier, message in enumerate(users[:-1]):
            assert f"[image: step {earlier} view active, omitted]" in texts(message)


def test_malformed_reply_is_repaired(tmp_path: Path) -> None:
    (row,) = run_replay(tmp_path, ["I will move down now", MOVE, CLOSE])
    assert row["stop_reason"] == "success" and row["repairs"] == 1 and row["model_calls"] == 3
    rejected = [e["data"] for e in events(tmp_path, row) if e["type"] == "decision_rejected"]
    assert rejected == [{"kind": "json", "message": rejected[0]["message"], "attempt": 1}]
    repair = model_inputs(only_sample(tmp_path))[1][-1]
    assert isinstance(repair, ChatMessageUser) and images(repair) == 0
    (text,) = texts(repair)
    assert rejected[0]["message"] in text and "Repair attempt 1 of 2" in text
    assert "GC (finger midpoint)" in text


def test_repairs_exhausted_end_the_episode(tmp_path: Path) -> None:
    bad = {"action": "gripper.move_world", "axis": "q", "sign": "-", "distance_mm": 20}
    (row,) = run_replay(tmp_path, ["{oops", bad, "no json here", MOVE])
    assert row["stop_reason"] == "invalid_decisions" and row["success"] is False
    assert (row["repairs"], row["model_calls"], row["steps"]) == (2, 3, 0)
    attempts = [e["data"]["attempt"] for e in events(tmp_path, row) if e["type"] == "decision_rejected"]
    assert attempts == [1, 2, 3]


def test_undispatched_action_is_treated_as_rejected(tmp_path: Path) -> None:
    top, side = {"action": "camera.view_topdown"}, {"action": "camera.view_side"}
    (row,) = run_replay(tmp_path, [top, side, top, MOVE, CLOSE])
    assert row["stop_reason"] == "success" and row["repairs"] == 1 and row["steps"] == 4
    evs = events(tmp_path, row)
    refused = [e["data"] for e in evs if e["type"] == "env_step" and not e["data"]["dispatched"]]
    assert len(refused) == 1 and refused[0]["planner_reason"] == "at most 2 camera actions in a row"
    rejected = [e["data"] for e in evs if e["type"] == "decision_rejected"]
    assert rejected == [
        {"kind": "not_dispatched", "message": "at most 2 camera actions in a row", "attempt": 1}
    ]


def test_stop_ends_the_episode(tmp_path: Path) -> None:
    (row,) = run_replay(tmp_path, [{"stop": True, "reason": "done"}])
    assert row["stop_reason"] == "stop" and row["success"] is False and row["steps"] == 0
    assert row["failed_conditions"] == ["lifted", "gripper_closed"]
    score = next(iter((only_sample(tmp_path).scores or {}).values()))
    assert score.value == 0
    assert score.explanation == (
        "stop_reason: stop; failed conditions: lifted, gripper_closed; paper-literal verdict: failure"
    )


def test_budget_ends_the_episode(tmp_path: Path) -> None:
    (row,) = run_replay(tmp_path, [MOVE] * 5 + [CLOSE])
    assert row["stop_reason"] == "budget" and row["steps"] == 5 and row["budget"] == 5
    assert row["model_calls"] == 5


def test_camera_history_tool(tmp_path: Path) -> None:
    history = {"tool": "camera.history", "args": {"step": 0}}
    missing = {"tool": "camera.history", "args": {"step": 99}}
    (row,) = run_replay(tmp_path, [MOVE, history, missing, CLOSE])
    assert row["stop_reason"] == "success" and row["steps"] == 2 and row["repairs"] == 0
    results = [e["data"] for e in events(tmp_path, row) if e["type"] == "tool_result"]
    assert results[0] == {
        "tool": "camera.history",
        "args": {"step": 0},
        "ok": True,
        "frames": [{"view": "active", "path": "frames/step000_active.png"}],
    }
    assert results[1]["ok"] is False and "no images for step 99" in results[1]["message"]
    inputs = model_inputs(only_sample(tmp_path))
    answer = inputs[2][-1]  # the request after the history call ends with its answer
    assert images(answer) == 1 and "image(s) of step 0" in texts(answer)[0]
    assert sum(images(m) for m in inputs[2]) == 2  # the current frame plus the requested one
    assert texts(inputs[3][-1]) == [f"camera.history failed: {results[1]['message']}"]


def test_tool_loop_is_bounded(tmp_path: Path) -> None:
    (row,) = run_replay(tmp_path, [{"tool": "camera.history", "args": {"step": 0}}] * 25)
    assert row["stop_reason"] == "tool_loop" and row["model_calls"] == 20 and row["steps"] == 0


def test_spawned_workers_and_results_rows(tmp_path: Path) -> None:
    episodes = [("pick_cube", 0, 0), ("pick_cube", 0, 1)]
    rows = run_replay(tmp_path, [MOVE, CLOSE], episodes=episodes, isolation="process", workers=2)
    assert [(r["run"], r["stop_reason"]) for r in rows] == [(0, "success"), (1, "success")]
    lines = [json.loads(line) for line in (tmp_path / "results.jsonl").read_text().splitlines()]
    assert sorted(lines, key=lambda r: r["run"]) == rows
    assert len({r["record_dir"] for r in rows}) == 2


def test_pooled_episodes_in_flight_on_two_hosts(tmp_path: Path) -> None:
    episodes = [("pick_cube", seed, 0) for seed in range(6)]
    rows = run_replay(tmp_path, [MOVE, CLOSE], episodes=episodes, isolation="pool", workers=2)
    assert [(r["seed"], r["stop_reason"]) for r in rows] == [(seed, "success") for seed in range(6)]
    starts = [events(tmp_path, r)[0]["data"] for r in rows]
    assert {s["isolation"] for s in starts} == {"pool"}


def test_a_hung_pool_host_becomes_error_rows_and_the_rest_run(tmp_path: Path) -> None:
    hang = {"hang_on_step": 30.0}
    rows = run_replay(tmp_path, [MOVE, CLOSE], isolation="pool", env_kwargs=hang, env_timeout=1.5)
    assert rows[0]["stop_reason"] == "error"
    assert "gave no answer to step() in 1.5 s" in rows[0]["error"]
    (again,) = run_replay(tmp_path / "again", [MOVE, CLOSE], isolation="pool")
    assert again["stop_reason"] == "success"  # a fresh pool, a fresh host


def test_a_frozen_pool_host_fails_only_its_episodes_by_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(get_suite("fake"), "env_call_timeout_s", 3.0)  # the suite's default, made small
    pid_file = tmp_path / "frozen.pid"
    done, hung = threading.Event(), threading.Event()

    def watchdog() -> None:  # a run that hangs is ended (its host killed) so the test fails, not hangs
        if not done.wait(90) and pid_file.exists():
            hung.set()
            os.kill(int(pid_file.read_text()), signal.SIGKILL)

    threading.Thread(target=watchdog, daemon=True).start()
    try:
        rows = run_replay(  # no env_timeout: the suite's default deadline applies
            tmp_path,
            [MOVE, CLOSE],
            episodes=[("pick_cube", seed, 0) for seed in range(6)],
            isolation="pool",
            workers=2,
            env_kwargs={"freeze_on_seed": 0, "pid_file": str(pid_file)},
        )
        with pytest.raises(ProcessLookupError):
            os.kill(int(pid_file.read_text()), 0)  # the harness killed and reaped the stopped host
    finally:
        done.set()
        for sig in (signal.SIGCONT, signal.SIGKILL):
            with contextlib.suppress(ProcessLookupError, FileNotFoundError):
                os.kill(int(pid_file.read_text()), sig)
    assert not hung.is_set(), "the run hung on a stopped environment host"
    assert (rows[0]["seed"], rows[0]["stop_reason"]) == (0, "error")
    assert "environment worker gave no answer to step() in 3.0 s" in rows[0]["error"]
    assert len(rows) == 6 and {r["stop_reason"] for r in rows} == {"success", "error"}  # the rest ran
    for row in rows[1:]:  # an episode fails only if the frozen host held its environment
        assert row["stop_reason"] == "success" or "no answer to step() in 3.0 s" in row["error"]


def test_environment_error_is_recorded(tmp_path: Path) -> None:
    (row,) = run_replay(tmp_path, [MOVE], isolation="process", env_kwargs={"fail_on_step": True})
    assert row["stop_reason"] == "error" and row["success"] is False
    assert row["error"] == "EnvWorkerError: RuntimeError: fake env exploded"
    end = events(tmp_path, row)[-1]
    assert end["type"] == "episode_end" and "fake_env.py" in end["data"]["traceback"]


def test_model_failure_is_an_infra_error(tmp_path: Path) -> None:
    def fail(*args: Any) -> Any:
        raise ConnectionError("provider unreachable")

    model = get_model("mockllm/model", custom_outputs=fail)
    task = episodes_task("fake", [("pick_cube", 0, 0)], "active", tmp_path, isolation="inline")
    inspect_ai.eval(task, model=model, log_dir=str(tmp_path / "logs"), display="none", max_retries=0)
    (row,) = [json.loads(line) for line in (tmp_path / "results.jsonl").read_text().splitlines()]
    assert row["stop_reason"] == "infra_error" and row["model_calls"] == 1
    assert row["error"] == "ConnectionError: provider unreachable"
    assert "ConnectionError" in events(tmp_path, row)[-1]["data"]["traceback"]


def test_environment_build_failure_is_recorded(tmp_path: Path) -> None:
    (row,) = run_replay(tmp_path, [MOVE], env_kwargs={"fail_on_init": True})
    assert (row["stop_reason"], row["steps"], row["model_calls"]) == ("error", 0, 0)
    assert row["error"] == "ValueError: fake env refused to build"
    assert [e["type"] for e in events(tmp_path, row)] == ["episode_end"]


def test_harness_failure_still_leaves_a_row(tmp_path: Path) -> None:
    (tmp_path / "episodes").write_text("not a directory")  # the episode record cannot be created
    (row,) = run_replay(tmp_path, [MOVE, CLOSE])
    assert (row["stop_reason"], row["success"], row["record_dir"]) == ("error", False, None)
    assert "NotADirectoryError" in row["error"]
    assert [json.loads(line) for line in (tmp_path / "results.jsonl").read_text().splitlines()] == [row]


def test_a_lone_surrogate_in_a_reply_is_the_models_stop(tmp_path: Path) -> None:
    reply = '{"stop": true, "reason": "odd \ud800 text"}'  # a raw lone surrogate, as decoded from "\ud800"
    (row,) = run_replay(tmp_path, [reply])
    assert (row["stop_reason"], row["error"]) == ("stop", None)
    record = tmp_path / row["record_dir"]
    lines = [json.loads(line) for line in (record / "events.jsonl").read_bytes().decode("utf-8").splitlines()]
    assert [e["data"]["text"] for e in lines if e["type"] == "model_output"] == [reply]
    assert json.loads((record / "result.json").read_bytes().decode("utf-8"))["stop_reason"] == "stop"
    assert json.loads((tmp_path / "results.jsonl").read_bytes().decode("utf-8")) == row
