"""Result rows (one per finished episode in ``results.jsonl``): which episode a row is, and which row counts.

An episode is identified by ``(suite, task, seed, run, model, protocol, summary)``; a row without
``suite``, ``protocol`` or ``summary`` has ``"vabench"``, ``"active"`` or ``"none"``. When an episode has
several rows (a rerun after an infra error, or the same episode in two output directories), a completed
row is preferred over an ``infra_error``/``error`` row, and otherwise the later row wins. The report and
the episode table both choose rows this way.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeVar

NO_SUMMARY = "none"
FAILURES = ("infra_error", "error")
"""Stop reasons of episodes that did not complete: the model provider or the harness failed."""

EpisodeKey = tuple[str, str, int, int, str, str, str]
"""(suite, task, seed, run, model, protocol, summary)."""

T = TypeVar("T")


def episode_key(row: Mapping[str, Any]) -> EpisodeKey:
    """The episode ``row`` records; raises KeyError/ValueError/TypeError without a valid task, seed, run
    and model."""
    return (
        str(row.get("suite") or "vabench"),
        str(row["task"]),
        int(row["seed"]),
        int(row["run"]),
        str(row["model"]),
        str(row.get("protocol") or "active"),
        str(row.get("summary") or NO_SUMMARY),
    )


def stop_reason(row: Mapping[str, Any]) -> str:
    """Why the episode ended; a row without a stop reason counts as a harness ``error``."""
    return str(row.get("stop_reason") or "error")


def deduplicate(items: Iterable[T], row: Callable[[T], Mapping[str, Any]]) -> tuple[list[T], int]:
    """One item per episode, judged by each item's result ``row``, and how many items were superseded.

    Items are kept in the order their episodes first appear; an item whose row names no episode (see
    :func:`episode_key`) is dropped and not counted.
    """
    chosen: dict[EpisodeKey, T] = {}
    seen = 0
    for item in items:
        data = row(item)
        try:
            key = episode_key(data)
        except (KeyError, ValueError, TypeError):
            continue
        seen += 1
        previous = chosen.get(key)
        if previous is None or stop_reason(row(previous)) in FAILURES or stop_reason(data) not in FAILURES:
            chosen[key] = item
    return list(chosen.values()), seen - len(chosen)
