"""Inspect tasks: one sample per (task, seed, run) episode of a suite.

:func:`episodes_task` runs an explicit episode list (what :func:`actloop.evaluate` uses);
:func:`suite_task` builds the task ``inspect eval actloop/<suite>`` runs, with defaults a user expects
(every task, every verified seed) and ``-T tasks=... -T seeds=N -T protocol=... -T runs=N -T out_dir=...``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample

from actloop.agent.scorer import episode_scorer
from actloop.agent.solver import EpisodeSpec, episode_solver
from actloop.core.suite import get_suite
from actloop.errors import ConfigError
from actloop.runtime.make import Isolation

Episode = tuple[str, int, int]
"""(task, seed, run)."""


def episode_sample(spec: EpisodeSpec) -> Sample:
    """The sample for one episode; its metadata is what the solver reads."""
    return Sample(
        id=spec.name,
        input=f"{spec.suite} episode {spec.task} seed {spec.seed} run {spec.run} ({spec.protocol})",
        metadata=asdict(spec),
    )


def episodes_task(
    suite: str,
    episodes: list[Episode],
    protocol: str,
    out_dir: str | Path,
    env_factory: str | None = None,
    isolation: Isolation = "process",
    env_kwargs: dict[str, Any] | None = None,
    env_timeout: float | None = None,
    harness: dict[str, Any] | None = None,
    pool: str | None = None,
) -> Task:
    """Episodes ``(task, seed, run)`` of ``suite``; records and results go to ``out_dir``; ``pool`` names
    the open environment pool of ``isolation="pool"``; ``env_timeout`` bounds each environment call of a
    worker process or Ray actor (see :func:`env_call_timeout`)."""
    specs = [EpisodeSpec(suite, name, seed, run, protocol) for name, seed, run in episodes]
    names = [spec.name for spec in specs]
    if len(set(names)) != len(names):
        raise ConfigError(
            f"duplicate (task, seed, run) episodes: {sorted({n for n in names if names.count(n) > 1})}"
        )
    return Task(
        dataset=MemoryDataset([episode_sample(spec) for spec in specs], name=suite),
        solver=episode_solver(
            str(out_dir),
            env_factory,
            isolation,
            env_kwargs,
            env_call_timeout(suite, env_timeout),
            harness,
            pool,
        ),
        scorer=episode_scorer(),
    )


def env_call_timeout(suite: str, given: float | None = None) -> float:
    """How long one environment call may take (s): ``given``, else the suite's default."""
    return get_suite(suite).env_call_timeout_s if given is None else given


def select_episodes(
    suite: str, tasks: str | list[str] = "all", seeds: int | list[int] | None = None, runs: int = 1
) -> list[Episode]:
    """``(task, seed, run)`` for ``tasks`` (``all`` or names), the first ``seeds`` verified seeds of each
    (an explicit list must hold verified seeds; None means all of them) and runs ``1..runs``."""
    chosen = get_suite(suite)
    if runs < 1:
        raise ConfigError(f"runs must be at least 1, got {runs}")
    episodes = []
    for name in chosen.resolve_tasks(tasks):
        if isinstance(seeds, list):
            seed_list = chosen.select_seeds(name, explicit=seeds)
        else:
            seed_list = chosen.select_seeds(name, count=seeds)
        episodes += [(name, seed, run) for run in range(1, runs + 1) for seed in seed_list]
    return episodes


def suite_task(suite: str) -> Callable[..., Task]:
    """The Inspect task of ``suite``, registered as ``actloop/<suite>``."""

    @task(name=suite)
    def run_suite(
        tasks: str | list[str] = "all",
        seeds: int | list[int] | None = None,
        runs: int = 1,
        protocol: str | None = None,
        out_dir: str = f"runs/inspect/{suite}",
    ) -> Task:
        chosen = get_suite(suite)
        chosen.check_runnable()
        if isinstance(seeds, str):  # -T seeds=1000,1001
            seeds = [int(s) for s in seeds.split(",") if s.strip()]
        return episodes_task(
            suite,
            select_episodes(suite, tasks, seeds, runs),
            protocol or chosen.protocols[0],
            out_dir,
        )

    return run_suite
