"""Task metadata a report needs: arm count, step budget, track and, for held-out variants, the base
family."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

from actloop.core.suite import TaskInfo, suites
from actloop.errors import RecordError, UnknownTask
from actloop.records.recorder import read_start

TaskLookup = Callable[[str], TaskInfo | None]
"""Returns a task's metadata, or None for a name it does not know."""


def registry_lookup(name: str) -> TaskInfo | None:
    """Metadata from the first installed suite that has a task ``name``; None when none has."""
    for suite in suites().values():
        try:
            return suite.task_info(name)
        except UnknownTask:
            continue
    return None


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
        out[name] = TaskInfo(name, arms, budget, info.base, info.instruction, info.track)
    return out


def _recorded_arms(directories: list[Path]) -> int | None:
    """The arm count in the first readable ``episode_start`` event among ``directories``."""
    for directory in directories[:5]:
        try:
            space = read_start(directory).get("action_space")
        except RecordError:
            continue
        arms = space.get("arms") if isinstance(space, dict) else None
        if isinstance(arms, list) and arms:
            return len(arms)
    return None
