"""Running the learning phase through Inspect: one sample per task, summaries stored per model."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Unpack

import inspect_ai
from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import GenerateConfigArgs, get_model
from inspect_ai.solver import Generate, Solver, TaskState, solver

from actloop.agent.failures import ModelFailure
from actloop.records.jsonl import append_line
from actloop.suites.vabench.agent.learning import LearningLoop
from actloop.suites.vabench.agent.summaries import save_summary
from actloop.suites.vabench.demonstration import demonstration_frames, load_demonstration
from actloop.suites.vabench.task import get_task

OUTCOME_KEY = "actloop_learning"
RESULTS_FILE = "learn_results.jsonl"


@solver
def learning_solver(demos: str, summaries: str) -> Solver:
    """Study the sample's task demonstration with the current model and store the accepted summary.

    A long-horizon task's demonstration is one video per atomic skill; its row also names each skill
    video's seed (``skill_seeds``)."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        name = state.metadata["task"]
        model = get_model()
        demo = load_demonstration(Path(demos), name)
        loop = LearningLoop(model, state.messages, demonstration_frames(Path(demos), name))
        row: dict[str, Any] = {"task": name, "model": str(model), "demo_seed": demo.seed}
        if demo.skills:
            row["skill_seeds"] = {video.skill: video.seed for video in demo.skills}
        try:
            outcome = await loop.run(get_task(name).instruction)
        except ModelFailure as exc:
            outcome, row["error"] = loop.outcome, str(exc)
            outcome.stop_reason = "infra_error"
        row.update(
            accepted=outcome.summary is not None,
            stop_reason=outcome.stop_reason,
            frames_seen=outcome.frames_seen,
            model_calls=outcome.model_calls,
            repairs=outcome.repairs,
        )
        if outcome.summary is not None:
            path = save_summary(Path(summaries), str(model), name, outcome.summary, outcome.frames_seen)
            row["summary_path"] = str(path)
        Path(summaries).mkdir(parents=True, exist_ok=True)
        append_line(Path(summaries) / RESULTS_FILE, row)
        state.metadata[OUTCOME_KEY] = row
        return state

    return solve


@task(name="vabench_learn")
def learning_task(tasks: list[str], demos: str, summaries: str) -> Task:
    """One learning conversation per task."""
    samples = [Sample(id=name, input=f"learn {name}", metadata={"task": name}) for name in tasks]
    dataset = MemoryDataset(samples, name="vabench_learn")
    return Task(dataset=dataset, solver=learning_solver(demos, summaries))


def learn(
    tasks: list[str],
    model: str,
    model_args: dict[str, Any],
    demos: Path,
    summaries: Path,
    *,
    model_base_url: str | None = None,
    **generate_args: Unpack[GenerateConfigArgs],
) -> list[dict[str, Any]]:
    """Run the learning phase for ``tasks`` with ``model``; returns one outcome row per task."""
    logs = inspect_ai.eval(
        learning_task(tasks, str(demos), str(summaries)),
        model=model,
        model_base_url=model_base_url,
        model_args=model_args,
        log_dir=str(summaries / "logs"),
        log_images=False,
        display="none",
        fail_on_error=False,
        score_display=False,
        **generate_args,
    )
    rows = []
    for log in logs:
        for sample in log.samples or []:
            row = sample.metadata.get(OUTCOME_KEY)
            error = sample.error.message if sample.error else "the learning solver produced no outcome"
            rows.append(row or {"task": sample.metadata.get("task"), "accepted": False, "error": error})
    return rows
