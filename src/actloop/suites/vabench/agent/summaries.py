"""Stored demonstration summaries, one per (summary model, task), and the summary conditions of a run.

Conditions: ``own`` (each evaluated model uses the summary it wrote), ``shared:<model>`` (every model
uses the named model's summary), ``none`` (no summary). Held-out variants use their base task's summary;
a long-horizon task has its own, written from its skill videos.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from actloop.core.result import NO_SUMMARY, model_slug
from actloop.errors import ConfigError
from actloop.suites.vabench.agent.learning import FramesSeen, summary_text


def summary_path(root: Path, model: str, task: str) -> Path:
    return root / model_slug(model) / f"{task}.json"


def save_summary(root: Path, model: str, task: str, summary: dict[str, Any], frames_seen: FramesSeen) -> Path:
    """Store an accepted summary with the frames its author inspected (per video for a long-horizon task's
    skill videos)."""
    path = summary_path(root, model, task)
    path.parent.mkdir(parents=True, exist_ok=True)
    record = {
        "task": task,
        "model": model,
        "summary": summary,
        "frames_inspected": frames_seen,
        "created_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    path.write_text(json.dumps(record, indent=2) + "\n")
    return path


def load_summary(root: Path, model: str, task: str) -> dict[str, Any]:
    path = summary_path(root, model, task)
    if not path.exists():
        raise ConfigError(
            f"no summary of {task!r} by {model!r} in {root}; "
            f"run `actloop learn --tasks {task} --model {model} --summaries {root}`"
        )
    return json.loads(path.read_text())


def summary_source(condition: str, evaluated_model: str) -> str | None:
    """The model whose summaries a condition uses, or None for ``none``."""
    if condition == NO_SUMMARY:
        return None
    if condition == "own":
        return evaluated_model
    if condition.startswith("shared:") and len(condition) > len("shared:"):
        return condition.removeprefix("shared:")
    raise ConfigError(f"summary condition must be own, shared:<model> or none; got {condition!r}")


def resolve_summaries(
    condition: str, evaluated_model: str, tasks: dict[str, str], root: Path
) -> dict[str, str]:
    """Prompt text per task under ``condition``; ``tasks`` maps each task to the task whose summary it
    uses (itself, or a variant's base task). Raises ConfigError naming the first missing summary."""
    source = summary_source(condition, evaluated_model)
    if source is None:
        return {}
    return {
        task: summary_text(load_summary(root, source, summary_task)["summary"])
        for task, summary_task in tasks.items()
    }
