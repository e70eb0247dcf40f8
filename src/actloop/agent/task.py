"""The Inspect task: one sample per (task, seed, run) episode."""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path
from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample

from actloop.agent.scorer import episode_scorer
from actloop.agent.solver import DEFAULT_ENV_FACTORY, EpisodeSpec, episode_solver
from actloop.runtime.make import Isolation

SUITE = "vabench"


def episode_sample(spec: EpisodeSpec) -> Sample:
    """The sample for one episode; its metadata is what the solver reads."""
    return Sample(
        id=spec.name,
        input=f"{spec.suite} episode {spec.task} seed {spec.seed} run {spec.run} ({spec.protocol})",
        metadata=asdict(spec),
    )


@task(name="vabench")
def vabench_task(
    tasks: list[tuple[str, int, int]],
    protocol: str = "active",
    out_dir: str | Path = "runs/vabench",
    env_factory: str = DEFAULT_ENV_FACTORY,
    isolation: Isolation = "process",
    env_kwargs: dict[str, Any] | None = None,
    env_timeout: float | None = None,
    harness: dict[str, Any] | None = None,
) -> Task:
    """Episodes ``(task, seed, run)`` of the spatial suite; records and results go to ``out_dir``."""
    specs = [EpisodeSpec(SUITE, name, seed, run, protocol) for name, seed, run in tasks]
    names = [spec.name for spec in specs]
    if len(set(names)) != len(names):
        raise ValueError(
            f"duplicate (task, seed, run) episodes: {sorted({n for n in names if names.count(n) > 1})}"
        )
    return Task(
        dataset=MemoryDataset([episode_sample(spec) for spec in specs], name=SUITE),
        solver=episode_solver(str(out_dir), env_factory, isolation, env_kwargs, env_timeout, harness),
        scorer=episode_scorer(),
    )
