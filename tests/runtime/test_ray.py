"""Environments as Ray actors on a local Ray cluster started by the test: same results as local workers."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from actloop.runtime.ray_actor import EnvActorError, RayEnv
from episode_rows import run_json

ray = pytest.importorskip("ray")
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")
EPISODES = [("grasp_single_cube", 1000, 1), ("grasp_single_cube", 1003, 1)]


@pytest.fixture(scope="module")
def cluster() -> Iterator[None]:
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def outcome(out: Path, row: dict[str, Any]) -> tuple[Any, ...]:
    events = map(json.loads, (out / row["record_dir"] / "events.jsonl").read_text().splitlines())
    hashes = [e["data"]["evaluation"]["state_hash"] for e in events if e["type"] == "env_step"]
    return row["success"], row["steps"], row["stop_reason"], tuple(hashes)


def test_ray_actors_give_the_same_results_as_local_workers(cluster: None, tmp_path: Path) -> None:
    local = run_json(
        "vabench", EPISODES, "actloop/baseline", {}, tmp_path / "local", workers=2, isolation="process"
    )
    remote = run_json(
        "vabench", EPISODES, "actloop/baseline", {}, tmp_path / "ray", workers=2, isolation="ray"
    )
    assert [outcome(tmp_path / "local", r) for r in local] == [outcome(tmp_path / "ray", r) for r in remote]
    assert all(r["success"] for r in remote)


def test_an_actor_failure_is_reported_with_its_cause(cluster: None) -> None:
    with pytest.raises(EnvActorError, match="unknown vabench task"):
        RayEnv("actloop.suites.vabench.env:SpatialEnv", {"task": "no_such_task", "seed": 1000})
