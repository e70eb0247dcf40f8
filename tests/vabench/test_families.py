"""Checks every registered vabench family must pass: determinism, manifests, expert success."""

from __future__ import annotations

import numpy as np
import pytest

from actloop.vabench.env import SpatialEnv
from actloop.vabench.seeds import EVALUATION_SEEDS, load_manifest, run_expert, scene_hash
from actloop.vabench.task import get_task, task_names

FAMILIES = task_names()


@pytest.mark.parametrize("task", FAMILIES)
def test_layout_is_a_pure_function_of_the_seed(task: str) -> None:
    cls = get_task(task)
    assert cls(1000).layout == cls(1000).layout
    assert cls(1000).objects() == cls(1000).objects()
    assert cls(1000).layout != cls(1001).layout


@pytest.mark.parametrize("task", FAMILIES)
def test_reset_is_deterministic_and_not_a_success(task: str) -> None:
    first, second, other = SpatialEnv(task, 1000), SpatialEnv(task, 1000), SpatialEnv(task, 1001)
    try:
        a, b, c = first.reset(), second.reset(), other.reset()
        assert a.evaluation.state_hash == b.evaluation.state_hash != c.evaluation.state_hash
        assert a.observation.frames[0].png == b.observation.frames[0].png
        assert a.evaluation.success is False
        assert not any(a.evaluation.checkpoints.values())
        first.reset()
        assert first.evaluate().state_hash == a.evaluation.state_hash
    finally:
        for env in (first, second, other):
            env.close()


@pytest.mark.parametrize("task", FAMILIES)
def test_manifest_holds_20_seeds_a_separate_demo_seed_and_reproduces(task: str) -> None:
    manifest = load_manifest(task)
    seeds = manifest.seed_list()
    assert len(seeds) == EVALUATION_SEEDS == len(set(seeds)) == manifest.retained
    assert seeds == sorted(seeds) and seeds[0] >= 1000
    assert manifest.demo_seed is not None and manifest.demo_seed > seeds[-1]
    assert manifest.probed >= EVALUATION_SEEDS + 1
    entry = manifest.seeds[0]
    assert scene_hash(task, entry["seed"]) == entry["scene_hash"]


@pytest.mark.parametrize("task", FAMILIES)
def test_expert_succeeds_on_a_manifest_seed_reaching_every_checkpoint(task: str) -> None:
    seed = load_manifest(task).seed_list()[-1]
    env = SpatialEnv(task, seed)
    try:
        ok, steps, reason = run_expert(env)
        assert ok, reason
        assert steps <= env.budget
        evaluation = env.evaluate()
        assert evaluation.checkpoints and all(evaluation.checkpoints.values()), evaluation.checkpoints
        assert all(np.isfinite(v) for v in evaluation.metrics.values())
    finally:
        env.close()
