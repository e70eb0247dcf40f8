"""Run episodes through Inspect and return their result rows as written to ``results.jsonl``."""

from __future__ import annotations

from typing import Any

from actloop.runs.inspect_run import run_episodes


def run_json(*args: Any, **kwargs: Any) -> list[dict[str, Any]]:
    """:func:`~actloop.runs.inspect_run.run_episodes` with each row in its JSON form."""
    return [row.to_json() for row in run_episodes(*args, **kwargs)]
