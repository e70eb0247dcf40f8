"""``inspect eval actloop/<suite>``: each installed suite is an Inspect task with sensible defaults."""

from __future__ import annotations

import json
from pathlib import Path

import inspect_ai
import pytest

from actloop.records.results import read_results

pytestmark = pytest.mark.filterwarnings("ignore:The 'initial' parameter is deprecated:DeprecationWarning")


def test_the_vabench_task_runs_by_its_registered_name(tmp_path: Path) -> None:
    decisions = tmp_path / "stop.json"
    decisions.write_text(json.dumps([{"stop": True, "reason": "looked enough"}]))
    (log,) = inspect_ai.eval(
        "actloop/vabench",
        model="actloop/replay",
        model_args={"decisions": str(decisions)},
        task_args={
            "tasks": "grasp_single_cube",
            "seeds": "1001,1003",
            "protocol": "passive",
            "out_dir": str(tmp_path),
        },
        log_dir=str(tmp_path / "logs"),
        display="none",
    )
    assert log.status == "success" and log.eval.task == "actloop/vabench"
    rows = read_results(tmp_path).rows
    assert sorted((r.task, r.seed, r.protocol, r.stop_reason) for r in rows) == [
        ("grasp_single_cube", 1001, "passive", "stop"),
        ("grasp_single_cube", 1003, "passive", "stop"),
    ]
    assert all((tmp_path / r.record_dir / "events.jsonl").is_file() for r in rows if r.record_dir)


def test_by_default_every_task_and_verified_seed_is_planned() -> None:
    from actloop.agent.task import select_episodes
    from actloop.core.suite import get_suite

    suite = get_suite("vabench")
    episodes = select_episodes("vabench")
    base_tasks = suite.resolve_tasks("all")
    assert len(episodes) == sum(len(suite.verified_seeds(t)) for t in base_tasks) == 20 * len(base_tasks)
    assert {task for task, _, _ in episodes} == set(base_tasks)
    assert all(suite.task_info(t).track == "base" for t in base_tasks)
    assert select_episodes("vabench", "grasp_single_cube", 5, runs=2)[-1] == ("grasp_single_cube", 1004, 2)
