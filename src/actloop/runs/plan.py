"""The run API: a :class:`RunPlan` (suite, episodes, conditions, how models are called) and
:func:`evaluate`, which runs it, resuming whatever an earlier run of the same plan left undone.

Conditions are models × protocols × summary conditions (with coding agents, agents × models × protocols:
each condition's model is then ``agent:provider/name``); each has its own output directory, claimed for
that condition, under a lock covering the whole output directory (:mod:`actloop.runs.layout`).
``results.jsonl`` is the source of truth: evaluating the same plan again runs only the episodes without
a row (and configuration failures), so a killed run loses nothing and duplicates nothing.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from actloop.agent.options import DEFAULT_CONTEXT_LIMIT, HarnessOptions
from actloop.agent.task import Episode, select_episodes
from actloop.core.result import NO_SUMMARY, Condition, ResultRow
from actloop.core.suite import Player, PlayOptions, get_suite
from actloop.errors import ConfigError
from actloop.runs import layout, matrix
from actloop.runs.inspect_run import check_model, run_episodes
from actloop.runs.retries import watch_retries
from actloop.runtime.make import Isolation

DEFAULT_SUMMARIES = Path("runs/summaries")
GENERATION_SETTINGS = ("temperature", "max_tokens", "max_retries", "timeout")


@dataclass(frozen=True)
class RunPlan:
    """Everything that decides what a run does. ``seeds``: the first N verified seeds of each task, an
    explicit list of verified seeds, or None for all of them. ``protocols`` default to the suite's first.
    ``generation`` holds provider settings (``temperature``, ``max_tokens``, ``max_retries``,
    ``timeout``). ``env_factory`` replaces the suite's environment (for tests).

    ``workers`` is the number of environment processes (default: one per core; with a Ray cluster or
    ``isolation="process"``, the number of episodes at once, default 1); ``max_in_flight`` is how many
    episodes run at once in a pool (default: the model's connection limit). ``env_timeout`` is how long
    one environment call may take before its process is taken as hung (default: the suite's
    :attr:`~actloop.core.suite.Suite.env_call_timeout_s`)."""

    models: list[str]
    out: Path
    suite: str = "vabench"
    tasks: str | list[str] = "all"
    seeds: int | list[int] | None = None
    runs: int = 1
    protocols: list[str] | None = None
    summaries: list[str] = field(default_factory=lambda: [NO_SUMMARY])
    workers: int | None = None
    max_in_flight: int | None = None
    model_args: dict[str, Any] = field(default_factory=dict)
    model_base_url: str | None = None
    generation: dict[str, Any] = field(default_factory=dict)
    context_limit: int = DEFAULT_CONTEXT_LIMIT
    price_in: float | None = None
    price_out: float | None = None
    summary_store: Path = DEFAULT_SUMMARIES
    retry_errors: bool = False
    ray: str | None = None
    isolation: Isolation = "pool"
    env_factory: str | None = None
    env_timeout: float | None = None
    agents: list[str] = field(default_factory=list)
    """Coding agents that play instead of the models themselves (lab: ``claude-code``, ``codex``,
    ``command:"..."``); each plays with each model."""
    reasoning: str | None = None
    """The coding agents' reasoning setting (default: the middle one)."""

    def episodes(self) -> list[Episode]:
        """``(task, seed, run)`` of every episode each condition runs."""
        return select_episodes(self.suite, self.tasks, self.seeds, self.runs)

    def conditions(self) -> list[Condition]:
        suite = get_suite(self.suite)
        protocols = self.protocols or [suite.protocols[0]]
        unknown = sorted(set(protocols) - set(suite.protocols))
        if unknown:
            raise ConfigError(f"unknown protocol(s) {unknown}; {suite.name} has {', '.join(suite.protocols)}")
        if not self.models:
            raise ConfigError("no model given")
        if self.workers is not None and self.workers < 1:
            raise ConfigError(f"workers must be at least 1, got {self.workers}")
        if self.max_in_flight is not None and self.max_in_flight < 1:
            raise ConfigError(f"max episodes in flight must be at least 1, got {self.max_in_flight}")
        if self.env_timeout is not None and not self.env_timeout > 0:
            raise ConfigError(f"the environment call timeout must be positive, got {self.env_timeout}")
        if self.agents:
            return layout.conditions([p.label for p in self.players()], protocols, self.summaries)
        return layout.conditions(self.models, protocols, self.summaries)

    def players(self) -> list[Player]:
        """Each coding agent with each model (none without agents)."""
        if not self.agents:
            return []
        return get_suite(self.suite).players(self.agents, self.models, self.model_base_url, self.reasoning)

    def settings(self) -> dict[str, Any]:
        """How the models are called: recorded with each condition, and part of what a resume must match."""
        unknown = sorted(set(self.generation) - set(GENERATION_SETTINGS))
        if unknown:
            raise ConfigError(
                f"unknown generation settings {unknown}; known: {', '.join(GENERATION_SETTINGS)}"
            )
        return {
            "model_args": self.model_args,
            "model_base_url": self.model_base_url,
            "generation": self.generation,
        }


@dataclass
class RunOutcome:
    """What :func:`evaluate` returns: the counted row of every planned episode of every condition that
    ran, the condition directories, and the configuration failure that stopped the run, if one did."""

    rows: list[ResultRow]
    dirs: list[Path]
    stopped: ResultRow | None = None


Log = matrix.Log


def evaluate(plan: RunPlan, log: Log = lambda line: None, progress_every_s: float = 5.0) -> RunOutcome:
    """Run ``plan``; episodes already recorded in its output directories are not run again.

    ``log`` receives progress lines. A configuration failure (a wrong key, model or endpoint) stops the
    run after the condition it hit; its episodes run again next time.
    """
    suite = get_suite(plan.suite)
    suite.check_runnable()
    episodes = plan.episodes()
    matrix_conditions = plan.conditions()
    settings = plan.settings()
    tasks = sorted({task for task, _, _ in episodes})
    harnesses = [
        _harness(plan, c, suite.summaries(c.summary, c.model, tasks, plan.summary_store))
        for c in matrix_conditions
    ]
    players = {p.label: p for p in plan.players()}
    _check_players(plan, matrix_conditions, players)  # a missing key fails before any episode
    dirs = [layout.condition_dir(plan.out, c, matrix_conditions) for c in matrix_conditions]
    isolation = plan.isolation
    if plan.ray:
        from actloop.runtime.ray_actor import connect

        connect(plan.ray)
        isolation = "ray"
    workers = plan.workers or (usable_cores() if isolation == "pool" else 1)
    how = f"{workers} environment process(es)" if isolation == "pool" else f"{workers} worker(s)"
    if isolation == "pool" and plan.max_in_flight:
        how += f", up to {plan.max_in_flight} episodes in flight"
    log(f"{len(matrix_conditions)} condition(s) x {len(episodes)} episode(s) -> {plan.out}")
    stopped: ResultRow | None = None
    described = [
        layout.describe(condition, {**settings, **_player_settings(players.get(condition.model))})
        for condition in matrix_conditions
    ]
    claims = list(zip(dirs, described, strict=True))
    with (
        layout.claimed(plan.out, claims),
        watch_retries() as retries,
        matrix.progress(log, dirs, set(episodes), progress_every_s, retries),
    ):
        for condition, harness, out_dir in zip(matrix_conditions, harnesses, dirs, strict=True):
            todo = matrix.resume(out_dir, episodes, plan.retry_errors, log)
            if len(todo) < len(episodes):
                log(f"{condition.slug}: {len(episodes) - len(todo)} episode(s) already recorded")
            if not todo:
                continue
            log(f"running {len(todo)} episode(s) of {condition.model} with {how} -> {out_dir}")
            player = players.get(condition.model)
            if player is not None:
                options = PlayOptions(
                    condition.protocol,
                    workers,
                    isolation,
                    plan.max_in_flight,
                    plan.env_timeout,
                    plan.env_factory,
                    harness.prices_per_mtok,
                )
                ran = player.play(todo, out_dir, options)
                stopped = next((r for r in ran if r.error_kind == "configuration"), None)
                if stopped is not None:
                    break
                continue
            ran = run_episodes(
                plan.suite,
                todo,
                condition.model,
                plan.model_args,
                out_dir,
                workers=workers,
                max_in_flight=plan.max_in_flight,
                protocol=condition.protocol,
                env_factory=plan.env_factory,
                isolation=isolation,
                model_base_url=plan.model_base_url,
                env_timeout=plan.env_timeout,
                harness=harness,
                **plan.generation,
            )
            stopped = next((r for r in ran if r.error_kind == "configuration"), None)
            if stopped is not None:
                break
    rows = [row for out_dir in dirs for row in matrix.episode_rows(out_dir, set(episodes))]
    return RunOutcome(rows, dirs, stopped)


def _check_players(plan: RunPlan, conditions: list[Condition], players: dict[str, Player]) -> None:
    """Each model, or each player, can be called: a missing key fails before any episode."""
    for name in dict.fromkeys(c.model for c in conditions):
        player = players.get(name)
        if player is None:
            check_model(name, plan.model_args, plan.model_base_url)
        else:
            player.check()


def _player_settings(player: Player | None) -> dict[str, Any]:
    """What a player's condition records besides the run's settings."""
    return {} if player is None else player.settings()


def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity where the platform tells, else all)."""
    affinity = getattr(os, "sched_getaffinity", None)
    return len(affinity(0)) if affinity else os.cpu_count() or 1


def _harness(plan: RunPlan, condition: Condition, summaries: dict[str, str]) -> HarnessOptions:
    return HarnessOptions(
        context_limit=plan.context_limit,
        price_in=plan.price_in,
        price_out=plan.price_out,
        summary=condition.summary,
        summaries=summaries,
    )
