"""The command line end to end: tasks listing and a baseline run through Inspect in worker processes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from actloop.cli import main

REQUIRED = {"suite", "task", "seed", "run", "model", "success", "steps", "stop_reason", "record_dir"}


def test_tasks_lists_grasp_single_cube(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tasks", "--suite", "vabench"]) == 0
    out = capsys.readouterr().out
    assert "grasp_single_cube" in out and "50" in out


def test_run_baseline_writes_results_and_records(tmp_path: Path) -> None:
    code = main(
        [
            "run",
            "--suite",
            "vabench",
            "--tasks",
            "grasp_single_cube",
            "--seeds",
            "2",
            "--model",
            "actloop/baseline",
            "--workers",
            "2",
            "--out",
            str(tmp_path),
        ]
    )
    assert code == 0
    rows = [json.loads(line) for line in (tmp_path / "results.jsonl").read_text().splitlines()]
    assert len(rows) == 2
    assert sorted(r["seed"] for r in rows) == [1000, 1001]
    for row in rows:
        assert row.keys() >= REQUIRED
        assert row["model"] == "actloop/baseline" and row["stop_reason"] in {"success", "budget", "stop"}
        record = tmp_path / row["record_dir"]
        events = [json.loads(line) for line in (record / "events.jsonl").read_text().splitlines()]
        assert events[0]["type"] == "episode_start" and events[-1]["type"] == "episode_end"
        assert len(list((record / "frames").glob("step*_active.png"))) == row["steps"] + 1
        assert json.loads((record / "result.json").read_text())["success"] == row["success"]


def test_run_rejects_unverified_seeds(tmp_path: Path) -> None:
    code = main(
        [
            "run",
            "--tasks",
            "grasp_single_cube",
            "--seed-list",
            "7",
            "--model",
            "actloop/baseline",
            "--out",
            str(tmp_path),
        ]
    )
    assert code == 2
    assert not (tmp_path / "results.jsonl").exists()
