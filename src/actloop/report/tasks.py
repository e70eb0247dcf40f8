"""Task metadata a report needs: arm count, step budget and, for held-out variants, the base family."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from actloop.records.recorder import EVENTS_FILE

Group = Literal["single", "dual", "unknown"]


@dataclass(frozen=True)
class TaskInfo:
    """What the report knows about one task name."""

    name: str
    arms: int | None
    """Number of arms the task uses (2 = dual-arm); None when it could not be found out."""
    budget: int | None
    """Step budget (the "Steps" column); None when unknown."""
    base: str | None = None
    """The base family of a held-out variant; None for a base task."""

    @property
    def group(self) -> Group:
        if self.arms is None:
            return "unknown"
        return "dual" if self.arms >= 2 else "single"


TaskLookup = Callable[[str], TaskInfo | None]
"""Returns a task's metadata, or None for a name it does not know."""


def registry_lookup(name: str) -> TaskInfo | None:
    """Metadata from the vabench task registry; None for an unknown name."""
    try:
        from actloop.vabench.task import get_task

        cls = get_task(name)
    except (KeyError, ImportError):
        return None
    base = getattr(cls, "base_task", None)
    if base is not None and not isinstance(base, str):
        base = getattr(base, "name", None)
    return TaskInfo(name, len(cls.arms), int(cls.budget), base)


def resolve_tasks(
    names: Iterable[str],
    lookup: TaskLookup,
    budgets: dict[str, int],
    record_dirs: dict[str, list[Path]],
) -> dict[str, TaskInfo]:
    """Metadata for every name: ``lookup`` first; then the budget seen in rows (``budgets``) and the
    arm count recorded in an episode's ``episode_start`` event (``record_dirs``) fill what is missing."""
    out = {}
    for name in sorted(set(names)):
        info = lookup(name) or TaskInfo(name, None, None)
        arms = info.arms if info.arms is not None else _recorded_arms(record_dirs.get(name, []))
        budget = info.budget if info.budget is not None else budgets.get(name)
        out[name] = TaskInfo(name, arms, budget, info.base)
    return out


def _recorded_arms(directories: list[Path]) -> int | None:
    """The arm count in the first readable ``episode_start`` event among ``directories``."""
    for directory in directories[:5]:
        try:
            with (directory / EVENTS_FILE).open(encoding="utf-8") as lines:
                first = json.loads(lines.readline())
        except (OSError, ValueError):
            continue
        data = first.get("data") if isinstance(first, dict) else None
        space = data.get("action_space") if isinstance(data, dict) else None
        arms = space.get("arms") if isinstance(space, dict) else None
        if first.get("type") == "episode_start" and isinstance(arms, list) and arms:
            return len(arms)
    return None
