"""Episode records: event lines, frame files, env_step contents, result.json and results.jsonl."""

from __future__ import annotations

import json
import multiprocessing
from datetime import datetime
from pathlib import Path

import pytest

from actloop.core.result import ResultRow
from actloop.records import EpisodeRecorder, fresh_dir, write_result
from actloop.suites.vabench.agent.record import record_env_step, record_observation
from actloop.suites.vabench.protocol.decisions import MoveWorld, Translation
from actloop.suites.vabench.protocol.observation import ArmState, Feedback, Frame, Observation
from actloop.suites.vabench.protocol.step import Evaluation, StepResult, Transition

ARM = ArmState(
    arm="right",
    ee_position=(0.3, 0.0, 1.0),
    ee_quaternion=(0.0, 1.0, 0.0, 0.0),
    ee_rpy_deg=(180.0, 0.0, 0.0),
    gripper="open",
    gc=(0.3, 0.0, 0.9),
    axes={"rx": (0.0, 0.0, -1.0), "ry": (0.0, 1.0, 0.0), "rz": (1.0, 0.0, 0.0)},
    approach_tilt_deg=0.0,
)


def observation(step: int, png: bytes = b"\x89PNG-a") -> Observation:
    feedback = Feedback("gripper.move_world", True, False, "target unreachable")
    return Observation("Pick.", step, 50, (ARM,), feedback, (Frame("active", png),))


def read_events(directory: Path) -> list[dict]:
    return [json.loads(line) for line in (directory / "events.jsonl").read_text().splitlines()]


def test_events_frames_and_result(tmp_path: Path) -> None:
    rec = EpisodeRecorder(tmp_path / "ep")
    rec.event("episode_start", {"task": "pick"})
    frames = record_observation(rec, observation(3))
    assert frames == [{"view": "active", "path": "frames/step003_active.png"}]
    assert (tmp_path / "ep" / "frames" / "step003_active.png").read_bytes() == b"\x89PNG-a"
    # same name, same bytes: reused; same name, new bytes: a new file
    assert record_observation(rec, observation(3))[0]["path"] == "frames/step003_active.png"
    assert record_observation(rec, observation(3, b"\x89PNG-b"))[0]["path"] == "frames/step003_active-2.png"

    decision = MoveWorld(Translation("z", "-", 20.0), reason="descend")
    evaluation = Evaluation(False, {"lifted": False}, {"reached": True}, "abc123")
    record_env_step(rec, decision, Transition(StepResult(observation(4)), evaluation))
    rec.finish({"success": False, "stop_reason": "budget", "steps": 4})

    events = read_events(tmp_path / "ep")
    assert [e["type"] for e in events] == [
        "episode_start",
        "observation",
        "observation",
        "observation",
        "env_step",
        "episode_end",
    ]
    for e in events:
        assert datetime.fromisoformat(e["created_at"]).tzinfo is not None
    assert "GC (finger midpoint)" in events[1]["data"]["text"]
    step = events[4]["data"]
    assert step["decision"] == {
        "action": "gripper.move_world",
        "axis": "z",
        "sign": "-",
        "distance_mm": 20.0,
        "reason": "descend",
    }
    assert step["reason"] == "descend"
    assert (step["valid"], step["planner_success"], step["planner_reason"]) == (
        True,
        False,
        "target unreachable",
    )
    assert step["dispatched"] is True
    assert step["proprioception"][0]["gc"] == [0.3, 0.0, 0.9]
    assert step["proprioception"][0]["axes"]["rx"] == [0.0, 0.0, -1.0]
    assert step["evaluation"] == {
        "success": False,
        "conditions": {"lifted": False},
        "checkpoints": {"reached": True},
        "state_hash": "abc123",
        "metrics": {},
        "paper_success": False,
        "paper_conditions": {},
        "poses": {},
    }
    assert json.loads((tmp_path / "ep" / "result.json").read_text())["stop_reason"] == "budget"
    with pytest.raises(ValueError, match="closed"):
        rec.event("observation", {})


def test_records_are_never_overwritten(tmp_path: Path) -> None:
    base = tmp_path / "pick__seed0__run0"
    assert fresh_dir(base) == base
    EpisodeRecorder(base).close()
    with pytest.raises(FileExistsError):
        EpisodeRecorder(base)
    assert fresh_dir(base) == tmp_path / "pick__seed0__run0-2"


def _append_many(out_dir: str, worker: int) -> None:
    for i in range(50):
        row = ResultRow("vabench", f"t{worker}", i, 1, "m", "active", error="x" * 2000)
        write_result(Path(out_dir), row)


def test_write_result_from_several_processes(tmp_path: Path) -> None:
    ctx = multiprocessing.get_context("fork")
    procs = [ctx.Process(target=_append_many, args=(str(tmp_path), w)) for w in range(3)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(30)
    rows = [json.loads(line) for line in (tmp_path / "results.jsonl").read_text().splitlines()]
    assert len(rows) == 150
    assert sorted((r["task"], r["seed"]) for r in rows) == [(f"t{w}", i) for w in range(3) for i in range(50)]


def test_a_lone_surrogate_from_the_model_is_recorded(tmp_path: Path) -> None:
    rec = EpisodeRecorder(tmp_path / "ep")
    rec.event("model_output", {"text": '{"stop": true, "reason": "\ud800"}'})
    rec.finish({"stop_reason": "stop", "reason": "\ud800 é"})
    events = (tmp_path / "ep" / "events.jsonl").read_bytes().decode("utf-8")
    result = (tmp_path / "ep" / "result.json").read_bytes().decode("utf-8")
    assert [json.loads(line)["data"] for line in events.splitlines()] == [
        {"text": '{"stop": true, "reason": "\ud800"}'},
        {"stop_reason": "stop", "reason": "\ud800 é"},
    ]
    assert json.loads(result) == {"stop_reason": "stop", "reason": "\ud800 é"} and "é" in result
