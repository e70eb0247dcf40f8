"""Re-executing a recorded episode reproduces it step for step; a tampered record is caught."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from actloop.cli import main
from actloop.errors import RecordError
from actloop.suites.vabench.replay import reexecute
from episode_rows import run_json

pytestmark = pytest.mark.filterwarnings("ignore:The 'initial' parameter is deprecated:DeprecationWarning")


@pytest.fixture(scope="module")
def record(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("run")
    (row,) = run_json(
        "vabench", [("grasp_single_cube", 1001, 1)], "actloop/baseline", {}, out, isolation="inline"
    )
    assert row["success"] is True
    return out / row["record_dir"]


def test_a_recorded_episode_reproduces_exactly(record: Path) -> None:
    check = reexecute(record)
    assert check.reproduced and check.bitwise and check.steps > 5 and check.replayed_success is True
    assert check.max_deviation.position_m == 0.0 and check.max_deviation.rotation_rad == 0.0
    steps = [json.loads(line) for line in (record / "events.jsonl").open()]
    last = [e["data"] for e in steps if e["type"] == "env_step"][-1]
    assert check.final_state_hash == last["evaluation"]["state_hash"]
    assert main(["replay", str(record)]) == 0


def test_a_tampered_decision_is_reported_at_its_step(record: Path, tmp_path: Path) -> None:
    copy = tmp_path / "record"
    copy.mkdir()
    lines = (record / "events.jsonl").read_text().splitlines()
    events = [json.loads(line) for line in lines]
    moves = [e for e in events if e["type"] == "env_step" and e["data"]["decision"].get("distance_mm")]
    moves[1]["data"]["decision"]["distance_mm"] += 7.0
    (copy / "events.jsonl").write_text("\n".join(json.dumps(e) for e in events) + "\n")
    check = reexecute(copy)
    assert not check.reproduced
    assert check.differences[0].startswith(f"step {moves[1]['data']['step']}:")
    assert main(["replay", str(copy)]) == 1


def test_a_record_cut_off_mid_line_is_replayed_as_incomplete_at_that_line(
    record: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    copy = tmp_path / "torn"
    copy.mkdir()
    lines = (record / "events.jsonl").read_bytes().rstrip(b"\n").split(b"\n")
    (copy / "events.jsonl").write_bytes(b"\n".join([*lines[:-1], lines[-1][:40]]))  # episode_end cut off
    check = reexecute(copy)
    torn = f"{copy / 'events.jsonl'}:{len(lines)}: unreadable line, cut off without a line end"
    assert not check.reproduced and check.differences == [] and check.replayed_success is True
    assert len(check.unreadable) == 1 and check.unreadable[0].startswith(torn)
    assert main(["replay", str(copy)]) == 1
    printed = capsys.readouterr().out
    assert f"incomplete record {copy}: " in printed and f"  {torn}" in printed and "differs" not in printed
    assert "final success: not recorded (no episode_end event), replayed True" in printed


def test_a_directory_without_a_record_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(RecordError, match="episode record directory"):
        reexecute(tmp_path)


def _copy_record(record: Path, destination: Path, edit: Callable[[list[dict[str, Any]]], None]) -> Path:
    destination.mkdir()
    events = [json.loads(line) for line in (record / "events.jsonl").read_text().splitlines()]
    edit(events)
    (destination / "events.jsonl").write_text("\n".join(json.dumps(e) for e in events) + "\n")
    return destination


def _from_another_platform(events: list[dict[str, Any]]) -> None:
    start = next(e for e in events if e["type"] == "episode_start")
    start["data"]["platform"] = {**start["data"]["platform"], "digest": "another-machine"}
    for event in events:
        if event["type"] == "env_step":
            event["data"]["evaluation"]["state_hash"] = "0" * 64  # its bits need not match here


def test_a_record_from_another_platform_is_compared_within_tolerance(record: Path, tmp_path: Path) -> None:
    copy = _copy_record(record, tmp_path / "elsewhere", _from_another_platform)
    check = reexecute(copy)
    assert check.reproduced and not check.bitwise and check.mode == "within tolerance"
    assert check.max_deviation.position_m == 0.0  # this machine's own replay: the poses agree exactly


def test_every_differing_step_is_reported_with_its_magnitude(record: Path, tmp_path: Path) -> None:
    def drift(events: list[dict[str, Any]]) -> None:
        _from_another_platform(events)
        steps = [e["data"] for e in events if e["type"] == "env_step"]
        for step in steps[2:4]:
            step["evaluation"]["poses"]["cube"][2] += 0.05
        steps[-1]["evaluation"]["checkpoints"]["grasped"] = False

    check = reexecute(_copy_record(record, tmp_path / "drifted", drift))
    steps = [json.loads(line)["data"] for line in (record / "events.jsonl").open()]
    recorded = [s for s in steps if "evaluation" in s]
    assert not check.reproduced and check.steps == len(recorded)  # played to the end
    assert [line.split(":")[0] for line in check.differences] == [
        f"step {recorded[2]['step']}",
        f"step {recorded[3]['step']}",
        f"step {recorded[-1]['step']}",
    ]
    assert "50 mm (cube)" in check.differences[0]
    assert "checkpoints differ: grasped False→True" in check.differences[-1]
    assert abs(check.max_deviation.position_m - 0.05) < 1e-9
