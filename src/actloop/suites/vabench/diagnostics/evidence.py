"""What an annotator or a judge may see of an episode: the record as the viewer shows it, minus checker state.

The seed's annotators inspect the instruction, the model-facing RGB frames, camera and robot actions,
action validity, planner outcomes, the resulting scene changes and the terminal task state. Annotators and
judges get exactly that here. The evaluator-side checker state the recorder keeps after every action
(``evaluation``) and the checker's failed conditions are removed: diagnostics must come from visible
behaviour, and the only checker fact shown is the terminal outcome (success, stop reason, steps used).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from actloop.errors import RecordError
from actloop.records.paths import inside
from actloop.records.recorder import EVENTS_FILE
from actloop.records.results import counted_rows
from actloop.viewer.steps import episode_data, safe_relative

CHECKER_FIELDS = ("evaluation",)
"""Per-action fields of ``env_step`` events that hold checker state, never shown."""
TERMINAL_FIELDS = ("success", "stop_reason", "steps", "budget", "error")
"""The only fields of the result that are shown: the terminal outcome."""


@dataclass(frozen=True)
class RunEpisode:
    """An episode of a run with a readable record: its name (the record directory's) and directory."""

    name: str
    task: str
    seed: int
    record_dir: Path


def run_episodes(run_dir: Path) -> list[RunEpisode]:
    """The counted episodes of ``run_dir`` that have an episode record inside ``run_dir``, in results
    order (a ``record_dir`` leading outside the run is never followed)."""
    episodes = []
    for row in counted_rows(run_dir):
        if row.record_dir is None or not safe_relative(row.record_dir):
            continue
        try:
            inside(run_dir, row.record_dir)
        except RecordError:
            continue
        record_dir = run_dir / row.record_dir
        if (record_dir / EVENTS_FILE).is_file():
            episodes.append(RunEpisode(record_dir.name, row.task, row.seed, record_dir))
    return episodes


def episode_evidence(record_dir: Path) -> dict[str, Any]:
    """The viewer's data for one episode with the checker state removed (see the module docstring)."""
    data = episode_data(record_dir)
    for step in data["steps"]:
        step["actions"] = [
            {key: value for key, value in action.items() if key not in CHECKER_FIELDS}
            for action in step["actions"]
        ]
    result = data.get("result") or {}
    data["result"] = {key: result[key] for key in TERMINAL_FIELDS if key in result}
    return data
