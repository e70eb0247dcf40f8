"""Result rows: the episode key and the one de-duplication policy."""

from __future__ import annotations

from typing import Any

import pytest

from actloop.records.results import deduplicate, episode_key

BASE = {"task": "t", "seed": 1, "run": 1, "model": "m"}


def rows_chosen(*stops: str | None, **extra: Any) -> tuple[list[int], int]:
    rows = [{**BASE, **extra, "stop_reason": stop, "n": n} for n, stop in enumerate(stops)]
    chosen, superseded = deduplicate(rows, lambda row: row)
    return [row["n"] for row in chosen], superseded


def test_episode_key_defaults_and_errors() -> None:
    assert episode_key(BASE) == ("vabench", "t", 1, 1, "m", "active", "none")
    assert episode_key({**BASE, "summary": None, "seed": "1"}) == episode_key(BASE)
    for bad in ({"task": "t"}, {**BASE, "seed": "x"}, {**BASE, "run": None}):
        with pytest.raises((KeyError, ValueError, TypeError)):
            episode_key(bad)


@pytest.mark.parametrize(
    ("stops", "kept"),
    [
        (("success", "infra_error"), 0),  # a completed row is not replaced by a later failure
        (("infra_error", "budget"), 1),  # a completed retry replaces the failure
        ((None, "stop"), 1),  # a row without a stop reason is a harness error
        (("budget", "success"), 1),  # otherwise the later row wins
        (("error", "infra_error"), 1),
    ],
)
def test_one_row_per_episode(stops: tuple[str | None, ...], kept: int) -> None:
    assert rows_chosen(*stops) == ([kept], 1)


def test_episodes_keep_their_first_position_and_rows_without_a_key_are_dropped() -> None:
    rows = [BASE, {**BASE, "seed": 2}, {"task": "t"}, {**BASE, "summary": "own"}, {**BASE, "run": "1"}]
    chosen, superseded = deduplicate(rows, lambda row: row)
    assert chosen == [{**BASE, "run": "1"}, {**BASE, "seed": 2}, {**BASE, "summary": "own"}]
    assert superseded == 1
